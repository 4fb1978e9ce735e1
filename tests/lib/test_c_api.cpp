// The public C API (libautogemm.so) on a machine without a GPU: argument
// errors in reference-BLAS order, quick returns without a driver, null
// pointers, AUTOGEMM_NO_DEVICE for real work, status strings, the per-thread
// autogemm_last_error, the version macros and query, autogemm_describe_plan.
//
// Fake device pointers are passed: validation never dereferences them, and
// with no driver (or no current context, which this process never creates)
// nothing is launched.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <thread>

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

/// How autogemm_last_error's text for an argument error begins: the
/// parameter's name as the caller wrote it.
std::string detail_start(int status) {
  switch (status) {
    case AUTOGEMM_INVALID_LAYOUT: return "layout is ";
    case AUTOGEMM_INVALID_TRANS_A: return "trans_a is ";
    case AUTOGEMM_INVALID_TRANS_B: return "trans_b is ";
    case AUTOGEMM_INVALID_M: return "M is ";
    case AUTOGEMM_INVALID_N: return "N is ";
    case AUTOGEMM_INVALID_K: return "K is ";
    case AUTOGEMM_INVALID_LDA: return "lda is ";
    case AUTOGEMM_INVALID_LDB: return "ldb is ";
    case AUTOGEMM_INVALID_LDC: return "ldc is ";
    case AUTOGEMM_NULL_A: return "A is NULL";
    case AUTOGEMM_NULL_B: return "B is NULL";
    case AUTOGEMM_NULL_C: return "C is NULL";
  }
  return "?";
}

class CApiCombo : public ::testing::TestWithParam<Combo> {};

TEST_P(CApiCombo, ArgumentErrorsInReferenceBlasOrder) {
  for (const agtest::Case& tc : agtest::validation_cases(GetParam())) {
    SCOPED_TRACE(tc.what);
    const autogemm_status st = sgemm(tc.call);
    const std::string detail = autogemm_last_error();
    if (tc.expect != agtest::kValid) {
      EXPECT_EQ(st, tc.expect) << autogemm_status_string(st);
      EXPECT_EQ(detail.rfind(detail_start(tc.expect), 0), 0u) << detail;
    } else if (agtest::expect_quick(tc.call)) {
      EXPECT_EQ(st, AUTOGEMM_SUCCESS) << autogemm_status_string(st);
      EXPECT_EQ(detail, "");
    } else {
      expect_needs_device(st);
      EXPECT_NE(detail, "");
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

// Strided batches: the plain call's checks, then the count and the strides,
// each named with its value; a count of 0 returns at once; the describe
// function validates alike.
TEST(CApi, StridedBatchedValidatesCountAndStridesAfterThePlainRules) {
  const Call c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8);
  auto batched = [&](const Call& x, long long sa, long long sb, long long sc, int count) {
    return autogemm_sgemm_strided_batched(x.layout, x.ta, x.tb, x.m, x.n, x.k, x.alpha, x.a, x.lda, sa, x.b, x.ldb,
                                          sb, x.beta, x.c, x.ldc, sc, count, nullptr);
  };
  EXPECT_EQ(batched(c, 64, 64, 64, -1), AUTOGEMM_INVALID_BATCH_COUNT);
  EXPECT_NE(std::string(autogemm_last_error()).find("batch_count is -1"), std::string::npos) << autogemm_last_error();
  EXPECT_EQ(batched(c, -1, 64, 64, 2), AUTOGEMM_INVALID_STRIDE_A);
  EXPECT_NE(std::string(autogemm_last_error()).find("stride_a is -1"), std::string::npos) << autogemm_last_error();
  EXPECT_EQ(batched(c, 64, -64, 64, 2), AUTOGEMM_INVALID_STRIDE_B);
  EXPECT_EQ(batched(c, 64, 64, 32, 2), AUTOGEMM_INVALID_STRIDE_C);
  EXPECT_NE(std::string(autogemm_last_error()).find("at least 64"), std::string::npos) << autogemm_last_error();
  Call bad = c;
  bad.ldc = 3;
  EXPECT_EQ(batched(bad, 64, 64, 32, -1), AUTOGEMM_INVALID_LDC);
  EXPECT_EQ(batched(c, -1, -1, 0, 0), AUTOGEMM_SUCCESS);  // nothing to do
  expect_needs_device(batched(c, -1, -1, -1, 1));          // one product: strides unused
  expect_needs_device(batched(c, 0, 64, 64, 2));           // valid: A shared by both products
  autogemm_plan_info info{};
  EXPECT_EQ(autogemm_describe_plan_strided_batched(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.a, c.lda, 64, c.b, c.ldb,
                                                   64, c.c, c.ldc, 8, 2, &info),
            AUTOGEMM_INVALID_STRIDE_C);
  EXPECT_STREQ(info.config, "");
}

// The lending form checks exactly as the strided batch does; the lent memory
// (any pointer, any size, none) never makes a call invalid.
TEST(CApi, WorkspaceFormValidatesAsTheStridedBatch) {
  const Call c = agtest::valid_call(AUTOGEMM_COL_MAJOR, AUTOGEMM_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8);
  auto lend = [&](const Call& x, int count, void* ws, unsigned long long bytes) {
    return autogemm_sgemm_strided_batched_workspace(x.layout, x.ta, x.tb, x.m, x.n, x.k, x.alpha, x.a, x.lda, 64,
                                                    x.b, x.ldb, 64, x.beta, x.c, x.ldc, 64, count, ws, bytes, nullptr);
  };
  void* aligned = reinterpret_cast<void*>(0x100000);
  void* odd = reinterpret_cast<void*>(0x100004);
  EXPECT_EQ(lend(c, -1, aligned, 1 << 20), AUTOGEMM_INVALID_BATCH_COUNT);
  Call bad = c;
  bad.lda = 3;
  EXPECT_EQ(lend(bad, 1, aligned, 1 << 20), AUTOGEMM_INVALID_LDA);
  EXPECT_EQ(lend(c, 0, aligned, 1 << 20), AUTOGEMM_SUCCESS);  // nothing to do
  expect_needs_device(lend(c, 1, aligned, 1 << 20));
  expect_needs_device(lend(c, 1, odd, 1 << 20));
  expect_needs_device(lend(c, 2, nullptr, 0));
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
      AUTOGEMM_CACHE_ERROR,    AUTOGEMM_INTERNAL_ERROR, AUTOGEMM_INVALID_MATH_MODE,
      AUTOGEMM_INVALID_BATCH_COUNT, AUTOGEMM_INVALID_STRIDE_A, AUTOGEMM_INVALID_STRIDE_B,
      AUTOGEMM_INVALID_STRIDE_C};
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

// ---- autogemm_last_error --------------------------------------------------------

/// A call that fails validation: row-major NN 8x8x8 with lda 7.
autogemm_status fail_lda() {
  Call c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8);
  c.lda = 7;
  return sgemm(c);
}

autogemm_status quick_success() {
  return sgemm(agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 0, 8, 8));
}

