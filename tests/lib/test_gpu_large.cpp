// GPU: problems whose matrices have more than 2^31 elements compute correctly
// through the public C API (issue 4, item 1): index arithmetic must not wrap
// at 2^31 anywhere (argument checks, layout normalization, launch geometry,
// kernels, the verifier itself).
//
//   * 50000 x 50000 x 8 row-major: C has 2.5e9 elements (10 GB);
//   * (2^28+3) x 8 x 8 row-major NN and TN, and the same problem as a
//     column-major call: A (and C) have 2^31+24 elements, and in the TN case
//     A's k * lda + m offsets cross 2^31 inside a column;
//   * (2^31-1) x 1 x 1: the largest M the API accepts (sizes near INT_MAX:
//     M + tile - 1 must not wrap).
//
// Each case runs twice: with an empty cache (the built-in default, a
// warptiled kernel) and with a cache whose winner for the shape is the generic kernel.
// Checks: every element of C against the FP64 reference of the Verifier (C
// poisoned with NaN first, guard floats around C), and, independently of the
// device reference, a host FP64 product of sampled rows: first, last, middle,
// rows around flat index 2^31 of C and of A, and random rows.
//
// Needs about 62 GB of free GPU memory per case (C, its initial copy, FP64
// reference and bound); skips, saying how much is free, where there is less.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <sstream>
#include <vector>

#include "autogemm/autogemm.h"
#include "autogemm/kernel_config.h"
#include "autogemm/kernel_template.h"
#include "autogemm/tuning_cache.h"
#include "autogemm/verifier.h"
#include "autogemm/shape_spec.h"
#include "gpu_fixture.h"
#include "user_call.h"

namespace autogemm {
namespace {

constexpr int64_t k2p31 = int64_t(1) << 31;

using testing::tr;
using testing::UserCall;
using testing::user_call;

std::string describe_case(autogemm_layout layout, const Problem& p, const std::string& kernel) {
  std::ostringstream s;
  s << (layout == AUTOGEMM_ROW_MAJOR ? "row-major" : "column-major") << " call, canonical " << p.to_string()
    << " (A " << (p.trans_a ? p.k : p.m) * p.lda << " elements, C " << p.m * p.ldc << "), kernel '" << kernel
    << "'";
  return s.str();
}

class GpuLarge : public testing::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    char tmpl[] = "/tmp/autogemm-large-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    if (!dir_.empty() && std::system(("rm -rf " + dir_).c_str()) != 0) std::printf("could not remove %s\n", dir_.c_str());
    autogemm_init("/nonexistent-dir/autogemm-test.db");
    GpuTest::TearDown();
  }

  /// Bytes the Verifier and the call need for `p` (see verifier.cpp), plus 2 GB.
  static size_t bytes_needed(const Problem& p) {
    const size_t a = size_t(p.trans_a ? p.k : p.m) * size_t(p.lda) * 4;
    const size_t b = size_t(p.trans_b ? p.n : p.k) * size_t(p.ldb) * 4;
    const size_t c = (size_t(p.m) * size_t(p.ldc) + 2048) * 4;
    const size_t mn = size_t(p.m) * size_t(p.n) * 8;
    return a + b + 2 * c + 2 * mn + (size_t(2) << 30);
  }

