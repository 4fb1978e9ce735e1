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

Tf32x3WgParams params(int bn, int wg, int pw, int ar, int raw, int split, int dr, int sw = 1, int sk = 1) {
  Tf32x3WgParams t;
  t.bn = bn, t.wg = wg, t.producers = pw, t.a_regs = ar, t.raw = raw, t.split = split, t.drain = dr, t.swizzle = sw;
  t.split_k = sk;
  return t;
}

Problem batched(Problem p, int64_t batch, int64_t stride_a, int64_t stride_b) {
  p.batch = batch, p.stride_a = stride_a, p.stride_b = stride_b, p.stride_c = p.c_extent();
  return p;
}

TEST(Tf32x3Wg, CanonicalText) {
  const KernelConfig c(params(128, 2, 2, 0, 3, 2, 1, 8), false, true);
  EXPECT_EQ(c.to_string(), "tf32x3wg bn=128 wg=2 pw=2 ar=0 raw=3 split=2 dr=1 sw=8 ta=0 tb=1");
  const auto back = KernelConfig::parse(c.to_string());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->to_string(), c.to_string());
  EXPECT_EQ(c.threads(), 512);
  // Split-K appears in the text only when it splits.
  const KernelConfig s(params(128, 2, 2, 0, 3, 2, 1, 8, 4), false, true);
  EXPECT_EQ(s.to_string(), "tf32x3wg bn=128 wg=2 pw=2 ar=0 raw=3 split=2 dr=1 sw=8 sk=4 ta=0 tb=1");
  EXPECT_FALSE(KernelConfig::parse("tf32x3wg bn=128 wg=2 pw=2 ar=0 raw=3 split=2 dr=1 sw=8 sk=129 ta=0 tb=1").has_value());
}

// Split-K: partial tiles after the counter area, rows padded to 4 floats,
// folded by a second kernel; a batch runs unsplit in grid z.
TEST(Tf32x3Wg, SplitKHasAWorkspaceAndAReductionAndNoBatch) {
  const KernelConfig one(params(128, 2, 1, 1, 3, 3, 1), false, false);
  const KernelConfig four(params(128, 2, 1, 1, 3, 3, 1, 1, 4), false, false);
  const Problem p = problem(127, 257, 4096, 0, true);
  EXPECT_EQ(one.workspace_floats(p), 0u);
  EXPECT_EQ(four.workspace_floats(p), autogemm::kWorkspaceCounterFloats + 4u * 127 * 260);
  EXPECT_EQ(one.family().entry_points(one).size(), 1u);
  EXPECT_EQ(four.family().entry_points(four).back(), "agemm_tf32x3wg_reduce");
  EXPECT_EQ(four.family().geometry(four, p).grid_y, 4u);
  const Problem b = batched(p, 8, p.a_extent(), p.b_extent());
  EXPECT_TRUE(one.can_implement(b));
  EXPECT_FALSE(four.can_implement(b)) << "a split batch would need a workspace per product";
  EXPECT_TRUE(four.family().worth_borrowing(four, problem(64, 64, 512, 0, true)));
  EXPECT_FALSE(four.family().worth_borrowing(four, problem(64, 64, 384, 0, true))) << "3 slices a K run";
  EXPECT_TRUE(one.family().worth_borrowing(one, problem(64, 64, 32, 0, true)));
}

