// GPU: every kernel family computes the right product on awkward shapes,
// all transposes, alpha/beta, padded leading dimensions (GpuFamilies, one
// instance per family of the registry: its defaults and samples of its
// search space); then the tiled family's variants: tile shapes, cp.async
// stages, partial unrolling, split-K; warptiled's peeled and shifted edges.
#include <map>
#include <set>

#include "autogemm/kernel_launch.h"
#include "autogemm/verifier.h"
#include "autogemm/shape_spec.h"
#include "gpu_fixture.h"

namespace autogemm {
namespace {

KernelConfig tiled(int bm, int bn, int bk, int tm, int tn, int wc, int vec, int sk, int sw) {
  TiledParams t;
  t.bm = bm, t.bn = bn, t.bk = bk, t.tm = tm, t.tn = tn, t.wc = wc, t.vec = vec, t.split_k = sk, t.swizzle = sw;
  return KernelConfig(t, false, false);
}

KernelConfig with_layouts(KernelConfig c, bool ta, bool tb) {
  c.trans_a = ta, c.trans_b = tb;
  return c;
}

struct Shape {
  int64_t m, n, k;
};

KernelConfig gemv(int one, int rows, int thr, int kg, int sk, int un, int pf, int ld, bool aligned, bool ta, bool tb,
                  int st = 0) {
  GemvParams g;
  g.one = one, g.rows = rows, g.threads = thr, g.k_groups = kg, g.split_k = sk, g.unroll = un, g.prefetch = pf;
  g.ld_hint = ld, g.stages = st;
  g.vec = aligned ? 4 : 1;
  return KernelConfig(g, ta, tb);
}

class GpuKernels : public testing::GpuTest {
 protected:
  // Compiled kernels, one per config string (each test compiles its own).
  const LoadedKernel& kernel(const KernelConfig& c) {
    auto it = kernels_.find(c.to_string());
    if (it == kernels_.end()) {
      CompileResult r = compile_kernel(c, kernel_arch(c, dev_));
      it = kernels_.emplace(c.to_string(), LoadedKernel::load(c, r.cubin, dev_)).first;
    }
    return it->second;
  }

  /// The problem `s` in the given layouts and alignment class, with every
  /// leading dimension padded by `ld_pad` (a multiple of 4 keeps the aligned
  /// class).
  static Problem problem_for(bool ta, bool tb, const Shape& s, bool aligned, int ld_pad) {
    Problem p = make_problem(AUTOGEMM_ROW_MAJOR, ta, tb, s.m, s.n, s.k, aligned);
    if (aligned) {  // the aligned class needs every leading dimension % 4 == 0
      auto up4 = [](int64_t v) { return (v + 3) / 4 * 4; };
      p.lda = up4(p.lda), p.ldb = up4(p.ldb), p.ldc = up4(p.ldc);
      p.aligned = true;
    }
    p.lda += ld_pad, p.ldb += ld_pad, p.ldc += ld_pad;
    return p;
  }

  void expect_correct(const KernelConfig& cfg, const Shape& s, bool aligned, float alpha, float beta, int ld_pad) {
    const Problem p = problem_for(cfg.trans_a, cfg.trans_b, s, aligned, ld_pad);
    if (!cfg.can_implement(p)) GTEST_FAIL() << "test setup: " << cfg.to_string() << " cannot run " << p.to_string();
    Verifier ver(p, dev_, alpha, beta, 7, 4);  // a wide exponent range, as the tuner checks
    const LoadedKernel& k = kernel(cfg);
    DeviceBuffer ws(std::max<size_t>(cfg.workspace_floats(p), 1) * 4);
    AUTOGEMM_CU(cuMemsetD32(ws.get(), 0, ws.bytes() / 4));
    AUTOGEMM_CU(cuCtxSynchronize());  // the memset may still run when a non-blocking stream starts
    Stream st;
    ver.prepare(st.get());
    k.launch(ver.call(), st.get(), ws.get());
    const VerifyResult r = ver.check(st.get(), cfg.family().accuracy());
    EXPECT_TRUE(r.ok) << cfg.to_string() << " on " << p.to_string() << " alpha=" << alpha << " beta=" << beta
                      << " ld+" << ld_pad << ": " << r.why << " (rel " << r.rel_error << ")";
  }

