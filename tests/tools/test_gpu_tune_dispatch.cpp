// gemm_tune fills a cache; a second process (the example program) dispatches
// the tuned kernel from it without invoking NVRTC, and compiles it instead
// once the file is writable by others. Without a GPU, gemm_tune
// must fail with one clear sentence (that part runs everywhere).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "autogemm/cuda_driver.h"
#include "run_command.h"

namespace {

using Output = autogemm::testing::CommandOutput;
Output run(const std::string& cmd) { return autogemm::testing::run_command(cmd); }

// Tools live in the build tree at a fixed place relative to this binary.
std::string tool(const char* name) {
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string dir = n > 0 ? std::string(self, size_t(n)) : std::string();
  dir = dir.substr(0, dir.rfind('/'));
  return dir + "/" + TOOLS_REL + "/" + name;
}

const std::string GEMM_TUNE = tool("gemm_tune");
const std::string SGEMM_EXAMPLE = tool("sgemm_example");

std::string temp_dir() {
  char tmpl[] = "/tmp/autogemm-tune-XXXXXX";
  return mkdtemp(tmpl) ? tmpl : "";
}

TEST(GemmTuneCli, WithoutGpuFailsWithOneClearSentence) {
  std::string why;
  if (autogemm::gpu_available(&why)) GTEST_SKIP() << "a GPU is present; this checks the GPU-less behaviour";
  const std::string dir = temp_dir();
  Output o = run(GEMM_TUNE + " --device 0 --db " + dir + "/t.db");
  EXPECT_NE(o.status, 0);
  EXPECT_NE(o.text.find("no CUDA GPU is available"), std::string::npos) << o.text;
  run("rm -rf " + dir);
}

TEST(GpuTuneDispatch, SecondProcessDispatchesFromCacheWithoutNvrtc) {
  std::string why;
  if (!autogemm::gpu_available(&why)) GTEST_SKIP() << "no GPU on this machine: " << why;
  const std::string dir = temp_dir();
  const std::string db = dir + "/tuning.db";
  Output t = run(GEMM_TUNE + " --device 0 --db " + db + " --shape 384x320x256 --budget 6");
  ASSERT_EQ(t.status, 0) << t.text;
  EXPECT_NE(t.text.find("384x320x256"), std::string::npos) << t.text;

  Output e = run("AUTOGEMM_LOG_LEVEL=info AUTOGEMM_CACHE=" + db + " " + SGEMM_EXAMPLE + " 384 320 256");
  ASSERT_EQ(e.status, 0) << e.text;
  EXPECT_NE(e.text.find("correct"), std::string::npos) << e.text;
  EXPECT_NE(e.text.find("exact=1"), std::string::npos) << e.text;
  EXPECT_NE(e.text.find("nvrtc_compiles=0"), std::string::npos) << e.text;
  EXPECT_NE(e.text.find("cubins_loaded=1"), std::string::npos) << e.text;

  // A second tune of the same shape resumes: nothing to redo.
  Output again = run(GEMM_TUNE + " --device 0 --db " + db + " --shape 384x320x256 --budget 6");
  ASSERT_EQ(again.status, 0) << again.text;
  EXPECT_NE(again.text.find("already tuned"), std::string::npos) << again.text;

  // The same cache made writable by the group: its cubins are code someone
  // else could have put there. The tuned config still runs, compiled here,
  // and the log says why once.
  ASSERT_EQ(run("chmod g+w " + db).status, 0);
  Output shared = run("AUTOGEMM_LOG_LEVEL=info AUTOGEMM_CACHE=" + db + " " + SGEMM_EXAMPLE + " 384 320 256");
  ASSERT_EQ(shared.status, 0) << shared.text;
  EXPECT_NE(shared.text.find("exact=1"), std::string::npos) << shared.text;
  EXPECT_NE(shared.text.find("nvrtc_compiles=1"), std::string::npos) << shared.text;
  EXPECT_NE(shared.text.find("cubins_loaded=0"), std::string::npos) << shared.text;
  EXPECT_NE(shared.text.find("stored kernels are not loaded"), std::string::npos) << shared.text;
  run("rm -rf " + dir);
}

}  // namespace