// The pre-pass stages A and B after the counter area (and the split-K
// partials), 128-byte aligned, rows padded to 4 floats; never C, which the
// kernels write at any alignment. Its copy kernel is the module's last entry.
TEST(Tf32x3Wg, PrePassStagesAfterTheCountersAndThePartials) {
  Tf32x3WgParams t = params(64, 1, 1, 1, 3, 3, 1);
  t.pre_pass = 1;
  const Problem p = problem(127, 257, 509, 0, false);  // A 127 x 509, B 509 x 257, C 127 x 257
  const auto up32 = [](size_t v) { return (v + 31) / 32 * 32; };
  Tf32x3WgFamily::Staging s = Tf32x3WgFamily::staging(t, p);
  EXPECT_EQ(s.a, autogemm::kWorkspaceCounterFloats);
  EXPECT_EQ(s.b, s.a + up32(127 * 512));
  EXPECT_EQ(s.end, s.b + 509 * 260);
  EXPECT_EQ(KernelConfig(t, false, false).workspace_floats(p), s.end);
  const KernelConfig pp(t, false, false);
  EXPECT_EQ(pp.family().entry_points(pp).back(), "agemm_tf32x3wg_stage");
  EXPECT_EQ(KernelConfig(t, false, false).workspace_floats(problem(128, 256, 512, 0, true)), 0u)
      << "a borrowed pre-pass config stages nothing for an aligned problem";
  t.split_k = 4;
  s = Tf32x3WgFamily::staging(t, p);
  EXPECT_EQ(s.a, up32(autogemm::kWorkspaceCounterFloats + 4 * 127 * 260));
  EXPECT_EQ(s.end, s.b + 509 * 260);
  const KernelConfig split(t, false, false);
  EXPECT_EQ(split.family().entry_points(split).size(), 3u);
  EXPECT_EQ(split.family().entry_points(split).back(), "agemm_tf32x3wg_stage");
  const Problem tt = problem(127, 257, 509, 3, false);  // A 509 x 127, B 257 x 509
  t.split_k = 1;
  s = Tf32x3WgFamily::staging(t, tt);
  EXPECT_EQ(s.b, s.a + up32(509 * 128));
  EXPECT_EQ(s.end, s.b + 257 * 512);
}

// bs=1: B's two parts (N rows of K padded to 4 each) after everything else
// in the workspace; an unaligned B is not staged (its split reads it where
// it is); the split kernel is an entry point; one product. Past half of what
// dispatch allocates, the parts (and split-K's partial tiles) are a band's
// of whole tile columns. The space offers it where A is in registers.
TEST(Tf32x3Wg, PreSplitBPartsFollowTheStagingAndFitTheWorkspace) {
  Tf32x3WgParams t = params(128, 2, 1, 1, 0, 4, 1);
  t.b_split = 1;
  const KernelConfig c(t, false, false);
  EXPECT_TRUE(c.is_valid(nullptr));
  EXPECT_EQ(c.to_string(), "tf32x3wg bn=128 wg=2 pw=1 ar=1 raw=0 split=4 dr=1 sw=1 bs=1 ta=0 tb=0");
  const Problem p = problem(512, 384, 1001, 0, true);
  Tf32x3WgFamily::Staging s = Tf32x3WgFamily::staging(t, p);
  EXPECT_EQ(s.b_parts, autogemm::kWorkspaceCounterFloats);
  EXPECT_EQ(s.end, s.b_parts + 2 * 384 * 1004);
  EXPECT_EQ(c.workspace_floats(p), s.end);
  EXPECT_EQ(c.family().entry_points(c), (std::vector<std::string>{"agemm_tf32x3wg", "agemm_tf32x3wg_kmajor"}));
  t.pre_pass = 1, t.split_k = 4;
  const Problem odd = problem(127, 257, 509, 0, false);
  s = Tf32x3WgFamily::staging(t, odd);
  EXPECT_EQ(s.b, s.a + (127 * 512 + 31) / 32 * 32);
  EXPECT_EQ(s.b_parts, s.b) << "B is not staged: its split reads it in place";
  EXPECT_EQ(s.end, s.b_parts + 2 * 257 * 512);
  const KernelConfig all(t, false, false);
  EXPECT_EQ(all.family().entry_points(all),
            (std::vector<std::string>{"agemm_tf32x3wg", "agemm_tf32x3wg_reduce", "agemm_tf32x3wg_kmajor",
                                      "agemm_tf32x3wg_stage"}));
  EXPECT_TRUE(all.can_implement(odd));
  EXPECT_FALSE(c.can_implement(batched(p, 4, p.a_extent(), p.b_extent()))) << "one product only";
  const Problem big = problem(8192, 8192, 8192, 0, true);
  s = Tf32x3WgFamily::staging(params(128, 2, 1, 1, 0, 4, 1), big);
  EXPECT_EQ(s.chunk_n, 8192) << "no bands without bs=1";
  s = Tf32x3WgFamily::staging(c.get<Tf32x3WgParams>(), big);
  EXPECT_EQ(s.chunk_n, 2048) << "2 x 2048 x 8192 floats: half of what dispatch allocates";
  EXPECT_TRUE(c.can_implement(big));
  EXPECT_LE(c.workspace_floats(big), KernelConfig::kMaxWorkspaceFloats);
  Tf32x3WgParams t192 = params(192, 1, 1, 1, 0, 3, 1);
  t192.b_split = 1;
  EXPECT_EQ(Tf32x3WgFamily::staging(t192, big).chunk_n, 1920) << "a multiple of bn";
  t.pre_pass = 0, t.split_k = 2;
  s = Tf32x3WgFamily::staging(t, problem(256, 16384, 16384, 0, true));
  EXPECT_EQ(s.chunk_n, 1024);
  EXPECT_EQ(s.b_parts, (autogemm::kWorkspaceCounterFloats + 2 * 256 * 1024 + 31) / 32 * 32) << "a band's partial tiles";
  const Tf32x3WgFamily& f = Tf32x3WgFamily::instance();
  const SearchLimits lim = SearchLimits::of(autogemm::testing::fake_h200());
  for (int layout = 0; layout < 4; ++layout) {
    int pre_split = 0, transposed = 0;
    for (const KernelConfig& x : f.search_space(problem(4096, 4096, 4096, layout, true), lim)) {
      const Tf32x3WgParams& w = x.get<Tf32x3WgParams>();
      pre_split += w.b_split, transposed += w.a_transposed;
      if (w.b_split) {
        EXPECT_TRUE(w.a_regs == 1 && w.raw == 0) << x.to_string();
      }
    }
    EXPECT_GT(pre_split, 0) << "layout " << layout;
    EXPECT_EQ(transposed > 0, (layout & 1) == 1) << "layout " << layout;
  }
}