  /// The tiled variants' classes: vec=4 needs the aligned class.
  void expect_correct(const KernelConfig& cfg, const Shape& s, float alpha, float beta, int ld_pad) {
    expect_correct(cfg, s, cfg.get<TiledParams>().vec == 4, alpha, beta, ld_pad);
  }

  /// A and B full of NaN: alpha == 0 must give exactly beta * C.
  void expect_alpha_zero_ignores_a_and_b(const KernelConfig& c, bool aligned, Shape s = {100, 100, 300}) {
    const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, c.trans_a, c.trans_b, s.m, s.n, s.k, aligned);
    ASSERT_TRUE(c.can_implement(p)) << c.to_string();
    Verifier ver(p, dev_, 0.0f, 0.5f, 3);
    Stream st;
    CanonicalCall call = ver.call();
    const size_t a_floats = size_t((p.trans_a ? p.k : p.m) * p.lda), b_floats = size_t((p.trans_b ? p.n : p.k) * p.ldb);
    AUTOGEMM_CU(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(call.a), 0x7fc00000u, a_floats, st.get()));
    AUTOGEMM_CU(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(call.b), 0x7fc00000u, b_floats, st.get()));
    ver.prepare(st.get());
    DeviceBuffer ws(std::max<size_t>(c.workspace_floats(p), 1) * 4);
    AUTOGEMM_CU(cuMemsetD32(ws.get(), 0, ws.bytes() / 4));
    AUTOGEMM_CU(cuCtxSynchronize());  // the memset may still run when a non-blocking stream starts
    kernel(c).launch(call, st.get(), ws.get());
    // The reference was computed before A and B were poisoned: alpha*AB = 0.
    const VerifyResult r = ver.check(st.get());
    EXPECT_TRUE(r.ok) << c.to_string() << ": " << r.why;
  }

  /// Staged configs: odd sides and K (partial 32x32 transpose tiles), padded
  /// leading dimensions, beta == 0 and != 0, then alpha == 0 with NaN
  /// operands (nothing staged, nothing read).
  void expect_staged_correct(std::initializer_list<const char*> texts) {
    for (const char* text : texts) {
      const KernelConfig c = KernelConfig::parse(text).value();
      const bool aligned = c.get<WarpTiledParams>().vec == 4;
      for (const Shape& s : {Shape{65, 67, 129}, Shape{300, 257, 100}, Shape{33, 31, 1}, Shape{512, 512, 4097}}) {
        expect_correct(c, s, aligned, 1.0f, 0.0f, 0);
        expect_correct(c, s, aligned, 1.5f, -0.5f, aligned ? 4 : 3);
      }
      expect_alpha_zero_ignores_a_and_b(c, aligned);
    }
  }

  std::map<std::string, LoadedKernel> kernels_;
};

const Shape kShapes[] = {{1, 1, 1}, {7, 13, 5}, {127, 257, 509}, {129, 65, 33}, {256, 256, 256}, {1000, 1000, 100}, {64, 64, 4097}};

// ---- every family ------------------------------------------------------------------

class GpuFamilies : public GpuKernels, public ::testing::WithParamInterface<const KernelFamily*> {
 protected:
  const KernelFamily& family() const { return *GetParam(); }
};

TEST_P(GpuFamilies, DefaultsAreCorrectOnOddShapes) {
  for (bool aligned : {true, false})
    for (bool big : {false, true})
      for (int t = 0; t < 4; ++t) {
        // The default for a large or a small problem of this class.
        const int64_t size = big ? 4096 : 64;
        const auto d = family().default_config(make_problem(AUTOGEMM_ROW_MAJOR, t & 1, t & 2, size, size, 64, aligned));
        if (!d) continue;  // this family is only chosen by tuning here
        SCOPED_TRACE(d->to_string());
        for (const Shape& s : kShapes) {
          expect_correct(*d, s, aligned, 1.0f, 0.0f, 0);
          expect_correct(*d, s, aligned, 1.5f, -0.5f, aligned ? 4 : 3);
          expect_correct(*d, s, aligned, -2.0f, 0.75f, aligned ? 8 : 5);
        }
      }
}

