// The detail text of an argument error, for autogemm_last_error: which
// parameter, its value, and the rule it broke, in the caller's terms (their
// layout, their A and B, their M and N: never the canonical form).
//
// validate() and check_pointers() (problem.cpp) decide; this only explains
// their verdict, so it is asked only after one of them has failed. Included
// by dispatcher.cpp alone.
#pragma once

#include <string>

#include "autogemm/autogemm.h"
#include "autogemm/problem.h"
#include "autogemm/gemm_args.h"

namespace autogemm::detail {

inline std::string trans_detail(const char* name, autogemm_transpose t) {
  return std::string(name) + " is " + std::to_string(int(t)) +
         "; expected AUTOGEMM_NO_TRANS (111), AUTOGEMM_TRANS (112) or AUTOGEMM_CONJ_TRANS (113)";
}

/// "lda is 7, but A is row-major and not transposed: lda must be at least
/// max(1, K) = 8". The leading dimension spans the matrix's contiguous
/// dimension as stored: a row of a row-major matrix, a column otherwise.
inline std::string ld_detail(const GemmArgs& g, autogemm_status st) {
  const bool row = g.layout == AUTOGEMM_ROW_MAJOR;
  const bool ta = g.trans_a != AUTOGEMM_NO_TRANS, tb = g.trans_b != AUTOGEMM_NO_TRANS;
  const char* ld = "ldc";
  const char* matrix = "C";
  bool trans = false;
  char dim = row ? 'N' : 'M';
  int have = g.ldc, need = row ? g.n : g.m;
  if (st == AUTOGEMM_INVALID_LDA) {
    ld = "lda", matrix = "A", trans = ta, have = g.lda;
    dim = row == ta ? 'M' : 'K';
    need = row == ta ? g.m : g.k;
  } else if (st == AUTOGEMM_INVALID_LDB) {
    ld = "ldb", matrix = "B", trans = tb, have = g.ldb;
    dim = row == tb ? 'K' : 'N';
    need = row == tb ? g.k : g.n;
  }
  const int min = need > 1 ? need : 1;
  std::string s = std::string(ld) + " is " + std::to_string(have) + ", but " + matrix + " is " +
                  (row ? "row-major" : "column-major");
  if (st != AUTOGEMM_INVALID_LDC) s += trans ? " and transposed" : " and not transposed";
  return s + ": " + ld + " must be at least max(1, " + dim + ") = " + std::to_string(min);
}

/// "stride_c is 100, but the 4 products' C (row-major, 8 x 16, ldc 16) would
/// overlap: it must be at least 128, or at least 16 with 4 x 16 <= ldc".
inline std::string stride_detail(const GemmArgs& g, autogemm_status st) {
  if (st == AUTOGEMM_INVALID_BATCH_COUNT)
    return "batch_count is " + std::to_string(g.batch) + "; it must not be negative";
  const bool is_a = st == AUTOGEMM_INVALID_STRIDE_A;
  if (is_a || st == AUTOGEMM_INVALID_STRIDE_B)
    return std::string(is_a ? "stride_a" : "stride_b") + " is " + std::to_string(is_a ? g.stride_a : g.stride_b) +
           "; with " + std::to_string(g.batch) + " products it must be between 0 and 2^50 / batch_count";
  const bool row = g.layout == AUTOGEMM_ROW_MAJOR;
  const long long rows = row ? g.m : g.n, cols = row ? g.n : g.m;
  return "stride_c is " + std::to_string(g.stride_c) + ", but the " + std::to_string(g.batch) + " products' C (" +
         (row ? "row-major, " : "column-major, ") + std::to_string(g.m) + " x " + std::to_string(g.n) + ", ldc " +
         std::to_string(g.ldc) + ") would share elements: it must be at least " +
         std::to_string((rows - 1) * (long long)g.ldc + cols) + ", or at least " + std::to_string(cols) + " with " +
         std::to_string(g.batch) + " x " + std::to_string(cols) + " <= ldc (and below 2^50 / batch_count)";
}

/// Why validate() or check_pointers() returned `st` for `g`.
inline std::string argument_detail(const GemmArgs& g, autogemm_status st) {
  switch (st) {
    case AUTOGEMM_INVALID_LAYOUT:
      return "layout is " + std::to_string(int(g.layout)) +
             "; expected AUTOGEMM_ROW_MAJOR (101) or AUTOGEMM_COL_MAJOR (102)";
    case AUTOGEMM_INVALID_TRANS_A: return trans_detail("trans_a", g.trans_a);
    case AUTOGEMM_INVALID_TRANS_B: return trans_detail("trans_b", g.trans_b);
    case AUTOGEMM_INVALID_M: return "M is " + std::to_string(g.m) + "; it must not be negative";
    case AUTOGEMM_INVALID_N: return "N is " + std::to_string(g.n) + "; it must not be negative";
    case AUTOGEMM_INVALID_K: return "K is " + std::to_string(g.k) + "; it must not be negative";
    case AUTOGEMM_INVALID_LDA:
    case AUTOGEMM_INVALID_LDB:
    case AUTOGEMM_INVALID_LDC: return ld_detail(g, st);
    case AUTOGEMM_INVALID_BATCH_COUNT:
    case AUTOGEMM_INVALID_STRIDE_A:
    case AUTOGEMM_INVALID_STRIDE_B:
    case AUTOGEMM_INVALID_STRIDE_C: return stride_detail(g, st);
    case AUTOGEMM_NULL_A: return "A is NULL, but this call reads A (alpha != 0 and K > 0)";
    case AUTOGEMM_NULL_B: return "B is NULL, but this call reads B (alpha != 0 and K > 0)";
    case AUTOGEMM_NULL_C:
      return "C is NULL, but this call writes C (M > 0, N > 0, and not alpha or K zero with beta = 1)";
    default: return "invalid argument";
  }
}

}  // namespace autogemm::detail
