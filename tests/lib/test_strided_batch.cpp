// Strided batches on the CPU: the count and stride rules (checked after the
// plain call's, first failure wins, each named in the caller's terms), the
// quick return of a count of 0 (the C API's texts: test_c_api.cpp), the canonical form of the strides, the
// alignment class, the batch bucket of the key, and the "@COUNT" shape text.
#include <gtest/gtest.h>

#include <string>

#include "autogemm/kernel_config.h"
#include "autogemm/problem.h"
#include "autogemm/gemm_args.h"
#include "autogemm/shape_spec.h"

namespace autogemm {
namespace {

// 8 x 16 row-major C (ldc 16), A 8 x 4, B 4 x 16, three products packed.
GemmArgs batch_of_three() {
  static float data[4096];
  GemmArgs g;
  g.m = 8, g.n = 16, g.k = 4;
  g.a = data, g.b = data, g.c = data;
  g.lda = 4, g.ldb = 16, g.ldc = 16;
  g.batch = 3;
  g.stride_a = 32, g.stride_b = 64, g.stride_c = 128;
  return g;
}

TEST(StridedBatch, PackedAndSideBySideBatchesAreValid) {
  EXPECT_EQ(validate(batch_of_three()), AUTOGEMM_SUCCESS);
  GemmArgs g = batch_of_three();
  g.stride_a = 0, g.stride_b = 0;  // one A and one B for every product
  EXPECT_EQ(validate(g), AUTOGEMM_SUCCESS);
  g = batch_of_three();
  g.stride_c = 7 * 16 + 16;  // the next C starts right after the last row's N floats
  EXPECT_EQ(validate(g), AUTOGEMM_SUCCESS);
  g = batch_of_three();
  g.ldc = 48, g.stride_c = 16;  // three Cs side by side in rows of 48 (heads of one matrix)
  EXPECT_EQ(validate(g), AUTOGEMM_SUCCESS);
}

TEST(StridedBatch, BadCountsAndStridesAreNamedInOrder) {
  GemmArgs g = batch_of_three();
  g.batch = -1;
  g.stride_a = -5;
  EXPECT_EQ(validate(g), AUTOGEMM_INVALID_BATCH_COUNT);
  g = batch_of_three();
  g.stride_a = -5, g.stride_b = -1;
  EXPECT_EQ(validate(g), AUTOGEMM_INVALID_STRIDE_A);
  g.stride_a = 0;
  EXPECT_EQ(validate(g), AUTOGEMM_INVALID_STRIDE_B);
  g.stride_b = 1LL << 60;  // offsets past 64 bits
  EXPECT_EQ(validate(g), AUTOGEMM_INVALID_STRIDE_B);
  g = batch_of_three();
  g.stride_c = 100;  // overlapping Cs: neither after one another nor side by side
  EXPECT_EQ(validate(g), AUTOGEMM_INVALID_STRIDE_C);
  g.stride_c = 0;
  EXPECT_EQ(validate(g), AUTOGEMM_INVALID_STRIDE_C);
  g.ldc = 40;  // side by side needs 3 x 16 <= ldc
  g.stride_c = 16;
  EXPECT_EQ(validate(g), AUTOGEMM_INVALID_STRIDE_C);
  g = batch_of_three();
  g.lda = 1;  // the plain call's rules come first
  g.batch = -1;
  EXPECT_EQ(validate(g), AUTOGEMM_INVALID_LDA);
}

TEST(StridedBatch, OneOrNoProductIgnoresTheStrides) {
  GemmArgs g = batch_of_three();
  g.stride_a = -5, g.stride_c = 0;
  g.batch = 1;
  EXPECT_EQ(validate(g), AUTOGEMM_SUCCESS);
  g.batch = 0;
  EXPECT_EQ(validate(g), AUTOGEMM_SUCCESS);
  EXPECT_TRUE(is_quick_return(g));
  EXPECT_FALSE(is_quick_return(batch_of_three()));
}

TEST(StridedBatch, ColumnMajorSwapsTheStridesWithTheOperands) {
  GemmArgs g = batch_of_three();
  g.layout = AUTOGEMM_COL_MAJOR;
  g.lda = 8, g.ldb = 4, g.ldc = 8;
  g.stride_a = 32, g.stride_b = 64, g.stride_c = 128;
  ASSERT_EQ(validate(g), AUTOGEMM_SUCCESS);
  const CanonicalCall c = normalize(g);
  EXPECT_EQ(c.problem.batch, 3);
  EXPECT_EQ(c.problem.stride_a, 64);  // canonical A is the caller's B
  EXPECT_EQ(c.problem.stride_b, 32);
  EXPECT_EQ(c.problem.stride_c, 128);
}

TEST(StridedBatch, AStrideOffFourFloatsMakesTheBatchUnaligned) {
  alignas(16) static float data[4096];
  GemmArgs g = batch_of_three();
  g.a = g.b = g.c = data;
  EXPECT_TRUE(normalize(g).problem.aligned);
  g.stride_b = 66;
  EXPECT_FALSE(normalize(g).problem.aligned);
}

TEST(StridedBatch, CountsShareBucketsAndTheKeyNamesThem) {
  EXPECT_EQ(batch_bucket(1), 1);
  EXPECT_EQ(batch_bucket(8), 8);
  EXPECT_EQ(batch_bucket(9), 16);
  EXPECT_EQ(batch_bucket(16), 16);
  EXPECT_EQ(batch_bucket(17), 32);
  EXPECT_EQ(batch_bucket(4096), 4096);
  EXPECT_EQ(batch_bucket(4097), 8192);
  const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, true, 64, 32, 16, true, 1000);
  EXPECT_EQ(p.batch, 1000);
  EXPECT_EQ(p.key().batch, 1024);
  EXPECT_EQ(p.stride_a, 64 * 16);  // packed
  EXPECT_EQ(p.stride_b, 32 * 16);
  EXPECT_EQ(p.stride_c, 64 * 32);
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 64 * 32 * 16 * 1000);
  const Problem back = make_problem(p.key());  // what gemm_tune --from-record tunes
  EXPECT_EQ(back.key(), p.key());
  EXPECT_EQ(back.batch, 1024);
  EXPECT_FALSE(make_problem(AUTOGEMM_ROW_MAJOR, false, false, 8, 8, 8, true, 3).key() ==
               make_problem(AUTOGEMM_ROW_MAJOR, false, false, 8, 8, 8, true, 1).key());
}

