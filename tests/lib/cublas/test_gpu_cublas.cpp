// The drop-in on a GPU against the real cuBLAS: every layout and transpose,
// the strided, Ex and Lt entry points, device-resident scalars, graph capture
// and replay, several threads with their own handles and streams. The same
// inputs go through the drop-in (this program links it ahead of cuBLAS) and
// through the real cuBLAS (looked up directly); both are held to the FP64
// reference's bound, and the drop-in's counters must show the call routed.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include "autogemm/autogemm_cublas.h"
#include "cublas_standin.h"  // the cuBLAS headers
#include "gpu_fixture.h"

namespace {

using RealSgemm = decltype(&cublasSgemm_v2);

RealSgemm real_sgemm() {
  void* lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_NOLOAD);
  return lib ? reinterpret_cast<RealSgemm>(dlsym(lib, "cublasSgemm_v2")) : nullptr;
}

/// Column-major operands on host and device, random with a wide exponent range.
struct Problem {
  int m, n, k, lda, ldb, ldc;
  cublasOperation_t ta, tb;
  std::vector<float> a, b, c;
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  Problem(int m_, int n_, int k_, cublasOperation_t ta_, cublasOperation_t tb_, unsigned seed)
      : m(m_), n(n_), k(k_), ta(ta_), tb(tb_) {
    lda = (ta == CUBLAS_OP_N ? m : k) + 3, ldb = (tb == CUBLAS_OP_N ? k : n) + 1, ldc = m + 2;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> mant(0.5f, 1.0f);
    std::uniform_int_distribution<int> ex(-8, 8), sign(0, 1);
    auto fill = [&](std::vector<float>& v, size_t count) {
      v.resize(count);
      for (float& x : v) x = std::ldexp(mant(rng), ex(rng)) * (sign(rng) ? -1.f : 1.f);
    };
    fill(a, size_t(lda) * (ta == CUBLAS_OP_N ? k : m));
    fill(b, size_t(ldb) * (tb == CUBLAS_OP_N ? n : k));
    fill(c, size_t(ldc) * n);
    cudaMalloc(&da, a.size() * 4), cudaMalloc(&db, b.size() * 4), cudaMalloc(&dc, c.size() * 4);
    cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice);
  }
  ~Problem() { cudaFree(da), cudaFree(db), cudaFree(dc); }
  /// C poisoned (NaN) when beta is 0, else the random C.
  void reset_c(float beta) {
    std::vector<float> init = c;
    if (beta == 0.f) std::fill(init.begin(), init.end(), std::nanf(""));
    cudaMemcpy(dc, init.data(), init.size() * 4, cudaMemcpyHostToDevice);
  }
  double at_a(int i, int p) const { return ta == CUBLAS_OP_N ? a[i + size_t(p) * lda] : a[p + size_t(i) * lda]; }
  double at_b(int p, int j) const { return tb == CUBLAS_OP_N ? b[p + size_t(j) * ldb] : b[j + size_t(p) * ldb]; }
  /// Checks the device C against an FP64 reference; returns the relative error.
  double check(float alpha, float beta, const float* bias = nullptr) const {
    std::vector<float> got(c.size());
    cudaMemcpy(got.data(), dc, got.size() * 4, cudaMemcpyDeviceToHost);
    double err2 = 0, ref2 = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double s = 0, mag = 0;
        for (int p = 0; p < k; ++p) s += at_a(i, p) * at_b(p, j), mag += std::fabs(at_a(i, p) * at_b(p, j));
        const double ref = alpha * s + beta * double(c[i + size_t(j) * ldc]) + (bias ? bias[i] : 0.0);
        const double g = got[i + size_t(j) * ldc];
        EXPECT_FALSE(std::isnan(g)) << i << "," << j;
        // Element bound: k roundings of the products' magnitudes, and C's and the bias's.
        const double bound = 2.0 * (k + 2) * 1.2e-7 * (std::fabs(alpha) * mag + std::fabs(beta * c[i + size_t(j) * ldc]) +
                                                        (bias ? std::fabs(bias[i]) : 0.0)) + 1e-30;
        EXPECT_LE(std::fabs(g - ref), bound) << i << "," << j;
        err2 += (g - ref) * (g - ref), ref2 += ref * ref;
      }
    return std::sqrt(err2 / std::max(ref2, 1e-300));
  }
};

