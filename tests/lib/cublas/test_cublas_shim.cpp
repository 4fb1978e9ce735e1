// The drop-in linked ahead of a stand-in cuBLAS (cublas_standin.cpp): each
// call either reaches the stand-in as passed (with its reason) or is routed
// to autogemm. Without a GPU, or without a CUDA context on this thread,
// autogemm cannot run it, so a routed call shows as a fallback that the
// stand-in then runs with the caller's arguments: both paths are seen here.
#include <gtest/gtest.h>

#include <cfenv>
#include <cstdlib>
#include <cstring>

#include "autogemm/autogemm_cublas.h"
#include "cublas_standin.h"

namespace {

enum Entry { kSgemm, kSgemm64, kStrided, kStrided64, kGemmEx, kGemmEx64, kStridedEx, kStridedEx64, kBatched, kLt };
enum Why { kRoutingOff = 1, kInside, kReduced, kNotFp32, kDeviceScalars, kBeyondInt, kPointerArrays, kLtUnsupported,
           kCapture, kInvalid };

/// What one call did to the counters and the stand-in.
struct Delta {
  autogemm_cublas_counts before{}, after{};
  int standin_before = 0, standin_after = 0;
  unsigned long long routed(int e) const { return after.routed[e] - before.routed[e]; }
  unsigned long long passed(int e) const { return after.passed[e] - before.passed[e]; }
  unsigned long long fallbacks(int e) const { return after.fallbacks[e] - before.fallbacks[e]; }
  unsigned long long reason(int r) const { return after.passed_by_reason[r] - before.passed_by_reason[r]; }
};

template <class F>
Delta observe(F call) {
  Delta d;
  autogemm_cublas_get_counts(&d.before);
  d.standin_before = standin_call_count();
  EXPECT_EQ(call(), CUBLAS_STATUS_SUCCESS);
  autogemm_cublas_get_counts(&d.after);
  d.standin_after = standin_call_count();
  return d;
}

class CublasShim : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv("AUTOGEMM_CUBLAS")) GTEST_SKIP() << "routing is turned off in this run";
    ASSERT_EQ(cublasCreate_v2(&h_), CUBLAS_STATUS_SUCCESS);
  }
  void TearDown() override {
    if (h_) cublasDestroy_v2(h_);
  }
  /// A routed call that autogemm could not run here: one fallback, and the
  /// stand-in ran it with the caller's C.
  static void expect_routed_attempt(const Delta& d, int e, const void* c) {
    EXPECT_EQ(d.fallbacks(e), 1u);
    EXPECT_EQ(d.passed(e), 0u);
    EXPECT_EQ(d.standin_after - d.standin_before, 1);
    EXPECT_EQ(standin_last_call().c, c);
  }
  static void expect_passed(const Delta& d, int e, int why) {
    EXPECT_EQ(d.passed(e), 1u);
    EXPECT_EQ(d.reason(why), 1u) << autogemm_cublas_reason_name(why);
    EXPECT_EQ(d.fallbacks(e) + d.routed(e), 0u);
    EXPECT_EQ(d.standin_after - d.standin_before, 1);
  }
  cublasHandle_t h_ = nullptr;
  float alpha_ = 1.f, beta_ = 0.f;
  // Never dereferenced on the host; autogemm fails before any launch here.
  float* a_ = reinterpret_cast<float*>(0x10000);
  float* b_ = reinterpret_cast<float*>(0x20000);
  float* c_ = reinterpret_cast<float*>(0x30000);
};

TEST_F(CublasShim, DefaultMathSgemmIsRouted) {
  const Delta d = observe([&] { return cublasSgemm_v2(h_, CUBLAS_OP_N, CUBLAS_OP_T, 64, 32, 16, &alpha_, a_, 64, b_, 32, &beta_, c_, 64); });
  expect_routed_attempt(d, kSgemm, c_);
  EXPECT_STREQ(standin_last_call().name, "cublasSgemm_v2");
  EXPECT_EQ(standin_last_call().m, 64);
  EXPECT_EQ(standin_last_call().k, 16);
}