TEST(CApiLastError, EmptyOnAThreadThatNeverCalled) {
  std::string seen = "unset";
  const char* ptr = nullptr;
  std::thread([&] {
    ptr = autogemm_last_error();
    seen = ptr ? ptr : "(null)";
  }).join();
  EXPECT_NE(ptr, nullptr);
  EXPECT_EQ(seen, "");
}

TEST(CApiLastError, SetOnFailureAndEmptiedOnSuccess) {
  ASSERT_EQ(fail_lda(), AUTOGEMM_INVALID_LDA);
  EXPECT_STREQ(autogemm_last_error(),
               "lda is 7, but A is row-major and not transposed: lda must be at least max(1, K) = 8");
  ASSERT_EQ(quick_success(), AUTOGEMM_SUCCESS);
  EXPECT_STREQ(autogemm_last_error(), "");
}

TEST(CApiLastError, LeadingDimensionDetailsUseTheCallersTerms) {
  // Column-major A transposed is stored K x M: its columns hold K elements.
  Call c = agtest::valid_call(AUTOGEMM_COL_MAJOR, AUTOGEMM_TRANS, AUTOGEMM_NO_TRANS, 5, 7, 9);
  c.lda = 8;
  ASSERT_EQ(sgemm(c), AUTOGEMM_INVALID_LDA);
  EXPECT_STREQ(autogemm_last_error(),
               "lda is 8, but A is column-major and transposed: lda must be at least max(1, K) = 9");
  // Row-major B transposed is stored N x K: rows of K.
  c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_TRANS, 5, 7, 9);
  c.ldb = 0;
  ASSERT_EQ(sgemm(c), AUTOGEMM_INVALID_LDB);
  EXPECT_STREQ(autogemm_last_error(),
               "ldb is 0, but B is row-major and transposed: ldb must be at least max(1, K) = 9");
  // Column-major C: columns of M; M = 0 still needs ldc >= 1.
  c = agtest::valid_call(AUTOGEMM_COL_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 0, 7, 9);
  c.ldc = 0;
  ASSERT_EQ(sgemm(c), AUTOGEMM_INVALID_LDC);
  EXPECT_STREQ(autogemm_last_error(), "ldc is 0, but C is column-major: ldc must be at least max(1, M) = 1");
}

