#include "fortran_call.h"

#include <algorithm>

namespace autogemm::blas {
namespace {

bool is_no_transpose(char t) { return t == 'N' || t == 'n'; }

}  // namespace

bool is_transpose(char t) { return t == 'T' || t == 't' || t == 'C' || t == 'c'; }

int rows_a(const FortranSgemm& g) { return is_no_transpose(g.trans_a) ? g.m : g.k; }
int cols_a(const FortranSgemm& g) { return is_no_transpose(g.trans_a) ? g.k : g.m; }
int rows_b(const FortranSgemm& g) { return is_no_transpose(g.trans_b) ? g.k : g.n; }
int cols_b(const FortranSgemm& g) { return is_no_transpose(g.trans_b) ? g.n : g.k; }

int check_info(const FortranSgemm& g) {
  if (!is_no_transpose(g.trans_a) && !is_transpose(g.trans_a)) return 1;
  if (!is_no_transpose(g.trans_b) && !is_transpose(g.trans_b)) return 2;
  if (g.m < 0) return 3;
  if (g.n < 0) return 4;
  if (g.k < 0) return 5;
  if (g.lda < std::max(1, rows_a(g))) return 8;
  if (g.ldb < std::max(1, rows_b(g))) return 10;
  if (g.ldc < std::max(1, g.m)) return 13;
  return 0;
}

bool is_quick_return(const FortranSgemm& g) {
  return g.m == 0 || g.n == 0 || ((g.alpha == 0.f || g.k == 0) && g.beta == 1.f);
}

bool only_scales_c(const FortranSgemm& g) { return g.alpha == 0.f || g.k == 0; }

}  // namespace autogemm::blas
