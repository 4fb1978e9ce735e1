// OnlineTuner on the CPU, with stand-in tuners (shell scripts) for
// gemm_tune: the arguments it is given, each shape asked once, one tuning at
// a time, nothing during graph capture (and the shape still eligible after),
// a success reported once, a failure reported as none, the time limit
// enforced with SIGINT then SIGKILL, and the environment's settings.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "autogemm/online_tuner.h"

namespace autogemm {
namespace {

namespace fs = std::filesystem;

class OnlineTunerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("autogemm_online_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A stand-in tuner: appends its arguments to `calls`, then runs `body`.
  std::string tuner(const std::string& body) {
    const fs::path p = dir_ / "gemm_tune";
    std::ofstream(p) << "#!/bin/sh\necho \"$@\" >> '" << (dir_ / "calls").string() << "'\n" << body << "\n";
    fs::permissions(p, fs::perms::owner_all);
    return p.string();
  }
  std::string calls() const {
    std::ifstream in(dir_ / "calls");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  OnlineTuner::Settings settings(const std::string& path) const {
    OnlineTuner::Settings s;
    s.enabled = true;
    s.tuner = path;
    s.budget = 7;
    return s;
  }

  fs::path dir_;
};

ShapeKey shape(int64_t m, bool aligned = true, int64_t batch = 1) {
  ShapeKey s{m, 256, 128, false, true, aligned};
  s.batch = batch;
  return s;
}

TEST_F(OnlineTunerTest, RunsGemmTuneOnTheShapeOnceAndReportsTheSuccessOnce) {
  OnlineTuner t(settings(tuner("exit 0")));
  ASSERT_TRUE(t.enabled());
  EXPECT_TRUE(t.request("/tmp/c.db", 1, shape(64), false));
  EXPECT_TRUE(t.wait_idle());
  EXPECT_TRUE(t.take_finished());
  EXPECT_FALSE(t.take_finished());  // once
  EXPECT_FALSE(t.request("/tmp/c.db", 1, shape(64), false));  // asked before
  EXPECT_EQ(calls(), "--device 1 --db /tmp/c.db --shape 64x256x128:NT --budget 7\n");
  EXPECT_TRUE(t.request("/tmp/c.db", 1, shape(64, false, 16), false));  // the unaligned class of a batch
  t.wait_idle();
  EXPECT_NE(calls().find("--shape 64x256x128:NT@16 --budget 7 --unaligned"), std::string::npos) << calls();
}

TEST_F(OnlineTunerTest, TheTunerDoesNotSeeTheLaunchersRank) {
  const char* env[] = {"PATH=/bin", "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2", "SLURM_PROCID=3",
                       "SLURM_JOB_ID=7", "OMPI_MCA_x=1", "AUTOGEMM_CACHE=/tmp/c.db", nullptr};
  const std::vector<std::string> out = OnlineTuner::child_environment(env);
  EXPECT_EQ(out, (std::vector<std::string>{"PATH=/bin", "SLURM_JOB_ID=7", "OMPI_MCA_x=1", "AUTOGEMM_CACHE=/tmp/c.db"}));
  // And the tuner really starts without them.
  ::setenv("OMPI_COMM_WORLD_RANK", "1", 1);
  OnlineTuner t(settings(tuner("echo \"rank=${OMPI_COMM_WORLD_RANK:-none}\" >> '" + (dir_ / "calls").string() + "'")));
  EXPECT_TRUE(t.request("/tmp/c.db", 0, shape(32), false));
  t.wait_idle();
  ::unsetenv("OMPI_COMM_WORLD_RANK");
  EXPECT_NE(calls().find("rank=none"), std::string::npos) << calls();
}

TEST_F(OnlineTunerTest, OneAtATimeAndNeverDuringGraphCapture) {
  OnlineTuner t(settings(tuner("sleep 1")));
  EXPECT_FALSE(t.request("/tmp/c.db", 0, shape(32), true));  // capturing: not now
  EXPECT_TRUE(t.request("/tmp/c.db", 0, shape(32), false));  // still eligible after
  EXPECT_FALSE(t.request("/tmp/c.db", 0, shape(48), false));  // one runs
  EXPECT_TRUE(t.wait_idle());
  EXPECT_TRUE(t.request("/tmp/c.db", 0, shape(48), false));  // its turn now
  EXPECT_TRUE(t.wait_idle());
  EXPECT_TRUE(t.request("/tmp/c.db", 1, shape(48), false));  // another GPU is another request
  t.wait_idle();
}

TEST_F(OnlineTunerTest, AFailedTuningIsNoWinnerAndIsNotRetried) {
  OnlineTuner t(settings(tuner("exit 3")));
  EXPECT_TRUE(t.request("/tmp/c.db", 0, shape(16), false));
  EXPECT_FALSE(t.wait_idle());
  EXPECT_FALSE(t.take_finished());
  EXPECT_FALSE(t.request("/tmp/c.db", 0, shape(16), false));
}

TEST_F(OnlineTunerTest, TheTimeLimitInterruptsThenKills) {
  // Ignores SIGINT (a tuner that does not stop): SIGKILL ends it after the grace.
  OnlineTuner::Settings s = settings(tuner("trap '' INT\nsleep 30"));
  s.seconds = 0.3;
  s.grace = 0.3;
  OnlineTuner t(s);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(t.request("/tmp/c.db", 0, shape(8), false));
  EXPECT_FALSE(t.wait_idle());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_FALSE(t.take_finished());
}

TEST_F(OnlineTunerTest, OffOrWithoutATunerNothingStarts) {
  OnlineTuner::Settings s = settings(tuner("exit 0"));
  s.enabled = false;
  EXPECT_FALSE(OnlineTuner(s).request("/tmp/c.db", 0, shape(8), false));
  s.enabled = true;
  s.tuner.clear();
  OnlineTuner none(s);
  EXPECT_FALSE(none.enabled());
  EXPECT_FALSE(none.request("/tmp/c.db", 0, shape(8), false));
  EXPECT_EQ(calls(), "");
}

TEST_F(OnlineTunerTest, SettingsComeFromTheEnvironment) {
  const std::string path = tuner("exit 0");
  ::setenv("AUTOGEMM_TUNE", "1", 1);
  ::setenv("AUTOGEMM_GEMM_TUNE", path.c_str(), 1);
  ::setenv("AUTOGEMM_TUNE_BUDGET", "12", 1);
  ::setenv("AUTOGEMM_TUNE_SECONDS", "soon", 1);
  std::vector<std::string> warnings;
  OnlineTuner::Settings s = OnlineTuner::from_environment(&warnings);
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.tuner, path);
  EXPECT_EQ(s.budget, 12);
  EXPECT_EQ(s.seconds, 60);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("AUTOGEMM_TUNE_SECONDS='soon'"), std::string::npos) << warnings[0];
  ::setenv("AUTOGEMM_GEMM_TUNE", (dir_ / "missing").c_str(), 1);
  warnings.clear();
  s = OnlineTuner::from_environment(&warnings);
  EXPECT_TRUE(s.tuner.empty());
  EXPECT_EQ(warnings.size(), 2u);  // the seconds, and no gemm_tune
  ::setenv("AUTOGEMM_TUNE", "maybe", 1);
  warnings.clear();
  EXPECT_FALSE(OnlineTuner::from_environment(&warnings).enabled);
  for (const char* v : {"AUTOGEMM_TUNE", "AUTOGEMM_GEMM_TUNE", "AUTOGEMM_TUNE_BUDGET", "AUTOGEMM_TUNE_SECONDS"})
    ::unsetenv(v);
}

}  // namespace
}  // namespace autogemm
