// The class-sweep suite: seeded random shapes that cover every class of
// problem the strict families must serve (issue 33), so a claim "no class
// below X" is measured on shapes nobody picked by hand.
#include <array>
#include <cstdint>
#include <random>
#include <set>
#include <string>

#include "autogemm/tuner.h"
#include "autogemm/shape_spec.h"

namespace autogemm {
namespace {

constexpr int kClassShapes = 96;

// Only std::mt19937's raw output is the same on every standard library
// (its distributions and std::shuffle are not): every draw below is
// integer arithmetic on it, so the suite is the same list everywhere.
class Draw {
 public:
  explicit Draw(uint32_t seed) : rng_(seed) {}
  int64_t uniform(int64_t lo, int64_t hi) { return lo + int64_t(rng_() % uint64_t(hi - lo + 1)); }
  // Log-uniform-ish: a power-of-two band [2^e, 2^(e+1)) of [lo, hi] first,
  // uniformly, then a value inside it.
  int64_t log_uniform(int64_t lo, int64_t hi) {
    int e_lo = 0, e_hi = 0;
    while ((int64_t(2) << e_lo) <= lo) ++e_lo;
    while ((int64_t(2) << e_hi) <= hi) ++e_hi;
    const int e = int(uniform(e_lo, e_hi));
    return uniform(std::max(lo, int64_t(1) << e), std::min(hi, (int64_t(2) << e) - 1));
  }
  // 0..n-1 in a seeded order (Fisher-Yates).
  std::array<int, kClassShapes> permutation() {
    std::array<int, kClassShapes> p{};
    for (int i = 0; i < kClassShapes; ++i) p[size_t(i)] = i;
    for (int i = kClassShapes - 1; i > 0; --i) std::swap(p[size_t(i)], p[size_t(uniform(0, i))]);
    return p;
  }

 private:
  std::mt19937 rng_;
};

// The range of the smaller of M and N for each size class.
constexpr int64_t kSmallLo[4] = {1, 17, 65, 257}, kSmallHi[4] = {16, 64, 256, 4096};

// v moved into its alignment class inside [lo, hi]: a multiple of 4
// (aligned; lo..hi always holds one) or odd (every dimension odd: an odd
// leading dimension whatever the layout).
int64_t in_class(int64_t v, bool aligned, int64_t lo, int64_t hi) {
  if (aligned) return std::min((v + 3) / 4 * 4, hi / 4 * 4);
  return v % 2 == 0 ? (v - 1 >= lo ? v - 1 : v + 1) : v;
}

}  // namespace

std::vector<ShapeSpec> class_suite(uint32_t seed) {
  Draw d(seed);
  // Each class axis gets its own balanced order: every value of every axis
  // appears kClassShapes / (its values) times (at least 24).
  const auto size = d.permutation(), align = d.permutation(), trans = d.permutation(), major = d.permutation(),
             depth = d.permutation();
  std::vector<ShapeSpec> out;
  std::set<std::string> seen;
  for (int i = 0; i < kClassShapes; ++i) {
    const int sc = size[size_t(i)] % 4, t = trans[size_t(i)] % 4;
    const bool aligned = align[size_t(i)] % 2 == 0, col = major[size_t(i)] % 2 == 1, long_k = depth[size_t(i)] % 2;
    const int64_t k_lo = long_k ? 1025 : 16, k_hi = long_k ? 16384 : 1024;
    // A shape drawn before is drawn again, in the same classes (the
    // default seed's list never needed it).
    for (;;) {
      const int64_t small = in_class(d.log_uniform(kSmallLo[sc], kSmallHi[sc]), aligned, kSmallLo[sc], kSmallHi[sc]);
      const int64_t k = in_class(d.log_uniform(k_lo, k_hi), aligned, k_lo, k_hi);
      // The other side: past 256 (so the small one is the smaller, or both
      // are large), at most 8192 and 2^35 multiply-adds in all (at least 512).
      const int64_t other_hi = std::min<int64_t>(8192, (int64_t(1) << 35) / (small * k));
      const int64_t other = in_class(d.log_uniform(257, other_hi), aligned, 257, other_hi);
      const bool small_is_m = d.uniform(0, 1) == 0;
      ShapeSpec s;
      s.layout = col ? AUTOGEMM_COL_MAJOR : AUTOGEMM_ROW_MAJOR;
      s.m = small_is_m ? small : other, s.n = small_is_m ? other : small, s.k = k;
      s.trans_a = t & 1, s.trans_b = (t & 2) != 0;
      if (!seen.insert(s.to_string()).second) continue;
      out.push_back(s);
      break;
    }
  }
  return out;
}

}  // namespace autogemm
