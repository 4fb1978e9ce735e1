// Canonical form: normalize(), make_problem(), parse_shape().
#include <gtest/gtest.h>

#include <cstdint>

#include "autogemm/problem.h"
#include "autogemm/gemm_args.h"
#include "autogemm/shape_spec.h"

namespace {

using autogemm::GemmArgs;

const float* P(std::uintptr_t v) { return reinterpret_cast<const float*>(v); }
float* PC(std::uintptr_t v) { return reinterpret_cast<float*>(v); }

GemmArgs args(autogemm_layout layout, autogemm_transpose ta, autogemm_transpose tb) {
  GemmArgs g;
  g.layout = layout;
  g.trans_a = ta;
  g.trans_b = tb;
  g.m = 3, g.n = 5, g.k = 7;
  g.alpha = 2.f, g.beta = 3.f;
  g.a = P(0x1000), g.b = P(0x2000), g.c = PC(0x3000);
  g.lda = 12, g.ldb = 16, g.ldc = 20;
  return g;
}

// ---- normalize ------------------------------------------------------------

TEST(Normalize, RowMajorIsKeptAsIs) {
  for (auto ta : {AUTOGEMM_NO_TRANS, AUTOGEMM_TRANS, AUTOGEMM_CONJ_TRANS})
    for (auto tb : {AUTOGEMM_NO_TRANS, AUTOGEMM_TRANS, AUTOGEMM_CONJ_TRANS}) {
      const GemmArgs g = args(AUTOGEMM_ROW_MAJOR, ta, tb);
      const auto c = autogemm::normalize(g);
      EXPECT_EQ(c.problem.m, 3);
      EXPECT_EQ(c.problem.n, 5);
      EXPECT_EQ(c.problem.k, 7);
      EXPECT_EQ(c.problem.trans_a, ta != AUTOGEMM_NO_TRANS);
      EXPECT_EQ(c.problem.trans_b, tb != AUTOGEMM_NO_TRANS);
      EXPECT_EQ(c.problem.lda, 12);
      EXPECT_EQ(c.problem.ldb, 16);
      EXPECT_EQ(c.problem.ldc, 20);
      EXPECT_EQ(c.a, g.a);
      EXPECT_EQ(c.b, g.b);
      EXPECT_EQ(c.c, g.c);
      EXPECT_EQ(c.alpha, 2.f);
      EXPECT_EQ(c.beta, 3.f);
    }
}

TEST(Normalize, ColumnMajorSwapsOperandsAndKeepsEachFlagWithItsOperand) {
  for (auto ta : {AUTOGEMM_NO_TRANS, AUTOGEMM_TRANS})
    for (auto tb : {AUTOGEMM_NO_TRANS, AUTOGEMM_TRANS}) {
      const GemmArgs g = args(AUTOGEMM_COL_MAJOR, ta, tb);
      const auto c = autogemm::normalize(g);
      EXPECT_EQ(c.problem.m, 5);  // N
      EXPECT_EQ(c.problem.n, 3);  // M
      EXPECT_EQ(c.problem.k, 7);
      // canonical A is the caller's B, with B's flag
      EXPECT_EQ(c.a, g.b);
      EXPECT_EQ(c.b, g.a);
      EXPECT_EQ(c.problem.trans_a, tb == AUTOGEMM_TRANS);
      EXPECT_EQ(c.problem.trans_b, ta == AUTOGEMM_TRANS);
      EXPECT_EQ(c.problem.lda, 16);
      EXPECT_EQ(c.problem.ldb, 12);
      EXPECT_EQ(c.problem.ldc, 20);
      EXPECT_EQ(c.c, g.c);
      EXPECT_EQ(c.alpha, 2.f);
      EXPECT_EQ(c.beta, 3.f);
    }
}

TEST(Normalize, ColumnMajorNTBecomesRowMajorTN) {
  GemmArgs g = args(AUTOGEMM_COL_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_TRANS);
  const auto p = autogemm::normalize(g).problem;
  EXPECT_TRUE(p.trans_a);
  EXPECT_FALSE(p.trans_b);
  EXPECT_EQ(p.to_string(), "5x3x7 TN aligned");
}

TEST(Normalize, AlignedOnlyWhenAllPointersAndAllLeadingDimensionsAllow) {
  for (auto layout : {AUTOGEMM_ROW_MAJOR, AUTOGEMM_COL_MAJOR}) {
    SCOPED_TRACE(layout);
    GemmArgs g = args(layout, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS);
    EXPECT_TRUE(autogemm::normalize(g).problem.aligned);
    for (int which = 0; which < 3; ++which) {
      for (std::uintptr_t off : {4u, 8u, 12u}) {
        GemmArgs x = g;
        if (which == 0) x.a = P(0x1000 + off);
        if (which == 1) x.b = P(0x2000 + off);
        if (which == 2) x.c = PC(0x3000 + off);
        EXPECT_FALSE(autogemm::normalize(x).problem.aligned) << "pointer " << which << " +" << off;
      }
      for (int ld_off : {1, 2, 3}) {
        GemmArgs x = g;
        (which == 0 ? x.lda : which == 1 ? x.ldb : x.ldc) += ld_off;
        EXPECT_FALSE(autogemm::normalize(x).problem.aligned) << "ld " << which << " +" << ld_off;
      }
    }
    GemmArgs x = g;
    x.a = P(0x1010), x.b = P(0x2020), x.c = PC(0x30f0), x.lda = 4, x.ldb = 8, x.ldc = 400;
    EXPECT_TRUE(autogemm::normalize(x).problem.aligned);
  }
}

// ---- make_problem / ShapeSpec ------------------------------------------------

TEST(MakeProblem, MinimalLeadingDimensionsOfTheCanonicalForm) {
  auto p = autogemm::make_problem(AUTOGEMM_ROW_MAJOR, false, true, 8, 12, 16, true);
  EXPECT_EQ(p.lda, 16);
  EXPECT_EQ(p.ldb, 16);  // B^T: N x K in memory
  EXPECT_EQ(p.ldc, 12);
  EXPECT_TRUE(p.aligned);
  p = autogemm::make_problem(AUTOGEMM_COL_MAJOR, true, false, 8, 12, 16, true);
  EXPECT_EQ(p.m, 12);
  EXPECT_EQ(p.n, 8);
  EXPECT_FALSE(p.trans_a);  // caller's B, not transposed
  EXPECT_TRUE(p.trans_b);   // caller's A, transposed
  // Odd leading dimensions cannot be aligned whatever the caller asks.
  EXPECT_FALSE(autogemm::make_problem(AUTOGEMM_ROW_MAJOR, false, false, 8, 9, 16, true).aligned);
  EXPECT_FALSE(autogemm::make_problem(AUTOGEMM_ROW_MAJOR, false, false, 8, 8, 8, false).aligned);
}

TEST(MakeProblem, KeyMatchesShape) {
  const auto p = autogemm::make_problem(AUTOGEMM_ROW_MAJOR, true, false, 4, 8, 12, true);
  const autogemm::ShapeKey k = p.key();
  EXPECT_EQ(k.m, 4);
  EXPECT_EQ(k.n, 8);
  EXPECT_EQ(k.k, 12);
  EXPECT_TRUE(k.trans_a);
  EXPECT_FALSE(k.trans_b);
  EXPECT_TRUE(k.aligned);
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 4 * 8 * 12);
}

