// Fuzz target: autogemm::parse_shape, the shape syntax of the command-line
// tools and shapes files ("[row:|col:]MxNxK[:NN|NT|TN|TT][@BATCH]").
//
// Invariants: never crashes; a rejected shape has an error message; an
// accepted shape has 1 <= M, N, K, BATCH <= 2^31-1 and its canonical text
// (ShapeSpec::to_string) parses back to the same shape, a fixed point.
// Inputs of any length: a long run of blanks once overflowed the stack inside
// std::regex; LLVMFuzzerInitialize replays that input (too big for the corpus).
#include <cstdint>
#include <string>

#include "autogemm/problem.h"
#include "autogemm/shape_spec.h"
#include "fuzz_util.h"

namespace {

bool same(const autogemm::ShapeSpec& a, const autogemm::ShapeSpec& b) {
  return a.layout == b.layout && a.trans_a == b.trans_a && a.trans_b == b.trans_b &&
         a.m == b.m && a.n == b.n && a.k == b.k && a.batch == b.batch;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Regression: 200000 blanks around a shape (a stack overflow before the fix
  // in lib/src/problem.cpp), and blanks alone.
  const std::string blanks(100000, ' ');
  for (const std::string& s : {blanks + "1x2x3:TN" + blanks, blanks + blanks}) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
  autogemm::ShapeSpec spec;
  FUZZ_CHECK(autogemm::parse_shape(blanks + "1x2x3:TN" + blanks, &spec, nullptr) && spec.k == 3,
             "a shape surrounded by blanks is not accepted");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  autogemm::ShapeSpec s;
  std::string error;
  if (!autogemm::parse_shape(text, &s, &error)) {
    FUZZ_CHECK(!error.empty(), "rejected without an error: '" + text + "'");
    return 0;
  }
  const int64_t lim = 2147483647;
  FUZZ_CHECK(s.m >= 1 && s.n >= 1 && s.k >= 1 && s.m <= lim && s.n <= lim && s.k <= lim && s.batch >= 1 &&
                 s.batch <= lim,
             "accepted out-of-range dimensions: '" + text + "'");
  const std::string canon = s.to_string();
  autogemm::ShapeSpec again;
  std::string error2;
  FUZZ_CHECK(autogemm::parse_shape(canon, &again, &error2),
             "canonical text does not parse (" + error2 + "): '" + canon + "'");
  FUZZ_CHECK(same(s, again), "round trip changed the shape: '" + canon + "' from '" + text + "'");
  FUZZ_CHECK(again.to_string() == canon, "canonical text is not a fixed point: '" + canon + "'");
  const autogemm::Problem p = s.problem();
  FUZZ_CHECK(p.m >= 1 && p.n >= 1 && p.k >= 1 && p.lda >= 1 && p.ldb >= 1 && p.ldc >= 1 && p.batch == s.batch &&
                 p.key().batch == autogemm::batch_bucket(s.batch),
             "canonical problem out of range: '" + canon + "'");
  return 0;
}
