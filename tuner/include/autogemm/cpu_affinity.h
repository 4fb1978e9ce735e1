// The CPUs gemm_tune compiles on. The tuner sizes its NVRTC compile pool
// from the CPUs this process may run on (its affinity mask), not from the
// host's count: a process bound to 2 of 64 cores runs 2 compiles at once.
//
// Launchers bind their ranks for MPI compute codes: Open MPI's mpirun pins
// each of 2 ranks to one core by default, and a pinned gemm_tune compiles
// about ten times slower (issue 29). gemm_tune is not an MPI code (its CPU
// work is NVRTC, its GPU is its own), so when it runs under a launcher and
// its binding is narrower than its fair share of the host (the CPUs it may
// use / the launch's processes on this host), it widens its own affinity to
// a share disjoint from the other ranks' (picked by node-local rank) before
// any thread starts; the worker process inherits it. The ranks so never
// compete for a core, which is what the binding was for. Opting out
// (--keep-affinity, AUTOGEMM_KEEP_AFFINITY=1) keeps the binding and says
// what to type instead. Without a launcher a narrow mask is the user's own
// (taskset, a container's cpuset) and is kept.
#pragma once

#include <string>
#include <vector>

#include "autogemm/fleet.h"

namespace autogemm {

/// What to do with this process's CPU binding, and the one line saying so.
struct AffinityPlan {
  enum class Action { Keep, Widen, Warn };
  Action action = Action::Keep;
  std::vector<int> cpus;  ///< Widen: the CPUs to run on (a block of `host`)
  std::string message;    ///< empty for a silent Keep
};

/// The decision, from the CPUs this process may run on now (`current`), the
/// CPUs of this host it could be given (`host`: its cgroup's, else the
/// online ones), its node-local rank (`local`; size 0: unknown, then
/// `launch.size` processes are assumed on this host), its launch rank and
/// `keep` (the opt-out). Pure: no system call.
AffinityPlan plan_affinity(const std::vector<int>& current, const std::vector<int>& host, const LocalRank& local,
                           const LaunchRank& launch, bool keep);

/// The CPUs this process may run on now (sched_getaffinity), in order.
std::vector<int> affinity_cpus();

/// The CPUs of this host the process could run on: its cgroup's effective
/// cpuset (cgroup v2) if readable, else the online CPUs; at least `current`.
std::vector<int> host_cpus();

/// How many CPUs this process may run on (at least 1): the compile pool's size.
int usable_cpu_count();

/// "0-3,8,10-11" for a sorted CPU list; "0-3" parses back (parse_cpu_list).
std::string cpu_list_text(const std::vector<int>& cpus);

/// The CPUs of a Linux CPU list ("0-3,8"); empty when malformed.
std::vector<int> parse_cpu_list(const std::string& text);

/// plan_affinity for this process: its masks and the launcher's
/// environment; `keep` also holds when $AUTOGEMM_KEEP_AFFINITY is 1.
/// Changes nothing (gemm_tune --plan prints it).
AffinityPlan affinity_plan_of_this_process(bool keep);

/// Carries out affinity_plan_of_this_process: widens the affinity when it
/// says so (checking what the kernel granted) and logs its line. Call
/// before any thread starts: threads and child processes inherit it.
AffinityPlan fit_affinity_to_launch(bool keep);

}  // namespace autogemm
