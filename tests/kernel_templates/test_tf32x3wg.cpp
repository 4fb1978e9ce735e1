// The tf32x3wg family's own checks (the registry-wide suite is in
// test_families.cpp): its canonical text, the register and shared-memory
// rules, the aligned-only class, its one architecture, the accuracy rules
// of its space, and NVRTC builds for sm_90a of the register-heaviest
// configs in every layout (and the test-only builds) with ptxas reporting no
// spills and no serialized wgmma. CPU only: nothing is loaded or launched.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autogemm/kernel_launch.h"
#include "autogemm/problem.h"
#include "fake_device.h"
#include "nvrtc_builds.h"

namespace {

using autogemm::KernelConfig;
using autogemm::Problem;
using autogemm::SearchLimits;
using autogemm::Tf32x3WgFamily;
using autogemm::Tf32x3WgParams;
using autogemm::testing::build_without_spills;
using autogemm::testing::NvrtcBuild;

Problem problem(int64_t m, int64_t n, int64_t k, int t, bool aligned) {
  auto up = [aligned](int64_t v) { return aligned ? (v + 3) / 4 * 4 : v; };
  Problem p;
  p.m = m, p.n = n, p.k = k, p.trans_a = t & 1, p.trans_b = (t >> 1) & 1, p.aligned = aligned;
  p.lda = up(p.trans_a ? m : k), p.ldb = up(p.trans_b ? k : n), p.ldc = up(n);
  return p;
}

Tf32x3WgParams params(int bn, int wg, int pw, int ar, int raw, int split, int dr, int sw = 1) {
  Tf32x3WgParams t;
  t.bn = bn, t.wg = wg, t.producers = pw, t.a_regs = ar, t.raw = raw, t.split = split, t.drain = dr, t.swizzle = sw;
  return t;
}

TEST(Tf32x3Wg, CanonicalText) {
  const KernelConfig c(params(128, 2, 2, 0, 3, 2, 1, 8), false, true);
  EXPECT_EQ(c.to_string(), "tf32x3wg bn=128 wg=2 pw=2 ar=0 raw=3 split=2 dr=1 sw=8 ta=0 tb=1");
  const auto back = KernelConfig::parse(c.to_string());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->to_string(), c.to_string());
  EXPECT_EQ(c.threads(), 512);
}

TEST(Tf32x3Wg, RejectsWhatCannotBuild) {
  for (const char* text : {
           "tf32x3wg bn=192 wg=2 pw=2 ar=0 raw=2 split=2 dr=1 sw=1 ta=0 tb=0",  // 192 accumulators + totals > 160
           "tf32x3wg bn=128 wg=2 pw=2 ar=1 raw=2 split=2 dr=1 sw=1 ta=0 tb=0",  // + 32 for A's pieces > 160
           "tf32x3wg bn=128 wg=2 pw=1 ar=1 raw=2 split=2 dr=1 sw=1 ta=1 tb=0",  // register A needs ta=0
           "tf32x3wg bn=192 wg=2 pw=1 ar=0 raw=2 split=2 dr=0 sw=1 ta=0 tb=0",  // 241 KiB of shared memory
           "tf32x3wg bn=128 wg=2 pw=2 ar=0 raw=3 split=3 dr=1 sw=1 ta=0 tb=0",  // 289 KiB
           "tf32x3wg bn=96 wg=2 pw=2 ar=0 raw=2 split=2 dr=1 sw=1 ta=0 tb=0",
           "tf32x3wg bn=128 wg=3 pw=2 ar=0 raw=2 split=2 dr=1 sw=1 ta=0 tb=0",
           "tf32x3wg bn=128 wg=2 pw=2 ar=0 raw=4 split=2 dr=1 sw=1 ta=0 tb=0",
           "tf32x3wg bn=128 wg=2 pw=2 ar=0 raw=2 split=2 dr=3 sw=1 ta=0 tb=0",
           "tf32x3wg bn=128 wg=2 pw=2 raw=2 split=2 dr=1 sw=1 ta=0 tb=0",  // ar missing
       }) {
    std::string why;
    EXPECT_FALSE(KernelConfig::parse(text, &why).has_value()) << text;
    EXPECT_FALSE(why.empty()) << text;
  }
}

