#include "autogemm/problem.h"

#include <algorithm>
#include <sstream>

namespace autogemm {

std::string Problem::to_string() const {
  std::ostringstream s;
  s << m << "x" << n << "x" << k << " " << (trans_a ? 'T' : 'N') << (trans_b ? 'T' : 'N')
    << (aligned ? " aligned" : " unaligned");
  if (batch != 1) s << " batch " << batch;
  return s.str();
}

void pack_batch(Problem& p) {
  const bool many = p.batch > 1;
  p.stride_a = many ? p.a_extent() : 0;
  p.stride_b = many ? p.b_extent() : 0;
  p.stride_c = many ? p.c_extent() : 0;
}

Problem canonical_problem(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, bool aligned,
                          int64_t batch) {
  Problem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.trans_a = trans_a;
  p.trans_b = trans_b;
  p.lda = std::max<int64_t>(1, p.trans_a ? p.m : p.k);
  p.ldb = std::max<int64_t>(1, p.trans_b ? p.k : p.n);
  p.ldc = std::max<int64_t>(1, p.n);
  p.aligned = aligned && p.lda % 4 == 0 && p.ldb % 4 == 0 && p.ldc % 4 == 0;
  p.batch = std::max<int64_t>(1, batch);
  pack_batch(p);
  return p;
}

Problem make_problem(const ShapeKey& key) {
  Problem p = canonical_problem(key.trans_a, key.trans_b, key.m, key.n, key.k, false);
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

}  // namespace autogemm
