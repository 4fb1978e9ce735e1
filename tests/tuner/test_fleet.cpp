// Fleet (autogemm/fleet.h) on the CPU: the rank a launcher sets, balanced and
// deterministic shares, --device lists, per-rank cache files.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "autogemm/fleet.h"
#include "autogemm/shape_spec.h"

namespace autogemm {
namespace {

/// Sets the launcher variables of one test and clears them afterwards.
class LaunchEnvironment : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* v : {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
                          "SLURM_PROCID", "SLURM_NTASKS"})
      unsetenv(v);
  }
};

TEST_F(LaunchEnvironment, NoLauncherIsRankZeroOfOne) {
  const LaunchRank r = launch_rank_from_environment();
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.size, 1);
  EXPECT_TRUE(r.source.empty());
}

TEST_F(LaunchEnvironment, EachLauncherIsRead) {
  setenv("SLURM_PROCID", "3", 1);
  setenv("SLURM_NTASKS", "8", 1);
  EXPECT_EQ(launch_rank_from_environment().rank, 3);
  EXPECT_EQ(launch_rank_from_environment().source, "SLURM_PROCID");
  setenv("PMI_RANK", "1", 1);
  setenv("PMI_SIZE", "2", 1);
  EXPECT_EQ(launch_rank_from_environment().source, "PMI_RANK");  // MPICH's before Slurm's
  setenv("OMPI_COMM_WORLD_RANK", "5", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "6", 1);
  const LaunchRank r = launch_rank_from_environment();
  EXPECT_EQ(r.rank, 5);
  EXPECT_EQ(r.size, 6);
  EXPECT_EQ(r.source, "OMPI_COMM_WORLD_RANK");
}

TEST_F(LaunchEnvironment, BadValuesAreNamed) {
  setenv("OMPI_COMM_WORLD_RANK", "2", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  try {
    launch_rank_from_environment();
    FAIL() << "rank 2 of 2 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("OMPI_COMM_WORLD_RANK"), std::string::npos) << e.what();
  }
  setenv("OMPI_COMM_WORLD_RANK", "one", 1);
  EXPECT_THROW(launch_rank_from_environment(), std::invalid_argument);
}

TEST(Balance, SharesAreDisjointCoverEverythingAndAreNearlyEqual) {
  std::vector<double> costs;
  for (int i = 0; i < 28; ++i) costs.push_back(4.0 + (i * 37 % 11) * (i % 3 ? 0.5 : 7.0));
  for (int parts : {1, 2, 3, 5, 40}) {
    const auto groups = balance(costs, parts);
    ASSERT_EQ(groups.size(), size_t(parts));
    std::vector<size_t> all;
    double lo = 1e300, hi = 0, biggest = *std::max_element(costs.begin(), costs.end());
    for (const auto& g : groups) {
      EXPECT_TRUE(std::is_sorted(g.begin(), g.end()));
      all.insert(all.end(), g.begin(), g.end());
      double load = 0;
      for (size_t i : g) load += costs[i];
      lo = std::min(lo, load), hi = std::max(hi, load);
    }
    std::sort(all.begin(), all.end());
    std::vector<size_t> want(costs.size());
    std::iota(want.begin(), want.end(), size_t{0});
    EXPECT_EQ(all, want) << parts << " parts";
    if (parts <= int(costs.size())) EXPECT_LE(hi - lo, biggest) << parts << " parts";  // greedy's bound
    EXPECT_EQ(balance(costs, parts), groups);  // the same split in every process
  }
  EXPECT_THROW(balance(costs, 0), std::invalid_argument);
}

TEST(Balance, CostGrowsWithTheWork) {
  const Problem small = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 128, 128, 128, true);
  const Problem big = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 8192, 8192, 8192, true);
  EXPECT_GT(tuning_cost_estimate(small), 0.0);
  EXPECT_GT(tuning_cost_estimate(big), 2 * tuning_cost_estimate(small));
}

TEST(DeviceList, AllListsAndErrors) {
  EXPECT_EQ(parse_device_list("all", 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(parse_device_list("0", 1), (std::vector<int>{0}));
  EXPECT_EQ(parse_device_list("2,0", 4), (std::vector<int>{2, 0}));
  for (const char* bad : {"", "x", "0,", "-1", "1,1", "4", "0;1", "all,1"}) {
    try {
      parse_device_list(bad, 4);
      ADD_FAILURE() << "'" << bad << "' accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--device"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_device_list("all", 0), std::invalid_argument);
}

TEST(RankCachePath, EachRankItsOwnFile) {
  EXPECT_EQ(rank_cache_path("/c/t.db", LaunchRank{}), "/c/t.db");
  EXPECT_EQ(rank_cache_path("/c/t.{rank}.db", LaunchRank{}), "/c/t.0.db");
  EXPECT_EQ(rank_cache_path("/c/{rank}/t.{rank}.db", LaunchRank{12, 16, "PMI_RANK"}), "/c/12/t.12.db");
  EXPECT_THROW(rank_cache_path("/c/t.db", LaunchRank{1, 2, "PMI_RANK"}), std::invalid_argument);
}

}  // namespace
}  // namespace autogemm
