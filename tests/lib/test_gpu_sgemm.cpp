// GPU: autogemm_sgemm, the public path, is correct for every layout,
// transpose, awkward shape, padded leading dimension and alpha/beta; it
// dispatches exact, nearest and default plans as the policy says, and records
// the shapes it ran when asked to.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "autogemm/autogemm.h"
#include "autogemm/kernel_template.h"
#include "autogemm/tuning_cache.h"
#include "autogemm/verifier.h"
#include "autogemm/shape_spec.h"
#include "gpu_fixture.h"
#include "user_call.h"

namespace autogemm {
namespace {

using testing::tr;
using testing::UserCall;
using testing::user_call;

autogemm_status run(const UserCall& u, float alpha, float beta, CUstream s) {
  return autogemm_sgemm(u.layout, u.ta, u.tb, u.m, u.n, u.k, alpha, u.a, u.lda, u.b, u.ldb, beta, u.c, u.ldc, s);
}

autogemm_status run_batched(const UserCall& u, float alpha, float beta, CUstream s) {
  return autogemm_sgemm_strided_batched(u.layout, u.ta, u.tb, u.m, u.n, u.k, alpha, u.a, u.lda, u.stride_a, u.b,
                                        u.ldb, u.stride_b, beta, u.c, u.ldc, u.stride_c, u.batch, s);
}

class GpuSgemm : public testing::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_EQ(autogemm_init("/nonexistent-dir/autogemm-test.db"), AUTOGEMM_SUCCESS);  // no cache: defaults
  }

  void check(autogemm_layout layout, bool ta, bool tb, int64_t m, int64_t n, int64_t k, int pad, float alpha,
             float beta) {
    Problem p = make_problem(layout, ta, tb, m, n, k, true);
    p.lda += pad, p.ldb += pad, p.ldc += pad;
    p.aligned = p.lda % 4 == 0 && p.ldb % 4 == 0 && p.ldc % 4 == 0;
    Verifier ver(p, dev_, alpha, beta, unsigned(m * 31 + n * 7 + k));
    // One stream for every call of a test: plans share its workspace.
    if (!stream_) stream_ = std::make_unique<Stream>();
    const CUstream st = stream_->get();
    ver.prepare(st);
    ASSERT_EQ(run(user_call(ver.call(), layout), alpha, beta, st), AUTOGEMM_SUCCESS);
    const VerifyResult r = ver.check(st);
    EXPECT_TRUE(r.ok) << (layout == AUTOGEMM_ROW_MAJOR ? "row " : "col ") << m << "x" << n << "x" << k << " "
                      << (ta ? 'T' : 'N') << (tb ? 'T' : 'N') << " pad " << pad << " alpha " << alpha << " beta "
                      << beta << ": " << r.why << " rel " << r.rel_error;
  }
  void TearDown() override {
    stream_.reset();
    GpuTest::TearDown();
  }

  std::unique_ptr<Stream> stream_;
};

TEST_F(GpuSgemm, AllLayoutsTransposesAndAwkwardShapes) {
  struct S {
    int64_t m, n, k;
  };
  const S shapes[] = {{1, 1, 1}, {7, 11, 13}, {31, 37, 41}, {127, 257, 509}, {1, 4096, 300}, {300, 1, 4096},
                      {257, 129, 0}, {1000, 1000, 1000}};
  for (autogemm_layout layout : {AUTOGEMM_ROW_MAJOR, AUTOGEMM_COL_MAJOR})
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (const S& s : shapes) {
          check(layout, ta, tb, s.m, s.n, s.k, 0, 1.0f, 0.0f);
          check(layout, ta, tb, s.m, s.n, s.k, 3, -1.25f, 0.5f);
        }
}