TEST(Tf32x3Wg, AlignedClassOnlyOptInOnlyAndSm90aOnly) {
  const Tf32x3WgFamily& f = Tf32x3WgFamily::instance();
  const KernelConfig c(params(128, 2, 1, 1, 3, 3, 1), false, false);
  EXPECT_TRUE(c.can_implement(problem(4096, 4096, 4096, 0, true)));
  EXPECT_FALSE(c.can_implement(problem(4096, 4096, 4096, 0, false))) << "TMA needs the aligned class";
  EXPECT_EQ(c.workspace_floats(problem(127, 257, 509, 0, true)), 0u);
  for (int t = 0; t < 4; ++t) {
    EXPECT_FALSE(f.default_config(problem(4096, 4096, 4096, t, true)).has_value());
    EXPECT_TRUE(f.search_space(problem(4096, 4096, 4096, t, false), SearchLimits{}).empty());
  }
  autogemm::DeviceInfo dev = autogemm::testing::fake_h200();
  EXPECT_EQ(f.arch(dev).value_or(""), "sm_90a");
  dev.cc_minor = 1;
  EXPECT_FALSE(f.arch(dev).has_value()) << "sm_90a cubins run on 9.0 only";
  dev.cc_major = 8, dev.cc_minor = 0;
  EXPECT_FALSE(f.arch(dev).has_value());
  EXPECT_EQ(f.accuracy(), autogemm::AccuracyClass::Fp32Accurate);
}

// The accuracy rule of the space (measured, see tf32x3wg_family.cpp): a
// drain after every slice (32 k), undrained only when K fits in one slice.
TEST(Tf32x3Wg, SpaceKeepsAccumulationChainsShort) {
  const Tf32x3WgFamily& f = Tf32x3WgFamily::instance();
  for (int t = 0; t < 4; ++t)
    for (int64_t k : {1, 32, 33, 128, 4096}) {
      const std::vector<KernelConfig> space = f.search_space(problem(1024, 1024, k, t, true), SearchLimits{});
      ASSERT_FALSE(space.empty()) << k;
      EXPECT_LE(space.size(), 30u) << k;
      for (const KernelConfig& c : space) {
        const Tf32x3WgParams& p = c.get<Tf32x3WgParams>();
        EXPECT_EQ(p.drain, k <= 32 ? 0 : 1) << c.to_string();
        // One pipeline per layout: A in registers exactly when A is k-contiguous.
        EXPECT_EQ(p.a_regs, c.trans_a ? 0 : 1) << c.to_string();
        EXPECT_LE(Tf32x3WgFamily::tile_registers(p) + 28, Tf32x3WgFamily::consumer_registers(p)) << c.to_string();
      }
    }
}

// ---- NVRTC builds ------------------------------------------------------------

TEST(Tf32x3WgCompile, HeaviestConfigsOfEveryLayoutBuildCleanly) {
  // Per layout the register-heaviest of its pipeline (ta=0: register A).
  const Tf32x3WgParams heavy[] = {params(128, 2, 1, 1, 3, 3, 1, 8), params(128, 2, 2, 0, 3, 2, 1),
                                  params(192, 1, 1, 1, 3, 2, 4), params(192, 1, 2, 0, 2, 2, 2)};
  std::vector<NvrtcBuild> builds;
  for (int t = 0; t < 4; ++t) builds.push_back({KernelConfig(heavy[t], t & 1, t & 2), {}, {}, {}});
  builds.push_back({KernelConfig(heavy[0], false, false), {"-DAG_TF32_PASSES=1"}, {}, {}});
  builds.push_back({KernelConfig(heavy[1], true, false), {"-DAG_TF32_PASSES=1"}, {}, {}});
  // C7515..C7519: ptxas serialized the wgmmas or inserted waits of its own;
  // C7508: it ignored setmaxnreg.
  build_without_spills(builds, "sm_90a", {"C751", "C7508"});
}

}  // namespace