autogemm_cublas_counts counts() {
  autogemm_cublas_counts c;
  autogemm_cublas_get_counts(&c);
  return c;
}

class GpuCublas : public autogemm::testing::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    cudaFree(nullptr);  // the runtime on the primary context the fixture holds
    ASSERT_EQ(cublasCreate_v2(&h_), CUBLAS_STATUS_SUCCESS);
    real_ = real_sgemm();
    ASSERT_NE(real_, nullptr) << "the real libcublas.so.13 is not loaded";
  }
  void TearDown() override {
    if (h_) cublasDestroy_v2(h_);
    GpuTest::TearDown();
  }
  cublasHandle_t h_ = nullptr;
  RealSgemm real_ = nullptr;
};

TEST_F(GpuCublas, SgemmEveryTransposeRoutedAndAsAccurateAsCublas) {
  const cublasOperation_t ops[] = {CUBLAS_OP_N, CUBLAS_OP_T};
  for (auto ta : ops)
    for (auto tb : ops)
      for (auto [m, n, k] : {std::tuple{67, 45, 33}, std::tuple{256, 128, 96}, std::tuple{1, 300, 257}}) {
        Problem p(m, n, k, ta, tb, unsigned(m + 7 * n + ta * 3 + tb));
        const float alpha = 1.5f, beta = -0.75f;
        const auto before = counts();
        p.reset_c(beta);
        ASSERT_EQ(cublasSgemm_v2(h_, ta, tb, m, n, k, &alpha, p.da, p.lda, p.db, p.ldb, &beta, p.dc, p.ldc), CUBLAS_STATUS_SUCCESS);
        cudaDeviceSynchronize();
        const double ours = p.check(alpha, beta);
        EXPECT_EQ(counts().routed[0] - before.routed[0], 1u) << m << "x" << n << "x" << k;
        p.reset_c(beta);
        real_(h_, ta, tb, m, n, k, &alpha, p.da, p.lda, p.db, p.ldb, &beta, p.dc, p.ldc);
        cudaDeviceSynchronize();
        const double theirs = p.check(alpha, beta);
        EXPECT_LE(ours, 4 * theirs + 1e-6) << m << "x" << n << "x" << k << " ta " << ta << " tb " << tb;
      }
}

TEST_F(GpuCublas, StridedExAndDeviceScalars) {
  Problem p(64, 48, 40, CUBLAS_OP_T, CUBLAS_OP_N, 5);
  const float alpha = 1.f, beta = 0.f;
  p.reset_c(beta);
  auto before = counts();
  ASSERT_EQ(cublasGemmEx(h_, p.ta, p.tb, p.m, p.n, p.k, &alpha, p.da, CUDA_R_32F, p.lda, p.db, CUDA_R_32F, p.ldb, &beta,
                         p.dc, CUDA_R_32F, p.ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_SUCCESS);
  cudaDeviceSynchronize();
  p.check(alpha, beta);
  EXPECT_EQ(counts().routed[4] - before.routed[4], 1u);
  // A batch of 3 products of the same operands (strides 0 for A and B).
  const long long sc = (long long)p.ldc * p.n;
  float* dc3 = nullptr;
  cudaMalloc(&dc3, sc * 3 * 4);
  before = counts();
  ASSERT_EQ(cublasSgemmStridedBatched(h_, p.ta, p.tb, p.m, p.n, p.k, &alpha, p.da, p.lda, 0, p.db, p.ldb, 0, &beta, dc3,
                                      p.ldc, sc, 3), CUBLAS_STATUS_SUCCESS);
  cudaMemcpy(p.dc, dc3 + 2 * sc, sc * 4, cudaMemcpyDeviceToDevice);
  cudaDeviceSynchronize();
  p.check(alpha, beta);
  EXPECT_EQ(counts().routed[2] - before.routed[2], 1u);
  cudaFree(dc3);
  // Device-resident alpha and beta: correct (cuBLAS runs them).
  float* scalars = nullptr;
  const float host[2] = {2.f, 0.f};
  cudaMalloc(&scalars, 8);
  cudaMemcpy(scalars, host, 8, cudaMemcpyHostToDevice);
  cublasSetPointerMode_v2(h_, CUBLAS_POINTER_MODE_DEVICE);
  p.reset_c(0.f);
  ASSERT_EQ(cublasSgemm_v2(h_, p.ta, p.tb, p.m, p.n, p.k, scalars, p.da, p.lda, p.db, p.ldb, scalars + 1, p.dc, p.ldc),
            CUBLAS_STATUS_SUCCESS);
  cudaDeviceSynchronize();
  p.check(2.f, 0.f);
  cublasSetPointerMode_v2(h_, CUBLAS_POINTER_MODE_HOST);
  cudaFree(scalars);
}

/// cublasLtMatmul of p with `epilogue` (bias: device vector of m) into D = p.dc.
cublasStatus_t lt(cublasLtHandle_t lh, const Problem& p, float alpha, float beta, const float* bias, const float* c,
                  cudaStream_t s) {
  cublasLtMatmulDesc_t desc;
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasOperation_t ta = p.ta, tb = p.tb;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
  if (bias) {
    const cublasLtEpilogue_t e = CUBLASLT_EPILOGUE_BIAS;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof e);
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
  }
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, ta == CUBLAS_OP_N ? p.m : p.k, ta == CUBLAS_OP_N ? p.k : p.m, p.lda);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, tb == CUBLAS_OP_N ? p.k : p.n, tb == CUBLAS_OP_N ? p.n : p.k, p.ldb);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, p.m, p.n, p.ldc);
  void* ws = nullptr;
  cudaMalloc(&ws, 1 << 22);
  const cublasStatus_t st = cublasLtMatmul(lh, desc, &alpha, p.da, la, p.db, lb, &beta, c, lc, p.dc, lc, nullptr, ws, 1 << 22, s);
  cudaStreamSynchronize(s);
  cudaFree(ws);
  cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb), cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(desc);
  return st;
}

