// The tf32x3 family's own checks (the registry-wide suite is in
// test_families.cpp): its canonical text, the register rule, the space's
// size, its architectures, and NVRTC builds for sm_90 of every layout and
// alignment class, the 1xTF32 test build included, with ptxas reporting no
// spills. CPU only: nothing is loaded or launched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
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
using autogemm::Tf32x3Family;
using autogemm::Tf32x3Params;
using autogemm::testing::build_without_spills;
using autogemm::testing::NvrtcBuild;

Problem problem(int64_t m, int64_t n, int64_t k, int t, bool aligned) {
  auto up = [aligned](int64_t v) { return aligned ? (v + 3) / 4 * 4 : v; };
  Problem p;
  p.m = m, p.n = n, p.k = k, p.trans_a = t & 1, p.trans_b = (t >> 1) & 1, p.aligned = aligned;
  p.lda = up(p.trans_a ? m : k), p.ldb = up(p.trans_b ? k : n), p.ldc = up(n);
  return p;
}

Tf32x3Params params(int bm, int bn, int bk, int wm, int wn, int st, int vec, int dr, int sw = 1) {
  Tf32x3Params t;
  t.bm = bm, t.bn = bn, t.bk = bk, t.wm = wm, t.wn = wn, t.stages = st, t.vec = vec, t.drain = dr, t.swizzle = sw;
  return t;
}

TEST(Tf32x3, CanonicalText) {
  const KernelConfig c(params(128, 128, 32, 64, 32, 3, 4, 1, 8), false, true);
  EXPECT_EQ(c.to_string(), "tf32x3 bm=128 bn=128 bk=32 wm=64 wn=32 st=3 vec=4 dr=1 sw=8 ta=0 tb=1");
  EXPECT_EQ(KernelConfig::parse(c.to_string()).value_or(KernelConfig{}), c);
  EXPECT_EQ(c.threads(), 256);
  EXPECT_EQ(c.smem_bytes(), size_t(3 * (128 + 128) * 36 * 4));
  const std::vector<std::string> d = c.defines();
  for (const char* want : {"-DAG_BM=128", "-DAG_WN=32", "-DAG_STAGES=3", "-DAG_DRAIN=1", "-DAG_SWIZZLE=8"})
    EXPECT_NE(std::find(d.begin(), d.end(), want), d.end()) << want;
}

TEST(Tf32x3, RejectsWhatCannotBuild) {
  std::string why;
  for (const char* bad : {
           "tf32x3 bm=64 bn=64 bk=16 wm=64 wn=64 st=3 vec=1 dr=0 sw=1 ta=0 tb=0",   // 32 threads
           "tf32x3 bm=256 bn=256 bk=16 wm=32 wn=32 st=2 vec=1 dr=0 sw=1 ta=0 tb=0", // 2048 threads
           "tf32x3 bm=128 bn=128 bk=32 wm=64 wn=64 st=3 vec=4 dr=1 sw=1 ta=0 tb=0", // 352 registers
           "tf32x3 bm=256 bn=128 bk=32 wm=64 wn=32 st=2 vec=4 dr=0 sw=1 ta=0 tb=0", // 136 of 128 (512 threads)
           "tf32x3 bm=128 bn=128 bk=8 wm=64 wn=32 st=3 vec=4 dr=0 sw=1 ta=0 tb=0",
           "tf32x3 bm=128 bn=128 bk=32 wm=16 wn=32 st=3 vec=4 dr=0 sw=1 ta=0 tb=0",
           "tf32x3 bm=128 bn=128 bk=32 wm=64 wn=32 st=5 vec=4 dr=0 sw=1 ta=0 tb=0",
           "tf32x3 bm=128 bn=128 bk=32 wm=64 wn=32 st=3 vec=2 dr=0 sw=1 ta=0 tb=0",
           "tf32x3 bm=128 bn=128 bk=32 wm=64 wn=32 st=3 vec=4 dr=3 sw=1 ta=0 tb=0",
           "tf32x3 bm=128 bn=128 bk=32 wm=64 wn=32 vec=4 dr=0 sw=1 ta=0 tb=0",      // st missing
       })
    EXPECT_FALSE(KernelConfig::parse(bad, &why).has_value()) << bad;
}

TEST(Tf32x3, FiveHundredTwelveThreadsWithSmallWarpTilesAreValid) {
  std::string why;
  EXPECT_TRUE(KernelConfig(params(128, 128, 16, 32, 32, 2, 1, 1), true, false).is_valid(&why)) << why;
}