TEST(MakeProblem, FromAStoredKeyGivesThatKeyBack) {
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (bool aligned : {false, true})
        for (int64_t m : {1, 17, 4097}) {
          const autogemm::ShapeKey key{m, 4095, 33, ta, tb, aligned};
          const autogemm::Problem p = autogemm::make_problem(key);
          EXPECT_EQ(p.key(), key) << p.to_string();
          EXPECT_GE(p.lda, ta ? m : 33);
          EXPECT_GE(p.ldb, tb ? 33 : 4095);
          EXPECT_GE(p.ldc, 4095);
          if (aligned) EXPECT_EQ(p.lda % 4 + p.ldb % 4 + p.ldc % 4, 0);
        }
}

// ---- parse_shape -----------------------------------------------------------

struct Good {
  const char* text;
  autogemm_layout layout;
  bool ta, tb;
  int64_t m, n, k;
};

TEST(ParseShape, AcceptsDocumentedForms) {
  const Good good[] = {
      {"4096x4096x4096", AUTOGEMM_ROW_MAJOR, false, false, 4096, 4096, 4096},
      {"128x256x64:NT", AUTOGEMM_ROW_MAJOR, false, true, 128, 256, 64},
      {"128x256x64:TN", AUTOGEMM_ROW_MAJOR, true, false, 128, 256, 64},
      {"128x256x64:NN", AUTOGEMM_ROW_MAJOR, false, false, 128, 256, 64},
      {"col:7x9x11:TT", AUTOGEMM_COL_MAJOR, true, true, 7, 9, 11},
      {"col:7x9x11", AUTOGEMM_COL_MAJOR, false, false, 7, 9, 11},
      {"row:1x1x1", AUTOGEMM_ROW_MAJOR, false, false, 1, 1, 1},
      {"2147483647x1x1", AUTOGEMM_ROW_MAJOR, false, false, 2147483647, 1, 1},
  };
  for (const Good& g : good) {
    SCOPED_TRACE(g.text);
    autogemm::ShapeSpec s;
    std::string err;
    ASSERT_TRUE(autogemm::parse_shape(g.text, &s, &err)) << err;
    EXPECT_EQ(s.layout, g.layout);
    EXPECT_EQ(s.trans_a, g.ta);
    EXPECT_EQ(s.trans_b, g.tb);
    EXPECT_EQ(s.m, g.m);
    EXPECT_EQ(s.n, g.n);
    EXPECT_EQ(s.k, g.k);
  }
}