// Strided batches through the C API, both layouts, every transpose, counts
// from 1 (the plain path) to a few hundred, unaligned ones included; and a
// count of 0 touches nothing.
TEST_F(GpuSgemm, StridedBatchesInEveryLayout) {
  struct S {
    int64_t m, n, k, batch;
    bool aligned;
  };
  const S cases[] = {{7, 11, 13, 1, true}, {7, 11, 13, 5, false}, {64, 64, 64, 300, true},
                     {33, 65, 17, 9, false}, {128, 96, 40, 12, true}};
  Stream st;
  for (autogemm_layout layout : {AUTOGEMM_ROW_MAJOR, AUTOGEMM_COL_MAJOR})
    for (int t = 0; t < 4; ++t)
      for (const S& c : cases)
        for (float beta : {0.0f, 0.5f}) {
          const Problem p = make_problem(layout, t & 1, t & 2, c.m, c.n, c.k, c.aligned, c.batch);
          Verifier ver(p, dev_, -1.5f, beta, unsigned(c.m * 3 + c.batch));
          ver.prepare(st.get());
          ASSERT_EQ(run_batched(user_call(ver.call(), layout), -1.5f, beta, st.get()), AUTOGEMM_SUCCESS)
              << autogemm_last_error();
          const VerifyResult r = ver.check(st.get());
          EXPECT_TRUE(r.ok) << p.to_string() << (layout == AUTOGEMM_ROW_MAJOR ? " row" : " col") << " beta " << beta
                            << ": " << r.why;
        }
  const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 16, 16, 16, true, 4);
  Verifier ver(p, dev_, 1.0f, 0.0f, 3);
  ver.prepare(st.get());  // C is NaN poison: a count of 0 must leave it so
  UserCall u = user_call(ver.call(), AUTOGEMM_ROW_MAJOR);
  u.batch = 0;
  ASSERT_EQ(run_batched(u, 1.0f, 0.0f, st.get()), AUTOGEMM_SUCCESS);
  std::vector<float> c(size_t(p.m * p.ldc));
  AUTOGEMM_CU(cuStreamSynchronize(st.get()));
  AUTOGEMM_CU(cuMemcpyDtoH(c.data(), reinterpret_cast<CUdeviceptr>(ver.call().c), c.size() * 4));
  for (float v : c) ASSERT_TRUE(std::isnan(v));
}

TEST_F(GpuSgemm, LargeProblems) {
  check(AUTOGEMM_ROW_MAJOR, false, false, 2048, 2048, 2048, 0, 1.0f, 0.0f);
  check(AUTOGEMM_COL_MAJOR, true, false, 1536, 2560, 1024, 4, 0.5f, 2.0f);
}

TEST_F(GpuSgemm, BetaZeroNeverReadsNaNInC) {
  // The verifier poisons C with NaN whenever beta == 0; check() fails on any leak.
  check(AUTOGEMM_ROW_MAJOR, false, false, 65, 65, 65, 0, 2.0f, 0.0f);
  check(AUTOGEMM_COL_MAJOR, false, true, 200, 300, 100, 1, 1.0f, 0.0f);
}

TEST_F(GpuSgemm, AlphaZeroNeverReadsNaNInAOrB) {
  const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 100, 90, 80, true);
  Verifier ver(p, dev_, 0.0f, 0.5f, 9);
  Stream st;
  const CanonicalCall& cc = ver.call();
  AUTOGEMM_CU(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(cc.a), 0x7fc00000u, size_t(p.m * p.lda), st.get()));
  AUTOGEMM_CU(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(cc.b), 0x7fc00000u, size_t(p.k * p.ldb), st.get()));
  ver.prepare(st.get());
  ASSERT_EQ(run(user_call(cc, AUTOGEMM_ROW_MAJOR), 0.0f, 0.5f, st.get()), AUTOGEMM_SUCCESS);
  const VerifyResult r = ver.check(st.get());
  EXPECT_TRUE(r.ok) << r.why;
}

