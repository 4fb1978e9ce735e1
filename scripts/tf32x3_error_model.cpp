// A CPU model of tf32x3wg's rounding, for choosing accumulation schemes
// before GPU time is spent on them (scripts/tf32x3_error_model.sh runs it).
//
// Inputs are the verifier's (agemm_fill_random, bench seed 11, an M x N =
// 1024 x 1024 problem of which the first ROWS x COLS outputs are computed).
// The tensor-core model: each wgmma k8 step adds 8 exact TF32 products to
// the accumulator after aligning every term to the largest one's exponent
// and truncating bits below 2^-W of it, and rounds the sum toward zero to
// FP32. W = 25 reproduced the H200's measured 3xTF32 errors within ~5% at
// K = 256..16384 and exponent spreads 4, 16 and 30 (PERFORMANCE.md's
// accuracy table); "seq" is a sequential FP32 FMA dot, near cuBLAS SGEMM's
// measured error up to K = 1024.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int g_w = 25;  // bits kept below the largest term's leading bit

float bits_to_float(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
uint32_t float_to_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

float fill_value(int64_t i, unsigned seed, int spread) {  // agemm_fill_random
  uint64_t x = uint64_t(i) * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 31, x *= 0x94D049BB133111EBull, x ^= x >> 29;
  float mag = 0.25f + 0.75f * (float(x >> 40) * (1.0f / 16777216.0f));
  if (spread > 0) mag = std::ldexp(mag, int((x >> 8) % (2u * unsigned(spread) + 1u)) - spread);
  return (x & 1ull) ? -mag : mag;
}
float tf32_round(float x) { return bits_to_float((float_to_bits(x) + 0x1000u) & 0xffffe000u); }

// acc + sum of 8 products as one wgmma k8 step computes it (the model above).
float wgmma_step(float acc, const float* a, const float* b) {
  double terms[9] = {acc};
  double largest = std::fabs(double(acc));
  for (int i = 0; i < 8; ++i) terms[i + 1] = double(a[i]) * b[i], largest = std::max(largest, std::fabs(terms[i + 1]));
  if (largest == 0) return 0.f;
  int e;
  std::frexp(largest, &e);
  const double unit = std::ldexp(1.0, e - 1 - g_w);
  double sum = 0;
  for (double t : terms) sum += std::trunc(t / unit) * unit;
  float f = float(sum);
  if (std::fabs(double(f)) > std::fabs(sum)) f = std::nextafter(f, 0.f);
  return f;
}

// One output over K: modes "as-built" (per k8: cross, cross, big; totals
// += accumulators every slice of 32), "order" (a slice's cross products
// before its big ones), "carry" (order, and each drain's TwoSum error kept
// in the accumulators). Split-K: sk slices of K folded in FP32.
float tf32x3_dot(const std::string& mode, const std::vector<float>& a, const std::vector<float>& b, int sk) {
  const int k = int(a.size()), slices = (k + 31) / 32, per = (slices + sk - 1) / sk;
  std::vector<float> ah(k + 32, 0.f), al(k + 32, 0.f), bh(k + 32, 0.f), bl(k + 32, 0.f);
  for (int i = 0; i < k; ++i) {
    ah[i] = tf32_round(a[i]), al[i] = tf32_round(a[i] - ah[i]);
    bh[i] = tf32_round(b[i]), bl[i] = tf32_round(b[i] - bh[i]);
  }
  float folded = 0;
  for (int y = 0; y < sk; ++y) {
    float tot = 0, acc = 0;
    for (int s = y * per; s < std::min(slices, (y + 1) * per); ++s) {
      if (mode == "as-built") {
        acc = 0;
        for (int j = 0; j < 4; ++j) {
          const int o = 32 * s + 8 * j;
          acc = wgmma_step(acc, &al[o], &bh[o]);
          acc = wgmma_step(acc, &ah[o], &bl[o]);
          acc = wgmma_step(acc, &ah[o], &bh[o]);
        }
        tot += acc;
        continue;
      }
      if (mode == "order") acc = 0;
      for (int j = 0; j < 4; ++j) acc = wgmma_step(wgmma_step(acc, &al[32 * s + 8 * j], &bh[32 * s + 8 * j]),
                                                   &ah[32 * s + 8 * j], &bl[32 * s + 8 * j]);
      for (int j = 0; j < 4; ++j) acc = wgmma_step(acc, &ah[32 * s + 8 * j], &bh[32 * s + 8 * j]);
      if (mode == "order") { tot += acc; continue; }
      const float sum = tot + acc, tot_part = sum - acc;
      acc = (tot - tot_part) + (acc - (sum - tot_part));
      tot = sum;
    }
    if (mode == "carry") tot += acc;
    folded = y == 0 ? tot : folded + tot;
  }
  return folded;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: tf32x3_error_model K SPREAD [SK [ROWS [COLS [W]]]]\n");
    return 2;
  }
  const int k = std::atoi(argv[1]), spread = std::atoi(argv[2]);
  const int sk = argc > 3 ? std::atoi(argv[3]) : 1, rows = argc > 4 ? std::atoi(argv[4]) : 64;
  const int cols = argc > 5 ? std::atoi(argv[5]) : rows;
  if (argc > 6) g_w = std::atoi(argv[6]);
  if (k < 1 || spread < 0 || spread > 30 || sk < 1 || rows < 1 || cols < 1) return std::fprintf(stderr, "bad arguments\n"), 2;
  const char* modes[] = {"seq", "as-built", "order", "carry"};
  double err2[4] = {}, worst[4] = {}, ref2 = 0;
  std::vector<float> a(k), b(k);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      double ref = 0, abs_sum = 0;
      float seq = 0;
      for (int i = 0; i < k; ++i) {
        a[i] = fill_value(int64_t(r) * k + i, 11 * 3 + 1, spread);
        b[i] = fill_value(int64_t(i) * 1024 + c, 11 * 3 + 2, spread);
        ref += double(a[i]) * b[i], abs_sum += std::fabs(double(a[i]) * b[i]);
        seq = std::fma(a[i], b[i], seq);
      }
      const double bound = (k + 2.0) * std::ldexp(1.0, -24) * abs_sum;
      ref2 += ref * ref;
      for (int m = 0; m < 4; ++m) {
        const double out = m == 0 ? seq : tf32x3_dot(modes[m], a, b, sk);
        err2[m] += (out - ref) * (out - ref);
        worst[m] = std::max(worst[m], std::fabs(out - ref) / bound);
      }
    }
  for (int m = 0; m < 4; ++m)
    std::printf("K=%d spread=%d sk=%d %-9s rel %.3g  elem %.4f\n", k, spread, sk, modes[m], std::sqrt(err2[m] / ref2),
                worst[m]);
  return 0;
}