TEST(ParseShape, ToStringRoundTrips) {
  for (const char* text : {"4096x4096x4096:NN", "128x256x64:NT", "col:7x9x11:TT", "col:1x2x3:TN"}) {
    autogemm::ShapeSpec s, t;
    ASSERT_TRUE(autogemm::parse_shape(text, &s, nullptr)) << text;
    EXPECT_EQ(s.to_string(), text);
    ASSERT_TRUE(autogemm::parse_shape(s.to_string(), &t, nullptr));
    EXPECT_EQ(t.to_string(), s.to_string());
  }
}

TEST(ParseShape, ProblemIsCanonical) {
  autogemm::ShapeSpec s;
  ASSERT_TRUE(autogemm::parse_shape("col:8x16x32:NT", &s, nullptr));
  const autogemm::Problem p = s.problem();
  EXPECT_EQ(p.m, 16);
  EXPECT_EQ(p.n, 8);
  EXPECT_EQ(p.k, 32);
  EXPECT_TRUE(p.trans_a);
  EXPECT_FALSE(p.trans_b);
  EXPECT_TRUE(p.aligned);
}

TEST(ParseShape, RejectsBadFormsWithAMessage) {
  const char* bad[] = {
      "",
      "   ",
      "0x4x4",
      "4x0x4",
      "4x4x0",
      "-4x4x4",
      "4x-4x4",
      "4x4",
      "4x4x",
      "x4x4",
      "4xx4x4",
      "4x4x4x4",
      "4x4x4:",
      "4x4x4:N",
      "4x4x4:NX",
      "4x4x4:NNN",
      "4x4x4:nt",
      "abc",
      "4096",
      "col:",
      "diag:4x4x4",
      "col4x4x4",
      "2147483648x1x1",
      "1x2147483648x1",
      "1x1x9999999999",
      "1x1x99999999999999999999",
      "4x4x4 junk",
      "4x4x4:NT junk",
      "4x4x4;",
      "4.5x4x4",
      "0x10x4x4",
      "4X4X4",
  };
  for (const char* text : bad) {
    SCOPED_TRACE(std::string("'") + text + "'");
    autogemm::ShapeSpec s;
    s.m = 77;
    std::string err;
    EXPECT_FALSE(autogemm::parse_shape(text, &s, &err));
    EXPECT_FALSE(err.empty());
    EXPECT_EQ(s.m, 77) << "output must be untouched on failure";
    EXPECT_FALSE(autogemm::parse_shape(text, &s, nullptr));  // no message wanted: no crash
  }
}

}  // namespace