TEST_F(CublasShim, WorkspacesAndDestroyReachCublas) {
  // The drop-in keeps each handle's workspace for captured calls, and
  // cuBLAS must still get it (and every status it answers).
  void* ws = reinterpret_cast<void*>(0x40000);
  EXPECT_EQ(cublasSetWorkspace_v2(h_, ws, 1 << 20), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(standin_workspace(h_), ws);
  EXPECT_EQ(cublasSetWorkspace_v2(nullptr, ws, 1 << 20), CUBLAS_STATUS_NOT_INITIALIZED);
  expect_routed_attempt(observe([&] { return cublasSgemm_v2(h_, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha_, a_, 8, b_, 8, &beta_, c_, 8); }), kSgemm, c_);
  EXPECT_EQ(cublasSetWorkspace_v2(h_, nullptr, 0), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(standin_workspace(h_), nullptr);
  cublasHandle_t other = nullptr;
  ASSERT_EQ(cublasCreate_v2(&other), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasDestroy_v2(other), CUBLAS_STATUS_SUCCESS);  // through the drop-in, to the stand-in
}

TEST_F(CublasShim, Tf32MathModeGoesToCublas) {
  cublasSetMathMode(h_, CUBLAS_TF32_TENSOR_OP_MATH);
  const Delta d = observe([&] { return cublasSgemm_v2(h_, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha_, a_, 8, b_, 8, &beta_, c_, 8); });
  expect_passed(d, kSgemm, kReduced);
  cublasSetMathMode(h_, cublasMath_t(CUBLAS_PEDANTIC_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
  expect_routed_attempt(observe([&] { return cublasSgemm_v2(h_, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha_, a_, 8, b_, 8, &beta_, c_, 8); }), kSgemm, c_);
}

TEST_F(CublasShim, DeviceScalarsGoToCublas) {
  cublasSetPointerMode_v2(h_, CUBLAS_POINTER_MODE_DEVICE);
  const Delta d = observe([&] { return cublasSgemm_v2(h_, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, a_, a_, 8, b_, 8, b_, c_, 8); });
  expect_passed(d, kSgemm, kDeviceScalars);
}

TEST_F(CublasShim, ArgumentsAutogemmRefusesAreReportedByCublas) {
  // lda 7 < M = 8: cuBLAS says INVALID_VALUE itself (the stand-in accepts).
  const Delta d = observe([&] { return cublasSgemm_v2(h_, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha_, a_, 7, b_, 8, &beta_, c_, 8); });
  expect_passed(d, kSgemm, kInvalid);
}

TEST_F(CublasShim, SixtyFourBitFormsRouteWhatFitsAndPassTheRest) {
  expect_routed_attempt(observe([&] { return cublasSgemm_v2_64(h_, CUBLAS_OP_T, CUBLAS_OP_N, 16, 16, 16, &alpha_, a_, 16, b_, 16, &beta_, c_, 16); }), kSgemm64, c_);
  const int64_t huge = int64_t(1) << 31;
  const Delta d = observe([&] { return cublasSgemm_v2_64(h_, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, &alpha_, a_, huge, b_, 16, &beta_, c_, 16); });
  expect_passed(d, kSgemm64, kBeyondInt);
  EXPECT_STREQ(standin_last_call().name, "cublasSgemm_v2_64");
}

TEST_F(CublasShim, StridedBatchesRoute) {
  expect_routed_attempt(observe([&] { return cublasSgemmStridedBatched(h_, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha_, a_, 8, 64, b_, 8, 64, &beta_, c_, 8, 64, 5); }), kStrided, c_);
  expect_routed_attempt(observe([&] { return cublasSgemmStridedBatched_64(h_, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha_, a_, 8, 64, b_, 8, 64, &beta_, c_, 8, 64, 5); }), kStrided64, c_);
}

TEST_F(CublasShim, GemmExRoutesFp32DataWithFp32Compute) {
  auto ex = [&](cudaDataType t, cublasComputeType_t compute) {
    return observe([&] { return cublasGemmEx(h_, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha_, a_, t, 8, b_, t, 8, &beta_, c_, t, 8, compute, CUBLAS_GEMM_DEFAULT); });
  };
  expect_routed_attempt(ex(CUDA_R_32F, CUBLAS_COMPUTE_32F), kGemmEx, c_);
  expect_passed(ex(CUDA_R_16F, CUBLAS_COMPUTE_32F), kGemmEx, kNotFp32);
  expect_passed(ex(CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32), kGemmEx, kReduced);
  cublasSetMathMode(h_, CUBLAS_TF32_TENSOR_OP_MATH);
  expect_passed(ex(CUDA_R_32F, CUBLAS_COMPUTE_32F), kGemmEx, kReduced);
  expect_routed_attempt(ex(CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC), kGemmEx, c_);
  const Delta d = observe([&] { return cublasGemmStridedBatchedEx(h_, CUBLAS_OP_N, CUBLAS_OP_T, 8, 8, 8, &alpha_, a_, CUDA_R_32F, 8, 64, b_, CUDA_R_32F, 8, 64, &beta_, c_, CUDA_R_32F, 8, 64, 3, CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_GEMM_DEFAULT); });
  expect_routed_attempt(d, kStridedEx, c_);
}

TEST_F(CublasShim, PointerArrayBatchesGoToCublas) {
  const float* as[1] = {a_};
  const float* bs[1] = {b_};
  float* cs[1] = {c_};
  expect_passed(observe([&] { return cublasSgemmBatched(h_, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha_, as, 8, bs, 8, &beta_, cs, 8, 1); }), kBatched, kPointerArrays);
}

/// cublasLtMatmul on an FP32 problem, with `epilogue`.
Delta lt_matmul(cublasLtEpilogue_t epilogue, const void* bias, float* c, float* d) {
  cublasLtMatmulDesc_t desc;
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue);
  if (bias) cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, 48, 24, 48);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, 24, 40, 24);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, 48, 40, 48);
  const float alpha = 1, beta = 0;
  const Delta out = observe([&] {
    return cublasLtMatmul(nullptr, desc, &alpha, reinterpret_cast<void*>(0x10000), la, reinterpret_cast<void*>(0x20000),
                          lb, &beta, c, lc, d, lc, nullptr, nullptr, 0, nullptr);
  });
  cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb), cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(desc);
  return out;
}

