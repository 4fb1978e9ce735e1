#include "autogemm/problem.h"

#include <algorithm>
#include <cstdint>
#include <regex>
#include <sstream>

namespace autogemm {
namespace {

bool valid_trans(autogemm_transpose t) {
  return t == AUTOGEMM_NO_TRANS || t == AUTOGEMM_TRANS || t == AUTOGEMM_CONJ_TRANS;
}
bool is_trans(autogemm_transpose t) { return t != AUTOGEMM_NO_TRANS; }

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

std::string Problem::to_string() const {
  std::ostringstream s;
  s << m << "x" << n << "x" << k << " " << (trans_a ? 'T' : 'N') << (trans_b ? 'T' : 'N')
    << (aligned ? " aligned" : " unaligned");
  if (batch != 1) s << " batch " << batch;
  return s.str();
}

namespace {

// The strides of a batch of more than one product: A and B are only read, so
// any stride >= 0 will do (0 shares one operand); C's products must not share
// an element: one after the other (stride past the last row's N floats), or
// side by side within each row (stride >= N, all of them within ldc). The
// products' offsets must stay far from overflowing 64 bits.
autogemm_status validate_batch(const GemmArgs& g) {
  if (g.batch < 0) return AUTOGEMM_INVALID_BATCH_COUNT;
  if (g.batch <= 1) return AUTOGEMM_SUCCESS;
  const long long limit = (1LL << 50) / g.batch;
  if (g.stride_a < 0 || g.stride_a > limit) return AUTOGEMM_INVALID_STRIDE_A;
  if (g.stride_b < 0 || g.stride_b > limit) return AUTOGEMM_INVALID_STRIDE_B;
  const bool row = g.layout == AUTOGEMM_ROW_MAJOR;
  const long long rows = row ? g.m : g.n, cols = row ? g.n : g.m, s = g.stride_c;
  const bool after = s >= (rows - 1) * (long long)g.ldc + cols;
  const bool beside = s >= cols && (g.batch - 1) * s + cols <= g.ldc;
  if (s > limit || !(after || beside)) return AUTOGEMM_INVALID_STRIDE_C;
  return AUTOGEMM_SUCCESS;
}

}  // namespace

autogemm_status validate(const GemmArgs& g) {
  // CBLAS checks the layout first: the leading-dimension rules depend on it.
  if (g.layout != AUTOGEMM_ROW_MAJOR && g.layout != AUTOGEMM_COL_MAJOR) return AUTOGEMM_INVALID_LAYOUT;
  if (!valid_trans(g.trans_a)) return AUTOGEMM_INVALID_TRANS_A;
  if (!valid_trans(g.trans_b)) return AUTOGEMM_INVALID_TRANS_B;
  if (g.m < 0) return AUTOGEMM_INVALID_M;
  if (g.n < 0) return AUTOGEMM_INVALID_N;
  if (g.k < 0) return AUTOGEMM_INVALID_K;
  const bool row = g.layout == AUTOGEMM_ROW_MAJOR;
  const bool ta = is_trans(g.trans_a), tb = is_trans(g.trans_b);
  // Stored rows/columns: the leading dimension is at least the length of the
  // contiguous dimension of the matrix as it sits in memory.
  const int a_min = row ? (ta ? g.m : g.k) : (ta ? g.k : g.m);
  const int b_min = row ? (tb ? g.k : g.n) : (tb ? g.n : g.k);
  const int c_min = row ? g.n : g.m;
  if (g.lda < std::max(1, a_min)) return AUTOGEMM_INVALID_LDA;
  if (g.ldb < std::max(1, b_min)) return AUTOGEMM_INVALID_LDB;
  if (g.ldc < std::max(1, c_min)) return AUTOGEMM_INVALID_LDC;
  return validate_batch(g);
}

bool is_quick_return(const GemmArgs& g) {
  return g.batch == 0 || g.m == 0 || g.n == 0 || ((g.alpha == 0.f || g.k == 0) && g.beta == 1.f);
}

autogemm_status check_pointers(const GemmArgs& g) {
  const bool reads_ab = g.alpha != 0.f && g.k > 0;
  if (reads_ab && g.a == nullptr) return AUTOGEMM_NULL_A;
  if (reads_ab && g.b == nullptr) return AUTOGEMM_NULL_B;
  if (g.c == nullptr) return AUTOGEMM_NULL_C;
  return AUTOGEMM_SUCCESS;
}

CanonicalCall normalize(const GemmArgs& g) {
  CanonicalCall c;
  Problem& p = c.problem;
  const bool ta = is_trans(g.trans_a), tb = is_trans(g.trans_b);
  if (g.layout == AUTOGEMM_ROW_MAJOR) {
    p.m = g.m;
    p.n = g.n;
    p.trans_a = ta;
    p.trans_b = tb;
    p.lda = g.lda;
    p.ldb = g.ldb;
    c.a = g.a;
    c.b = g.b;
  } else {
    // Column-major C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T.
    p.m = g.n;
    p.n = g.m;
    p.trans_a = tb;
    p.trans_b = ta;
    p.lda = g.ldb;
    p.ldb = g.lda;
    c.a = g.b;
    c.b = g.a;
  }
  p.k = g.k;
  p.ldc = g.ldc;
  c.c = g.c;
  c.alpha = g.alpha;
  c.beta = g.beta;
  p.batch = g.batch;
  if (g.batch > 1) {
    const bool row = g.layout == AUTOGEMM_ROW_MAJOR;
    p.stride_a = row ? g.stride_a : g.stride_b;
    p.stride_b = row ? g.stride_b : g.stride_a;
    p.stride_c = g.stride_c;
  }
  // Every product of a batch starts 16-byte aligned when the strides are
  // multiples of 4 floats.
  p.aligned = aligned16(c.a) && aligned16(c.b) && aligned16(c.c) && p.lda % 4 == 0 &&
              p.ldb % 4 == 0 && p.ldc % 4 == 0 && p.stride_a % 4 == 0 && p.stride_b % 4 == 0 &&
              p.stride_c % 4 == 0;
  return c;
}

void pack_batch(Problem& p) {
  const bool many = p.batch > 1;
  p.stride_a = many ? p.a_extent() : 0;
  p.stride_b = many ? p.b_extent() : 0;
  p.stride_c = many ? p.c_extent() : 0;
}

Problem make_problem(autogemm_layout layout, bool trans_a, bool trans_b, int64_t m, int64_t n,
                     int64_t k, bool aligned, int64_t batch) {
  Problem p;
  const bool row = layout == AUTOGEMM_ROW_MAJOR;
  p.m = row ? m : n;
  p.n = row ? n : m;
  p.k = k;
  p.trans_a = row ? trans_a : trans_b;
  p.trans_b = row ? trans_b : trans_a;
  p.lda = std::max<int64_t>(1, p.trans_a ? p.m : p.k);
  p.ldb = std::max<int64_t>(1, p.trans_b ? p.k : p.n);
  p.ldc = std::max<int64_t>(1, p.n);
  p.aligned = aligned && p.lda % 4 == 0 && p.ldb % 4 == 0 && p.ldc % 4 == 0;
  p.batch = std::max<int64_t>(1, batch);
  pack_batch(p);
  return p;
}

Problem make_problem(const ShapeKey& key) {
  Problem p = make_problem(AUTOGEMM_ROW_MAJOR, key.trans_a, key.trans_b, key.m, key.n, key.k, false);
  if (key.aligned) {
    auto up4 = [](int64_t v) { return (v + 3) / 4 * 4; };
    p.lda = up4(p.lda);
    p.ldb = up4(p.ldb);
    p.ldc = up4(p.ldc);
    p.aligned = true;
  }
  p.batch = std::max<int64_t>(1, key.batch);
  pack_batch(p);
  return p;
}

std::string ShapeSpec::to_string() const {
  std::ostringstream s;
  if (layout == AUTOGEMM_COL_MAJOR) s << "col:";
  s << m << "x" << n << "x" << k << ":" << (trans_a ? 'T' : 'N') << (trans_b ? 'T' : 'N');
  if (batch != 1) s << "@" << batch;
  return s.str();
}

Problem ShapeSpec::problem() const { return make_problem(layout, trans_a, trans_b, m, n, k, true, batch); }

bool parse_shape(const std::string& text, ShapeSpec* out, std::string* error) {
  static const std::regex re(R"(^(?:(row|col):)?(\d{1,10})x(\d{1,10})x(\d{1,10})(?::([NT])([NT]))?(?:@(\d{1,10}))?$)");
  // Surrounding white space is trimmed here, not by the regex: libstdc++'s
  // std::regex recurses once per character a `\s*` consumes, so a long run of
  // blanks overflowed the stack (found by tests/fuzz/fuzz_parse_shape). The
  // longest valid shape, "col:" + 4 x 10 digits + "x"s + ":TT@", is 50 chars.
  static const char* const kSpace = " \t\n\v\f\r";
  const size_t first = text.find_first_not_of(kSpace);
  const std::string body =
      first == std::string::npos ? std::string()
                                 : text.substr(first, text.find_last_not_of(kSpace) - first + 1);
  std::smatch mt;
  if (body.size() > 64 || !std::regex_match(body, mt, re)) {
    if (error) *error = "shape '" + text + "' is not of the form [row:|col:]MxNxK[:NN|NT|TN|TT][@BATCH]";
    return false;
  }
  ShapeSpec s;
  s.layout = mt[1].matched && mt[1] == "col" ? AUTOGEMM_COL_MAJOR : AUTOGEMM_ROW_MAJOR;
  const long long mv = std::stoll(mt[2]), nv = std::stoll(mt[3]), kv = std::stoll(mt[4]);
  const long long lim = 2147483647LL;
  if (mv < 1 || nv < 1 || kv < 1 || mv > lim || nv > lim || kv > lim) {
    if (error) *error = "shape '" + text + "': M, N and K must be between 1 and 2147483647";
    return false;
  }
  s.m = mv;
  s.n = nv;
  s.k = kv;
  if (mt[5].matched) {
    s.trans_a = mt[5] == "T";
    s.trans_b = mt[6] == "T";
  }
  if (mt[7].matched) {
    const long long bv = std::stoll(mt[7]);
    if (bv < 1 || bv > lim) {
      if (error) *error = "shape '" + text + "': the batch count must be between 1 and 2147483647";
      return false;
    }
    s.batch = bv;
  }
  *out = s;
  return true;
}

}  // namespace autogemm