TEST(Tf32x3, AlignedCopiesNeedTheAlignedClass) {
  const KernelConfig v4(params(128, 128, 32, 64, 32, 3, 4, 0), false, false);
  const KernelConfig v1(params(128, 128, 32, 64, 32, 3, 1, 0), false, false);
  EXPECT_TRUE(v4.can_implement(problem(4096, 4096, 4096, 0, true)));
  EXPECT_FALSE(v4.can_implement(problem(4096, 4096, 4096, 0, false)));
  EXPECT_TRUE(v1.can_implement(problem(127, 257, 509, 0, false)));
  EXPECT_EQ(v1.workspace_floats(problem(127, 257, 509, 0, false)), 0u);
}

TEST(Tf32x3, OptInOnlyAndFromSm80) {
  const Tf32x3Family& f = Tf32x3Family::instance();
  for (int t = 0; t < 4; ++t) EXPECT_FALSE(f.default_config(problem(4096, 4096, 4096, t, true)).has_value());
  autogemm::DeviceInfo dev = autogemm::testing::fake_h200();
  EXPECT_EQ(f.arch(dev).value_or(""), "sm_90");
  dev.cc_major = 8, dev.cc_minor = 0;
  EXPECT_EQ(f.arch(dev).value_or(""), "sm_80");
  dev.cc_major = 7, dev.cc_minor = 5;
  EXPECT_FALSE(f.arch(dev).has_value());
}

TEST(Tf32x3, SpaceIsAFewHundredConfigsWithinTheRegisterBudget) {
  const Tf32x3Family& f = Tf32x3Family::instance();
  for (int t = 0; t < 4; ++t)
    for (bool aligned : {true, false}) {
      for (const Problem& p : {problem(4096, 4096, 4096, t, aligned), problem(127, 257, 509, t, aligned)}) {
        const std::vector<KernelConfig> space = f.search_space(p, SearchLimits{});
        std::printf("tf32x3 space of %s: %zu configs\n", p.to_string().c_str(), space.size());
        EXPECT_GE(space.size(), 50u) << p.to_string();
        EXPECT_LE(space.size(), 300u) << p.to_string();
        for (const KernelConfig& c : space) {
          EXPECT_LE(Tf32x3Family::tile_registers(c.get<Tf32x3Params>()), 224) << c.to_string();
          EXPECT_EQ(c.get<Tf32x3Params>().vec, aligned ? 4 : 1) << c.to_string();
        }
      }
    }
}

// ---- NVRTC builds ------------------------------------------------------------

TEST(Tf32x3Compile, LargestTilesOfEveryLayoutAndClassBuildWithoutSpills) {
  // The three register-heaviest shapes of the space (64x64 without drain,
  // 64x32 and 32x64 with drain), both copy paths, all four layouts, and
  // the 1xTF32 test build.
  const Tf32x3Params heavy[] = {params(128, 128, 32, 64, 64, 3, 4, 0, 8), params(256, 64, 16, 64, 32, 4, 4, 1),
                                params(64, 256, 32, 32, 64, 2, 4, 4, 8)};
  std::vector<NvrtcBuild> builds;
  for (int t = 0; t < 4; ++t)
    for (int vec : {1, 4}) {
      Tf32x3Params p = heavy[(t + vec) % 3];
      p.vec = vec;
      builds.push_back({KernelConfig(p, t & 1, t & 2), {}, {}, {}});
    }
  builds.push_back({KernelConfig(heavy[0], false, false), {"-DAG_TF32_PASSES=1"}, {}, {}});
  build_without_spills(builds, "sm_90");
}

// The whole space of 4096^3 in the two layouts with the most 4-byte copies:
// ~900 builds, several minutes. Run with --gtest_also_run_disabled_tests.
TEST(Tf32x3Compile, DISABLED_WholeLargeSpaceBuildsWithoutSpills) {
  std::vector<NvrtcBuild> builds;
  for (int t : {0, 1})
    for (bool aligned : {true, false}) {
      const Problem p = problem(4096, 4096, 4096, t, aligned);
      for (const KernelConfig& c : Tf32x3Family::instance().search_space(p, SearchLimits{}))
        builds.push_back({c, {}, {}, {}});
    }
  build_without_spills(builds, "sm_90");
  std::printf("built %zu tf32x3 configs\n", builds.size());
}

}  // namespace
