// gemm_tune's plan (tools/tune_plan.h) with fake devices: GPUs of one model
// split the shapes, GPUs of different models each tune all of them, ranks
// take disjoint shares, and the record of each device key is its own; and
// --device local: the launcher's node-local rank picks the GPU, --plan names
// it and refuses a --device value a real run would refuse.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "fake_device.h"
#include "tune_plan.h"
#include "autogemm/shape_spec.h"

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

// ---- --device local, and --plan refusing what a run would refuse ----------------

const LocalRank kOmpiLocal3{3, 4, "OMPI_COMM_WORLD_LOCAL_RANK"};

TEST(DeviceLocal, TheLocalRankModuloTheVisibleGpus) {
  EXPECT_EQ(local_device(kOmpiLocal3, 8), 3);
  EXPECT_EQ(local_device(kOmpiLocal3, 2), 1);
  EXPECT_EQ(local_device(LocalRank{1, 0, "SLURM_LOCALID"}, 1), 0);
  EXPECT_THROW(local_device(kOmpiLocal3, 0), std::invalid_argument);
}

TEST(DeviceLocal, OutsideALauncherItIsRefusedWithWhatToType) {
  try {
    local_device(LocalRank{}, 2);
    FAIL() << "--device local outside a launcher was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--device 0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(plan_device_text("local", LocalRank{}, -1), std::invalid_argument);
}

TEST(DeviceLocal, ThePlanNamesTheRanksGpu) {
  EXPECT_EQ(plan_device_text("local", LocalRank{1, 2, "OMPI_COMM_WORLD_LOCAL_RANK"}, -1),
            "local rank 1 of 2 ($OMPI_COMM_WORLD_LOCAL_RANK) -> GPU 1 (modulo the visible GPUs)");
  EXPECT_EQ(plan_device_text("local", kOmpiLocal3, 2),
            "local rank 3 of 4 ($OMPI_COMM_WORLD_LOCAL_RANK) -> GPU 1 (modulo the 2 $CUDA_VISIBLE_DEVICES shows)");
  EXPECT_EQ(plan_device_text("0,2", LocalRank{}, -1), "GPUs 0,2");
  EXPECT_EQ(plan_device_text("all", LocalRank{}, -1), "every GPU of this host");
}

TEST(DeviceLocal, ThePlanRefusesWhatARunWouldRefuse) {
  for (const char* bad : {"banana", "", "0,0", "-1", "1,x", "local0"})
    EXPECT_THROW(plan_device_text(bad, kOmpiLocal3, -1), std::invalid_argument) << "'" << bad << "'";
  EXPECT_THROW(plan_device_text("2", LocalRank{}, 2), std::invalid_argument);  // only 2 visible
  EXPECT_THROW(plan_device_text("all", LocalRank{}, 0), std::invalid_argument);
  EXPECT_NO_THROW(plan_device_text("1", LocalRank{}, 2));
}

TEST(DeviceLocal, VisibleGpusAreCountedFromTheEnvironment) {
  const char* saved = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string keep = saved ? saved : "";
  unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(visible_gpu_count_from_environment(), -1);
  setenv("CUDA_VISIBLE_DEVICES", "2,3", 1);
  EXPECT_EQ(visible_gpu_count_from_environment(), 2);
  setenv("CUDA_VISIBLE_DEVICES", "GPU-5f3c0a2e-1111-2222-3333-444455556666", 1);
  EXPECT_EQ(visible_gpu_count_from_environment(), 1);
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  EXPECT_EQ(visible_gpu_count_from_environment(), 0);
  setenv("CUDA_VISIBLE_DEVICES", "0,,1", 1);
  EXPECT_EQ(visible_gpu_count_from_environment(), -1);
  if (saved) setenv("CUDA_VISIBLE_DEVICES", keep.c_str(), 1); else unsetenv("CUDA_VISIBLE_DEVICES");
}

}  // namespace
}  // namespace autogemm