TEST_F(GpuCublas, LtPlainBiasAndSeparateC) {
  cublasLtHandle_t lh;
  ASSERT_EQ(cublasLtCreate(&lh), CUBLAS_STATUS_SUCCESS);
  Problem p(130, 70, 50, CUBLAS_OP_T, CUBLAS_OP_N, 9);
  std::vector<float> bias(p.m);
  for (int i = 0; i < p.m; ++i) bias[i] = 0.25f * float(i % 7) - 0.5f;
  float *dbias = nullptr, *dcopy = nullptr;
  cudaMalloc(&dbias, p.m * 4), cudaMalloc(&dcopy, p.c.size() * 4);
  cudaMemcpy(dbias, bias.data(), p.m * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dcopy, p.c.data(), p.c.size() * 4, cudaMemcpyHostToDevice);
  const auto before = counts();
  p.reset_c(0.f);
  ASSERT_EQ(lt(lh, p, 1.f, 0.f, nullptr, p.dc, nullptr), CUBLAS_STATUS_SUCCESS);
  p.check(1.f, 0.f);
  p.reset_c(0.f);
  ASSERT_EQ(lt(lh, p, 1.f, 0.f, dbias, p.dc, nullptr), CUBLAS_STATUS_SUCCESS);
  p.check(1.f, 0.f, bias.data());
  p.reset_c(0.f);  // D poisoned, C apart with beta != 0: C is copied to D first
  ASSERT_EQ(lt(lh, p, 0.5f, 2.f, dbias, dcopy, nullptr), CUBLAS_STATUS_SUCCESS);
  p.check(0.5f, 2.f, bias.data());
  p.reset_c(2.f);  // C is D, beta != 0: the product goes before the bias
  ASSERT_EQ(lt(lh, p, 0.5f, 2.f, dbias, p.dc, nullptr), CUBLAS_STATUS_SUCCESS);
  p.check(0.5f, 2.f, bias.data());
  EXPECT_EQ(counts().routed[9] - before.routed[9], 4u);
  cudaFree(dbias), cudaFree(dcopy);
  cublasLtDestroy(lh);
}