// at=1: A^T copied k-contiguous (M rows of K padded to 4) after B's parts,
// never staged by pp=1 (the copy reads it where it is); A then split in
// registers. Only for A^T, and only with ar=1.
TEST(Tf32x3Wg, TransposedAFollowsThePartsAndIsOnlyForATransposed) {
  Tf32x3WgParams t = params(128, 2, 1, 1, 0, 4, 1);
  t.b_split = 1, t.a_transposed = 1, t.pre_pass = 1;
  const KernelConfig c(t, true, false);
  EXPECT_EQ(c.to_string(), "tf32x3wg bn=128 wg=2 pw=1 ar=1 raw=0 split=4 dr=1 sw=1 pp=1 bs=1 at=1 ta=1 tb=0");
  const Problem odd = problem(127, 257, 509, 1, false);  // A 509 x 127
  const Tf32x3WgFamily::Staging s = Tf32x3WgFamily::staging(t, odd);
  EXPECT_EQ(s.b_parts, s.a) << "neither A nor B staged";
  EXPECT_EQ(s.a_kmajor, s.b_parts + (2 * 257 * 512 + 31) / 32 * 32);
  EXPECT_EQ(s.end, s.a_kmajor + 127 * 512);
  EXPECT_TRUE(c.can_implement(odd));
  EXPECT_EQ(c.family().entry_points(c),
            (std::vector<std::string>{"agemm_tf32x3wg", "agemm_tf32x3wg_kmajor", "agemm_tf32x3wg_stage"}));
  EXPECT_FALSE(KernelConfig(t, false, false).is_valid(nullptr)) << "at=1 with k-contiguous A";
  t.a_regs = 0, t.b_split = 0, t.raw = 2, t.split = 2, t.producers = 2;
  EXPECT_FALSE(KernelConfig(t, true, false).is_valid(nullptr)) << "at=1 without ar=1";
  EXPECT_FALSE(KernelConfig(params(128, 2, 1, 1, 3, 3, 1), true, false).is_valid(nullptr)) << "ar=1 on A^T without at=1";
}

