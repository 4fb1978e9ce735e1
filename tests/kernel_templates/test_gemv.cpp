// The gemv family's own checks for its rings (st): which configs may have
// one, the shared memory they ask for, where the search space offers them,
// and NVRTC builds for sm_90 of the measured ring winners in every layout
// that runs the axpy kernel, with ptxas reporting no spills. CPU only.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autogemm/gemv_family.h"
#include "autogemm/problem.h"
#include "autogemm/shape_spec.h"
#include "nvrtc_builds.h"

namespace {

using autogemm::GemvFamily;
using autogemm::GemvParams;
using autogemm::KernelConfig;
using autogemm::Problem;
using autogemm::SearchLimits;
using autogemm::testing::build_without_spills;
using autogemm::testing::NvrtcBuild;

GemvParams ring(int rows, int thr, int kg, int sk, int un, int st, int vec) {
  GemvParams g;
  g.rows = rows, g.threads = thr, g.k_groups = kg, g.split_k = sk, g.unroll = un, g.stages = st, g.vec = vec;
  return g;
}

TEST(Gemv, RingsNeedTheAxpyKernelAndNoRegisterPrefetch) {
  const GemvParams g = ring(16, 128, 16, 1, 2, 3, 4);
  EXPECT_TRUE(KernelConfig(g, false, false).is_valid(nullptr));  // M short, B row-major: axpy
  std::string why;
  EXPECT_FALSE(KernelConfig(g, false, true).is_valid(&why));  // B^T: the dot kernel
  EXPECT_NE(why.find("st"), std::string::npos) << why;
  GemvParams pf = g;
  pf.prefetch = 1;
  EXPECT_FALSE(KernelConfig(pf, false, false).is_valid(nullptr));
  EXPECT_EQ(KernelConfig(g, false, false).to_string(), "gemv one=0 rows=16 thr=128 kg=16 sk=1 un=2 st=3 vec=4 ta=0 tb=0");
}

TEST(Gemv, RingsTakeLongerBatchesThanRegistersHold) {
  std::string why;
  GemvParams g = ring(16, 128, 16, 1, 4, 3, 4);  // 16 rows, batches of 16 k: 64 float4 of the matrix a thread
  EXPECT_TRUE(KernelConfig(g, false, false).is_valid(&why)) << why;
  g.stages = 0;  // the same batches in registers beside 64 sums
  EXPECT_FALSE(KernelConfig(g, false, false).is_valid(&why));
  EXPECT_NE(why.find("rows*un"), std::string::npos) << why;
}

TEST(Gemv, SharedMemoryHoldsTheRingsOrTheGroupsFold) {
  // Rings: st batches of 4 * un float4 a thread, and per warp st slots of
  // (rows * un + 1) float4 for each of its 32 / (thr / kg) groups.
  const KernelConfig narrow(ring(16, 128, 16, 1, 2, 3, 4), false, false);
  EXPECT_EQ(narrow.smem_bytes(), size_t(3 * 8 * 128 * 16 + 4 * 3 * 4 * 33 * 16));
  const KernelConfig wide(ring(8, 256, 4, 4, 1, 4, 4), false, false);
  EXPECT_EQ(wide.smem_bytes(), size_t(4 * 4 * 256 * 16 + 8 * 4 * 1 * 9 * 16));
  // No ring: the groups' fold alone (min(rows, 2048 / thr) rows of a
  // float4 a thread), or nothing without groups.
  EXPECT_EQ(KernelConfig(ring(16, 256, 8, 4, 1, 0, 4), false, false).smem_bytes(), size_t(256 * 8 * 16));
  EXPECT_EQ(KernelConfig(ring(16, 256, 1, 4, 1, 0, 4), false, false).smem_bytes(), 0u);
  // More than the opt-in limit is refused.
  std::string why;
  EXPECT_FALSE(KernelConfig(ring(16, 512, 16, 1, 2, 8, 4), false, false).is_valid(&why));
  EXPECT_NE(why.find("shared memory"), std::string::npos) << why;
}

TEST(Gemv, TheSpaceOffersRingsToFourRowsOrMoreOnTheSixteenBytePath) {
  const SearchLimits h200;
  auto rings = [&](int64_t m, bool aligned) {
    const Problem p = autogemm::make_problem(AUTOGEMM_ROW_MAJOR, false, false, m, 4096, 4096, aligned);
    int n = 0;
    for (const KernelConfig& c : GemvFamily::instance().search_space(p, h200)) {
      const GemvParams& g = c.get<GemvParams>();
      if (g.stages == 0) continue;
      ++n;
      EXPECT_LE(c.smem_bytes(), h200.max_smem) << c.to_string();
      EXPECT_EQ(g.prefetch, 0) << c.to_string();
    }
    return n;
  };
  EXPECT_GT(rings(16, true), 0);
  EXPECT_GT(rings(4, true), 0);
  EXPECT_EQ(rings(2, true), 0);
  EXPECT_EQ(rings(16, false), 0);
}

TEST(Gemv, ARingFittedToScalarLoadsIsOutsideTheSpace) {
  // Dispatch borrows a row of an aligned shape for an unaligned one with
  // its loads made scalar (fitted); a ring there is not what the space
  // offers, so it is not borrowed (KernelFamily::in_space).
  const Problem aligned = autogemm::make_problem(AUTOGEMM_ROW_MAJOR, false, false, 16, 4096, 4096, true);
  const Problem unaligned = autogemm::make_problem(AUTOGEMM_ROW_MAJOR, false, false, 15, 4095, 4095, false);
  const GemvFamily& gemv = GemvFamily::instance();
  int rings = 0;
  for (const KernelConfig& c : gemv.search_space(aligned, SearchLimits{})) {
    if (c.get<GemvParams>().stages == 0) continue;
    ++rings;
    ASSERT_TRUE(gemv.in_space(c, aligned, SearchLimits{})) << c.to_string();
    const std::optional<KernelConfig> fitted = gemv.fitted(c, unaligned);
    ASSERT_TRUE(fitted.has_value()) << c.to_string();
    EXPECT_EQ(fitted->get<GemvParams>().vec, 1);
    EXPECT_FALSE(gemv.in_space(*fitted, unaligned, SearchLimits{})) << fitted->to_string();
  }
  EXPECT_GT(rings, 0);
}

// The measured ring winners (16 and 8 rows) in every layout of the axpy
// kernel, on the 16-byte path the space offers rings to: no spills (the
// tuner rejects a spilling candidate, so a spill here would take the rings
// out of the space unseen).
TEST(Gemv, RingConfigsBuildWithoutSpillsInEveryAxpyLayout) {
  std::vector<NvrtcBuild> builds;
  for (int one : {0, 1})
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      for (const GemvParams& base :
           {ring(16, 128, 16, 1, 2, 3, 4), ring(16, 128, 16, 1, 4, 3, 4), ring(8, 256, 32, 1, 2, 3, 4)}) {
        GemvParams g = base;
        g.one = one;
        const KernelConfig c(g, ta, tb);
        if (c.is_valid(nullptr)) builds.push_back({c, {}, {}, {}});
      }
    }
  ASSERT_EQ(builds.size(), 12u);  // two layouts of each short side run axpy
  build_without_spills(builds, "sm_90");
}

}  // namespace
