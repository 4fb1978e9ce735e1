// Fleet: how one tuning request spreads over the GPUs of a host and over the
// processes of a launch, decided without any process talking to another.
//
//   shapes --(launch rank: mpirun / srun)--> this process's share
//          --(device key)--> each GPU of this host its list (tools/tune_plan.h)
//
// Several hosts ride an existing launcher rather than a protocol of our own:
// mpirun or srun starts one gemm_tune per rank, each reads its rank from the
// environment the launcher sets, tunes its share into its own cache file,
// and `autogemm_cache merge` combines the files. Every split here is
// deterministic (same input, same answer in every process), so the shares
// are disjoint and cover every shape without a message passing between them.
#pragma once

#include <string>
#include <vector>

#include "autogemm/problem.h"
#include "autogemm/tuning_keys.h"

namespace autogemm {

/// This process's place in a launch of `size` processes.
struct LaunchRank {
  int rank = 0;
  int size = 1;
  std::string source;  ///< the variable it came from ("OMPI_COMM_WORLD_RANK", ...); empty: not launched
};

/// The rank the launcher put in the environment: Open MPI
/// (OMPI_COMM_WORLD_RANK / _SIZE), PMIx (PMIX_RANK with OMPI or Slurm's size),
/// MPICH and Intel MPI (PMI_RANK / PMI_SIZE), Slurm (SLURM_PROCID /
/// SLURM_NTASKS), looked for in that order; rank 0 of 1 when there is none.
/// Throws std::invalid_argument naming the variable when a value is not a
/// number, or the rank is not below the size.
LaunchRank launch_rank_from_environment();

/// This process's place among the processes of its launch on this host
/// (node-local rank): what picks its GPU (--device local) and its share of
/// the host's CPUs.
struct LocalRank {
  int rank = 0;
  int size = 0;        ///< processes of the launch on this host; 0: the launcher did not say
  std::string source;  ///< the variable the rank came from; empty: not launched
};

/// The node-local rank the launcher put in the environment: Open MPI (also
/// under PMIx, whose own local rank is a PMIx key, not a variable)
/// OMPI_COMM_WORLD_LOCAL_RANK / _LOCAL_SIZE, MPICH Hydra and Intel MPI
/// MPI_LOCALRANKID / MPI_LOCALNRANKS, Cray PMI PMI_LOCAL_RANK / PMI_LOCAL_SIZE,
/// Slurm SLURM_LOCALID with the tasks of this node (SLURM_STEP_TASKS_PER_NODE
/// or SLURM_TASKS_PER_NODE at SLURM_NODEID, else SLURM_NTASKS_PER_NODE),
/// looked for in that order (mpirun inside a Slurm allocation sets its own
/// variables beside the allocation's). Rank 0 of 0, no source, when there is
/// none. Throws std::invalid_argument naming a variable that is not a number,
/// or a rank not below its size.
LocalRank local_rank_from_environment();

/// The count of tasks of node `node` in Slurm's compressed per-node list
/// ("2(x3),1": nodes 0-2 run 2, node 3 runs 1); 0 when the text does not
/// say (malformed, or too few nodes).
int slurm_tasks_on_node(const std::string& text, int node);

/// Seconds a tuning of `p` is expected to take, for balancing only: a fixed
/// part (compiling, worker start-up) and a part that grows with the work.
double tuning_cost_estimate(const Problem& p);

/// Splits items of the given costs into `parts` groups of nearly equal total:
/// most costly first, each onto the least loaded group (lowest index on a
/// tie); each group keeps the items' original order. Deterministic.
std::vector<std::vector<size_t>> balance(const std::vector<double>& costs, int parts);

/// "all" (every ordinal below `count`) or a comma-separated list of distinct
/// ordinals below `count`, e.g. "0,2". Throws std::invalid_argument naming
/// the bad entry.
std::vector<int> parse_device_list(const std::string& text, int count);

/// The cache file of one rank: `pattern` with every "{rank}" replaced by the
/// rank. With more than one rank a pattern without "{rank}" is refused
/// (std::invalid_argument): the ranks may run on different hosts, and each
/// writes its own file for `autogemm_cache merge`.
std::string rank_cache_path(const std::string& pattern, const LaunchRank& r);

}  // namespace autogemm