// The first, last and cheapest configs of the family's space for odd-sized
// and skinny problems, on those problems and on smaller odd ones.
TEST_P(GpuFamilies, SpaceSamplesAreCorrectOnOddShapes) {
  const SearchLimits lim = SearchLimits::of(dev_);
  for (const Shape& big : {Shape{127, 257, 509}, Shape{1, 4096, 4096}})
    for (bool aligned : {true, false})
      for (int t = 0; t < 4; ++t) {
        const Problem p = problem_for(t & 1, t & 2, big, aligned, 0);
        const std::vector<KernelConfig> space = family().search_space(p, lim);
        if (space.empty()) continue;
        size_t cheapest = 0;
        for (size_t i = 1; i < space.size(); ++i)
          if (family().cost(space[i], p, lim) < family().cost(space[cheapest], p, lim)) cheapest = i;
        std::set<std::string> done;
        for (size_t i : {size_t(0), space.size() - 1, cheapest}) {
          const KernelConfig& c = space[i];
          if (!done.insert(c.to_string()).second) continue;
          SCOPED_TRACE(c.to_string());
          for (const Shape& s : {big, Shape{7, 13, 5}, Shape{1, 1, 1}, Shape{129, 65, 33}})
            if (c.can_implement(problem_for(c.trans_a, c.trans_b, s, aligned, 0))) {
              expect_correct(c, s, aligned, 1.0f, 0.0f, 0);
              expect_correct(c, s, aligned, 1.5f, -0.5f, aligned ? 4 : 3);
            }
        }
      }
}

TEST_P(GpuFamilies, AlphaZeroNeverReadsAAndB) {
  for (bool aligned : {true, false})
    for (int t = 0; t < 4; ++t)
      if (const auto d =
              family().default_config(make_problem(AUTOGEMM_ROW_MAJOR, t & 1, t & 2, 100, 100, 300, aligned)))
        expect_alpha_zero_ignores_a_and_b(*d, aligned);
}

// A strided batch in one launch: every product right, none touched twice
// (the verifier's C is all the products' Cs, guards around them), with the
// family's default and samples of its space for a batched problem; and a
// batch over grid z's 65535, which takes several launches.
TEST_P(GpuFamilies, StridedBatchesAreCorrectWhereTheFamilyBatches) {
  const SearchLimits lim = SearchLimits::of(dev_);
  struct Case {
    Shape s;
    int64_t batch;
  };
  const Case cases[] = {{{7, 13, 5}, 3}, {{64, 64, 64}, 37}, {{127, 65, 33}, 9}, {{33, 130, 260}, 2}};
  int ran = 0;
  for (bool aligned : {true, false})
    for (int t = 0; t < 4; ++t) {
      const Problem big = make_problem(AUTOGEMM_ROW_MAJOR, t & 1, t & 2, 127, 65, 33, aligned, 9);
      std::vector<KernelConfig> configs;
      if (auto d = default_config(big); d.can_implement(big) && &d.family() == &family()) configs.push_back(d);
      const std::vector<KernelConfig> space = family().search_space(big, lim);
      for (size_t i : {size_t(0), space.size() / 2, space.size() - 1})
        if (i < space.size()) configs.push_back(space[i]);
      for (const KernelConfig& c : configs) {
        SCOPED_TRACE(c.to_string());
        for (const Case& x : cases) {
          const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, c.trans_a, c.trans_b, x.s.m, x.s.n, x.s.k, aligned, x.batch);
          if (!c.can_implement(p)) continue;
          for (float beta : {0.0f, -0.5f}) {
            Verifier ver(p, dev_, 1.25f, beta, 13, 4);
            Stream st;
            ver.prepare(st.get());
            kernel(c).launch(ver.call(), st.get(), 0);
            const VerifyResult r = ver.check(st.get(), c.family().accuracy());
            EXPECT_TRUE(r.ok) << p.to_string() << " beta=" << beta << ": " << r.why << " (rel " << r.rel_error << ")";
            ++ran;
          }
        }
      }
    }
  if (ran == 0) GTEST_SKIP() << family().name() << " never batches (KernelFamily::batches)";
  // More products than grid z holds: the launch is split and moved along.
  for (bool aligned : {false, true}) {
    const Problem many = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 4, 4, 4, aligned, 70001);
    for (const KernelConfig& c : family().search_space(many, lim)) {
      if (!c.can_implement(many)) continue;
      Verifier ver(many, dev_, 1.0f, 0.5f, 17);
      Stream st;
      ver.prepare(st.get());
      kernel(c).launch(ver.call(), st.get(), 0);
      const VerifyResult r = ver.check(st.get(), c.family().accuracy());
      EXPECT_TRUE(r.ok) << c.to_string() << " on " << many.to_string() << ": " << r.why;
      break;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuFamilies, ::testing::ValuesIn(all_families()),
                         [](const ::testing::TestParamInfo<const KernelFamily*>& info) {
                           return std::string(info.param->name());
                         });

}  // namespace