  /// Runs the canonical problem `p` through autogemm_sgemm as a `layout`
  /// call; `generic`: through a cache whose winner for it is the generic kernel.
  void check_large(autogemm_layout layout, const Problem& p, bool generic) {
    size_t free_b = 0, total_b = 0;
    AUTOGEMM_CU(cuMemGetInfo(&free_b, &total_b));
    if (free_b < bytes_needed(p))
      GTEST_SKIP() << "needs " << bytes_needed(p) / 1e9 << " GB of free GPU memory for " << p.to_string() << ", "
                   << free_b / 1e9 << " GB of " << total_b / 1e9 << " GB free";

    const std::string db = dir_ + (generic ? "/generic.db" : "/empty.db");
    if (generic) {
      auto cache = TuningCache::open(db, TuningCache::Mode::ReadWrite);
      const KernelConfig g = KernelConfig::generic(p.trans_a, p.trans_b);
      WinnerRecord w;
      w.shape = p.key();
      w.family = g.family().name();
      w.config = g.to_string();
      w.template_hash = template_hash(g);
      w.median_ms = 1, w.gflops = 1, w.tuned_at = 1;
      ASSERT_TRUE(cache->record_winner(dev_.key(), w, TuningCost{}));
    }
    ASSERT_EQ(autogemm_init(db.c_str()), AUTOGEMM_SUCCESS);

    const float alpha = -1.5f, beta = 0.0f;  // beta 0: C is poisoned with NaN
    Verifier ver(p, dev_, alpha, beta, 2024);
    const UserCall u = user_call(ver.call(), layout);
    char config[256] = "";
    ASSERT_EQ(autogemm_describe(u.layout, u.ta, u.tb, u.m, u.n, u.k, u.a, u.lda, u.b, u.ldb, u.c, u.ldc, config,
                                sizeof config),
              AUTOGEMM_SUCCESS);
    const std::string what = describe_case(layout, p, config);
    SCOPED_TRACE(what);
    if (generic)
      EXPECT_EQ(std::string(config).rfind("generic", 0), 0u) << "the cache's winner (generic) was not dispatched";
    else
      // An empty cache: a built-in choice (the default, or a built-in
      // winner of this architecture), a tiled kernel with 64-bit indexing.
      EXPECT_TRUE(std::string(config).rfind("generic", 0) != 0 &&
                  std::string(config).find(" (default)") != std::string::npos)
          << "no built-in tiled kernel was dispatched: " << config;

    Stream st;
    ver.prepare(st.get());
    const autogemm_status s = autogemm_sgemm(u.layout, u.ta, u.tb, u.m, u.n, u.k, alpha, u.a, u.lda, u.b, u.ldb,
                                             beta, u.c, u.ldc, st.get());
    // A clear refusal would be acceptable to the promise; a wrong result never.
    ASSERT_EQ(s, AUTOGEMM_SUCCESS) << "autogemm_sgemm refused: " << autogemm_status_string(s);
    const VerifyResult r = ver.check(st.get());
    EXPECT_TRUE(r.ok) << "device FP64 check of every element: " << r.why << " (rel " << r.rel_error
                      << ", worst error/bound " << r.worst_ratio << ")";
    host_check_rows(ver.call(), alpha);
    std::printf("[ large    ] %s: %s, rel %.3g\n", what.c_str(), r.ok ? "correct" : "WRONG", r.rel_error);
  }

  /// Host FP64 product of sampled rows of C (independent of the reference kernel).
  void host_check_rows(const CanonicalCall& cc, float alpha) {
    const Problem& p = cc.problem;
    const int64_t M = p.m, N = p.n, K = p.k;
    std::set<int64_t> rows = {0, 1, M / 2, M - 2, M - 1};
    auto add_around = [&](int64_t r) {
      for (int64_t d = -1; d <= 1; ++d)
        if (r + d >= 0 && r + d < M) rows.insert(r + d);
    };
    add_around(k2p31 / p.ldc);  // the row of C holding flat index 2^31
    if (!p.trans_a) {
      add_around(k2p31 / p.lda);  // the row of A holding flat index 2^31
    } else {
      for (int64_t k = 0; k < K; ++k)  // A is K x M: column m of row k crosses 2^31
        if (k2p31 - k * p.lda >= 0 && k2p31 - k * p.lda < M) add_around(k2p31 - k * p.lda);
    }
    std::mt19937_64 rng(7);
    for (int i = 0; i < 48; ++i) rows.insert(int64_t(rng() % uint64_t(M)));

    // op(B) whole (small in these cases), op(A) row by row.
    const size_t b_elems = size_t(p.trans_b ? p.n : p.k) * size_t(p.ldb);
    std::vector<float> B(b_elems);
    AUTOGEMM_CU(cuMemcpyDtoH(B.data(), reinterpret_cast<CUdeviceptr>(cc.b), b_elems * 4));
    auto opb = [&](int64_t k, int64_t j) { return double(p.trans_b ? B[j * p.ldb + k] : B[k * p.ldb + j]); };
    const CUdeviceptr A = reinterpret_cast<CUdeviceptr>(cc.a), C = reinterpret_cast<CUdeviceptr>(cc.c);
    std::vector<float> arow(K), crow(N);
    int64_t bad = 0;
    std::ostringstream first_bad;
    for (int64_t i : rows) {
      if (!p.trans_a) {
        AUTOGEMM_CU(cuMemcpyDtoH(arow.data(), A + size_t(i * p.lda) * 4, size_t(K) * 4));
      } else {
        for (int64_t k = 0; k < K; ++k) AUTOGEMM_CU(cuMemcpyDtoH(&arow[k], A + size_t(k * p.lda + i) * 4, 4));
      }
      AUTOGEMM_CU(cuMemcpyDtoH(crow.data(), C + size_t(i * p.ldc) * 4, size_t(N) * 4));
      for (int64_t j = 0; j < N; ++j) {
        double ref = 0, mag = 0;
        for (int64_t k = 0; k < K; ++k) {
          const double t = double(arow[k]) * opb(k, j);
          ref += t;
          mag += std::fabs(t);
        }
        ref *= alpha;
        const double bound = (double(K) + 2) * 5.9604644775390625e-08 * std::fabs(alpha) * mag + 1e-30;
        const double err = std::fabs(double(crow[j]) - ref);
        if (!(err <= bound)) {  // NaN (poison left behind) fails too
          if (bad++ < 5)
            first_bad << "\n  C(" << i << ", " << j << ") = " << crow[j] << ", FP64 reference " << ref
                      << ", bound " << bound << " (flat index " << i * p.ldc + j << ")";
        }
      }
    }
    EXPECT_EQ(bad, 0) << bad << " wrong elements in " << rows.size() << " sampled rows (host FP64):"
                      << first_bad.str();
  }

