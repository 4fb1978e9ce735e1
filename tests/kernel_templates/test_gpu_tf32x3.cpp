// GPU: the FP32-accurate families' promises (issue 9), one instance per
// family of that accuracy class (tf32x3 on mma.sync, tf32x3wg on wgmma).
//  - The verifier's FP32-accurate bound rejects plain TF32 (the same kernel
//    built with AG_TF32_PASSES=1) and accepts 3xTF32, on wide-exponent data;
//    both errors are printed, with the strict tiled default's beside them.
//  - Special values come out as FP32 gives them: Inf and NaN inputs, values
//    near FLT_MAX (no overflow from rounding to TF32), subnormal inputs
//    (documented: compared with the FFMA result like any value).
//  - tf32x3wg's split-K: right and bit-for-bit repeatable on few-tile,
//    long-K problems of every layout, empty K runs and special values in
//    one run included.
//  - tf32x3wg with B split by its pre-pass (bs=1) and A^T transposed by it
//    (at=1): right in every layout, both alignment classes, with split-K,
//    and with an Inf in B.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "autogemm/kernel_launch.h"
#include "autogemm/tf32x3wg_family.h"
#include "autogemm/verifier.h"
#include "autogemm/shape_spec.h"
#include "gpu_fixture.h"

namespace autogemm {
namespace {

/// A zero-filled workspace of what `c` needs for `p` (at least one float).
DeviceBuffer workspace_for(const KernelConfig& c, const Problem& p) {
  DeviceBuffer ws(std::max<size_t>(c.workspace_floats(p), 1) * 4);
  AUTOGEMM_CU(cuMemsetD32(ws.get(), 0, ws.bytes() / 4));
  AUTOGEMM_CU(cuCtxSynchronize());  // the memset may still run when a non-blocking stream starts
  return ws;
}

std::vector<const KernelFamily*> accurate_families() {
  std::vector<const KernelFamily*> out;
  for (const KernelFamily* f : all_families())
    if (f->accuracy() == AccuracyClass::Fp32Accurate) out.push_back(f);
  return out;
}

class GpuTf32x3 : public testing::GpuTest, public ::testing::WithParamInterface<const KernelFamily*> {
 protected:
  void SetUp() override {
    testing::GpuTest::SetUp();
    if (IsSkipped()) return;
    if (!GetParam()->arch(dev_)) GTEST_SKIP() << GetParam()->name() << " does not run on " << dev_.arch();
  }
  KernelConfig some_config(const Problem& p) {
    const auto space = GetParam()->search_space(p, SearchLimits::of(dev_));
    EXPECT_FALSE(space.empty());
    return space.empty() ? KernelConfig() : space[space.size() / 2];
  }
  LoadedKernel build(const KernelConfig& c, const std::vector<std::string>& extra = {}) {
    const KernelTemplate& t = c.family().source();
    const CompileResult r = extra.empty() ? compile_kernel(c, kernel_arch(c, dev_))
                                          : compile_kernel(c, kernel_arch(c, dev_), t.source(), t.file(), extra);
    return LoadedKernel::load(c, r.cubin, dev_);
  }
  VerifyResult run(const LoadedKernel& k, Verifier& ver, AccuracyClass a) {
    const DeviceBuffer ws = workspace_for(k.config(), ver.call().problem);
    Stream st;
    ver.prepare(st.get());
    k.launch(ver.call(), st.get(), ws.get());
    return ver.check(st.get(), a);
  }
};

TEST_P(GpuTf32x3, PlainTf32IsRejectedAndThreePassesVerify) {
  for (bool ta : {false, true}) {
    const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, ta, !ta, 512, 384, 2048, true);
    const KernelConfig c = some_config(p);
    Verifier ver(p, dev_, 1.0f, 0.0f, 5, 4);
    const VerifyResult three = run(build(c), ver, AccuracyClass::Fp32Accurate);
    const VerifyResult one = run(build(c, {"-DAG_TF32_PASSES=1"}), ver, AccuracyClass::Fp32Accurate);
    const KernelConfig strict = default_config(p);
    const VerifyResult ffma = run(build(strict), ver, AccuracyClass::StrictFp32);
    std::printf("[ %-8s ] %s %s: rel error 3xTF32 %.2e, 1xTF32 %.2e, FFMA default %.2e\n",
                GetParam()->name(), p.to_string().c_str(), c.to_string().c_str(), three.rel_error, one.rel_error, ffma.rel_error);
    EXPECT_TRUE(three.ok) << c.to_string() << ": " << three.why;
    EXPECT_FALSE(one.ok) << "plain TF32 passed the FP32-accurate check (rel " << one.rel_error << ")";
    EXPECT_GT(one.rel_error, Verifier::kRelTolerance);
    EXPECT_TRUE(ffma.ok) << ffma.why;
  }
}

/// C = A B (row-major NN, m x n x kk) by `k`, on host data, read back.
std::vector<float> product(const LoadedKernel& k, const std::vector<float>& a, const std::vector<float>& b, int64_t m,
                           int64_t n, int64_t kk) {
  DeviceBuffer da(a.size() * 4), db(b.size() * 4), dc(size_t(m * n) * 4);
  AUTOGEMM_CU(cuMemcpyHtoD(da.get(), a.data(), a.size() * 4));
  AUTOGEMM_CU(cuMemcpyHtoD(db.get(), b.data(), b.size() * 4));
  CanonicalCall call;
  call.problem = make_problem(AUTOGEMM_ROW_MAJOR, false, false, m, n, kk, true);
  call.a = da.as<float>(), call.b = db.as<float>(), call.c = dc.as<float>();
  call.alpha = 1.f, call.beta = 0.f;
  EXPECT_TRUE(k.config().can_implement(call.problem)) << k.config().to_string();
  const DeviceBuffer ws = workspace_for(k.config(), call.problem);
  Stream st;
  k.launch(call, st.get(), ws.get());
  st.synchronize();
  std::vector<float> c(size_t(m * n));
  AUTOGEMM_CU(cuMemcpyDtoH(c.data(), dc.get(), c.size() * 4));
  return c;
}

LoadedKernel build_for(const KernelConfig& c, const DeviceInfo& dev) {
  return LoadedKernel::load(c, compile_kernel(c, kernel_arch(c, dev)).cubin, dev);
}

/// Every element of the m x n product of 0.5s and 0.25s over kk is 0.125 kk,
/// except +Inf throughout row `inf_row` (or, when it is -1, column `inf_col`).
void expect_inf_line(const std::vector<float>& out, int64_t m, int64_t n, int64_t kk, int64_t inf_row,
                     int64_t inf_col) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float g = out[size_t(i * n + j)];
      if (inf_row >= 0 ? i == inf_row : j == inf_col) {
        EXPECT_TRUE(std::isinf(g) && g > 0) << "row " << i << " col " << j << ": " << g;
      } else {
        EXPECT_EQ(g, 0.125f * float(kk)) << "row " << i << " col " << j;
      }
    }
}