// A batch's operands are 3-D tensor maps stepping by whole products: a
// stride of 0 (one operand for all) or at least the product's extent.
TEST(Tf32x3Wg, BatchesWhoseProductsDoNotOverlap) {
  const KernelConfig c(params(128, 2, 1, 1, 3, 3, 1), false, false);
  const Problem p = problem(64, 64, 64, 0, true);
  EXPECT_TRUE(c.can_implement(batched(p, 100, p.a_extent(), p.b_extent())));
  EXPECT_TRUE(c.can_implement(batched(p, 100, 0, p.b_extent() + 4)));
  EXPECT_FALSE(c.can_implement(batched(p, 100, p.lda, p.b_extent()))) << "overlapping A products";
  EXPECT_FALSE(c.can_implement(batched(p, 2, int64_t(1) << 38, p.b_extent()))) << "a TMA stride of 2^40 bytes";
  EXPECT_FALSE(c.can_implement(batched(problem(64, 64, 64, 0, false), 100, 64 * 64, 64 * 64)));
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
           "tf32x3wg bn=128 wg=2 pw=2 ar=0 raw=0 split=2 dr=1 sw=1 bs=1 ta=0 tb=0",  // bs=1 needs ar=1
           "tf32x3wg bn=128 wg=2 pw=1 ar=1 raw=0 split=3 dr=1 sw=1 ta=0 tb=0",       // no raw ring without bs=1
           "tf32x3wg bn=128 wg=2 pw=1 ar=1 raw=2 split=3 dr=1 sw=1 bs=1 ta=0 tb=0",  // bs=1 has no raw ring
           "tf32x3wg bn=128 wg=2 pw=1 ar=1 raw=2 split=4 dr=1 sw=1 ta=0 tb=0",       // 4 split buffers need bs=1
       }) {
    std::string why;
    EXPECT_FALSE(KernelConfig::parse(text, &why).has_value()) << text;
    EXPECT_FALSE(why.empty()) << text;
  }
}

TEST(Tf32x3Wg, UnalignedOnlyWithThePrePassOptInOnlyAndSm90aOnly) {
  const Tf32x3WgFamily& f = Tf32x3WgFamily::instance();
  const KernelConfig c(params(128, 2, 1, 1, 3, 3, 1), false, false);
  Tf32x3WgParams staged = params(128, 2, 1, 1, 3, 3, 1);
  staged.pre_pass = 1;
  const KernelConfig pp(staged, false, false);
  EXPECT_EQ(pp.to_string(), "tf32x3wg bn=128 wg=2 pw=1 ar=1 raw=3 split=3 dr=1 sw=1 pp=1 ta=0 tb=0");
  EXPECT_TRUE(c.can_implement(problem(4096, 4096, 4096, 0, true)));
  EXPECT_FALSE(c.can_implement(problem(4096, 4096, 4097, 0, false))) << "TMA needs the aligned class";
  EXPECT_TRUE(pp.can_implement(problem(4096, 4096, 4097, 0, false)));
  EXPECT_TRUE(pp.can_implement(problem(4096, 4096, 4096, 0, true)));
  Problem many = problem(64, 64, 65, 0, false);
  many.batch = 3, many.stride_a = many.a_extent(), many.stride_b = many.b_extent(), many.stride_c = many.c_extent();
  EXPECT_FALSE(pp.can_implement(many)) << "no pre-pass for a batch";
  EXPECT_EQ(c.workspace_floats(problem(127, 257, 509, 0, true)), 0u);
  for (int t = 0; t < 4; ++t) {
    EXPECT_FALSE(f.default_config(problem(4096, 4096, 4096, t, true)).has_value());
    for (bool aligned : {true, false})
      for (const KernelConfig& x : f.search_space(problem(4096, 4096, 4097, t, aligned), SearchLimits{}))
        EXPECT_EQ(x.get<Tf32x3WgParams>().pre_pass, aligned ? 0 : 1) << x.to_string();
  }
  const auto fit = f.fitted(c, problem(100, 100, 101, 0, false));
  ASSERT_TRUE(fit.has_value());
  EXPECT_EQ(fit->get<Tf32x3WgParams>().pre_pass, 1) << "borrowed for the unaligned class: with the pre-pass";
  EXPECT_FALSE(f.fitted(c, problem(100, 100, 100, 1, true)).has_value()) << "ar=1 cannot take transposed A";
  // No -D for the pre-pass: it is the host's, and the kernel is the same.
  for (const std::string& d : pp.defines()) EXPECT_EQ(d.find("PRE"), std::string::npos) << d;
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
      // Small enough to measure whole (the split-K axis adds only where tiles leave SMs idle).
      EXPECT_LE(space.size(), 60u) << k;
      for (const KernelConfig& c : space) {
        const Tf32x3WgParams& p = c.get<Tf32x3WgParams>();
        EXPECT_EQ(p.drain, k <= 32 ? 0 : 1) << c.to_string();
        // A in registers exactly when the main loop reads A k-contiguous.
        EXPECT_EQ(p.a_regs, c.trans_a ? p.a_transposed : 1) << c.to_string();
        EXPECT_LE(Tf32x3WgFamily::tile_registers(p) + 28, Tf32x3WgFamily::consumer_registers(p)) << c.to_string();
      }
    }
}

