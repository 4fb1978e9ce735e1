// GPU: rotating timing runs on real copies of the operands and returns sane
// samples (no speed is asserted: speed is gemm_bench's business).
#include <gtest/gtest.h>

#include <vector>

#include "autogemm/benchmark.h"
#include "autogemm/kernel_families.h"
#include "autogemm/kernel_launch.h"
#include "autogemm/verifier.h"
#include "autogemm/shape_spec.h"
#include "gpu_fixture.h"

namespace autogemm {
namespace {

class GpuBenchmark : public testing::GpuTest {};

std::vector<float> download(const void* p, size_t floats) {
  std::vector<float> h(floats);
  AUTOGEMM_CU(cuMemcpyDtoH(h.data(), CUdeviceptr(reinterpret_cast<uintptr_t>(p)), floats * 4));
  return h;
}

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST_F(GpuBenchmark, CopiesHoldTheSameOperandsInTheSameAlignmentClass) {
  const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, true, 33, 65, 17, false);
  Verifier ver(p, dev_, 1.0f, 0.0f, 3);
  Stream stream;
  ver.prepare(stream.get());
  const RotatingOperands copies(p, ver.call(), size_t(dev_.l2_bytes), stream.get());
  ASSERT_EQ(copies.count(), RotatingOperands::copies_for(p, size_t(dev_.l2_bytes)));
  ASSERT_GT(copies.count(), 2);
  const CanonicalCall& first = copies.call(0);
  EXPECT_EQ(first.a, ver.call().a);
  const size_t a = size_t(p.m) * size_t(p.lda), b = size_t(p.n) * size_t(p.ldb);
  for (int i : {1, copies.count() - 1}) {
    const CanonicalCall& c = copies.call(i);
    EXPECT_NE(c.a, first.a);
    EXPECT_EQ(address(c.a) % 256, address(first.a) % 256);
    EXPECT_EQ(address(c.b) % 256, address(first.b) % 256);
    EXPECT_EQ(address(c.c) % 256, address(first.c) % 256);
    EXPECT_EQ(download(c.a, a), download(first.a, a)) << "copy " << i;
    EXPECT_EQ(download(c.b, b), download(first.b, b)) << "copy " << i;
  }
}

TEST_F(GpuBenchmark, RotatingTimingOfARealKernelGivesPositiveSamples) {
  const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 256, 256, 256, true);
  const KernelConfig cfg = default_config(p);
  Verifier ver(p, dev_, 1.0f, 0.0f, 5);
  Stream stream;
  ver.prepare(stream.get());
  const RotatingOperands copies(p, ver.call(), size_t(dev_.l2_bytes), stream.get());
  LoadedKernel k = LoadedKernel::load(cfg, compile_kernel(cfg, kernel_arch(cfg, dev_)).cubin, dev_);
  DeviceBuffer ws(std::max<size_t>(cfg.workspace_floats(p), 1) * 4);
  AUTOGEMM_CU(cuMemsetD32(ws.get(), 0, ws.bytes() / 4));
  AUTOGEMM_CU(cuCtxSynchronize());  // the memset may still run when a non-blocking stream starts
  std::vector<int> used(size_t(copies.count()), 0);
  auto launch = [&](CUstream s, int i) {
    ++used[size_t(i)];
    k.launch(copies.call(i), s, ws.get());
  };
  Benchmark bench(dev_, stream.get());
  TimingOptions opt;
  opt.min_runs = 4;
  const Timing t = bench.time_rotating(launch, copies.count(), opt);
  EXPECT_GE(t.runs, 4);
  EXPECT_GT(t.min_ms, 0);
  EXPECT_GE(t.median_ms, t.min_ms);
  for (size_t i = 0; i < used.size(); ++i) EXPECT_GT(used[i], 0) << "copy " << i << " never ran";
  EXPECT_GT(bench.once_rotating(launch, copies.count()), 0);
  // The timing left the kernel and the verifier's operands usable.
  ver.prepare(stream.get());
  k.launch(ver.call(), stream.get(), ws.get());
  EXPECT_TRUE(ver.check(stream.get()).ok);
}

}  // namespace
}  // namespace autogemm
