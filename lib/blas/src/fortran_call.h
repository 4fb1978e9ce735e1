// A Fortran SGEMM call as reference BLAS defines it (column-major host
// arrays, C := alpha * op(A) * op(B) + beta * C), its argument checks in the
// reference order with the reference INFO numbers, and its quick return.
//
// Trust boundary: every value here comes from the calling program through
// sgemm_'s pointers, and nothing reads A, B, C, alpha or beta before
// check_info has passed the characters, sizes and leading dimensions.
#pragma once

namespace autogemm::blas {

struct FortranSgemm {
  char trans_a = 'N', trans_b = 'N';  // first characters: N/n, T/t or C/c
  int m = 0, n = 0, k = 0;
  float alpha = 1.f;
  const float* a = nullptr;
  int lda = 0;
  const float* b = nullptr;
  int ldb = 0;
  float beta = 0.f;
  float* c = nullptr;
  int ldc = 0;
};

/// True for T/t and C/c (for real data both mean the transpose).
bool is_transpose(char t);

/// Rows and columns of A and B as stored (before op), for leading dimensions
/// and copies.
int rows_a(const FortranSgemm& g);
int cols_a(const FortranSgemm& g);
int rows_b(const FortranSgemm& g);
int cols_b(const FortranSgemm& g);

/// 0 when the arguments are valid; else the reference's INFO of the first
/// bad one: TRANSA 1, TRANSB 2, M 3, N 4, K 5, LDA 8, LDB 10, LDC 13.
/// Reads the characters and integers only.
int check_info(const FortranSgemm& g);

/// The reference's quick return: M or N is 0, or (alpha is 0 or K is 0) and
/// beta is 1. Nothing is read or written then.
bool is_quick_return(const FortranSgemm& g);

/// alpha is 0 or K is 0 (and not a quick return): C becomes beta * C, or 0
/// when beta is 0, and A and B are never read.
bool only_scales_c(const FortranSgemm& g);

}  // namespace autogemm::blas