// ---- the warptiled family's edges ---------------------------------------------

/// Runs `check(config, aligned)` on each config text in every layout its
/// copy rules allow (the aligned class where it copies 16 bytes).
template <class Check>
void for_each_warptiled_layout(std::initializer_list<const char*> texts, const Check& check) {
  for (const char* text : texts) {
    const KernelConfig base = *KernelConfig::parse(text);
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        const KernelConfig c = with_layouts(base, ta, tb);
        if (!c.is_valid()) continue;  // a copy rule of this layout
        SCOPED_TRACE(c.to_string());
        check(c, base.get<WarpTiledParams>().vec == 4);
      }
  }
}

// Sides 1..8 past a multiple of the tile, both sides, 9 past (not peeled),
// within one tile; every layout, both copy widths, with split-K; then
// alpha == 0 with NaN operands through the strips.
TEST_F(GpuKernels, WarptiledPeeledEdgesAreCorrect) {
  for_each_warptiled_layout(
      {"warptiled bm=64 bn=64 bk=8 wm=32 wn=32 ln=4 st=3 vec=1 sw=1 pe=1 ta=0 tb=0",
       "warptiled bm=64 bn=64 bk=8 wm=32 wn=32 ln=4 st=3 vec=4 sw=1 pe=1 ta=0 tb=0",
       "warptiled bm=64 bn=64 bk=8 wm=32 wn=32 ln=4 st=3 vec=1 sk=3 sw=1 pe=1 ta=0 tb=0",
       "warptiled bm=128 bn=256 bk=16 wm=64 wn=64 ln=4 st=3 vec=1 sw=8 pe=1 ta=0 tb=0"},
      [&](const KernelConfig& c, bool aligned) {
        for (const Shape& s : {Shape{65, 67, 129}, Shape{72, 257, 100}, Shape{257, 513, 300}, Shape{73, 137, 33},
                               Shape{7, 13, 5}})
          if (c.can_implement(problem_for(c.trans_a, c.trans_b, s, aligned, 0))) {
            expect_correct(c, s, aligned, 1.0f, 0.0f, 0);
            expect_correct(c, s, aligned, 1.5f, -0.5f, aligned ? 4 : 3);
          }
        expect_alpha_zero_ignores_a_and_b(c, aligned, Shape{132, 68, 40});  // 4 past the tile
      });
}

