// Argument checks inside the library: validate(), is_quick_return(),
// check_pointers() (reference-BLAS order, first failure wins).
#include <gtest/gtest.h>

#include <limits>

#include "arg_cases.h"
#include "autogemm/problem.h"
#include "autogemm/gemm_args.h"

namespace {

using agtest::Call;
using agtest::Combo;
using autogemm::GemmArgs;

GemmArgs to_args(const Call& c) {
  GemmArgs g;
  g.layout = c.layout;
  g.trans_a = c.ta;
  g.trans_b = c.tb;
  g.m = c.m, g.n = c.n, g.k = c.k;
  g.alpha = c.alpha, g.beta = c.beta;
  g.a = c.a, g.b = c.b, g.c = c.c;
  g.lda = c.lda, g.ldb = c.ldb, g.ldc = c.ldc;
  return g;
}

class ValidateCombo : public ::testing::TestWithParam<Combo> {};

TEST_P(ValidateCombo, LeadingDimensionRulesAndOrder) {
  for (const agtest::Case& tc : agtest::validation_cases(GetParam())) {
    SCOPED_TRACE(tc.what);
    const int want = tc.expect == agtest::kValid ? AUTOGEMM_SUCCESS : tc.expect;
    EXPECT_EQ(autogemm::validate(to_args(tc.call)), want);
  }
}

TEST_P(ValidateCombo, EachLeadingDimensionUsesTheDocumentedDimension) {
  // Grow one dimension at a time: the first ld whose minimum depends on it
  // must start failing at the old minimum; if none does, the call stays valid.
  const Combo cb = GetParam();
  const bool row = cb.layout == AUTOGEMM_ROW_MAJOR;
  const bool ta = agtest::is_t(cb.ta), tb = agtest::is_t(cb.tb);
  const Call base = agtest::valid_call(cb.layout, cb.ta, cb.tb, 4, 4, 4);
  // Which dimension bounds each ld (per the CBLAS contract).
  const char a_dim = row ? (ta ? 'M' : 'K') : (ta ? 'K' : 'M');
  const char b_dim = row ? (tb ? 'K' : 'N') : (tb ? 'N' : 'K');
  const char c_dim = row ? 'N' : 'M';
  for (char dim : {'M', 'N', 'K'}) {
    SCOPED_TRACE(std::string("growing ") + dim);
    Call c = base;
    (dim == 'M' ? c.m : dim == 'N' ? c.n : c.k) = 40;
    const autogemm_status st = autogemm::validate(to_args(c));
    if (a_dim == dim) EXPECT_EQ(st, AUTOGEMM_INVALID_LDA);
    else if (b_dim == dim) EXPECT_EQ(st, AUTOGEMM_INVALID_LDB);
    else if (c_dim == dim) EXPECT_EQ(st, AUTOGEMM_INVALID_LDC);
    else EXPECT_EQ(st, AUTOGEMM_SUCCESS);  // e.g. M bounds nothing in row-major NN
    c.lda = c.ldb = c.ldc = 40;
    EXPECT_EQ(autogemm::validate(to_args(c)), AUTOGEMM_SUCCESS);
  }
}

INSTANTIATE_TEST_SUITE_P(AllLayoutsAndTransposes, ValidateCombo,
                         ::testing::ValuesIn(agtest::all_combos()),
                         [](const auto& info) { return agtest::combo_name(info.param); });

TEST(Validate, ConjTransIsAcceptedAndActsAsTrans) {
  Call c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_CONJ_TRANS, AUTOGEMM_CONJ_TRANS, 3, 5, 7);
  EXPECT_EQ(c.lda, 3);  // A is K x M in memory
  EXPECT_EQ(c.ldb, 7);  // B is N x K in memory
  EXPECT_EQ(autogemm::validate(to_args(c)), AUTOGEMM_SUCCESS);
  const auto n = autogemm::normalize(to_args(c));
  EXPECT_TRUE(n.problem.trans_a);
  EXPECT_TRUE(n.problem.trans_b);
}