TEST_P(GpuTf32x3, SpecialValuesComeOutAsInFp32) {
  const int n = 64;
  std::vector<float> a(size_t(n) * n), b(size_t(n) * n);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = 0.5f + float((i * 7919) % 97) / 97.f;
    b[i] = 0.5f + float((i * 104729) % 89) / 89.f;
  }
  const float inf = std::numeric_limits<float>::infinity();
  a[0 * n + 3] = inf;            // row 0: +Inf
  a[1 * n + 5] = -inf;           // row 1: -Inf
  a[2 * n + 7] = NAN;            // row 2: NaN
  a[3 * n + 1] = inf, a[3 * n + 2] = -inf;  // row 3: Inf - Inf = NaN in FP32 too
  // Row 4: FLT_MAX itself times 1e-3 (B's row 0): finite in FP32, and
  // rounding FLT_MAX to TF32 to nearest would give Inf.
  a[4 * n + 0] = 3.4028234e38f;
  for (int j = 0; j < n; ++j) b[0 * n + j] = 1e-3f;
  a[5 * n + 9] = 3.4028234e38f;  // row 5: FLT_MAX times ~1: overflows in FP32 as well
  for (int k = 0; k < n; ++k) a[6 * n + k] = 1e-40f;  // row 6: subnormal inputs
  const KernelConfig tc = some_config(make_problem(AUTOGEMM_ROW_MAJOR, false, false, n, n, n, true));
  const std::vector<float> got = product(build(tc), a, b, n, n, n);
  const std::vector<float> want =
      product(build(default_config(make_problem(AUTOGEMM_ROW_MAJOR, false, false, n, n, n, true))), a, b, n, n, n);
  int subnormal_rows_off = 0;
  for (int i = 0; i < n * n; ++i) {
    const float g = got[size_t(i)], w = want[size_t(i)];
    const int row = i / n;
    SCOPED_TRACE("row " + std::to_string(row) + " col " + std::to_string(i % n));
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << g;
    } else if (std::isinf(w)) {
      EXPECT_EQ(g, w);
    } else if (row == 6) {
      // Subnormals: counted and reported, not asserted (tensor cores flush TF32 subnormals).
      if (!(std::fabs(g - w) <= 1e-5f * std::fabs(w) + 1e-44f)) ++subnormal_rows_off;
    } else {
      ASSERT_TRUE(std::isfinite(g)) << tc.to_string() << ": " << g << " where FP32 gives " << w;
      EXPECT_LE(std::fabs(g - w), 2e-6f * std::fabs(w)) << g << " vs " << w;
    }
  }
  std::printf("[ %-8s ] special values as FP32; subnormal row: %d of %d elements differ from FFMA by > 1e-5\n",
              GetParam()->name(), subnormal_rows_off, n);
}