// Edge tiles moved back inside C (every warptiled block of a C at least one
// tile long): sides 1..BM-1 past a multiple of the tile, moves by odd
// amounts and by more than half a tile and, in the aligned class, sides
// whose move would not be a multiple of 4 (the tile stays and checks);
// beta != 0 fails on a row or column stored twice or never. Every layout,
// both copy widths, split-K.
TEST_F(GpuKernels, WarptiledShiftedEdgeTilesAreCorrect) {
  for_each_warptiled_layout(
      {"warptiled bm=64 bn=64 bk=8 wm=32 wn=32 ln=4 st=3 vec=1 sw=1 ta=0 tb=0",
       "warptiled bm=64 bn=64 bk=8 wm=32 wn=32 ln=4 st=3 vec=4 sw=8 ta=0 tb=0",
       "warptiled bm=64 bn=128 bk=16 wm=32 wn=64 ln=8 st=3 vec=4 sk=3 sw=1 ta=0 tb=0",
       "warptiled bm=128 bn=64 bk=8 wm=64 wn=64 ln=4 st=4 vec=1 sk=2 sw=1 ta=0 tb=0"},
      [&](const KernelConfig& c, bool aligned) {
        for (const Shape& s : {Shape{65, 130, 33}, Shape{127, 255, 100}, Shape{190, 71, 64}, Shape{129, 129, 17},
                               Shape{250, 199, 40}})
          expect_correct(c, s, aligned, 1.5f, -0.5f, aligned ? 4 : 3);
      });
}

// B^T staged into the workspace (tp=1): NT and TT, both copy widths and
// classes, split-K or not.
TEST_F(GpuKernels, WarptiledStagedBIsCorrect) {
  expect_staged_correct({"warptiled bm=64 bn=64 bk=8 wm=32 wn=32 ln=4 st=3 vec=1 sw=1 tp=1 ta=0 tb=1",
                         "warptiled bm=64 bn=64 bk=8 wm=32 wn=32 ln=4 st=3 vec=4 sw=1 tp=1 ta=0 tb=1",
                         "warptiled bm=128 bn=256 bk=16 wm=64 wn=64 ln=4 st=3 vec=4 sw=8 tp=1 ta=1 tb=1",
                         "warptiled bm=64 bn=128 bk=8 wm=32 wn=64 ln=8 st=3 vec=1 sw=1 tp=1 ta=1 tb=1",
                         "warptiled bm=64 bn=64 bk=8 wm=32 wn=32 ln=4 st=3 vec=4 sk=3 sw=1 tp=1 ta=0 tb=1",
                         "warptiled bm=64 bn=64 bk=16 wm=32 wn=32 ln=4 st=3 vec=1 sk=2 sw=1 tp=1 ta=1 tb=1"});
}

// A staged into the workspace (sa=1): NN and NT (with B staged too), both
// copy widths and classes, split-K or not.
TEST_F(GpuKernels, WarptiledStagedAIsCorrect) {
  expect_staged_correct({"warptiled bm=64 bn=64 bk=8 wm=32 wn=32 ln=4 st=3 vec=1 sw=1 sa=1 ta=0 tb=0",
                         "warptiled bm=64 bn=256 bk=8 wm=64 wn=64 ln=4 st=3 vec=4 sw=8 sa=1 ta=0 tb=0",
                         "warptiled bm=64 bn=64 bk=8 wm=32 wn=32 ln=4 st=3 vec=4 sk=3 sw=1 sa=1 ta=0 tb=0",
                         "warptiled bm=64 bn=128 bk=8 wm=32 wn=64 ln=8 st=3 vec=1 sw=1 tp=1 sa=1 ta=0 tb=1",
                         "warptiled bm=64 bn=64 bk=16 wm=32 wn=32 ln=4 st=3 vec=4 sk=2 sw=1 tp=1 sa=1 ta=0 tb=1"});
}

