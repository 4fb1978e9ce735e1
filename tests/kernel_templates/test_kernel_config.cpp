// KernelConfig and the tiled family's parameters: canonical text round
// trip, parse() rejections, static checks, can_implement(), workspace and
// shared-memory sizes, -D values. The checks every family shares are in
// test_families.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "autogemm/kernel_config.h"
#include "autogemm/problem.h"

namespace autogemm {
// Failure messages show configs as their canonical text.
[[maybe_unused]] static void PrintTo(const KernelConfig& c, std::ostream* os) { *os << c.to_string(); }
}  // namespace autogemm

namespace {

using autogemm::GenericParams;
using autogemm::KernelConfig;
using autogemm::Problem;
using autogemm::TiledFamily;
using autogemm::TiledParams;

/// The tiled parameters of `c` (which must be tiled), for reading and editing.
const TiledParams& tp(const KernelConfig& c) { return c.get<TiledParams>(); }
TiledParams& tp(KernelConfig& c) { return c.get<TiledParams>(); }

const int kTiles[] = {16, 32, 64, 128, 256};
const int kDepths[] = {4, 8, 16, 32};
const int kThreadTiles[] = {1, 2, 4, 8, 16};
const int kWarpCols[] = {1, 2, 4, 8, 16, 32};
const int kSwizzles[] = {1, 2, 4, 8, 16};
const int kSplits[] = {1, 2, 3, 4, 7, 16, 64};

/// Every valid tiled config over bm, bn, bk, tm, tn, wc; the remaining
/// fields cycle deterministically so that all their values appear.
std::vector<KernelConfig> valid_tiled_configs() {
  std::vector<KernelConfig> out;
  unsigned i = 0;
  for (int bm : kTiles)
    for (int bn : kTiles)
      for (int bk : kDepths)
        for (int tm : kThreadTiles)
          for (int tn : kThreadTiles)
            for (int wc : kWarpCols) {
              TiledParams t;
              t.bm = bm, t.bn = bn, t.bk = bk, t.tm = tm, t.tn = tn, t.wc = wc;
              t.vec = (i & 1) ? 4 : 1;
              t.split_k = kSplits[(i / 2) % 7];
              t.split_reduce = t.split_k > 1 ? (i / 17) & 1 : 0;
              t.swizzle = kSwizzles[(i / 3) % 5];
              t.stages = (i / 11) % 2 ? 3 : 0;
              t.k_unroll = (i / 13) % 2 && bk > 4 ? bk / 2 : 0;
              t.min_blocks = 1 + (i / 19) % 2;
              const KernelConfig c(t, (i / 5) & 1, (i / 7) & 1);
              ++i;
              if (c.is_valid()) out.push_back(c);
            }
  return out;
}

std::string text(int bm, int bn, int bk, int tm, int tn, int wc = 8, int vec = 4, int sk = 1,
                 int sw = 8, int ta = 0, int tb = 0) {
  return "tiled bm=" + std::to_string(bm) + " bn=" + std::to_string(bn) + " bk=" + std::to_string(bk) +
         " tm=" + std::to_string(tm) + " tn=" + std::to_string(tn) + " wc=" + std::to_string(wc) +
         " vec=" + std::to_string(vec) + " sk=" + std::to_string(sk) + (sk > 1 ? " rd=0" : "") +
         " sw=" + std::to_string(sw) +
         " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb);
}

Problem problem(int64_t m, int64_t n, int64_t k, bool ta, bool tb, bool aligned) {
  Problem p;
  p.m = m, p.n = n, p.k = k, p.trans_a = ta, p.trans_b = tb, p.aligned = aligned;
  p.lda = ta ? m : k, p.ldb = tb ? k : n, p.ldc = n;
  return p;
}

// ---- text form -----------------------------------------------------------------

TEST(KernelConfigText, DocumentedCanonicalForm) {
  const auto c = KernelConfig::parse(text(128, 128, 8, 8, 8));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->to_string(), "tiled bm=128 bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0");
  EXPECT_EQ(KernelConfig::generic(true, false).to_string(), "generic ta=1 tb=0");
}

