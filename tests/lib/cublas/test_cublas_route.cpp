// The drop-in's routing decisions (lib/cublas/src/route.h), one rule a test.
#include <gtest/gtest.h>

#include <climits>

#include "route.h"

using namespace autogemm::cublas;

TEST(CublasRoute, DefaultAndPedanticMathRouteTf32AndTensorOpPass) {
  EXPECT_EQ(check_math_mode(0), Reason::Routed);   // CUBLAS_DEFAULT_MATH
  EXPECT_EQ(check_math_mode(2), Reason::Routed);   // CUBLAS_PEDANTIC_MATH
  EXPECT_EQ(check_math_mode(16), Reason::Routed);  // default | DISALLOW_REDUCED_PRECISION_REDUCTION
  EXPECT_EQ(check_math_mode(18), Reason::Routed);
  EXPECT_EQ(check_math_mode(3), Reason::ReducedPrecision);   // CUBLAS_TF32_TENSOR_OP_MATH
  EXPECT_EQ(check_math_mode(19), Reason::ReducedPrecision);
  EXPECT_EQ(check_math_mode(1), Reason::ReducedPrecision);   // CUBLAS_TENSOR_OP_MATH (FP16 for SGEMM)
}

TEST(CublasRoute, ComputeTypes32FFollowsMathPedanticAlwaysRoutesFastTypesPass) {
  EXPECT_EQ(check_compute_type(68, 0), Reason::Routed);            // 32F, default math
  EXPECT_EQ(check_compute_type(68, 3), Reason::ReducedPrecision);  // 32F on a TF32 handle
  EXPECT_EQ(check_compute_type(69, 3), Reason::Routed);            // 32F_PEDANTIC ignores the handle
  for (int fast : {74, 75, 77, 78})  // FAST_16F, FAST_16BF, FAST_TF32, EMULATED_16BFX9
    EXPECT_EQ(check_compute_type(fast, 0), Reason::ReducedPrecision) << fast;
  for (int other : {64, 70, 72, 0})  // 16F, 64F, 32I, a legacy cudaDataType
    EXPECT_EQ(check_compute_type(other, 0), Reason::NotFp32) << other;
}

TEST(CublasRoute, OnlyFp32DataHostScalarsAndIntSizesRoute) {
  EXPECT_EQ(check_data_types(0, 0, 0), Reason::Routed);
  EXPECT_EQ(check_data_types(2, 0, 0), Reason::NotFp32);   // CUDA_R_16F A
  EXPECT_EQ(check_data_types(0, 0, 14), Reason::NotFp32);  // CUDA_R_16BF C
  EXPECT_EQ(check_pointer_mode(0), Reason::Routed);
  EXPECT_EQ(check_pointer_mode(1), Reason::DeviceScalars);
  GemmCall g;
  g.m = g.n = g.k = g.lda = g.ldb = g.ldc = 64;
  EXPECT_EQ(check_sizes(g), Reason::Routed);
  g.ldc = int64_t(INT_MAX) + 1;
  EXPECT_EQ(check_sizes(g), Reason::SizesBeyondInt);
  g.ldc = 64, g.batch = int64_t(1) << 32;
  EXPECT_EQ(check_sizes(g), Reason::SizesBeyondInt);
}

TEST(CublasRoute, OperationsMapToAutogemmTransposes) {
  EXPECT_EQ(*to_transpose(0), AUTOGEMM_NO_TRANS);
  EXPECT_EQ(*to_transpose(1), AUTOGEMM_TRANS);
  EXPECT_EQ(*to_transpose(2), AUTOGEMM_CONJ_TRANS);
  EXPECT_FALSE(to_transpose(3));
  EXPECT_FALSE(to_transpose(-1));
}

namespace {
/// A plain FP32 Lt call, D (m x n) = op(A) op(B), column order.
LtCall lt_call(uint64_t m, uint64_t n, uint64_t k, int ta, int tb) {
  LtCall c;
  c.compute_type = 68, c.scale_type = 0, c.trans_a = ta, c.trans_b = tb;
  c.a.rows = ta ? k : m, c.a.cols = ta ? m : k, c.a.ld = int64_t(c.a.rows);
  c.b.rows = tb ? n : k, c.b.cols = tb ? k : n, c.b.ld = int64_t(c.b.rows);
  c.c.rows = c.d.rows = m, c.c.cols = c.d.cols = n, c.c.ld = c.d.ld = int64_t(m);
  return c;
}
}  // namespace

TEST(CublasRoute, LtPlainProblemBecomesItsGemm) {
  const LtRoute r = route_lt(lt_call(96, 40, 70, 1, 0));
  ASSERT_EQ(r.reason, Reason::Routed);
  EXPECT_EQ(r.gemm.m, 96);
  EXPECT_EQ(r.gemm.n, 40);
  EXPECT_EQ(r.gemm.k, 70);
  EXPECT_EQ(r.gemm.trans_a, 1);
  EXPECT_EQ(r.gemm.lda, 70);
  EXPECT_EQ(r.gemm.ldb, 70);
  EXPECT_EQ(r.gemm.ldc, 96);
  EXPECT_EQ(r.gemm.layout, AUTOGEMM_COL_MAJOR);
  EXPECT_FALSE(r.bias);
}

