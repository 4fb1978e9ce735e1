// libautogemm_blas.so itself, linked as a program links it: its sgemm_ is
// the one the program calls, a bad argument reaches the program's own
// xerbla_ across the library boundary (this program exports it, as a
// Fortran program that defines XERBLA does), and results are right.
#include <dlfcn.h>

#include <string>

#include "blas_testing.h"
#include "xerbla_recorder.h"

namespace {

TEST(BlasLibrary, ProgramCallsTheLibrarysSgemm) {
  Dl_info info{};
  void* f = dlsym(RTLD_DEFAULT, "sgemm_");
  ASSERT_NE(f, nullptr);
  ASSERT_NE(dladdr(f, &info), 0);
  EXPECT_NE(std::string(info.dli_fname).find("libautogemm_blas.so"), std::string::npos) << info.dli_fname;
}

TEST(BlasLibrary, BadArgumentReachesTheProgramsXerbla) {
  std::vector<float> a(4, 1.f), b(4, 1.f), c(4, 5.f);
  const int m = 2, n = 2, k = 2, lda = 1, ld = 2;  // LDA < M: INFO 8
  const float alpha = 1.f, beta = 0.f;
  xerbla_calls().clear();
  sgemm_("N", "N", &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ld, &beta, c.data(), &ld, 1, 1);
  ASSERT_EQ(xerbla_calls().size(), 1u);
  EXPECT_EQ(xerbla_calls()[0].name, "SGEMM ");
  EXPECT_EQ(xerbla_calls()[0].info, 8);
  EXPECT_EQ(c, std::vector<float>(4, 5.f));
}

TEST(BlasLibrary, MatchesFp64InEveryTranspose) {
  unsigned seed = 7;
  for (const auto& [ta, tb] : blas_testing::transposes()) {
    auto o = blas_testing::make_operands(ta, tb, 23, 17, 45, 3, seed++, 16);
    const auto in = o;
    blas_testing::call(o, -0.7f, 1.3f);
    EXPECT_TRUE(blas_testing::matches_fp64(in, -0.7f, 1.3f, o.c)) << ta << tb;
  }
}

}  // namespace