TEST_F(GpuSgemm, QuickReturnsLeaveCUntouched) {
  DeviceBuffer c(64 * 4);
  AUTOGEMM_CU(cuMemsetD32(c.get(), 0x7fc0beef, 64));
  AUTOGEMM_CU(cuCtxSynchronize());  // a device memset may return before it is done
  DeviceBuffer a(64 * 4), b(64 * 4);
  const float* A = a.as<float>();
  const float* B = b.as<float>();
  float* C = c.as<float>();
  EXPECT_EQ(autogemm_sgemm(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 0, 8, 8, 1, A, 8, B, 8, 0, C, 8, nullptr), AUTOGEMM_SUCCESS);
  EXPECT_EQ(autogemm_sgemm(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 0, 8, 1, A, 8, B, 1, 0, C, 1, nullptr), AUTOGEMM_SUCCESS);
  EXPECT_EQ(autogemm_sgemm(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8, 0, A, 8, B, 8, 1, C, 8, nullptr), AUTOGEMM_SUCCESS);
  EXPECT_EQ(autogemm_sgemm(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 0, 1, A, 1, B, 8, 1, C, 8, nullptr), AUTOGEMM_SUCCESS);
  // An invalid call writes nothing either.
  EXPECT_EQ(autogemm_sgemm(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8, 1, A, 8, B, 8, 0, C, 7, nullptr), AUTOGEMM_INVALID_LDC);
  AUTOGEMM_CU(cuCtxSynchronize());
  std::vector<unsigned> h(64);
  AUTOGEMM_CU(cuMemcpyDtoH(h.data(), c.get(), 64 * 4));
  for (unsigned v : h) ASSERT_EQ(v, 0x7fc0beefu);
}

TEST_F(GpuSgemm, DispatchExactNearestAndDefault) {
  char dir_template[] = "/tmp/autogemm-dispatch-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string db = std::string(dir_template) + "/t.db";
  {
    auto cache = TuningCache::open(db, TuningCache::Mode::ReadWrite);
    WinnerRecord w;
    w.shape = ShapeKey{512, 512, 512, false, false, true};
    w.family = "tiled";
    w.config = "tiled bm=64 bn=64 bk=16 tm=4 tn=4 wc=8 vec=4 sk=1 sw=1 ta=0 tb=0";
    w.template_hash = TiledFamily::instance().source().hash();
    // Faster than any built-in winner of the GPU's architecture would make
    // 500x520x480, so the policy borrows it there.
    w.median_ms = 1e-4, w.gflops = 2.7e6, w.tuned_at = 1;
    ASSERT_TRUE(cache->record_winner(dev_.key(), w, TuningCost{}));
  }
  ASSERT_EQ(autogemm_init(db.c_str()), AUTOGEMM_SUCCESS);
  autogemm_stats before{}, after{};
  autogemm_get_stats(&before);
  check(AUTOGEMM_ROW_MAJOR, false, false, 512, 512, 512, 0, 1.0f, 0.0f);  // exact
  check(AUTOGEMM_ROW_MAJOR, false, false, 500, 520, 480, 0, 1.0f, 0.0f);  // nearest
  check(AUTOGEMM_ROW_MAJOR, true, true, 512, 512, 512, 0, 1.0f, 0.0f);    // no TT winner: default
  autogemm_get_stats(&after);
  EXPECT_EQ(after.exact_hits - before.exact_hits, 1u);
  EXPECT_EQ(after.nearest_hits - before.nearest_hits, 1u);
  EXPECT_EQ(after.default_hits - before.default_hits, 1u);
  char cfg[256];
  ASSERT_EQ(autogemm_describe(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 500, 520, 480,
                              reinterpret_cast<const float*>(256), 480, reinterpret_cast<const float*>(256), 520,
                              reinterpret_cast<const float*>(256), 520, cfg, sizeof cfg),
            AUTOGEMM_SUCCESS);
  EXPECT_NE(std::string(cfg).find("bk=16"), std::string::npos) << cfg;
  autogemm_init(nullptr);
  std::remove(db.c_str());
  std::system(("rm -rf " + std::string(dir_template)).c_str());
}

