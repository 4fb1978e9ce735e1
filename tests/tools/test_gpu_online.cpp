// GPU: AUTOGEMM_TUNE=1 (online tuning). The first call of an untuned shape is
// correct at once (the dispatch policy's plan) and starts gemm_tune on it in
// the background; while a stream captures a CUDA graph no tuning starts and
// the captured call is still right when the graph runs; once the tuning is
// stored, the same process dispatches the shape as an exact hit and it stays
// correct. The cache is a fresh file the tuning itself creates.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <thread>

#include "autogemm/autogemm.h"
#include "autogemm/cuda_driver.h"
#include "autogemm/verifier.h"
#include "autogemm/shape_spec.h"
#include "gpu_fixture.h"
#include "kill_child.h"

namespace autogemm {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::temp_directory_path() / ("autogemm_online_gpu_" + std::to_string(::getpid()));

// Before main, so the dispatcher reads them when it is first used.
const bool kEnvironment = [] {
  fs::create_directories(kDir);
  ::setenv("AUTOGEMM_TUNE", "1", 1);
  ::setenv("AUTOGEMM_TUNE_SECONDS", "120", 1);
  ::setenv("AUTOGEMM_GEMM_TUNE", testing::beside_self(TOOLS_REL, "gemm_tune").c_str(), 1);
  ::setenv("AUTOGEMM_CACHE", (kDir / "tuning.db").c_str(), 1);
  return true;
}();

// Removes the directory at exit, also when the binary only lists its tests
// or skips them: every run creates one, and none may be left in /tmp.
const struct RemoveDirAtExit {
  ~RemoveDirAtExit() {
    std::error_code ignored;
    fs::remove_all(kDir, ignored);
  }
} kRemoveDirAtExit;

class GpuOnline : public testing::GpuTest {
 protected:
  /// One row-major NN call through the C API on `s`, checked.
  VerifyResult run(Verifier& ver, CUstream s) {
    const CanonicalCall& c = ver.call();
    const Problem& p = c.problem;
    ver.prepare(s);
    EXPECT_EQ(autogemm_sgemm(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, int(p.m), int(p.n), int(p.k),
                             c.alpha, c.a, int(p.lda), c.b, int(p.ldb), c.beta, c.c, int(p.ldc), s),
              AUTOGEMM_SUCCESS)
        << autogemm_last_error();
    return ver.check(s);
  }
  autogemm_plan_source source(const Verifier& ver) {
    const CanonicalCall& c = ver.call();
    const Problem& p = c.problem;
    autogemm_plan_info info{};
    EXPECT_EQ(autogemm_describe_plan(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, int(p.m), int(p.n),
                                     int(p.k), c.a, int(p.lda), c.b, int(p.ldb), c.c, int(p.ldc), &info),
              AUTOGEMM_SUCCESS);
    return info.source;
  }
};

TEST_F(GpuOnline, TheFirstCallIsRightAndTheShapeIsTunedInTheBackground) {
  ASSERT_TRUE(kEnvironment);
  Stream st;
  // Captured first: the graph's call is right, and no tuning starts.
  const Problem captured = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 200, 136, 72, true);
  Verifier vc(captured, dev_, 1.0f, 0.0f, 5);
  vc.prepare(st.get());
  AUTOGEMM_CU(cuStreamSynchronize(st.get()));
  CUgraph graph = nullptr;
  ASSERT_EQ(driver().cuStreamBeginCapture(st.get(), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), CUDA_SUCCESS);
  const CanonicalCall& cc = vc.call();
  ASSERT_EQ(autogemm_sgemm(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 200, 136, 72, 1.0f, cc.a,
                           int(captured.lda), cc.b, int(captured.ldb), 0.0f, cc.c, int(captured.ldc), st.get()),
            AUTOGEMM_SUCCESS)
      << autogemm_last_error();
  ASSERT_EQ(driver().cuStreamEndCapture(st.get(), &graph), CUDA_SUCCESS);
  CUgraphExec exec = nullptr;
  ASSERT_EQ(driver().cuGraphInstantiate(&exec, graph, 0), CUDA_SUCCESS);
  ASSERT_EQ(driver().cuGraphLaunch(exec, st.get()), CUDA_SUCCESS);
  const VerifyResult rc = vc.check(st.get());
  EXPECT_TRUE(rc.ok) << "captured call: " << rc.why;
  driver().cuGraphExecDestroy(exec);
  driver().cuGraphDestroy(graph);
  EXPECT_FALSE(fs::exists(kDir / "tuning.db")) << "a tuning started during capture";

  // Outside capture: right at once, then tuned and exact.
  const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 384, 320, 256, true);
  Verifier ver(p, dev_, 1.0f, 0.0f, 9);
  const VerifyResult first = run(ver, st.get());
  EXPECT_TRUE(first.ok) << first.why;
  EXPECT_NE(source(ver), AUTOGEMM_PLAN_EXACT);
  const auto t0 = std::chrono::steady_clock::now();
  bool exact = false;
  while (!exact && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(150)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const VerifyResult r = run(ver, st.get());  // a call also picks up a finished tuning
    ASSERT_TRUE(r.ok) << r.why;
    exact = source(ver) == AUTOGEMM_PLAN_EXACT;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(exact) << "no exact plan after " << s << " s of online tuning";
  std::printf("online tuning of 384x320x256: exact after %.1f s\n", s);
  const VerifyResult tuned = run(ver, st.get());
  EXPECT_TRUE(tuned.ok) << tuned.why;
  // The captured shape was never asked for; its first call outside capture would be.
  autogemm_stats stats{};
  autogemm_get_stats(&stats);
  EXPECT_GE(stats.exact_hits, 1u);
  fs::remove_all(kDir);
}

}  // namespace
}  // namespace autogemm