TEST(KernelConfigText, RoundTripOfEveryValidTiledShape) {
  const auto configs = valid_tiled_configs();
  ASSERT_GT(configs.size(), 1000u);
  for (const KernelConfig& c : configs) {
    const std::string s = c.to_string();
    std::string err;
    const auto back = KernelConfig::parse(s, &err);
    ASSERT_TRUE(back.has_value()) << s << ": " << err;
    ASSERT_EQ(back->to_string(), s);
    ASSERT_TRUE(*back == c) << s;
    ASSERT_TRUE(back->is<TiledParams>()) << s;
    ASSERT_EQ(&back->family(), &TiledFamily::instance());
    const TiledParams &b = tp(*back), &w = tp(c);
    ASSERT_EQ(b.bm, w.bm);
    ASSERT_EQ(b.bn, w.bn);
    ASSERT_EQ(b.bk, w.bk);
    ASSERT_EQ(b.tm, w.tm);
    ASSERT_EQ(b.tn, w.tn);
    ASSERT_EQ(b.wc, w.wc);
    ASSERT_EQ(b.vec, w.vec);
    ASSERT_EQ(b.split_k, w.split_k);
    ASSERT_EQ(b.split_reduce, w.split_reduce);
    ASSERT_EQ(b.swizzle, w.swizzle);
    ASSERT_EQ(b.stages, w.stages);
    ASSERT_EQ(b.min_blocks, w.min_blocks);
    ASSERT_EQ(b.k_unroll, w.k_unroll);
    ASSERT_EQ(back->trans_a, c.trans_a);
    ASSERT_EQ(back->trans_b, c.trans_b);
  }
}

TEST(KernelConfigText, RoundTripOfGeneric) {
  for (int t = 0; t < 4; ++t) {
    const KernelConfig g = KernelConfig::generic(t & 1, t & 2);
    const auto back = KernelConfig::parse(g.to_string());
    ASSERT_TRUE(back.has_value()) << g.to_string();
    EXPECT_TRUE(back->is<GenericParams>());
    EXPECT_TRUE(*back == g);
    EXPECT_EQ(back->trans_a, g.trans_a);
    EXPECT_EQ(back->trans_b, g.trans_b);
    EXPECT_EQ(back->to_string(), g.to_string());
  }
}

TEST(KernelConfigText, FieldOrderDoesNotMatter) {
  const auto c = KernelConfig::parse("tiled tb=1 ta=0 sw=2 rd=0 sk=4 vec=1 wc=4 tn=4 tm=2 bk=16 bn=64 bm=32");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->to_string(), text(32, 64, 16, 2, 4, 4, 1, 4, 2, 0, 1));
}

TEST(KernelConfigText, RejectsMalformedText) {
  const std::string good = text(128, 128, 8, 8, 8);
  ASSERT_TRUE(KernelConfig::parse(good).has_value());
  const std::vector<std::string> bad = {
      "",
      "   ",
      "tiles bm=128",                              // unknown family
      "TILED" + good.substr(5),                    // family is case-sensitive
      "cublas ta=0 tb=0",                          // unknown family
      "ta=0 tb=0",                                 // no family
      "bm=128" + good.substr(5),                   // a field where the family belongs
      good + " xx=1",                              // unknown field
      good + " bm=128",                            // repeated field
      good + " ta=0",                              // repeated field
      good + " st=0 st=0",                         // repeated optional field
      good + " rd=0",                              // rd without split-K
      "generic ta=0 tb=0 ta=1",                    // repeated field
      "generic ta=0 tb=0 bm=128",                  // tiled field on generic
      "generic ta=0",                              // missing field
      "generic",                                   // missing fields
      "tiled bm=128 bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0",  // missing tb
      "tiled bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0",    // missing bm
      "tiled",                                     // missing everything
      "tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=4 sk=4 sw=1 ta=0 tb=0",  // split-K without rd
      "tiled bm=12a bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0",  // non-numeric
      "tiled bm=0x80 bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0",
      "tiled bm=128.0 bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0",
      "tiled bm= bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0",     // empty value
      "tiled bm bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0",      // no '='
      "tiled =128 bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0",    // no key
      "tiled bm=+128 bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0",
      "tiled bm=-128 bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0",  // negative
      text(128, 128, 8, 8, 8, 8, 4, 1, 8, -1, 0),                            // negative ta
      "tiled bm=4294967424 bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0",  // wraps to 128
      "tiled bm=99999999999999999999 bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0",
      "tiled bm=2147483648 bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0",
      "generic ta=4294967297 tb=0",                                          // wraps to 1
      "generic ta=0 tb=0; rm -rf /",
  };
  for (const std::string& s : bad) {
    std::string err;
    EXPECT_FALSE(KernelConfig::parse(s, &err).has_value()) << "'" << s << "'";
    EXPECT_FALSE(err.empty()) << "no message for '" << s << "'";
    EXPECT_FALSE(KernelConfig::parse(s).has_value()) << "'" << s << "' (no error sink)";
  }
}