  std::string dir_;
};

// 50000 x 50000 x 8: C has 2.5e9 > 2^31 elements.
TEST_F(GpuLarge, OutputOfMoreThan2To31ElementsRowMajor) {
  const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 50000, 50000, 8, true);
  check_large(AUTOGEMM_ROW_MAJOR, p, false);
  if (IsSkipped() || HasFatalFailure()) return;
  check_large(AUTOGEMM_ROW_MAJOR, p, true);
}

// (2^28+3) x 8 x 8: A (M x K) has 2^31+24 elements.
TEST_F(GpuLarge, TallOperandOfMoreThan2To31ElementsNN) {
  const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, (int64_t(1) << 28) + 3, 8, 8, true);
  check_large(AUTOGEMM_ROW_MAJOR, p, false);
  if (IsSkipped() || HasFatalFailure()) return;
  check_large(AUTOGEMM_ROW_MAJOR, p, true);
}

// Transposed A (K x M, lda = M): the offsets k * lda + m cross 2^31.
TEST_F(GpuLarge, TallTransposedOperandOfMoreThan2To31ElementsTN) {
  const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, true, false, (int64_t(1) << 28) + 3, 8, 8, true);
  check_large(AUTOGEMM_ROW_MAJOR, p, false);
  if (IsSkipped() || HasFatalFailure()) return;
  check_large(AUTOGEMM_ROW_MAJOR, p, true);
}

// The same tall problem as a column-major call (8 x (2^28+3) x 8, the
// column-major B operand is the tall one): layout normalization at this size.
TEST_F(GpuLarge, TallOperandColumnMajorCall) {
  const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, true, (int64_t(1) << 28) + 3, 8, 8, true);
  check_large(AUTOGEMM_COL_MAJOR, p, false);
}

// M = 2^31-1, the largest M the API accepts (N = K = 1, so A and C have
// 2^31-1 floats each and the case fits in 62 GB):
// rounding M up to a tile (M + BM - 1) or a row index inside the last tile
// (m0 + BM - 1) must not wrap in 32 bits. Last in this file: a kernel that
// wraps may fault and leave the context unusable.
TEST_F(GpuLarge, LargestMNearTheInt32Limit) {
  const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 2147483647, 1, 1, true);
  check_large(AUTOGEMM_ROW_MAJOR, p, true);  // generic first: its index math is 64-bit
  if (IsSkipped() || HasFatalFailure()) return;
  check_large(AUTOGEMM_ROW_MAJOR, p, false);
}

}  // namespace
}  // namespace autogemm