TEST_F(GpuCublas, GraphCaptureAndReplay) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cublasSetStream_v2(h_, s);
  // A skinny long-K shape (split-K when run eagerly) and a plain one.
  Problem skinny(32, 32, 8192, CUBLAS_OP_N, CUBLAS_OP_N, 11), square(192, 160, 128, CUBLAS_OP_N, CUBLAS_OP_T, 12);
  const float alpha = 1.f, beta = 0.f;
  for (Problem* p : {&skinny, &square}) {  // warm up eagerly, as graph users do
    p->reset_c(beta);
    cublasSgemm_v2(h_, p->ta, p->tb, p->m, p->n, p->k, &alpha, p->da, p->lda, p->db, p->ldb, &beta, p->dc, p->ldc);
  }
  cudaStreamSynchronize(s);
  const auto before = counts();
  cudaGraph_t graph;
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  for (Problem* p : {&skinny, &square})
    ASSERT_EQ(cublasSgemm_v2(h_, p->ta, p->tb, p->m, p->n, p->k, &alpha, p->da, p->lda, p->db, p->ldb, &beta, p->dc, p->ldc),
              CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
  EXPECT_EQ(counts().routed[0] - before.routed[0], 2u);
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int replay = 0; replay < 2; ++replay) {
    for (Problem* p : {&skinny, &square}) p->reset_c(beta);
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    skinny.check(alpha, beta);
    square.check(alpha, beta);
  }
  cudaGraphExecDestroy(exec), cudaGraphDestroy(graph);
  cublasSetStream_v2(h_, nullptr);
  cudaStreamDestroy(s);
}

TEST_F(GpuCublas, CapturedCallsUseTheHandleWorkspaceForSplitK) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cublasSetStream_v2(h_, s);
  // The workspace a framework gives its handle, poisoned: a captured split-K
  // plan must use it (and leave its mark), since autogemm's own may move.
  const size_t bytes = size_t(32) << 20;
  void* ws = nullptr;
  ASSERT_EQ(cudaMalloc(&ws, bytes), cudaSuccess);
  ASSERT_EQ(cublasSetWorkspace_v2(h_, ws, bytes), CUBLAS_STATUS_SUCCESS);
  Problem skinny(32, 32, 8192, CUBLAS_OP_N, CUBLAS_OP_N, 13);  // split-K when run eagerly
  const float alpha = 1.f, beta = 0.f;
  skinny.reset_c(beta);
  cublasSgemm_v2(h_, skinny.ta, skinny.tb, 32, 32, 8192, &alpha, skinny.da, skinny.lda, skinny.db, skinny.ldb, &beta,
                 skinny.dc, skinny.ldc);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  ASSERT_EQ(cudaMemset(ws, 0xff, bytes), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaGraph_t graph;
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(cublasSgemm_v2(h_, skinny.ta, skinny.tb, 32, 32, 8192, &alpha, skinny.da, skinny.lda, skinny.db,
                           skinny.ldb, &beta, skinny.dc, skinny.ldc),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int replay = 0; replay < 2; ++replay) {
    skinny.reset_c(beta);
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    skinny.check(alpha, beta);
  }
  std::vector<unsigned char> head(size_t(1) << 20);
  cudaMemcpy(head.data(), ws, head.size(), cudaMemcpyDeviceToHost);
  EXPECT_TRUE(std::any_of(head.begin(), head.end(), [](unsigned char b) { return b != 0xff; }))
      << "the captured plan did not use the handle's workspace";
  cudaGraphExecDestroy(exec), cudaGraphDestroy(graph);
  cublasSetWorkspace_v2(h_, nullptr, 0);
  cublasSetStream_v2(h_, nullptr);
  cudaStreamDestroy(s);
  cudaFree(ws);
}

TEST_F(GpuCublas, ThreadsWithTheirOwnHandlesAndStreamsAndRepeatableBits) {
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &ok] {
      cudaFree(nullptr);
      cublasHandle_t h;
      cudaStream_t s;
      cublasCreate_v2(&h);
      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      cublasSetStream_v2(h, s);
      Problem p(96 + 16 * t, 64 + 8 * t, 200 + t, t % 2 ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, unsigned(100 + t));
      const float alpha = 1.f, beta = 0.f;
      std::vector<float> first(p.c.size()), again(p.c.size());
      for (int rep = 0; rep < 2; ++rep) {
        p.reset_c(beta);
        cublasSgemm_v2(h, p.ta, p.tb, p.m, p.n, p.k, &alpha, p.da, p.lda, p.db, p.ldb, &beta, p.dc, p.ldc);
        cudaStreamSynchronize(s);
        cudaMemcpy((rep ? again : first).data(), p.dc, first.size() * 4, cudaMemcpyDeviceToHost);
      }
      p.check(alpha, beta);
      ok[t] = std::memcmp(first.data(), again.data(), first.size() * 4) == 0;
      cublasDestroy_v2(h);
      cudaStreamDestroy(s);
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(ok[t], 1) << "thread " << t << ": two runs gave different bits";
}

}  // namespace
