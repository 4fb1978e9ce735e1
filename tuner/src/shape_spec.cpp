#include "autogemm/shape_spec.h"

#include <regex>
#include <sstream>

namespace autogemm {

Problem make_problem(autogemm_layout layout, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                     bool aligned, int64_t batch) {
  // A column-major shape is the row-major one with M, N and the operands swapped.
  const bool row = layout == AUTOGEMM_ROW_MAJOR;
  return canonical_problem(row ? trans_a : trans_b, row ? trans_b : trans_a, row ? m : n, row ? n : m, k, aligned,
                           batch);
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