TEST(KernelConfigText, RejectsOutOfRangeValues) {
  const std::vector<std::string> bad = {
      text(48, 128, 8, 8, 8),         // bm not a power of two
      text(8, 128, 8, 1, 8),          // bm too small
      text(512, 128, 8, 16, 8),       // bm too large
      text(128, 96, 8, 8, 8),         // bn
      text(128, 128, 3, 8, 8),        // bk
      text(128, 128, 64, 8, 8),       // bk too deep
      text(128, 128, 0, 8, 8),
      text(128, 128, 8, 3, 8),        // tm
      text(128, 128, 8, 32, 4),       // tm too large
      text(128, 128, 8, 8, 0),        // tn
      text(128, 128, 8, 8, 8, 8, 2),  // vec=2
      text(128, 128, 8, 8, 8, 8, 0),  // vec=0
      text(128, 128, 8, 8, 8, 8, 4, 0),   // sk=0
      text(128, 128, 8, 8, 8, 8, 4, 257),  // sk=257
      text(128, 128, 8, 8, 8, 8, 4, 1, 3),  // sw=3
      text(128, 128, 8, 8, 8, 8, 4, 1, 0),
      text(128, 128, 8, 8, 8, 8, 4, 1, 32),
      text(128, 128, 8, 8, 8, 3),     // wc=3
      text(128, 128, 8, 8, 8, 64),    // wc=64
      text(128, 128, 8, 8, 8, 0),
      text(128, 128, 8, 8, 8, 8, 4, 1, 8, 2, 0),  // ta=2
      text(128, 128, 8, 8, 8, 8, 4, 1, 8, 0, 2),  // tb=2
      "generic ta=2 tb=0",
      text(256, 256, 8, 2, 4),        // threads 128*64 > 1024
      text(256, 128, 8, 4, 4),        // threads 64*32 = 2048 > 1024
      text(16, 16, 8, 4, 4),          // threads 16 < 32
      text(256, 256, 8, 16, 32),      // tn > 16
      text(16, 16, 8, 1, 1, 32),      // warp 1 x 32, thread grid only 16 wide
      text(128, 64, 8, 2, 8, 16),     // warp 2 x 16, thread grid only 8 wide
  };
  for (const std::string& s : bad) {
    std::string err;
    EXPECT_FALSE(KernelConfig::parse(s, &err).has_value()) << s;
    EXPECT_FALSE(err.empty()) << s;
  }
}

TEST(KernelConfigValid, ThreadAndWarpLimits) {
  KernelConfig c = *KernelConfig::parse(text(128, 128, 8, 8, 8));
  EXPECT_EQ(c.threads(), 256);
  tp(c).tm = 4, tp(c).tn = 4;  // 32 x 32 threads
  EXPECT_EQ(c.threads(), 1024);
  EXPECT_TRUE(c.is_valid());
  tp(c).tm = 2;  // 64 x 32 = 2048
  std::string why;
  EXPECT_FALSE(c.is_valid(&why));
  EXPECT_FALSE(why.empty());
  // Warp 4 x 8 over a 16 x 16 thread grid tiles; 1 x 32 does not.
  c = *KernelConfig::parse(text(64, 64, 8, 4, 4, 8));
  EXPECT_TRUE(c.is_valid());
  tp(c).wc = 32;
  EXPECT_FALSE(c.is_valid());
  tp(c).wc = 16;
  EXPECT_TRUE(c.is_valid());
  // Two blocks of 1024 threads fill an SM: three cannot be promised.
  c = *KernelConfig::parse(text(128, 128, 8, 4, 4));
  tp(c).min_blocks = 2;
  EXPECT_TRUE(c.is_valid());
  tp(c).min_blocks = 3;
  EXPECT_FALSE(c.is_valid());
  // The reduction mode exists only with split-K.
  c = *KernelConfig::parse(text(64, 64, 8, 4, 4));
  tp(c).split_reduce = 1;
  EXPECT_FALSE(c.is_valid());
  tp(c).split_k = 2;
  EXPECT_TRUE(c.is_valid());
  EXPECT_EQ(KernelConfig::generic(false, false).threads(), 256);
  EXPECT_TRUE(KernelConfig::generic(true, true).is_valid());
}

// ---- can_implement / workspace / shared memory -------------------------------------