// alpha == 0 reads neither A nor B (both NaN here) and beta == 0 never reads
// C (the verifier poisons it with NaN), for a mid-space config of every layout.
TEST_P(GpuTf32x3, AlphaZeroAndBetaZeroFollowTheBlasRules) {
  for (int t = 0; t < 4; ++t) {
    const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, t & 1, t & 2, 200, 136, 300, true);
    const KernelConfig c = some_config(p);
    SCOPED_TRACE(c.to_string());
    const LoadedKernel k = build(c);
    {
      Verifier ver(p, dev_, 0.0f, 0.5f, 3);
      Stream st;
      const CanonicalCall& call = ver.call();
      const size_t a_floats = size_t((p.trans_a ? p.k : p.m) * p.lda), b_floats = size_t((p.trans_b ? p.n : p.k) * p.ldb);
      AUTOGEMM_CU(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(call.a), 0x7fc00000u, a_floats, st.get()));
      AUTOGEMM_CU(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(call.b), 0x7fc00000u, b_floats, st.get()));
      ver.prepare(st.get());
      const DeviceBuffer ws = workspace_for(c, p);
      k.launch(call, st.get(), ws.get());
      const VerifyResult r = ver.check(st.get(), c.family().accuracy());
      EXPECT_TRUE(r.ok) << "alpha = 0: " << r.why;
    }
    Verifier ver(p, dev_, 1.25f, 0.0f, 4, 4);
    EXPECT_TRUE(run(k, ver, c.family().accuracy()).ok) << "beta = 0 (C poisoned with NaN)";
  }
}

// Split-K in tf32x3wg: few output tiles, long K, every layout, beta != 0;
// K runs left empty (K = 100 over 8 slices, 128 over 64 k); the same bits
// on a second run (the reduction folds in slice order); and an Inf in one
// K run recomputed over that run in FP32 (the row comes out Inf).
class GpuTf32x3WgSplitK : public testing::GpuTest {};

TEST_F(GpuTf32x3WgSplitK, CorrectRepeatableAndSpecialValuesKept) {
  if (!Tf32x3WgFamily::instance().arch(dev_)) GTEST_SKIP() << "tf32x3wg does not run on " << dev_.arch();
  struct Case {
    int64_t m, n, k;
    int sk;
  };
  for (const Case& x : {Case{128, 256, 4096, 8}, Case{64, 64, 8192, 128}, Case{200, 136, 100, 8},
                        Case{130, 70, 4096, 5}, Case{131, 71, 1000, 1}}) {
    for (int t = 0; t < 4; ++t) {
      Tf32x3WgParams w;
      w.bn = 64, w.wg = 2, w.a_regs = t & 1 ? 0 : 1, w.producers = w.a_regs ? 1 : 2, w.raw = 3, w.split = 3;
      w.drain = 1, w.split_k = x.sk;
      // 130x70, 131x71: leading dimensions not multiples of 4, the unaligned
      // class (the pre-pass); 131x71 unsplit, C (ldc 71) written in place.
      const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, t & 1, t & 2, x.m, x.n, x.k, true);
      w.pre_pass = p.aligned ? 0 : 1;
      const KernelConfig c(w, t & 1, t & 2);
      ASSERT_TRUE(c.can_implement(p)) << c.to_string();
      SCOPED_TRACE(c.to_string() + " on " + p.to_string());
      const LoadedKernel k = LoadedKernel::load(c, compile_kernel(c, kernel_arch(c, dev_)).cubin, dev_);
      Verifier ver(p, dev_, 1.25f, -0.5f, 9, 4);
      const DeviceBuffer ws = workspace_for(c, p);
      Stream st;
      std::vector<float> first;
      for (int rep = 0; rep < 2; ++rep) {
        ver.prepare(st.get());
        k.launch(ver.call(), st.get(), ws.get());
        st.synchronize();
        std::vector<float> out(size_t(p.m * p.ldc));
        AUTOGEMM_CU(cuMemcpyDtoH(out.data(), reinterpret_cast<CUdeviceptr>(ver.call().c), out.size() * 4));
        const VerifyResult r = ver.check(st.get(), AccuracyClass::Fp32Accurate);
        EXPECT_TRUE(r.ok) << r.why << " (rel " << r.rel_error << ")";
        if (rep == 0) first = out;
        else EXPECT_EQ(std::memcmp(first.data(), out.data(), out.size() * 4), 0) << "second run differs";
      }
    }
  }
  // An Inf in A's row 3 at k = 3000: only the K run holding it is recomputed.
  Tf32x3WgParams w;
  w.bn = 64, w.wg = 1, w.a_regs = 1, w.raw = 3, w.split = 3, w.drain = 1, w.split_k = 4;
  const KernelConfig c(w, false, false);
  const int64_t m = 64, n = 64, kk = 4096;
  std::vector<float> a(size_t(m * kk), 0.5f), b(size_t(kk * n), 0.25f);
  a[size_t(3 * kk + 3000)] = std::numeric_limits<float>::infinity();
  expect_inf_line(product(build_for(c, dev_), a, b, m, n, kk), m, n, kk, 3, -1);
}