TEST_F(CublasShim, LtMatmulRoutesPlainAndBiasAndPassesOtherEpilogues) {
  expect_routed_attempt(lt_matmul(CUBLASLT_EPILOGUE_DEFAULT, nullptr, c_, c_), kLt, c_);
  expect_routed_attempt(lt_matmul(CUBLASLT_EPILOGUE_BIAS, a_, c_, c_), kLt, c_);
  EXPECT_EQ(standin_last_call().m, 48);
  EXPECT_EQ(standin_last_call().n, 40);
  expect_passed(lt_matmul(CUBLASLT_EPILOGUE_RELU_BIAS, a_, c_, c_), kLt, kLtUnsupported);
  expect_passed(lt_matmul(CUBLASLT_EPILOGUE_GELU, nullptr, c_, c_), kLt, kLtUnsupported);
  // D apart from C, beta = 0: routed (C is not read).
  expect_routed_attempt(lt_matmul(CUBLASLT_EPILOGUE_DEFAULT, nullptr, b_, c_), kLt, c_);
}

TEST_F(CublasShim, LtCallsCublasMakesItselfPassUntouched) {
  Delta d;
  autogemm_cublas_get_counts(&d.before);
  d.standin_before = standin_call_count();
  EXPECT_EQ(standin_lt_from_inside(c_), 0);
  autogemm_cublas_get_counts(&d.after);
  d.standin_after = standin_call_count();
  expect_passed(d, kLt, kInside);
}

TEST_F(CublasShim, SignalingNanScalarsRaiseNoFlagInTheCaller) {
  float snan;
  const uint32_t bits = 0x7fa00000u;
  std::memcpy(&snan, &bits, sizeof snan);
  cublasLtMatmulDesc_t desc;
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatrixLayout_t l;
  cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 8, 8, 8);
  std::feclearexcept(FE_ALL_EXCEPT);
  // C apart from D: the drop-in looks at beta to decide whether to copy C.
  EXPECT_EQ(cublasLtMatmul(nullptr, desc, &snan, a_, l, b_, l, &snan, b_, l, c_, l, nullptr, nullptr, 0, nullptr),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasSgemm_v2(h_, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &snan, a_, 8, b_, 8, &snan, c_, 8), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(std::fetestexcept(FE_ALL_EXCEPT), 0);
  cublasLtMatrixLayoutDestroy(l);
  cublasLtMatmulDescDestroy(desc);
}

// Registered by ctest a second time with AUTOGEMM_CUBLAS=0.
TEST(CublasShimOff, RoutingOffPassesEveryCall) {
  const char* v = std::getenv("AUTOGEMM_CUBLAS");
  if (!v || std::string(v) != "0") GTEST_SKIP() << "needs AUTOGEMM_CUBLAS=0 (its own ctest entry)";
  cublasHandle_t h;
  ASSERT_EQ(cublasCreate_v2(&h), CUBLAS_STATUS_SUCCESS);
  float one = 1, zero = 0;
  float* p = reinterpret_cast<float*>(0x10000);
  const Delta d = observe([&] { return cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, p, 8, p, 8, &zero, p, 8); });
  EXPECT_EQ(d.passed(kSgemm), 1u);
  EXPECT_EQ(d.reason(kRoutingOff), 1u);
  EXPECT_EQ(d.standin_after - d.standin_before, 1);
  cublasDestroy_v2(h);
}

}  // namespace