TEST(CApiLastError, OtherDetailsNameTheValue) {
  Call c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8);
  c.layout = autogemm_layout(999);
  ASSERT_EQ(sgemm(c), AUTOGEMM_INVALID_LAYOUT);
  EXPECT_NE(std::string(autogemm_last_error()).find("layout is 999"), std::string::npos) << autogemm_last_error();
  c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8);
  c.k = INT_MIN;
  ASSERT_EQ(sgemm(c), AUTOGEMM_INVALID_K);
  EXPECT_NE(std::string(autogemm_last_error()).find(std::to_string(INT_MIN)), std::string::npos);
  c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8);
  c.b = nullptr;
  ASSERT_EQ(sgemm(c), AUTOGEMM_NULL_B);
  EXPECT_EQ(std::string(autogemm_last_error()).rfind("B is NULL", 0), 0u) << autogemm_last_error();
}

TEST(CApiLastError, RunTimeFailuresSayWhy) {
  const Call c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8);
  expect_needs_device(sgemm(c));
  const std::string why = autogemm_last_error();
  if (!driver_installed())
    EXPECT_NE(why.find("libcuda.so.1"), std::string::npos) << why;
  else
    EXPECT_NE(why, "");
}

TEST(CApiLastError, LeftAloneByFunctionsWithoutAStatus) {
  ASSERT_EQ(fail_lda(), AUTOGEMM_INVALID_LDA);
  const char* before = autogemm_last_error();
  const std::string text = before;
  (void)autogemm_status_string(AUTOGEMM_INVALID_LDA);
  (void)autogemm_version(nullptr, nullptr, nullptr);
  autogemm_stats s;
  autogemm_get_stats(&s);
  EXPECT_EQ(autogemm_last_error(), before);
  EXPECT_EQ(text, autogemm_last_error());
}

TEST(CApiLastError, IsPerThread) {
  ASSERT_EQ(fail_lda(), AUTOGEMM_INVALID_LDA);
  std::string other_before, other_after;
  std::thread([&] {
    other_before = autogemm_last_error();
    Call c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, -3, 8, 8);
    sgemm(c);
    other_after = autogemm_last_error();
  }).join();
  EXPECT_EQ(other_before, "");
  EXPECT_EQ(other_after, "M is -3; it must not be negative");
  EXPECT_EQ(std::string(autogemm_last_error()).rfind("lda is 7", 0), 0u) << autogemm_last_error();
}

TEST(CApiLastError, DescribeSetsItToo) {
  Call c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8);
  c.ldc = 3;
  char buf[64];
  ASSERT_EQ(autogemm_describe(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.a, c.lda, c.b, c.ldb, c.c, c.ldc,
                              buf, sizeof buf),
            AUTOGEMM_INVALID_LDC);
  EXPECT_EQ(std::string(autogemm_last_error()).rfind("ldc is 3", 0), 0u) << autogemm_last_error();
  ASSERT_EQ(quick_success(), AUTOGEMM_SUCCESS);
  autogemm_plan_info info;
  ASSERT_EQ(autogemm_describe_plan(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.a, c.lda, c.b, c.ldb, c.c,
                                   c.ldc, &info),
            AUTOGEMM_INVALID_LDC);
  EXPECT_EQ(std::string(autogemm_last_error()).rfind("ldc is 3", 0), 0u) << autogemm_last_error();
}

TEST(CApiLastError, InitOnAnUnusableFileSaysWhichAndWhy) {
  char name[] = "/tmp/autogemm-c-api-XXXXXX";
  const int fd = mkstemp(name);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(name, std::ios::trunc) << "not a database\n";
  EXPECT_EQ(autogemm_init(name), AUTOGEMM_CACHE_ERROR);
  const std::string why = autogemm_last_error();
  EXPECT_EQ(why.rfind(std::string("tuning cache ") + name + ": ", 0), 0u) << why;
  EXPECT_EQ(autogemm_init("/nonexistent-dir/autogemm-c-api.db"), AUTOGEMM_SUCCESS);
  EXPECT_STREQ(autogemm_last_error(), "");
  std::remove(name);
}