TEST(KernelConfigImplement, TransposesMustMatch) {
  for (int ct = 0; ct < 4; ++ct)
    for (int pt = 0; pt < 4; ++pt) {
      KernelConfig c = *KernelConfig::parse(text(64, 64, 8, 4, 4, 8, 1, 1, 4, ct & 1, (ct >> 1) & 1));
      const Problem p = problem(100, 100, 100, pt & 1, (pt >> 1) & 1, true);
      EXPECT_EQ(c.can_implement(p), ct == pt) << ct << " " << pt;
      EXPECT_EQ(KernelConfig::generic(ct & 1, (ct >> 1) & 1).can_implement(p), ct == pt);
    }
}

TEST(KernelConfigImplement, VectorAccessNeedsTheAlignedClass) {
  const KernelConfig v4 = *KernelConfig::parse(text(64, 64, 8, 4, 4, 8, 4));
  const KernelConfig v1 = *KernelConfig::parse(text(64, 64, 8, 4, 4, 8, 1));
  EXPECT_TRUE(v4.can_implement(problem(64, 64, 64, false, false, true)));
  EXPECT_FALSE(v4.can_implement(problem(64, 64, 64, false, false, false)));
  EXPECT_TRUE(v1.can_implement(problem(64, 64, 64, false, false, true)));
  EXPECT_TRUE(v1.can_implement(problem(63, 65, 67, false, false, false)));
}

TEST(KernelConfigImplement, GenericImplementsEveryShape) {
  for (int64_t m : {1, 7, 16, 1000, 100000})
    for (int64_t n : {1, 3, 64, 4097})
      for (int64_t k : {1, 5, 4096})
        for (int t = 0; t < 4; ++t)
          for (bool aligned : {false, true}) {
            const Problem p = problem(m, n, k, t & 1, t & 2, aligned);
            EXPECT_TRUE(KernelConfig::generic(t & 1, t & 2).can_implement(p)) << p.to_string();
          }
}

TEST(KernelConfigSizes, WorkspaceForSplitK) {
  const Problem p = problem(300, 500, 7000, false, false, true);
  EXPECT_EQ(KernelConfig::parse(text(64, 64, 8, 4, 4, 8, 4, 1))->workspace_floats(p), 0u);
  // The tile-counter area, then the partial tiles.
  const size_t counters = TiledFamily::kSplitTiles;
  EXPECT_EQ(KernelConfig::parse(text(64, 64, 8, 4, 4, 8, 4, 2))->workspace_floats(p), counters + 2u * 300 * 500);
  EXPECT_EQ(KernelConfig::parse(text(64, 64, 8, 4, 4, 8, 4, 64))->workspace_floats(p), counters + 64u * 300 * 500);
  EXPECT_EQ(KernelConfig::generic(false, false).workspace_floats(p), 0u);
  // No 32-bit overflow for big outputs.
  const Problem big = problem(100000, 100000, 64, false, false, true);
  EXPECT_EQ(KernelConfig::parse(text(64, 64, 8, 4, 4, 8, 4, 64))->workspace_floats(big),
            TiledFamily::kSplitTiles + size_t(64) * 100000 * 100000);
  // The tuner re-zeroes exactly the counters between candidates.
  const TiledFamily& f = TiledFamily::instance();
  EXPECT_EQ(f.workspace_counter_floats(*KernelConfig::parse(text(64, 64, 8, 4, 4, 8, 4, 1))), 0u);
  EXPECT_EQ(f.workspace_counter_floats(*KernelConfig::parse(text(64, 64, 8, 4, 4, 8, 4, 2))), counters);
}

TEST(KernelConfigImplement, SplitKNeedsATileCounterPerOutputTile) {
  const KernelConfig sk = *KernelConfig::parse(text(64, 64, 8, 4, 4, 8, 4, 2));
  const KernelConfig one = *KernelConfig::parse(text(64, 64, 8, 4, 4, 8, 4, 1));
  // 256 x 256 tiles of 64 x 64 are exactly the 65536 counters; one more row is too many.
  EXPECT_TRUE(sk.can_implement(problem(256 * 64, 256 * 64, 64, false, false, true)));
  EXPECT_FALSE(sk.can_implement(problem(256 * 64 + 1, 256 * 64, 64, false, false, true)));
  EXPECT_TRUE(one.can_implement(problem(256 * 64 + 1, 256 * 64, 64, false, false, true)));
}