TEST(CublasRoute, LtBiasRoutesOtherEpiloguesAndScalingPass) {
  LtCall c = lt_call(32, 32, 32, 0, 0);
  c.epilogue = 4;  // BIAS
  int bias = 0;
  c.bias = &bias;
  EXPECT_EQ(route_lt(c).reason, Reason::Routed);
  EXPECT_TRUE(route_lt(c).bias);
  c.bias = nullptr;
  EXPECT_EQ(route_lt(c).reason, Reason::InvalidArguments);
  c.bias = &bias, c.bias_type = 2;  // FP16 bias
  EXPECT_EQ(route_lt(c).reason, Reason::NotFp32);
  for (uint32_t e : {2u, 6u, 32u + 4u, 128u}) {  // RELU, RELU_BIAS, GELU_BIAS, ...
    c = lt_call(32, 32, 32, 0, 0);
    c.epilogue = e;
    EXPECT_EQ(route_lt(c).reason, Reason::LtUnsupported) << e;
  }
  c = lt_call(32, 32, 32, 0, 0);
  c.scaled = true;
  EXPECT_EQ(route_lt(c).reason, Reason::LtUnsupported);
}

TEST(CublasRoute, LtTypesModesAndLayoutsThatPass) {
  LtCall c = lt_call(32, 32, 32, 0, 0);
  c.compute_type = 77;  // FAST_TF32
  EXPECT_EQ(route_lt(c).reason, Reason::ReducedPrecision);
  c = lt_call(32, 32, 32, 0, 0);
  c.d.type = 2;
  EXPECT_EQ(route_lt(c).reason, Reason::NotFp32);
  c = lt_call(32, 32, 32, 0, 0);  // an FP64 problem (PyTorch's double linear with bias)
  c.compute_type = 70, c.scale_type = 1;
  for (LtCall::Layout* l : {&c.a, &c.b, &c.c, &c.d}) l->type = 1;
  EXPECT_EQ(route_lt(c).reason, Reason::NotFp32);
  c = lt_call(32, 32, 32, 0, 0);
  c.pointer_mode = 1;
  EXPECT_EQ(route_lt(c).reason, Reason::DeviceScalars);
  c = lt_call(32, 32, 32, 0, 0);
  c.a.order = 1;  // A row order, D column order
  EXPECT_EQ(route_lt(c).reason, Reason::LtUnsupported);
  c = lt_call(32, 32, 32, 0, 0);
  c.b.batch_mode = 1;  // pointer arrays
  EXPECT_EQ(route_lt(c).reason, Reason::LtUnsupported);
  c = lt_call(32, 32, 32, 0, 0);
  c.b.rows = 31;  // op(B) does not match op(A)
  EXPECT_EQ(route_lt(c).reason, Reason::InvalidArguments);
  c = lt_call(32, 32, 32, 0, 0);
  c.trans_a = 7;  // no such operation: Lt reports it (autogemm would have no transpose for it)
  EXPECT_EQ(route_lt(c).reason, Reason::InvalidArguments);
}

TEST(CublasRoute, LtRowOrderAndStridedBatchesRoute) {
  LtCall c = lt_call(8, 16, 4, 0, 0);
  for (LtCall::Layout* l : {&c.a, &c.b, &c.c, &c.d}) l->order = 1, l->batch = 3, l->stride = 1000;
  const LtRoute r = route_lt(c);
  ASSERT_EQ(r.reason, Reason::Routed);
  EXPECT_EQ(r.gemm.layout, AUTOGEMM_ROW_MAJOR);
  EXPECT_EQ(r.gemm.batch, 3);
  EXPECT_EQ(r.gemm.stride_c, 1000);
  c.epilogue = 4;  // a batched bias
  c.bias = &c;
  EXPECT_EQ(route_lt(c).reason, Reason::LtUnsupported);
}

TEST(CublasRoute, LtSeparateCIsCopiedOnlyForOneProductWithItsLeadingDimension) {
  LtCall c = lt_call(32, 32, 32, 0, 0);
  c.c_is_d = false;
  EXPECT_EQ(route_lt(c).reason, Reason::Routed);
  c.c.ld = 40;
  EXPECT_EQ(route_lt(c).reason, Reason::LtUnsupported);
  c.beta_zero = true;  // C not read: any C
  EXPECT_EQ(route_lt(c).reason, Reason::Routed);
}

TEST(CublasRoute, EveryEntryAndReasonHasAName) {
  for (int i = 0; i < int(Entry::Count); ++i) EXPECT_STRNE(entry_name(Entry(i)), "unknown");
  for (int i = 0; i < int(Reason::Count); ++i) EXPECT_STRNE(reason_name(Reason(i)), "unknown");
  EXPECT_STREQ(entry_name(Entry::Count), "unknown");
}