// ---- recording -------------------------------------------------------------------

TEST(CApiRecording, SwitchAndFlushSucceedAndWriteNothingWithoutCalls) {
  char dir[] = "/tmp/autogemm-c-api-rec-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string db = std::string(dir) + "/t.db";
  ASSERT_EQ(autogemm_init(db.c_str()), AUTOGEMM_SUCCESS);
  EXPECT_EQ(autogemm_record_shapes(1), AUTOGEMM_SUCCESS);
  EXPECT_STREQ(autogemm_last_error(), "");
  Call c = agtest::valid_call(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8);
  sgemm(c);  // no GPU here: fails before any plan, so nothing is recorded
  EXPECT_EQ(autogemm_flush_recorded_shapes(), AUTOGEMM_SUCCESS) << autogemm_last_error();
  EXPECT_EQ(autogemm_record_shapes(0), AUTOGEMM_SUCCESS);
  EXPECT_NE(access(db.c_str(), F_OK), 0) << "a flush with nothing recorded created " << db;
  EXPECT_EQ(autogemm_init("/nonexistent-dir/autogemm-c-api.db"), AUTOGEMM_SUCCESS);
  rmdir(dir);
}

// ---- version ---------------------------------------------------------------------

TEST(CApiVersion, MacrosAgree) {
  EXPECT_EQ(AUTOGEMM_VERSION,
            AUTOGEMM_VERSION_MAJOR * 10000 + AUTOGEMM_VERSION_MINOR * 100 + AUTOGEMM_VERSION_PATCH);
  EXPECT_LT(AUTOGEMM_VERSION_MINOR, 100);
  EXPECT_LT(AUTOGEMM_VERSION_PATCH, 100);
}

TEST(CApiVersion, LibraryReportsTheHeadersVersion) {
  int major = -1, minor = -1, patch = -1;
  EXPECT_EQ(autogemm_version(&major, &minor, &patch), AUTOGEMM_VERSION);
  EXPECT_EQ(major, AUTOGEMM_VERSION_MAJOR);
  EXPECT_EQ(minor, AUTOGEMM_VERSION_MINOR);
  EXPECT_EQ(patch, AUTOGEMM_VERSION_PATCH);
  EXPECT_EQ(autogemm_version(nullptr, nullptr, nullptr), AUTOGEMM_VERSION);
}

// CMake names the library file after project(autogemm VERSION ...):
// libautogemm.so.<major>.<minor>.<patch>. The header's macros must say the same.
TEST(CApiVersion, HeaderMatchesTheCMakeProjectVersion) {
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&autogemm_version), &info), 0);
  ASSERT_NE(info.dli_fname, nullptr);
  char* real = realpath(info.dli_fname, nullptr);
  ASSERT_NE(real, nullptr) << info.dli_fname;
  const std::string file = real;
  std::free(real);
  const std::string want = "/libautogemm.so." + std::to_string(AUTOGEMM_VERSION_MAJOR) + "." +
                           std::to_string(AUTOGEMM_VERSION_MINOR) + "." +
                           std::to_string(AUTOGEMM_VERSION_PATCH);
  ASSERT_GE(file.size(), want.size()) << file;
  EXPECT_EQ(file.substr(file.size() - want.size()), want) << file;
}

// ---- autogemm_describe_plan ------------------------------------------------------

TEST(CApiDescribePlan, ValidatesLikeSgemmAndWritesNothingOnFailure) {
  for (const Combo& cb : agtest::all_combos())
    for (const agtest::Case& tc : agtest::validation_cases(cb)) {
      SCOPED_TRACE(agtest::combo_name(cb) + " " + tc.what);
      const Call& c = tc.call;
      autogemm_plan_info info;
      std::memset(&info, 0x5A, sizeof info);
      const autogemm_status st = autogemm_describe_plan(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.a, c.lda, c.b,
                                                        c.ldb, c.c, c.ldc, &info);
      if (tc.expect != agtest::kValid)
        EXPECT_EQ(st, tc.expect) << autogemm_status_string(st);
      else
        expect_needs_device(st);
      const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&info);
      size_t touched = 0;
      for (size_t i = 0; i < sizeof info; ++i) touched += bytes[i] != 0x5A;
      EXPECT_EQ(touched, 0u);
      // A NULL output is allowed: the status alone is the answer.
      EXPECT_EQ(autogemm_describe_plan(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.a, c.lda, c.b, c.ldb, c.c,
                                       c.ldc, nullptr),
                st);
    }
}

}  // namespace
