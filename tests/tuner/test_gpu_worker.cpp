// GPU: faulting candidates cost a worker process, not the tuning.
//
// A small problem is tuned with a few real candidates plus the three kernels
// of tests/tuner/broken_kernels.cu injected (trap, far out-of-bounds read,
// endless loop). Expected: trap and out-of-bounds -> Crashed with the CUDA
// error named, endless loop -> Timeout at the (short) deadline, each broken
// worker replaced, and the tuner still returns a verified winner that is not
// injected. The winner's cubin then runs correctly in this process, whose own
// context never saw a faulting kernel.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>

#include "autogemm/kernel_launch.h"
#include "autogemm/tuner.h"
#include "autogemm/verifier.h"
#include "autogemm/worker.h"
#include "autogemm/shape_spec.h"
#include "broken_kernels_source.h"
#include "gpu_fixture.h"

namespace autogemm {
namespace {

class GpuWorker : public testing::GpuTest {};

/// The worker of this build; for a build tree copied elsewhere (as
/// scripts/gpu_check.sh does), tools/ beside this program's tests/ folder.
std::string worker_path() {
  if (access(AUTOGEMM_TEST_WORKER, X_OK) == 0) return AUTOGEMM_TEST_WORKER;
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  const std::string exe(self, size_t(n > 0 ? n : 0));
  return exe.substr(0, exe.rfind('/')) + "/../tools/" + Worker::kExecutable;
}

TEST_F(GpuWorker, FaultingCandidatesAreRecordedAndTuningFindsAVerifiedWinner) {
  const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 256, 256, 256, true);
  TuneOptions opt;
  opt.budget = 4;
  opt.worker_path = worker_path();
  opt.candidate_timeout_s = 3.0;
  const char* names[] = {"trap", "oob", "hang"};
  // The broken kernels stand in for agemm_tiled: a tiled config, whatever
  // family the default of this shape is.
  const std::optional<KernelConfig> tiled = TiledFamily::instance().default_config(p);
  ASSERT_TRUE(tiled.has_value());
  for (int mode : {1, 2, 3})
    opt.injected.push_back({*tiled, kBrokenKernelsSource, std::string("broken_kernels.cu:") + names[mode - 1],
                            {"-DAG_BROKEN_MODE=" + std::to_string(mode)}});
  const auto t0 = std::chrono::steady_clock::now();
  const TuneResult r = Tuner(dev_, opt).tune(p);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::vector<const Candidate*> broken;
  for (const Candidate& c : r.candidates) {
    if (c.injected) broken.push_back(&c);
    else
      EXPECT_EQ(c.trial.status, TrialStatus::Ok) << c.trial.config << ": " << c.trial.detail;
  }
  ASSERT_EQ(broken.size(), 3u);
  EXPECT_EQ(broken[0]->trial.status, TrialStatus::Crashed) << broken[0]->trial.detail;
  EXPECT_NE(broken[0]->trial.detail.find("CUDA_ERROR"), std::string::npos) << broken[0]->trial.detail;
  EXPECT_EQ(broken[1]->trial.status, TrialStatus::Crashed) << broken[1]->trial.detail;
  EXPECT_NE(broken[1]->trial.detail.find("CUDA_ERROR"), std::string::npos) << broken[1]->trial.detail;
  EXPECT_EQ(broken[2]->trial.status, TrialStatus::Timeout) << broken[2]->trial.detail;
  // Each of the three broken candidates ends its worker; a new one starts
  // for whatever is measured after it. The first worker and one after each
  // of the first two make 3; a fourth when the hang is not the last measured
  // (the order follows the model's ranking, not the list).
  EXPECT_GE(r.workers_started, 3);
  EXPECT_LE(r.workers_started, 4);
  EXPECT_LT(took, 120.0) << "the hang was not cut at its 3 s deadline";

  ASSERT_TRUE(r.best.has_value()) << "no verified winner";
  const Candidate& best = r.candidates[*r.best];
  EXPECT_FALSE(best.injected);
  EXPECT_EQ(best.trial.status, TrialStatus::Ok);
  EXPECT_GT(best.trial.gflops, 0);
  ASSERT_FALSE(best.cubin.empty());

  // This process's context is healthy, and the winner computes the product.
  ASSERT_EQ(driver().cuCtxSynchronize(), CUDA_SUCCESS);
  Verifier ver(p, dev_, 1.0f, 0.0f, 7);
  Stream s;
  LoadedKernel k = LoadedKernel::load(best.config, best.cubin, dev_);
  DeviceBuffer ws(std::max<size_t>(best.config.workspace_floats(p), 1) * 4);
  AUTOGEMM_CU(cuMemsetD32(ws.get(), 0, ws.bytes() / 4));
  AUTOGEMM_CU(cuCtxSynchronize());  // the memset may still run when a non-blocking stream starts
  ver.prepare(s.get());
  k.launch(ver.call(), s.get(), ws.get());
  const VerifyResult vr = ver.check(s.get());
  EXPECT_TRUE(vr.ok) << vr.why;
}

}  // namespace
}  // namespace autogemm