TEST(KernelConfigSizes, SharedMemoryMatchesTheKernelLayout) {
  // sgemm_tiled.cu: AG_NBUF buffers (2 with register staging, st with
  // cp.async) of As[bk][bm + 4] and Bs[bk][bn + 4] floats.
  for (const KernelConfig& c : valid_tiled_configs()) {
    const TiledParams& t = tp(c);
    const size_t buffers = t.stages > 0 ? t.stages : 2;
    const size_t want = buffers * t.bk * ((t.bm + 4) + (t.bn + 4)) * sizeof(float);
    ASSERT_EQ(c.smem_bytes(), want) << c.to_string();
    ASSERT_EQ(TiledFamily::smem_bytes(t), want) << c.to_string();
    ASSERT_EQ(TiledFamily::threads(t), (t.bm / t.tm) * (t.bn / t.tn)) << c.to_string();
  }
  EXPECT_EQ(KernelConfig::parse(text(128, 128, 8, 8, 8))->smem_bytes(), 2u * 8 * (132 + 132) * 4);
  EXPECT_EQ(KernelConfig::generic(false, false).smem_bytes(), 0u);
}

TEST(KernelConfigDefines, EveryParameterBecomesADefine) {
  const KernelConfig c = *KernelConfig::parse(text(32, 64, 16, 2, 4, 4, 1, 4, 2, 1, 0));
  const std::vector<std::string> want = {"-DAG_TRANS_A=1", "-DAG_TRANS_B=0", "-DAG_BM=32",
                                         "-DAG_BN=64",     "-DAG_BK=16",     "-DAG_TM=2",
                                         "-DAG_TN=4",      "-DAG_WC=4",      "-DAG_VEC=1",
                                         "-DAG_SPLIT_K=4", "-DAG_SPLIT_REDUCE=0", "-DAG_SWIZZLE=2",
                                         "-DAG_STAGES=0",  "-DAG_MIN_BLOCKS=1", "-DAG_KUNROLL=0",
                                         "-DAG_BATCHED=0"};
  const auto d = c.defines();
  for (const auto& w : want) EXPECT_NE(std::find(d.begin(), d.end(), w), d.end()) << w;
  EXPECT_EQ(d.size(), want.size());
  const auto g = KernelConfig::generic(false, true).defines();
  EXPECT_EQ(g, (std::vector<std::string>{"-DAG_TRANS_A=0", "-DAG_TRANS_B=1"}));
}

// st, mb and ku are optional in the text (configs stored before they
// existed keep their meaning) and appear in the canonical form only when
// they differ from their defaults.
TEST(KernelConfigPipeline, OptionalFieldsRoundTripAndDefaultToTheOldKernel) {
  const auto old = KernelConfig::parse(text(128, 128, 8, 16, 8));
  ASSERT_TRUE(old);
  EXPECT_EQ(tp(*old).stages, 0);
  EXPECT_EQ(tp(*old).min_blocks, 1);
  EXPECT_EQ(tp(*old).k_unroll, 0);
  EXPECT_EQ(old->to_string(), text(128, 128, 8, 16, 8));

  const std::string t = "tiled bm=128 bn=256 bk=16 tm=16 tn=8 wc=4 vec=4 sk=1 sw=1 st=3 mb=2 ku=8 ta=0 tb=1";
  const auto c = KernelConfig::parse(t);
  ASSERT_TRUE(c);
  EXPECT_EQ(tp(*c).stages, 3);
  EXPECT_EQ(tp(*c).min_blocks, 2);
  EXPECT_EQ(tp(*c).k_unroll, 8);
  EXPECT_EQ(c->to_string(), t);
  // Written-out defaults parse, and print canonically without them.
  const auto d = KernelConfig::parse("tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=4 sk=1 sw=1 st=0 mb=1 ku=0 ta=0 tb=0");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->to_string(), "tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=4 sk=1 sw=1 ta=0 tb=0");
}

TEST(KernelConfigPipeline, OutOfRangeStagesBlocksAndUnrollAreRejected) {
  const std::string base = "tiled bm=128 bn=128 bk=16 tm=16 tn=8 wc=4 vec=4 sk=1 sw=1 ";
  for (const char* bad : {"st=1", "st=5", "mb=0", "mb=5", "ku=3", "ku=16", "ku=32", "st=3 st=3"}) {
    std::string why;
    EXPECT_FALSE(KernelConfig::parse(base + bad + " ta=0 tb=0", &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
  // Three stages need three shared buffers.
  const auto two = KernelConfig::parse(base + "ta=0 tb=0");
  const auto three = KernelConfig::parse(base + "st=3 ta=0 tb=0");
  ASSERT_TRUE(two && three);
  EXPECT_EQ(three->smem_bytes() * 2, two->smem_bytes() * 3);
}

}  // namespace