TEST(StridedBatch, ShapeTextCarriesTheCount) {
  ShapeSpec s;
  std::string why;
  ASSERT_TRUE(parse_shape("64x64x64@4096", &s, &why)) << why;
  EXPECT_EQ(s.batch, 4096);
  EXPECT_EQ(s.to_string(), "64x64x64:NN@4096");
  ASSERT_TRUE(parse_shape("col:128x256x64:TN@3", &s, &why)) << why;
  EXPECT_EQ(s.batch, 3);
  EXPECT_EQ(s.problem().batch, 3);
  ASSERT_TRUE(parse_shape(s.to_string(), &s, &why)) << why;
  EXPECT_EQ(s.batch, 3);
  for (const char* bad : {"64x64x64@0", "64x64x64@", "64x64x64@-2", "64x64x64@4096:NN", "@8"})
    EXPECT_FALSE(parse_shape(bad, &s, &why)) << bad;
}

TEST(StridedBatch, OnlyFamiliesThatBatchImplementABatchAndTheDefaultDoes) {
  for (bool aligned : {true, false})
    for (int64_t m : {1, 16, 64, 2048}) {
      const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, m, 256, 256, aligned, 12);
      const KernelConfig d = default_config(p);
      EXPECT_TRUE(d.can_implement(p)) << d.to_string() << " for " << p.to_string();
      EXPECT_TRUE(d.family().batches(d)) << d.to_string();
      EXPECT_TRUE(KernelConfig::generic(false, false).can_implement(p));
    }
  TiledParams t;
  t.bm = 64, t.bn = 64, t.bk = 8, t.tm = 4, t.tn = 4;
  t.split_k = 4, t.split_reduce = 0;
  const KernelConfig split(t, false, false);
  EXPECT_FALSE(split.can_implement(make_problem(AUTOGEMM_ROW_MAJOR, false, false, 64, 64, 4096, false, 2)));
  EXPECT_TRUE(split.can_implement(make_problem(AUTOGEMM_ROW_MAJOR, false, false, 64, 64, 4096, false, 1)));
}

}  // namespace
}  // namespace autogemm