TEST(Validate, HugeLeadingDimensionsAreFine) {
  Call c = agtest::valid_call(AUTOGEMM_COL_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_TRANS, 3, 5, 7);
  c.lda = c.ldb = c.ldc = std::numeric_limits<int>::max();
  EXPECT_EQ(autogemm::validate(to_args(c)), AUTOGEMM_SUCCESS);
}

// ---- quick return ---------------------------------------------------------

TEST(QuickReturn, EmptyOutputIsAlwaysQuick) {
  for (auto [m, n] : {std::pair{0, 5}, std::pair{5, 0}, std::pair{0, 0}}) {
    GemmArgs g = to_args(agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, m, n, 3));
    g.a = g.b = nullptr;
    g.c = nullptr;
    for (float beta : {0.f, 1.f, 2.f}) {
      g.beta = beta;
      EXPECT_TRUE(autogemm::is_quick_return(g)) << m << "x" << n << " beta " << beta;
    }
  }
}

TEST(QuickReturn, NoProductAndBetaOneIsQuick) {
  GemmArgs g = to_args(agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 4, 4, 4));
  g.beta = 1.f;
  g.alpha = 0.f;
  EXPECT_TRUE(autogemm::is_quick_return(g));
  g.alpha = 2.f;
  g.k = 0;
  EXPECT_TRUE(autogemm::is_quick_return(g));
}

TEST(QuickReturn, OtherwiseNotQuick) {
  GemmArgs g = to_args(agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 4, 4, 4));
  g.alpha = 1.f, g.beta = 1.f;
  EXPECT_FALSE(autogemm::is_quick_return(g));  // C += A B
  g.alpha = 0.f, g.beta = 0.f;
  EXPECT_FALSE(autogemm::is_quick_return(g));  // C = 0
  g.alpha = 0.f, g.beta = 2.f;
  EXPECT_FALSE(autogemm::is_quick_return(g));  // C *= 2
  g.alpha = 1.f, g.beta = 1.f, g.k = 0;
  EXPECT_TRUE(autogemm::is_quick_return(g));
  g.beta = 0.5f;
  EXPECT_FALSE(autogemm::is_quick_return(g));  // K = 0 still scales C
}

// ---- null pointers -----------------------------------------------------------

TEST(CheckPointers, NullOperandsReportedInOrder) {
  GemmArgs g = to_args(agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 4, 4, 4));
  EXPECT_EQ(autogemm::check_pointers(g), AUTOGEMM_SUCCESS);
  GemmArgs x = g;
  x.a = nullptr, x.b = nullptr, x.c = nullptr;
  EXPECT_EQ(autogemm::check_pointers(x), AUTOGEMM_NULL_A);
  x.a = g.a;
  EXPECT_EQ(autogemm::check_pointers(x), AUTOGEMM_NULL_B);
  x.b = g.b;
  EXPECT_EQ(autogemm::check_pointers(x), AUTOGEMM_NULL_C);
}

TEST(CheckPointers, AAndBNotNeededWithoutAProduct) {
  GemmArgs g = to_args(agtest::valid_call(AUTOGEMM_COL_MAJOR, AUTOGEMM_TRANS, AUTOGEMM_NO_TRANS, 4, 4, 4));
  g.a = g.b = nullptr;
  g.alpha = 0.f, g.beta = 0.5f;  // C = 0.5 C: not a quick return
  ASSERT_FALSE(autogemm::is_quick_return(g));
  EXPECT_EQ(autogemm::check_pointers(g), AUTOGEMM_SUCCESS);
  g.alpha = 1.f, g.k = 0, g.beta = 0.f;  // C = 0
  ASSERT_FALSE(autogemm::is_quick_return(g));
  EXPECT_EQ(autogemm::check_pointers(g), AUTOGEMM_SUCCESS);
  g.c = nullptr;
  EXPECT_EQ(autogemm::check_pointers(g), AUTOGEMM_NULL_C);
}

}  // namespace
