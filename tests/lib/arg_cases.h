// Argument-validation cases shared by test_lib (validate(), internal) and
// test_c_api (autogemm_sgemm, the public C function). Only the public header
// is used here, and the rules below are an independent restatement of the
// reference-BLAS / CBLAS contract, not a copy of the library's code.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "autogemm/autogemm.h"

namespace agtest {

/// One autogemm_sgemm call, as the caller writes it.
struct Call {
  autogemm_layout layout = AUTOGEMM_ROW_MAJOR;
  autogemm_transpose ta = AUTOGEMM_NO_TRANS, tb = AUTOGEMM_NO_TRANS;
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

/// Fake device addresses: validation never dereferences them, and on a
/// machine without a driver (or without a current context) nothing launches.
inline const float* fake_a() { return reinterpret_cast<const float*>(std::uintptr_t(0x10000)); }
inline const float* fake_b() { return reinterpret_cast<const float*>(std::uintptr_t(0x20000)); }
inline float* fake_c() { return reinterpret_cast<float*>(std::uintptr_t(0x30000)); }

inline bool is_t(autogemm_transpose t) { return t != AUTOGEMM_NO_TRANS; }

// Minimum leading dimensions, as CBLAS states them.
inline int min_lda(const Call& c) {
  const bool row = c.layout == AUTOGEMM_ROW_MAJOR;
  const int need = row ? (is_t(c.ta) ? c.m : c.k) : (is_t(c.ta) ? c.k : c.m);
  return std::max(1, need);
}
inline int min_ldb(const Call& c) {
  const bool row = c.layout == AUTOGEMM_ROW_MAJOR;
  const int need = row ? (is_t(c.tb) ? c.k : c.n) : (is_t(c.tb) ? c.n : c.k);
  return std::max(1, need);
}
inline int min_ldc(const Call& c) {
  return std::max(1, c.layout == AUTOGEMM_ROW_MAJOR ? c.n : c.m);
}

/// A valid call with the smallest legal leading dimensions and fake pointers.
inline Call valid_call(autogemm_layout layout, autogemm_transpose ta, autogemm_transpose tb, int m,
                       int n, int k) {
  Call c;
  c.layout = layout;
  c.ta = ta;
  c.tb = tb;
  c.m = m;
  c.n = n;
  c.k = k;
  c.a = fake_a();
  c.b = fake_b();
  c.c = fake_c();
  c.lda = min_lda(c);
  c.ldb = min_ldb(c);
  c.ldc = min_ldc(c);
  return c;
}

/// Reference-BLAS quick return: nothing is touched at all.
inline bool expect_quick(const Call& c) {
  return c.m == 0 || c.n == 0 || ((c.alpha == 0.f || c.k == 0) && c.beta == 1.f);
}

struct Combo {
  autogemm_layout layout;
  autogemm_transpose ta, tb;
};

/// Every layout x transA x transB, CONJ_TRANS included (it means TRANS).
inline std::vector<Combo> all_combos() {
  std::vector<Combo> out;
  const autogemm_transpose ts[] = {AUTOGEMM_NO_TRANS, AUTOGEMM_TRANS, AUTOGEMM_CONJ_TRANS};
  for (autogemm_layout l : {AUTOGEMM_ROW_MAJOR, AUTOGEMM_COL_MAJOR})
    for (autogemm_transpose a : ts)
      for (autogemm_transpose b : ts) out.push_back({l, a, b});
  return out;
}

inline std::string combo_name(const Combo& c) {
  auto t = [](autogemm_transpose x) {
    return x == AUTOGEMM_NO_TRANS ? "N" : x == AUTOGEMM_TRANS ? "T" : "C";
  };
  return std::string(c.layout == AUTOGEMM_ROW_MAJOR ? "Row" : "Col") + t(c.ta) + t(c.tb);
}

/// kValid: the arguments are valid (the status then depends on who checks).
constexpr int kValid = -1;

struct Case {
  std::string what;
  Call call;
  int expect;  ///< an autogemm_status, or kValid
};

/// Validation cases for one combo: ld boundaries (exactly at the minimum
/// passes, one below fails) for several shapes including zero dimensions,
/// and "first failure wins" orderings.
inline std::vector<Case> validation_cases(const Combo& cb) {
  std::vector<Case> out;
  // Distinct M, N, K so that a rule using the wrong dimension is caught; the
  // zero-dimension shapes exercise max(1, dim).
  const int shapes[][3] = {{5, 7, 9}, {9, 5, 7}, {7, 9, 5}, {1, 1, 1},
                           {0, 7, 9}, {5, 0, 9}, {5, 7, 0}, {0, 0, 0}};
  for (const auto& s : shapes) {
    const std::string dims =
        std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
    Call v = valid_call(cb.layout, cb.ta, cb.tb, s[0], s[1], s[2]);
    out.push_back({dims + " minimal ld", v, kValid});
    Call big = v;
    big.lda += 3, big.ldb += 17, big.ldc += 1000;
    out.push_back({dims + " larger ld", big, kValid});
    Call c = v;
    c.lda -= 1;
    out.push_back({dims + " lda one below minimum", c, AUTOGEMM_INVALID_LDA});
    c = v;
    c.ldb -= 1;
    out.push_back({dims + " ldb one below minimum", c, AUTOGEMM_INVALID_LDB});
    c = v;
    c.ldc -= 1;
    out.push_back({dims + " ldc one below minimum", c, AUTOGEMM_INVALID_LDC});
    c = v;
    c.lda = -1, c.ldb = -1, c.ldc = -1;
    out.push_back({dims + " negative ld", c, AUTOGEMM_INVALID_LDA});
  }
  // "First failure wins": each case has its own error plus every later one.
  const Call v = valid_call(cb.layout, cb.ta, cb.tb, 5, 7, 9);
  Call all_bad = v;
  all_bad.m = -1, all_bad.n = -2, all_bad.k = -3;
  all_bad.lda = 0, all_bad.ldb = 0, all_bad.ldc = 0;
  for (int layout : {0, 100, 103, 999, -101}) {
    Call c = all_bad;
    c.layout = autogemm_layout(layout);
    c.ta = autogemm_transpose(0), c.tb = autogemm_transpose(0);
    out.push_back({"layout " + std::to_string(layout) + " with everything bad", c,
                   AUTOGEMM_INVALID_LAYOUT});
  }
  for (int t : {0, 110, 114, 999, -111}) {
    Call c = all_bad;
    c.ta = autogemm_transpose(t), c.tb = autogemm_transpose(t);
    out.push_back({"trans_a " + std::to_string(t) + " with trans_b bad too", c,
                   AUTOGEMM_INVALID_TRANS_A});
    c.ta = cb.ta;
    out.push_back({"trans_b " + std::to_string(t) + " with M<0 too", c, AUTOGEMM_INVALID_TRANS_B});
  }
  Call c = all_bad;
  out.push_back({"M<0 with N<0, K<0, all ld bad", c, AUTOGEMM_INVALID_M});
  c.m = 5;
  out.push_back({"N<0 with K<0, all ld bad", c, AUTOGEMM_INVALID_N});
  c.n = 7;
  out.push_back({"K<0 with all ld bad", c, AUTOGEMM_INVALID_K});
  c.k = 9;
  out.push_back({"lda bad with ldb, ldc bad", c, AUTOGEMM_INVALID_LDA});
  c.lda = v.lda;
  out.push_back({"ldb bad with ldc bad", c, AUTOGEMM_INVALID_LDB});
  c.ldb = v.ldb;
  out.push_back({"ldc bad alone", c, AUTOGEMM_INVALID_LDC});
  c = v;
  c.m = -1, c.lda = 0;
  out.push_back({"M<0 and lda bad", c, AUTOGEMM_INVALID_M});
  c = v;
  c.m = std::numeric_limits<int>::min();
  out.push_back({"M = INT_MIN", c, AUTOGEMM_INVALID_M});
  c = v;
  c.k = -1, c.a = nullptr, c.b = nullptr, c.c = nullptr;
  out.push_back({"K<0 wins over null pointers", c, AUTOGEMM_INVALID_K});
  c = v;
  c.ldc = 0, c.a = nullptr, c.b = nullptr, c.c = nullptr;
  out.push_back({"ldc bad wins over null pointers", c, AUTOGEMM_INVALID_LDC});
  return out;
}

}  // namespace agtest
