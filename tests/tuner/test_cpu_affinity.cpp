// The compile pool's CPUs (autogemm/cpu_affinity.h) and the node-local rank
// (autogemm/fleet.h) on the CPU, with fake launcher environments: a rank a
// launcher pinned to one core widens to its disjoint share of the host, the
// opt-out warns instead, and without a launcher the mask is left alone.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <numeric>
#include <set>
#include <stdexcept>

#include "autogemm/cpu_affinity.h"

namespace autogemm {
namespace {

std::vector<int> range(int from, int to) {
  std::vector<int> v(size_t(to - from));
  std::iota(v.begin(), v.end(), from);
  return v;
}

const LaunchRank kOmpi1of2{1, 2, "OMPI_COMM_WORLD_RANK"};
const LocalRank kLocal1of2{1, 2, "OMPI_COMM_WORLD_LOCAL_RANK"};

TEST(CpuAffinity, AnOpenMpiRankPinnedToOneCoreWidensToItsHalf) {
  const AffinityPlan p = plan_affinity({1}, range(0, 16), kLocal1of2, kOmpi1of2, false);
  EXPECT_EQ(p.action, AffinityPlan::Action::Widen);
  EXPECT_EQ(p.cpus, range(8, 16));
  EXPECT_NE(p.message.find("to 1 CPU (1); widened to 8 CPUs (8-15)"), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("$OMPI_COMM_WORLD_LOCAL_RANK"), std::string::npos) << p.message;
}

TEST(CpuAffinity, TheRanksOfAHostGetDisjointSharesCoveringIt) {
  const std::vector<int> host = range(0, 14);
  std::multiset<int> seen;
  for (int r = 0; r < 3; ++r) {
    const AffinityPlan p = plan_affinity({r}, host, LocalRank{r, 3, "MPI_LOCALRANKID"}, LaunchRank{r, 3, "PMI_RANK"}, false);
    ASSERT_EQ(p.action, AffinityPlan::Action::Widen) << r;
    EXPECT_GE(p.cpus.size(), 4u);
    seen.insert(p.cpus.begin(), p.cpus.end());
  }
  EXPECT_EQ(seen, std::multiset<int>(host.begin(), host.end()));
}

TEST(CpuAffinity, ABindingOfAtLeastTheShareIsKeptSilently) {
  EXPECT_EQ(plan_affinity(range(0, 8), range(0, 16), kLocal1of2, kOmpi1of2, false).action, AffinityPlan::Action::Keep);
  const AffinityPlan unbound = plan_affinity(range(0, 16), range(0, 16), kLocal1of2, kOmpi1of2, false);
  EXPECT_EQ(unbound.action, AffinityPlan::Action::Keep);
  EXPECT_TRUE(unbound.message.empty());
  // More ranks than CPUs: a share of one core, which the binding already is.
  EXPECT_EQ(plan_affinity({3}, range(0, 4), LocalRank{3, 8, "SLURM_LOCALID"}, LaunchRank{3, 8, "SLURM_PROCID"}, false)
                .action,
            AffinityPlan::Action::Keep);
}

TEST(CpuAffinity, WithoutALauncherANarrowMaskIsTheUsersOwn) {
  const AffinityPlan p = plan_affinity({2}, range(0, 16), LocalRank{}, LaunchRank{}, false);
  EXPECT_EQ(p.action, AffinityPlan::Action::Keep);
  EXPECT_TRUE(p.message.empty());
}

TEST(CpuAffinity, KeepingTheBindingWarnsWithWhatToType) {
  const AffinityPlan ompi = plan_affinity({1}, range(0, 16), kLocal1of2, kOmpi1of2, true);
  EXPECT_EQ(ompi.action, AffinityPlan::Action::Warn);
  EXPECT_TRUE(ompi.cpus.empty());
  EXPECT_NE(ompi.message.find("compile pool has 1 of the 8 CPUs"), std::string::npos) << ompi.message;
  EXPECT_NE(ompi.message.find("mpirun --bind-to none"), std::string::npos) << ompi.message;
  const AffinityPlan slurm =
      plan_affinity({0}, range(0, 16), LocalRank{0, 2, "SLURM_LOCALID"}, LaunchRank{0, 2, "SLURM_PROCID"}, true);
  EXPECT_NE(slurm.message.find("srun --cpu-bind=none"), std::string::npos) << slurm.message;
}

TEST(CpuAffinity, AnUnknownLocalCountAssumesEveryRankOnThisHost) {
  const AffinityPlan p = plan_affinity({5}, range(0, 16), LocalRank{}, LaunchRank{1, 4, "PMI_RANK"}, false);
  EXPECT_EQ(p.action, AffinityPlan::Action::Widen);
  EXPECT_EQ(p.cpus, range(4, 8));
}

TEST(CpuAffinity, CpuListsRoundTrip) {
  EXPECT_EQ(cpu_list_text({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_TRUE(parse_cpu_list("3-1").empty());
  EXPECT_TRUE(parse_cpu_list("a").empty());
  EXPECT_GE(usable_cpu_count(), 1);
  EXPECT_EQ(size_t(usable_cpu_count()), affinity_cpus().size());
}

/// Sets the node-local launcher variables of one test and clears them afterwards.
class LocalEnvironment : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALRANKID",
                          "MPI_LOCALNRANKS", "PMI_LOCAL_RANK", "PMI_LOCAL_SIZE", "SLURM_LOCALID",
                          "SLURM_NTASKS_PER_NODE", "SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE", "SLURM_NODEID"})
      unsetenv(v);
  }
};

TEST_F(LocalEnvironment, NoLauncherHasNoLocalRank) {
  const LocalRank r = local_rank_from_environment();
  EXPECT_TRUE(r.source.empty());
  EXPECT_EQ(r.size, 0);
}

TEST_F(LocalEnvironment, EachLauncherIsReadOpenMpiFirst) {
  setenv("SLURM_LOCALID", "1", 1);
  setenv("SLURM_STEP_TASKS_PER_NODE", "4(x2),3", 1);
  setenv("SLURM_NODEID", "2", 1);
  LocalRank r = local_rank_from_environment();
  EXPECT_EQ(r.source, "SLURM_LOCALID");
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.size, 3);  // node 2 of "4(x2),3"
  setenv("MPI_LOCALRANKID", "2", 1);
  setenv("MPI_LOCALNRANKS", "4", 1);
  r = local_rank_from_environment();
  EXPECT_EQ(r.source, "MPI_LOCALRANKID");
  EXPECT_EQ(r.size, 4);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "0", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
  r = local_rank_from_environment();
  EXPECT_EQ(r.source, "OMPI_COMM_WORLD_LOCAL_RANK");
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.size, 2);
}

TEST_F(LocalEnvironment, ARankNotBelowItsCountOrNotANumberIsRefused) {
  setenv("MPI_LOCALRANKID", "4", 1);
  setenv("MPI_LOCALNRANKS", "4", 1);
  EXPECT_THROW(local_rank_from_environment(), std::invalid_argument);
  setenv("MPI_LOCALRANKID", "x", 1);
  EXPECT_THROW(local_rank_from_environment(), std::invalid_argument);
}

TEST(SlurmTasksPerNode, CompressedListsAreExpanded) {
  EXPECT_EQ(slurm_tasks_on_node("2", 0), 2);
  EXPECT_EQ(slurm_tasks_on_node("2(x3),1", 2), 2);
  EXPECT_EQ(slurm_tasks_on_node("2(x3),1", 3), 1);
  EXPECT_EQ(slurm_tasks_on_node("2(x3),1", 4), 0);
  EXPECT_EQ(slurm_tasks_on_node("2(3)", 0), 0);
}

}  // namespace
}  // namespace autogemm
