// The public C API (libautogemm.so) on a machine without a GPU: argument
// errors in reference-BLAS order, quick returns without a driver, null
// pointers, AUTOGEMM_NO_DEVICE for real work, status strings.
//
// Fake device pointers are passed: validation never dereferences them, and
// with no driver (or no current context, which this process never creates)
// nothing is launched.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "arg_cases.h"
#include "autogemm/autogemm.h"

namespace {

using agtest::Call;
using agtest::Combo;

autogemm_status sgemm(const Call& c) {
  return autogemm_sgemm(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, c.a, c.lda, c.b, c.ldb,
                        c.beta, c.c, c.ldc, nullptr);
}

bool driver_installed() {
  static const bool present = [] {
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h) dlclose(h);
    return h != nullptr;
  }();
  return present;
}

/// What a valid call that needs the GPU returns here. Without libcuda it is
/// exactly AUTOGEMM_NO_DEVICE; with a driver but no context (this process
/// never makes one current) AUTOGEMM_NO_CONTEXT, or NO_DEVICE without a GPU.
void expect_needs_device(autogemm_status st) {
  if (!driver_installed()) {
    EXPECT_EQ(st, AUTOGEMM_NO_DEVICE) << autogemm_status_string(st);
  } else {
    EXPECT_TRUE(st == AUTOGEMM_NO_DEVICE || st == AUTOGEMM_NO_CONTEXT) << autogemm_status_string(st);
  }
}

class CApiCombo : public ::testing::TestWithParam<Combo> {};

TEST_P(CApiCombo, ArgumentErrorsInReferenceBlasOrder) {
  for (const agtest::Case& tc : agtest::validation_cases(GetParam())) {
    SCOPED_TRACE(tc.what);
    const autogemm_status st = sgemm(tc.call);
    if (tc.expect != agtest::kValid) {
      EXPECT_EQ(st, tc.expect) << autogemm_status_string(st);
    } else if (agtest::expect_quick(tc.call)) {
      EXPECT_EQ(st, AUTOGEMM_SUCCESS) << autogemm_status_string(st);
    } else {
      expect_needs_device(st);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllLayoutsAndTransposes, CApiCombo,
                         ::testing::ValuesIn(agtest::all_combos()),
                         [](const auto& info) { return agtest::combo_name(info.param); });

TEST(CApi, NoDriverOnThisMachine) {
  if (driver_installed()) GTEST_SKIP() << "libcuda.so.1 is installed: this checks the GPU-less path";
  Call c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 64, 64, 64);
  EXPECT_EQ(sgemm(c), AUTOGEMM_NO_DEVICE);
  c.layout = AUTOGEMM_COL_MAJOR;
  c.ta = AUTOGEMM_TRANS;
  EXPECT_EQ(sgemm(c), AUTOGEMM_NO_DEVICE);
  c.alpha = 0.f;  // C = 0 still needs the GPU
  EXPECT_EQ(sgemm(c), AUTOGEMM_NO_DEVICE);
}

TEST(CApi, QuickReturnsSucceedWithoutADriver) {
  const Call v = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8);
  // M = 0 or N = 0, even with every pointer null.
  for (auto [m, n] : {std::pair{0, 8}, std::pair{8, 0}, std::pair{0, 0}}) {
    Call c = agtest::valid_call(AUTOGEMM_COL_MAJOR, AUTOGEMM_TRANS, AUTOGEMM_NO_TRANS, m, n, 8);
    c.a = c.b = nullptr;
    c.c = nullptr;
    EXPECT_EQ(sgemm(c), AUTOGEMM_SUCCESS) << m << "x" << n;
  }
  // alpha = 0 with beta = 1, even with null A, B and C.
  Call c = v;
  c.alpha = 0.f, c.beta = 1.f;
  c.a = c.b = nullptr;
  c.c = nullptr;
  EXPECT_EQ(sgemm(c), AUTOGEMM_SUCCESS);
  // K = 0 with beta = 1.
  c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_TRANS, AUTOGEMM_TRANS, 8, 8, 0);
  c.beta = 1.f;
  c.a = c.b = nullptr;
  EXPECT_EQ(sgemm(c), AUTOGEMM_SUCCESS);
}

TEST(CApi, QuickReturnStillValidatesFirst) {
  Call c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 0, 8, 8);
  c.ldb = 7;
  EXPECT_EQ(sgemm(c), AUTOGEMM_INVALID_LDB);
  c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8);
  c.alpha = 0.f, c.beta = 1.f, c.k = -1;
  EXPECT_EQ(sgemm(c), AUTOGEMM_INVALID_K);
}

