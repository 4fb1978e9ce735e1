// GPU: every kernel template computes the right product on awkward shapes,
// all transposes, alpha/beta, padded leading dimensions, split-K.
#include <map>

#include "autogemm/kernel_launch.h"
#include "autogemm/verifier.h"
#include "gpu_fixture.h"

namespace autogemm {
namespace {

KernelConfig tiled(int bm, int bn, int bk, int tm, int tn, int wc, int vec, int sk, int sw) {
  KernelConfig c;
  c.kind = KernelKind::Tiled;
  c.bm = bm, c.bn = bn, c.bk = bk, c.tm = tm, c.tn = tn, c.wc = wc, c.vec = vec, c.split_k = sk, c.swizzle = sw;
  return c;
}

struct Shape {
  int64_t m, n, k;
};

class GpuKernels : public testing::GpuTest {
 protected:
  // Compiled kernels, one per config string (each test compiles its own).
  const LoadedKernel& kernel(const KernelConfig& c) {
    auto it = kernels_.find(c.to_string());
    if (it == kernels_.end()) {
      CompileResult r = compile_kernel(c, dev_.arch());
      it = kernels_.emplace(c.to_string(), LoadedKernel::load(c, r.cubin, dev_)).first;
    }
    return it->second;
  }

  void expect_correct(KernelConfig cfg, const Shape& s, bool ta, bool tb, float alpha, float beta, int ld_pad) {
    cfg.trans_a = ta;
    cfg.trans_b = tb;
    Problem p = make_problem(AUTOGEMM_ROW_MAJOR, ta, tb, s.m, s.n, s.k, cfg.vec == 4);
    if (cfg.vec == 4) {  // the aligned class needs every leading dimension % 4 == 0
      auto up4 = [](int64_t v) { return (v + 3) / 4 * 4; };
      p.lda = up4(p.lda), p.ldb = up4(p.ldb), p.ldc = up4(p.ldc);
      p.aligned = true;
    }
    p.lda += ld_pad, p.ldb += ld_pad, p.ldc += ld_pad;
    if (!cfg.can_implement(p)) GTEST_FAIL() << "test setup: " << cfg.to_string() << " cannot run " << p.to_string();
    Verifier ver(p, dev_, alpha, beta, 7);
    const LoadedKernel& k = kernel(cfg);
    DeviceBuffer ws(std::max<size_t>(cfg.workspace_floats(p), 1) * 4);
    AUTOGEMM_CU(cuMemsetD32(ws.get(), 0, ws.bytes() / 4));
    Stream st;
    ver.prepare(st.get());
    k.launch(ver.call(), st.get(), ws.get());
    const VerifyResult r = ver.check(st.get());
    EXPECT_TRUE(r.ok) << cfg.to_string() << " on " << p.to_string() << " alpha=" << alpha << " beta=" << beta
                      << " ld+" << ld_pad << ": " << r.why << " (rel " << r.rel_error << ")";
  }