TEST_F(GpuSgemm, SplitKPlansShareOneStreamWorkspaceAcrossShapes) {
  // Regression: one workspace per stream serves split-K plans of different
  // shapes in turn; each result must stay right.
  char dir_template[] = "/tmp/autogemm-splitk-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string db = std::string(dir_template) + "/t.db";
  {
    auto cache = TuningCache::open(db, TuningCache::Mode::ReadWrite);
    const std::string hash = TiledFamily::instance().source().hash();
    WinnerRecord a;
    a.shape = ShapeKey{64, 64, 4096, false, false, true};
    a.family = "tiled";
    a.config = "tiled bm=16 bn=16 bk=16 tm=2 tn=2 wc=4 vec=4 sk=8 rd=0 sw=1 ta=0 tb=0";
    a.template_hash = hash, a.median_ms = 1, a.gflops = 1, a.tuned_at = 1;
    WinnerRecord b = a;
    b.shape = ShapeKey{256, 512, 2048, false, false, true};
    b.config = "tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=4 sk=3 rd=1 sw=1 ta=0 tb=0";
    ASSERT_TRUE(cache->record_winner(dev_.key(), a, TuningCost{}));
    ASSERT_TRUE(cache->record_winner(dev_.key(), b, TuningCost{}));
  }
  ASSERT_EQ(autogemm_init(db.c_str()), AUTOGEMM_SUCCESS);
  autogemm_stats before{}, after{};
  autogemm_get_stats(&before);
  for (int round = 0; round < 3; ++round) {
    check(AUTOGEMM_ROW_MAJOR, false, false, 64, 64, 4096, 0, 1.0f, 0.0f);
    check(AUTOGEMM_ROW_MAJOR, false, false, 256, 512, 2048, 0, 1.0f, 0.5f);
  }
  autogemm_get_stats(&after);
  EXPECT_EQ(after.exact_hits - before.exact_hits, 6u);
  autogemm_init(nullptr);
  std::system(("rm -rf " + std::string(dir_template)).c_str());
}

TEST_F(GpuSgemm, RecordsEveryDispatchedShapeWithItsCallsAndWhetherItWasTuned) {
  char dir_template[] = "/tmp/autogemm-record-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string db = std::string(dir_template) + "/t.db";
  {
    auto cache = TuningCache::open(db, TuningCache::Mode::ReadWrite);
    WinnerRecord w;
    w.shape = ShapeKey{256, 256, 256, false, false, true};
    w.family = "tiled";
    w.config = "tiled bm=64 bn=64 bk=16 tm=4 tn=4 wc=8 vec=4 sk=1 sw=1 ta=0 tb=0";
    w.template_hash = TiledFamily::instance().source().hash();
    w.median_ms = 1, w.gflops = 100, w.tuned_at = 1;
    ASSERT_TRUE(cache->record_winner(dev_.key(), w, TuningCost{}));
  }
  ASSERT_EQ(autogemm_init(db.c_str()), AUTOGEMM_SUCCESS);
  // A plan made before recording was on is still counted.
  check(AUTOGEMM_ROW_MAJOR, false, false, 256, 256, 256, 0, 1.0f, 0.0f);
  ASSERT_EQ(autogemm_record_shapes(1), AUTOGEMM_SUCCESS);
  for (int i = 0; i < 3; ++i) check(AUTOGEMM_ROW_MAJOR, false, false, 256, 256, 256, 0, 1.0f, 0.0f);
  for (int i = 0; i < 2; ++i) check(AUTOGEMM_COL_MAJOR, false, true, 33, 70, 129, 0, 1.0f, 0.0f);
  ASSERT_EQ(autogemm_record_shapes(0), AUTOGEMM_SUCCESS);
  check(AUTOGEMM_ROW_MAJOR, false, false, 256, 256, 256, 0, 1.0f, 0.0f);  // not counted
  ASSERT_EQ(autogemm_flush_recorded_shapes(), AUTOGEMM_SUCCESS) << autogemm_last_error();
  const std::vector<ShapeRequest> got = TuningCache::open(db, TuningCache::Mode::ReadOnly)->load_requests(dev_.key());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].shape, (ShapeKey{256, 256, 256, false, false, true}));
  EXPECT_EQ(got[0].calls, 3);
  EXPECT_TRUE(got[0].tuned_when_seen);
  // Column-major 33x70x129 with B transposed is the row-major 70x33x129 TN problem, unaligned.
  EXPECT_EQ(got[1].shape, (ShapeKey{70, 33, 129, true, false, false}));
  EXPECT_EQ(got[1].calls, 2);
  EXPECT_FALSE(got[1].tuned_when_seen);
  autogemm_init(nullptr);
  std::system(("rm -rf " + std::string(dir_template)).c_str());
}

}  // namespace
}  // namespace autogemm
