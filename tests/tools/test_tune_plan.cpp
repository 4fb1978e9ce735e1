// gemm_tune's plan (tools/tune_plan.h) with fake devices: GPUs of one model
// split the shapes, GPUs of different models each tune all of them, ranks
// take disjoint shares, and the record of each device key is its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "fake_device.h"
#include "tune_plan.h"

namespace autogemm {
namespace {

std::vector<TuneJob> jobs(int n) {
  std::vector<TuneJob> out;
  for (int i = 1; i <= n; ++i) {
    const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 64 * i, 512, 256 * (i % 4 + 1), true);
    out.push_back({p.to_string(), p});
  }
  return out;
}

DeviceInfo gpu(int ordinal, const std::string& name) {
  DeviceInfo d = testing::fake_h200();
  d.ordinal = ordinal;
  d.name = name;
  return d;
}

std::multiset<std::string> labels(const std::vector<DeviceWork>& work, const std::vector<size_t>& which) {
  std::multiset<std::string> out;
  for (size_t w : which)
    for (const TuneJob& j : work[w].jobs) out.insert(j.label);
  return out;
}

TEST(TunePlan, SameModelSplitsOtherModelsTuneAll) {
  const std::vector<TuneJob> all = jobs(9);
  const std::vector<DeviceInfo> devices = {gpu(0, "fake H200"), gpu(1, "fake H200"), gpu(2, "fake L40S"),
                                           gpu(3, "fake H200")};
  const auto work = plan_devices(devices, LaunchRank{}, [&](const DeviceKey&) { return all; });
  ASSERT_EQ(work.size(), 4u);
  for (size_t i = 0; i < work.size(); ++i) EXPECT_EQ(work[i].ordinal, int(i));
  std::multiset<std::string> want;
  for (const TuneJob& j : all) want.insert(j.label);
  EXPECT_EQ(labels(work, {0, 1, 3}), want);  // the three H200s: each shape once
  EXPECT_EQ(labels(work, {2}), want);        // the L40S: every shape
  for (size_t w : {0, 1, 3}) EXPECT_FALSE(work[w].jobs.empty());
}

TEST(TunePlan, RanksTakeDisjointSharesOfEachKey) {
  const std::vector<TuneJob> all = jobs(11);
  const std::vector<DeviceInfo> devices = {gpu(0, "fake H200"), gpu(1, "fake H200")};
  std::multiset<std::string> seen;
  for (int rank = 0; rank < 3; ++rank) {
    const auto work = plan_devices(devices, LaunchRank{rank, 3, "PMI_RANK"}, [&](const DeviceKey&) { return all; });
    const auto mine = labels(work, {0, 1});
    seen.insert(mine.begin(), mine.end());
    EXPECT_EQ(rank_share(all, LaunchRank{rank, 3, "PMI_RANK"}).size(), mine.size());
  }
  std::multiset<std::string> want;
  for (const TuneJob& j : all) want.insert(j.label);
  EXPECT_EQ(seen, want);
}

TEST(TunePlan, EachDeviceKeyGetsItsOwnJobs) {
  const std::vector<DeviceInfo> devices = {gpu(0, "fake H200"), gpu(1, "fake L40S")};
  const auto work = plan_devices(devices, LaunchRank{}, [&](const DeviceKey& k) {
    return k.name == "fake H200" ? jobs(2) : jobs(5);  // e.g. each model's recorded shapes
  });
  EXPECT_EQ(work[0].jobs.size(), 2u);
  EXPECT_EQ(work[1].jobs.size(), 5u);
}

}  // namespace
}  // namespace autogemm