  std::map<std::string, LoadedKernel> kernels_;
};

const Shape kShapes[] = {{1, 1, 1}, {7, 13, 5}, {127, 257, 509}, {129, 65, 33}, {256, 256, 256}, {1000, 1000, 100}, {64, 64, 4097}};

}  // namespace

TEST_F(GpuKernels, GenericKernelIsCorrectEverywhere) {
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (const Shape& s : kShapes) {
        expect_correct(KernelConfig::generic(ta, tb), s, ta, tb, 1.0f, 0.0f, 0);
        expect_correct(KernelConfig::generic(ta, tb), s, ta, tb, -2.0f, 0.75f, 5);
      }
}

TEST_F(GpuKernels, DefaultTiledConfigsAreCorrect) {
  for (int vec : {1, 4}) {
    for (bool big : {false, true}) {
      // The built-in defaults for a large and a small problem of this class.
      Problem probe = make_problem(AUTOGEMM_ROW_MAJOR, false, false, big ? 4096 : 64, big ? 4096 : 64, 64, vec == 4);
      KernelConfig c = default_config(probe);
      for (bool ta : {false, true})
        for (bool tb : {false, true})
          for (const Shape& s : kShapes) {
            expect_correct(c, s, ta, tb, 1.0f, 0.0f, 0);
            expect_correct(c, s, ta, tb, 1.5f, -0.5f, vec == 4 ? 4 : 3);
          }
    }
  }
}

TEST_F(GpuKernels, TileShapeVariantsAreCorrect) {
  const KernelConfig variants[] = {
      tiled(16, 64, 32, 2, 4, 8, 4, 1, 1),  tiled(128, 64, 16, 8, 4, 4, 4, 1, 8),
      tiled(256, 128, 8, 16, 8, 8, 4, 1, 8), tiled(32, 32, 8, 2, 2, 4, 1, 1, 1),
      tiled(64, 128, 32, 4, 8, 8, 1, 1, 2),
  };
  for (const KernelConfig& c : variants) {
    SCOPED_TRACE(c.to_string());
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (const Shape& s : {Shape{127, 257, 509}, Shape{300, 200, 64}, Shape{1, 1, 1}})
          expect_correct(c, s, ta, tb, 1.5f, -0.5f, c.vec == 4 ? 4 : 3);
  }
}

// cp.async stages (st) and partial k unrolling (ku): every layout, edges in
// M, N and K, the unaligned class (4-byte copies), split-K on top.
TEST_F(GpuKernels, PipelineAndUnrollVariantsAreCorrect) {
  std::vector<KernelConfig> variants;
  for (int st : {2, 3, 4}) {
    KernelConfig c = tiled(128, 128, 8, 16, 8, 8, 4, 1, 8);
    c.stages = st;
    variants.push_back(c);
  }
  KernelConfig big = tiled(128, 256, 16, 16, 8, 4, 4, 1, 1);
  big.k_unroll = 8;
  variants.push_back(big);
  big.stages = 3;
  variants.push_back(big);
  KernelConfig unaligned = tiled(64, 64, 16, 4, 4, 8, 1, 1, 1);
  unaligned.stages = 3;
  unaligned.k_unroll = 4;
  variants.push_back(unaligned);
  KernelConfig split = tiled(64, 256, 8, 16, 8, 8, 4, 3, 1);
  split.stages = 3;
  variants.push_back(split);
  split.split_reduce = 1;
  variants.push_back(split);
  for (const KernelConfig& c : variants) {
    SCOPED_TRACE(c.to_string());
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (const Shape& s : {Shape{127, 257, 509}, Shape{300, 200, 64}, Shape{1, 1, 1}, Shape{257, 129, 1031}})
          expect_correct(c, s, ta, tb, 1.5f, -0.5f, c.vec == 4 ? 4 : 3);
  }
}

TEST_F(GpuKernels, SplitKIsCorrectAndDeterministic) {
  for (int sk : {2, 3, 8})
  for (int rd : {0, 1}) {
    KernelConfig c = tiled(64, 64, 8, 4, 4, 8, 4, sk, 1);
    c.split_reduce = rd;
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (const Shape& s : {Shape{64, 64, 4097}, Shape{33, 17, 1000}, Shape{16, 4096, 4096}}) {
          expect_correct(c, s, ta, tb, 1.0f, 0.0f, 0);
          expect_correct(c, s, ta, tb, 1.5f, -0.5f, 4);
        }
  }
}

TEST_F(GpuKernels, AlphaZeroNeverReadsAAndB) {
  // A and B full of NaN: alpha == 0 must give exactly beta * C.
  KernelConfig split_reduce_kernel = tiled(64, 64, 8, 4, 4, 8, 4, 4, 1);
  split_reduce_kernel.split_reduce = 1;
  KernelConfig async_kernel = tiled(64, 64, 8, 4, 4, 8, 4, 1, 1);
  async_kernel.stages = 3;
  for (const KernelConfig& c : {tiled(64, 64, 8, 4, 4, 8, 4, 1, 1), tiled(64, 64, 8, 4, 4, 8, 4, 4, 1),
                                split_reduce_kernel, async_kernel, KernelConfig::generic(false, false)}) {
    const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 100, 100, 300, true);
    Verifier ver(p, dev_, 0.0f, 0.5f, 3);
    Stream st;
    CanonicalCall call = ver.call();
    AUTOGEMM_CU(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(call.a), 0x7fc00000u, size_t(p.m * p.lda), st.get()));
    AUTOGEMM_CU(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(call.b), 0x7fc00000u, size_t(p.k * p.ldb), st.get()));
    ver.prepare(st.get());
    DeviceBuffer ws(std::max<size_t>(c.workspace_floats(p), 1) * 4);
    AUTOGEMM_CU(cuMemsetD32(ws.get(), 0, ws.bytes() / 4));
    kernel(c).launch(call, st.get(), ws.get());
    // The reference was computed before A and B were poisoned: alpha*AB = 0.
    const VerifyResult r = ver.check(st.get());
    EXPECT_TRUE(r.ok) << c.to_string() << ": " << r.why;
  }
}

}  // namespace autogemm