// bs=1: B split once by the pre-pass into the workspace (K-major, whatever
// B's layout and alignment), the producers only copying; with A^T, A copied
// k-contiguous by the same pre-pass kernel (at=1). Right in every layout,
// aligned and not (A staged or transposed, B read where it is), with
// split-K, a K that is no multiple of 32, and an Inf in B (the split's NaN
// small part: the outputs it reaches are recomputed in FP32 from B itself).
class GpuTf32x3WgPreSplitB : public testing::GpuTest {};

TEST_F(GpuTf32x3WgPreSplitB, RightInEveryLayoutAndClass) {
  if (!Tf32x3WgFamily::instance().arch(dev_)) GTEST_SKIP() << "tf32x3wg does not run on " << dev_.arch();
  struct Case {
    int64_t m, n, k;
    int sk, bn, split;
  };
  for (const Case& x : {Case{256, 384, 2048, 1, 128, 4}, Case{128, 256, 4096, 8, 64, 3}, Case{200, 136, 100, 1, 64, 4},
                        Case{131, 71, 1000, 1, 128, 4}, Case{130, 70, 4096, 5, 64, 3}}) {
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      Tf32x3WgParams w;
      w.bn = x.bn, w.wg = 2, w.a_regs = 1, w.producers = 1, w.raw = 0, w.split = x.split, w.b_split = 1;
      w.drain = 1, w.split_k = x.sk, w.a_transposed = ta;
      const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, ta, tb, x.m, x.n, x.k, true);
      w.pre_pass = p.aligned ? 0 : 1;
      const KernelConfig c(w, ta, tb);
      ASSERT_TRUE(c.can_implement(p)) << c.to_string();
      SCOPED_TRACE(c.to_string() + " on " + p.to_string());
      const LoadedKernel k = LoadedKernel::load(c, compile_kernel(c, kernel_arch(c, dev_)).cubin, dev_);
      Verifier ver(p, dev_, 1.25f, -0.5f, 9, 4);
      const DeviceBuffer ws = workspace_for(c, p);
      Stream st;
      ver.prepare(st.get());
      k.launch(ver.call(), st.get(), ws.get());
      const VerifyResult r = ver.check(st.get(), AccuracyClass::Fp32Accurate);
      EXPECT_TRUE(r.ok) << r.why << " (rel " << r.rel_error << ")";
    }
  }
  // An Inf in B at (k 700, n 5): column 5 comes out Inf, the rest exact.
  Tf32x3WgParams w;
  w.bn = 64, w.wg = 1, w.a_regs = 1, w.raw = 0, w.split = 4, w.drain = 1, w.b_split = 1;
  const KernelConfig c(w, false, false);
  const int64_t m = 64, n = 64, kk = 1024;
  std::vector<float> a(size_t(m * kk), 0.5f), b(size_t(kk * n), 0.25f);
  b[size_t(700 * n + 5)] = std::numeric_limits<float>::infinity();
  expect_inf_line(product(build_for(c, dev_), a, b, m, n, kk), m, n, kk, -1, 5);
}

INSTANTIATE_TEST_SUITE_P(Accurate, GpuTf32x3, ::testing::ValuesIn(accurate_families()),
                         [](const ::testing::TestParamInfo<const KernelFamily*>& info) {
                           return std::string(info.param->name());
                         });

}  // namespace
}  // namespace autogemm