TEST(CApi, NullPointers) {
  const Call v = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8);
  Call c = v;
  c.a = nullptr;
  EXPECT_EQ(sgemm(c), AUTOGEMM_NULL_A);
  c.b = nullptr;
  EXPECT_EQ(sgemm(c), AUTOGEMM_NULL_A);
  c = v;
  c.b = nullptr;
  EXPECT_EQ(sgemm(c), AUTOGEMM_NULL_B);
  c = v;
  c.c = nullptr;
  EXPECT_EQ(sgemm(c), AUTOGEMM_NULL_C);
  // Column-major: A and B keep their names for the caller.
  c = agtest::valid_call(AUTOGEMM_COL_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8);
  c.a = nullptr;
  EXPECT_EQ(sgemm(c), AUTOGEMM_NULL_A);
  c = agtest::valid_call(AUTOGEMM_COL_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8);
  c.b = nullptr;
  EXPECT_EQ(sgemm(c), AUTOGEMM_NULL_B);
}

TEST(CApi, NullAAndBAreFineWhenNotRead) {
  // alpha = 0 (C = beta C) and K = 0 (C = beta C) never read A or B; null C
  // is still an error because C is written.
  for (int variant = 0; variant < 2; ++variant) {
    Call c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8,
                                variant == 0 ? 8 : 0);
    if (variant == 0) c.alpha = 0.f;
    c.beta = 0.5f;
    c.a = c.b = nullptr;
    expect_needs_device(sgemm(c));
    c.c = nullptr;
    EXPECT_EQ(sgemm(c), AUTOGEMM_NULL_C) << variant;
  }
}

TEST(CApi, DescribeValidatesLikeSgemm) {
  Call c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_TRANS, 8, 8, 8);
  char buf[256] = "untouched";
  c.ldb = 7;
  EXPECT_EQ(autogemm_describe(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.a, c.lda, c.b, c.ldb, c.c,
                              c.ldc, buf, sizeof buf),
            AUTOGEMM_INVALID_LDB);
  EXPECT_STREQ(buf, "untouched");
  c.ldb = 8;
  expect_needs_device(autogemm_describe(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.a, c.lda, c.b,
                                        c.ldb, c.c, c.ldc, buf, sizeof buf));
  EXPECT_STREQ(buf, "untouched");
}

TEST(CApi, NothingCountedWithoutLaunches) {
  Call c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 0, 8, 8);
  EXPECT_EQ(sgemm(c), AUTOGEMM_SUCCESS);
  autogemm_stats s{};
  autogemm_get_stats(&s);
  EXPECT_EQ(s.calls, 0u);
  EXPECT_EQ(s.exact_hits + s.nearest_hits + s.default_hits, 0u);
  autogemm_get_stats(nullptr);  // tolerated
}

TEST(CApi, StatusStringsAreNonEmptyAndDistinct) {
  const autogemm_status all[] = {
      AUTOGEMM_SUCCESS,        AUTOGEMM_INVALID_LAYOUT, AUTOGEMM_INVALID_TRANS_A,
      AUTOGEMM_INVALID_TRANS_B, AUTOGEMM_INVALID_M,     AUTOGEMM_INVALID_N,
      AUTOGEMM_INVALID_K,      AUTOGEMM_INVALID_LDA,    AUTOGEMM_INVALID_LDB,
      AUTOGEMM_INVALID_LDC,    AUTOGEMM_NULL_A,         AUTOGEMM_NULL_B,
      AUTOGEMM_NULL_C,         AUTOGEMM_NO_DEVICE,      AUTOGEMM_NO_CONTEXT,
      AUTOGEMM_CUDA_ERROR,     AUTOGEMM_COMPILE_ERROR,  AUTOGEMM_OUT_OF_MEMORY,
      AUTOGEMM_CACHE_ERROR,    AUTOGEMM_INTERNAL_ERROR};
  std::set<std::string> seen;
  for (autogemm_status s : all) {
    const char* text = autogemm_status_string(s);
    ASSERT_NE(text, nullptr) << int(s);
    EXPECT_GT(std::string(text).size(), 0u) << int(s);
    EXPECT_TRUE(seen.insert(text).second) << "duplicate text for " << int(s) << ": " << text;
  }
  const char* unknown = autogemm_status_string(autogemm_status(999));
  ASSERT_NE(unknown, nullptr);
  EXPECT_EQ(seen.count(unknown), 0u);
}

}  // namespace