// Copies past what dispatch allocates are staged in K chunks (staged_k), C
// accumulating after the first: B, A, and both, aligned and not, the last
// chunk short, beta != 0 (applied once).
TEST_F(GpuKernels, WarptiledStagedCopiesPastTheWorkspaceRunInKChunks) {
  const std::pair<const char*, Shape> cases[] = {
      {"warptiled bm=64 bn=256 bk=8 wm=64 wn=64 ln=4 st=3 vec=4 sw=8 tp=1 ta=0 tb=1", Shape{64, 16400, 4100}},
      {"warptiled bm=64 bn=64 bk=8 wm=32 wn=32 ln=4 st=3 vec=1 sw=1 tp=1 ta=0 tb=1", Shape{65, 16401, 4099}},
      {"warptiled bm=64 bn=256 bk=8 wm=64 wn=64 ln=4 st=3 vec=4 sw=8 sa=1 ta=0 tb=0", Shape{16400, 64, 4100}},
      {"warptiled bm=64 bn=128 bk=8 wm=32 wn=64 ln=8 st=3 vec=1 sw=1 tp=1 sa=1 ta=0 tb=1", Shape{4100, 4099, 8201}}};
  for (const auto& [text, s] : cases) {
    const KernelConfig c = KernelConfig::parse(text).value();
    const bool aligned = c.get<WarpTiledParams>().vec == 4;
    const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, c.trans_a, c.trans_b, s.m, s.n, s.k, aligned);
    const int64_t chunk = WarpTiledFamily::staged_k(c.get<WarpTiledParams>(), p);
    ASSERT_GT(chunk, 0) << text;
    ASSERT_LT(chunk, s.k) << text << ": the copy fits whole, no chunks to test";
    expect_correct(c, s, aligned, 1.5f, -0.5f, 0);
  }
}

// ---- the tiled family's variants ------------------------------------------------

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
          expect_correct(with_layouts(c, ta, tb), s, 1.5f, -0.5f, c.get<TiledParams>().vec == 4 ? 4 : 3);
  }
}

// cp.async stages (st) and partial k unrolling (ku): every layout, edges in
// M, N and K, the unaligned class (4-byte copies), split-K on top.
TEST_F(GpuKernels, PipelineAndUnrollVariantsAreCorrect) {
  std::vector<KernelConfig> variants;
  for (int st : {2, 3, 4}) {
    KernelConfig c = tiled(128, 128, 8, 16, 8, 8, 4, 1, 8);
    c.get<TiledParams>().stages = st;
    variants.push_back(c);
  }
  KernelConfig big = tiled(128, 256, 16, 16, 8, 4, 4, 1, 1);
  big.get<TiledParams>().k_unroll = 8;
  variants.push_back(big);
  big.get<TiledParams>().stages = 3;
  variants.push_back(big);
  KernelConfig unaligned = tiled(64, 64, 16, 4, 4, 8, 1, 1, 1);
  unaligned.get<TiledParams>().stages = 3;
  unaligned.get<TiledParams>().k_unroll = 4;
  variants.push_back(unaligned);
  KernelConfig split = tiled(64, 256, 8, 16, 8, 8, 4, 3, 1);
  split.get<TiledParams>().stages = 3;
  variants.push_back(split);
  split.get<TiledParams>().split_reduce = 1;
  variants.push_back(split);
  for (const KernelConfig& c : variants) {
    SCOPED_TRACE(c.to_string());
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (const Shape& s : {Shape{127, 257, 509}, Shape{300, 200, 64}, Shape{1, 1, 1}, Shape{257, 129, 1031}})
          expect_correct(with_layouts(c, ta, tb), s, 1.5f, -0.5f, c.get<TiledParams>().vec == 4 ? 4 : 3);
  }
}

TEST_F(GpuKernels, SplitKIsCorrectAndDeterministic) {
  for (int sk : {2, 3, 8})
    for (int rd : {0, 1}) {
      KernelConfig c = tiled(64, 64, 8, 4, 4, 8, 4, sk, 1);
      c.get<TiledParams>().split_reduce = rd;
      for (bool ta : {false, true})
        for (bool tb : {false, true})
          for (const Shape& s : {Shape{64, 64, 4097}, Shape{33, 17, 1000}, Shape{16, 4096, 4096}}) {
            expect_correct(with_layouts(c, ta, tb), s, 1.0f, 0.0f, 0);
            expect_correct(with_layouts(c, ta, tb), s, 1.5f, -0.5f, 4);
          }
    }
}

