// Host-side size arithmetic at and beyond 2^31 elements (issue 4, item 1, the
// CPU part; the GPU part is test_gpu_large.cpp): argument checks, the
// canonical form, the default config choice, split-K limits and the launch
// grid must not wrap in 32 bits for sizes up to INT_MAX or for matrices of
// more than 2^31 elements.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>

#include "autogemm/kernel_config.h"
#include "autogemm/kernel_template.h"
#include "autogemm/problem.h"
#include "autogemm/gemm_args.h"
#include "autogemm/shape_spec.h"

namespace {

using namespace autogemm;

const float* P(std::uintptr_t v) { return reinterpret_cast<const float*>(v); }

GemmArgs call(autogemm_layout layout, bool ta, bool tb, int m, int n, int k, int lda, int ldb, int ldc) {
  GemmArgs g;
  g.layout = layout;
  g.trans_a = ta ? AUTOGEMM_TRANS : AUTOGEMM_NO_TRANS;
  g.trans_b = tb ? AUTOGEMM_TRANS : AUTOGEMM_NO_TRANS;
  g.m = m, g.n = n, g.k = k, g.lda = lda, g.ldb = ldb, g.ldc = ldc;
  g.a = P(0x10000), g.b = P(0x20000), g.c = reinterpret_cast<float*>(0x30000);
  return g;
}

TEST(SizeLimits, IntMaxSizesAndLeadingDimensionsAreValidArguments) {
  for (autogemm_layout l : {AUTOGEMM_ROW_MAJOR, AUTOGEMM_COL_MAJOR})
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        EXPECT_EQ(validate(call(l, ta, tb, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX)), AUTOGEMM_SUCCESS);
  // One short of the minimum is still caught at INT_MAX.
  EXPECT_EQ(validate(call(AUTOGEMM_ROW_MAJOR, false, false, 8, INT_MAX, 8, 8, INT_MAX - 1, INT_MAX)),
            AUTOGEMM_INVALID_LDB);
}

TEST(SizeLimits, CanonicalFormKeepsFullSizes) {
  const CanonicalCall c = normalize(call(AUTOGEMM_COL_MAJOR, true, false, INT_MAX, 3, INT_MAX, INT_MAX, INT_MAX, INT_MAX));
  EXPECT_EQ(c.problem.m, 3);
  EXPECT_EQ(c.problem.n, INT_MAX);
  EXPECT_EQ(c.problem.k, INT_MAX);
  EXPECT_EQ(c.problem.ldc, INT_MAX);
  // Elements of C: 64-bit products, no wrap.
  EXPECT_EQ(c.problem.m * c.problem.ldc, int64_t(3) * INT_MAX);
}

TEST(SizeLimits, DefaultConfigOfHugeProblemsImplementsThemWithoutSplitK) {
  for (const Problem& p : {make_problem(AUTOGEMM_ROW_MAJOR, false, false, 50000, 50000, 8, true),
                           make_problem(AUTOGEMM_ROW_MAJOR, false, false, (int64_t(1) << 28) + 3, 8, 8, true),
                           make_problem(AUTOGEMM_ROW_MAJOR, true, false, INT_MAX, 1, 1, false),
                           make_problem(AUTOGEMM_ROW_MAJOR, false, false, 65536, 65536, 1, true)}) {
    const KernelConfig d = default_config(p);
    EXPECT_TRUE(d.can_implement(p)) << p.to_string() << ": " << d.to_string();
    EXPECT_EQ(d.workspace_floats(p), 0u) << p.to_string() << ": the defaults do not split K";
  }
  // M x N = 2^32 wraps to 0 in 32 bits: a size-based choice must still see a
  // big square problem, and choose as for 4096 x 4096.
  EXPECT_EQ(default_config(make_problem(AUTOGEMM_ROW_MAJOR, false, false, 65536, 65536, 64, true)).to_string(),
            default_config(make_problem(AUTOGEMM_ROW_MAJOR, false, false, 4096, 4096, 64, true)).to_string());
  EXPECT_EQ(default_config(make_problem(AUTOGEMM_ROW_MAJOR, false, false, 50000, 50000, 8, true)).to_string(),
            default_config(make_problem(AUTOGEMM_ROW_MAJOR, false, false, 4096, 4096, 8, true)).to_string());
}

TEST(SizeLimits, SplitKIsRefusedWhenItsTileCountersWouldOverflow) {
  TiledParams t;
  t.bm = 64, t.bn = 64, t.bk = 8, t.tm = 4, t.tn = 4, t.wc = 8, t.vec = 4, t.split_k = 4, t.swizzle = 1;
  const KernelConfig c(t, false, false);
  ASSERT_TRUE(c.is_valid());
  EXPECT_TRUE(c.can_implement(make_problem(AUTOGEMM_ROW_MAJOR, false, false, 4096, 4096, 4096, true)));
  // 50000^2 / 64^2 tiles > the 65536 counters: split-K must not be used (it would also need 40 GB of workspace).
  EXPECT_FALSE(c.can_implement(make_problem(AUTOGEMM_ROW_MAJOR, false, false, 50000, 50000, 8, true)));
  EXPECT_FALSE(c.can_implement(make_problem(AUTOGEMM_ROW_MAJOR, false, false, INT_MAX, INT_MAX, 8, true)));
}

TEST(SizeLimits, LaunchGridCountsEveryTileWithoutWrapping) {
  struct Case {
    int64_t m, n;
  } cases[] = {{50000, 50000}, {(int64_t(1) << 28) + 3, 8}, {INT_MAX, 1}};
  for (const Case& s : cases) {
    const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, s.m, s.n, 8, true);
    const KernelConfig g = KernelConfig::generic(false, false);
    const LaunchGeometry gg = g.family().geometry(g, p);
    const int64_t generic_tiles = ((s.m + 15) / 16) * ((s.n + 15) / 16);
    EXPECT_EQ(int64_t(gg.grid_x), generic_tiles) << p.to_string();
    EXPECT_LE(generic_tiles, int64_t(INT_MAX)) << "CUDA grids hold at most 2^31-1 blocks in x";
    const KernelConfig d = default_config(p);
    ASSERT_TRUE(d.is<WarpTiledParams>()) << d.to_string() << ": the warptiled family provides the built-in default";
    const WarpTiledParams& t = d.get<WarpTiledParams>();
    const LaunchGeometry dg = d.family().geometry(d, p);
    EXPECT_EQ(int64_t(dg.grid_x), ((s.m + t.bm - 1) / t.bm) * ((s.n + t.bn - 1) / t.bn)) << p.to_string();
  }
}

}  // namespace