// Few output tiles and long K: the space offers split-K where the tiles fill
// under a wave (up to two waves of blocks) or leave a last wave mostly idle
// (up to 4 slices), and the model ranks a split first; a full GPU of tiles
// and a batch never split.
TEST(Tf32x3Wg, SplitKWhereTilesLeaveSmsIdle) {
  const Tf32x3WgFamily& f = Tf32x3WgFamily::instance();
  const SearchLimits lim = SearchLimits::of(autogemm::testing::fake_h200());
  for (const Problem& p : {problem(128, 4096, 4096, 0, true), problem(64, 64, 65536, 1, true),
                           problem(256, 11008, 4096, 2, true)}) {
    const std::vector<KernelConfig> space = f.search_space(p, lim);
    int split = 0;
    const KernelConfig* best = nullptr;
    for (const KernelConfig& c : space) {
      const Tf32x3WgParams& t = c.get<Tf32x3WgParams>();
      const unsigned tiles = c.family().geometry(c, p).grid_x;
      if (t.split_k > 1) {
        ++split;
        EXPECT_TRUE(tiles * t.split_k <= 2u * lim.sm_count || (tiles < 4u * lim.sm_count && t.split_k <= 4))
            << c.to_string();
      }
      if (!best || f.cost(c, p, lim) < f.cost(*best, p, lim)) best = &c;
    }
    EXPECT_GT(split, 0) << p.to_string();
    ASSERT_NE(best, nullptr);
    EXPECT_GT(best->get<Tf32x3WgParams>().split_k, 1) << p.to_string() << ": " << best->to_string();
  }
  const Problem big = problem(4096, 4096, 4096, 0, true);
  for (const Problem& p : {big, batched(big, 4, big.a_extent(), big.b_extent())})
    for (const KernelConfig& c : f.search_space(p, lim)) EXPECT_EQ(c.get<Tf32x3WgParams>().split_k, 1);
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
  // The drain orders kernel_probe compares with the default (the slice
  // order, AG_COMPENSATE=1): the plain order in every layout's heaviest
  // config; the carry (a few registers more at a drain) in the tuned
  // winners of large and short-K squares and a split-K one.
  for (int t = 0; t < 4; ++t) builds.push_back({KernelConfig(heavy[t], t & 1, t & 2), {"-DAG_COMPENSATE=0"}, {}, {}});
  for (const Tf32x3WgParams& w : {heavy[0], params(64, 2, 1, 1, 3, 3, 1, 1), params(128, 2, 1, 1, 3, 3, 1, 1, 2)})
    builds.push_back({KernelConfig(w, false, false), {"-DAG_COMPENSATE=2"}, {}, {}});
  // Split-K: the partial-tile epilogue and the reduction kernel.
  builds.push_back({KernelConfig(params(128, 2, 1, 1, 3, 3, 1, 1, 8), false, false), {}, {}, {}});
  builds.push_back({KernelConfig(params(64, 1, 2, 0, 3, 3, 1, 1, 128), true, true), {}, {}, {}});
  // B pre-split (bs=1, both of B's layouts): the copy-only producer and the
  // split kernel; the deepest ring, the widest tile, and split-K.
  for (Tf32x3WgParams w : {params(128, 2, 1, 1, 0, 4, 1, 8), params(192, 1, 1, 1, 0, 3, 1), params(64, 2, 1, 1, 0, 3, 1, 1, 8)}) {
    w.b_split = 1;
    for (bool tb : {false, true}) builds.push_back({KernelConfig(w, false, tb), {}, {}, {}});
  }
  // A^T transposed by its pre-pass (at=1), with and without B pre-split.
  for (Tf32x3WgParams w : {params(128, 2, 1, 1, 0, 4, 1, 8), params(128, 2, 1, 1, 3, 3, 1, 8)}) {
    w.a_transposed = 1, w.b_split = w.raw == 0;
    for (bool tb : {false, true}) builds.push_back({KernelConfig(w, true, tb), {}, {}, {}});
  }
  // C7515..C7519: ptxas serialized the wgmmas or inserted waits of its own;
  // C7508: it ignored setmaxnreg.
  build_without_spills(builds, "sm_90a", {"C751", "C7508"});
}

}  // namespace