TEST_F(GpuKernels, AlphaZeroNeverReadsAAndBInTiledVariants) {
  // Split-K (both reductions) and cp.async: their own load and store paths.
  KernelConfig split_reduce_kernel = tiled(64, 64, 8, 4, 4, 8, 4, 4, 1);
  split_reduce_kernel.get<TiledParams>().split_reduce = 1;
  KernelConfig async_kernel = tiled(64, 64, 8, 4, 4, 8, 4, 1, 1);
  async_kernel.get<TiledParams>().stages = 3;
  for (const KernelConfig& c : {tiled(64, 64, 8, 4, 4, 8, 4, 1, 1), tiled(64, 64, 8, 4, 4, 8, 4, 4, 1),
                                split_reduce_kernel, async_kernel})
    expect_alpha_zero_ignores_a_and_b(c, true);
}

// ---- the gemv family's variants ------------------------------------------------

// Every short dimension 1..16 on M and on N, every layout and class, edges
// in the outputs (1000 is not a multiple of a warp's 128) and in K (777 is
// not a multiple of any batch; 5 leaves most K slices empty), with and
// without thread groups (also bands narrower than a warp), split-K,
// prefetch and rings (with K = 777 a thread's slice is a few batches, so a
// ring of 8 is never full and K = 5 leaves it empty). The unaligned class runs
// with leading dimensions that allow 16-byte loads, then padded by 3: both
// of its paths.
TEST_F(GpuKernels, GemvVariantsAreCorrectForEveryShortDimension) {
  struct Variant {
    int rows, thr, kg, sk, un, pf, ld, st;
  };
  const Variant axpy[] = {{16, 256, 8, 4, 2, 1, 1, 0}, {16, 128, 1, 1, 1, 0, 0, 0}, {4, 128, 2, 16, 4, 0, 0, 0},
                          {1, 512, 16, 1, 2, 1, 1, 0}, {2, 64, 1, 3, 2, 1, 0, 0},
                          // Narrow bands: 8 and 16 threads along the outputs.
                          {1, 512, 64, 1, 2, 1, 1, 0}, {8, 256, 16, 3, 1, 0, 1, 0},
                          // Rings: wide and narrow bands, one group, split-K.
                          {16, 256, 8, 4, 1, 0, 1, 4}, {16, 256, 32, 1, 1, 0, 0, 2}, {8, 128, 1, 2, 2, 0, 0, 8},
                          {4, 64, 8, 1, 1, 0, 1, 3}};
  for (int one : {0, 1})
    for (int t = 0; t < 4; ++t)
      for (bool aligned : {true, false}) {
        const bool ta = t & 1, tb = t & 2;
        std::vector<KernelConfig> configs;
        if (GemvFamily::is_dot(gemv(one, 1, 128, 1, 1, 1, 0, 0, aligned, ta, tb)))
          configs = {gemv(one, 1, 128, 1, 1, 2, 0, 1, aligned, ta, tb), gemv(one, 1, 64, 1, 1, 1, 0, 0, aligned, ta, tb)};
        else
          for (const Variant& v : axpy)
            configs.push_back(gemv(one, v.rows, v.thr, v.kg, v.sk, v.un, v.pf, v.ld, aligned, ta, tb, v.st));
        for (const KernelConfig& c : configs) {
          SCOPED_TRACE(c.to_string());
          const int rows = c.get<GemvParams>().rows;
          for (int64_t rs : std::set<int64_t>{rows, rows / 2 + 1, 1})
            for (int64_t k : {777, 5}) {
              const Shape s = one == 0 ? Shape{rs, 1000, k} : Shape{1000, rs, k};
              expect_correct(c, s, aligned, 1.0f, 0.0f, 0);
              expect_correct(c, s, aligned, 1.5f, -0.5f, aligned ? 4 : 3);
            }
          // (An aligned class needs leading dimensions that short rows lack.)
          if (!aligned)
            expect_alpha_zero_ignores_a_and_b(c, false, one == 0 ? Shape{rows, 300, 100} : Shape{300, rows, 100});
        }
      }
}

}  // namespace autogemm
