// The tiled family's search space and cost model (the tuner's view of it).
#include <algorithm>
#include <cmath>

#include "autogemm/kernel_config.h"
#include "autogemm/param_space.h"
#include "autogemm/tiled_family.h"

namespace autogemm {

int TiledFamily::estimated_registers(const TiledParams& c) {
  const int t = threads(c);
  // Staging registers with st=0; cp.async (st>0) needs about as many for
  // the per-copy addresses the compiler keeps live instead.
  const int staged = (c.bm * c.bk + c.bn * c.bk + t - 1) / t;
  const int natural = c.tm * c.tn + c.tm + c.tn + staged + 28;
  return std::min(natural, register_cap(c));
}

int TiledFamily::blocks_per_sm(const TiledParams& c, const SearchLimits& lim) {
  const int t = std::max(1, threads(c));
  const int regs = estimated_registers(c);
  const int64_t by_regs = lim.regs_per_sm / (int64_t(regs) * t);
  const int64_t by_smem = int64_t(lim.smem_per_sm / (smem_bytes(c) + 1024));
  const int64_t by_threads = lim.max_threads_per_sm / t;
  return int(std::max<int64_t>(1, std::min({by_regs, by_smem, by_threads, int64_t(32)})));
}

int TiledFamily::register_cap(const TiledParams& c) {
  const int t = std::max(1, threads(c));
  // __launch_bounds__(t, mb): registers are allocated per warp in units of
  // 8 per thread, and 65536 per SM (H100/H200) must hold mb blocks.
  return std::min(255, (65536 / (c.min_blocks * t)) / 8 * 8);
}

namespace {

int64_t next_pow2(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

// Split-K is tried (a) while the tiles alone fill less than one wave, up to
// ~8 waves of blocks, and (b) with 2..4 slices when the tiles leave the last
// wave less than 3/4 full (3000^3 with 64x256 tiles: 564 blocks on 264
// slots = 2.14 waves, so a third of the GPU idles in the last one). Every
// slice keeps at least 4 K steps.
bool split_k_worth_trying(const Problem& p, const TiledParams& c, int64_t tiles, const SearchLimits& lim) {
  const int sk = c.split_k;
  if (p.k / sk < 4 * c.bk) return false;
  if (tiles < lim.sm_count) return tiles * sk <= 8 * lim.sm_count;
  if (sk > 4 || tiles > 16 * lim.sm_count) return false;
  const double waves = double(tiles) / (double(lim.sm_count) * TiledFamily::blocks_per_sm(c, lim));
  const double last = waves - std::floor(waves);
  return last > 0.0 && last < 0.75;
}

// The space, as data. Axes outermost first; each constraint names the last
// axis it reads (see param_space.h).
const ParamSpace<TiledParams>& tiled_space() {
  using P = TiledParams;
  using Point = SpacePoint<P>;
  enum { BM, BN, BK, TM, TN, WC, SK, RD, SW, ST, KU };
  static const ParamSpace<P> space(
      {axis(&P::bm, {16, 32, 64, 128, 256}), axis(&P::bn, {16, 32, 64, 128, 256}), axis(&P::bk, {8, 16, 32}),
       axis(&P::tm, {2, 4, 8, 16}), axis(&P::tn, {2, 4, 8, 16}), axis(&P::wc, {4, 8}),
       axis(&P::split_k, {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128}), axis(&P::split_reduce, {0, 1}),
       axis(&P::swizzle, {1, 8}), axis(&P::stages, {0, 3, 4}), axis(&P::k_unroll, {0, 2, 4, 8, 16})},
      {{"the alignment class sets the access width", -1, [](P& c, const Problem& p) { c.vec = p.aligned ? 4 : 1; }},
       {"a batch goes into grid z", -1, [](P& c, const Problem& p) { c.batched = p.batch > 1 ? 1 : 0; }}},
      {{"tiles up to the next power of two of M", BM,
        [](const Point& x) { return x.params.bm <= std::max<int64_t>(16, next_pow2(x.problem.m)); }},
       {"tiles up to the next power of two of N", BN,
        [](const Point& x) { return x.params.bn <= std::max<int64_t>(16, next_pow2(x.problem.n)); }},
       {"slices up to the next power of two of K", BK,
        [](const Point& x) { return x.params.bk <= std::max<int64_t>(8, next_pow2(x.problem.k)); }},
       // Large outputs: register tiles under 32 never win (more shared-memory
       // reads per FMA), so they are not tried.
       {"large outputs take register tiles of 32 or more", TN,
        [](const Point& x) { return x.problem.m * x.problem.n < (int64_t(1) << 22) || x.params.tm * x.params.tn >= 32; }},
       {"8 to 128 accumulators a thread", TN,
        [](const Point& x) { return x.params.tm * x.params.tn >= 8 && x.params.tm * x.params.tn <= 128; }},
       {"no lopsided register tiles (they waste loads)", TN,
        [](const Point& x) { return x.params.tm <= 2 * x.params.tn && x.params.tn <= 2 * x.params.tm; }},
       {"64 to 512 threads, within the device's limit", TN,
        [](const Point& x) {
          const int t = TiledFamily::threads(x.params);
          return t >= 64 && t <= std::min(512, x.limits.max_threads);
        }},
       {"the registers fit: at most 255 a thread and the SM's file per block", TN,
        [](const Point& x) {
          const int regs = TiledFamily::estimated_registers(x.params);
          return regs <= 255 && int64_t(regs) * TiledFamily::threads(x.params) <= x.limits.regs_per_sm;
        }},
       {"a reduction mode only with split-K", RD, [](const Point& x) { return x.params.split_reduce <= (x.params.split_k > 1 ? 1 : 0); }},
       {"a raster band needs two bands of tile rows", SW,
        [](const Point& x) { return x.params.swizzle == 1 || (x.problem.m + x.params.bm - 1) / x.params.bm >= 2 * x.params.swizzle; }},
       // Four stages only for skinny, bandwidth-bound problems (more bytes in
       // flight per SM); elsewhere three did as well.
       {"four stages only for skinny problems", ST,
        [](const Point& x) { return x.params.stages != 4 || std::min(x.problem.m, x.problem.n) <= 16; }},
       {"shared memory within the device's limit", ST,
        [](const Point& x) { return TiledFamily::smem_bytes(x.params) <= x.limits.max_smem; }},
       {"split-K only where it fills the GPU better", ST,
        [](const Point& x) {
          const P& c = x.params;
          const int64_t tiles = ((x.problem.m + c.bm - 1) / c.bm) * ((x.problem.n + c.bn - 1) / c.bn);
          return c.split_k == 1 || split_k_worth_trying(x.problem, c, tiles, x.limits);
        }},
       // Partial k unrolling only where the fully unrolled body (tm*tn*bk
       // FFMAs) outgrows the instruction cache, and then to about 1024 FFMAs
       // a loop trip.
       {"partial unrolling to about 1024 FFMAs, only for bodies above that", KU,
        [](const Point& x) {
          const P& c = x.params;
          return c.k_unroll == 0 || (c.tm * c.tn * c.bk > 1024 && c.k_unroll == 1024 / (c.tm * c.tn));
        }},
       implements_problem<P>(),
       workspace_within_dispatch<P>()});
  return space;
}

}  // namespace

std::vector<KernelConfig> TiledFamily::search_space(const Problem& p, const SearchLimits& lim) const {
  return tiled_space().enumerate(p, lim);
}

bool TiledFamily::in_space(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const {
  return tiled_space().admits(c, p, lim);
}

double TiledFamily::cost(const KernelConfig& cfg, const Problem& p, const SearchLimits& lim) const {
  const TiledParams& c = cfg.get<TiledParams>();
  const double tiles_m = std::ceil(double(p.m) / c.bm), tiles_n = std::ceil(double(p.n) / c.bn);
  // A strided batch launches its tiles once per product (split_k is 1 then).
  const double blocks = tiles_m * tiles_n * c.split_k * double(p.batch);
  const int t = threads(c);
  const double occ = blocks_per_sm(c, lim);
  const double waves = std::ceil(blocks / (lim.sm_count * occ));
  // FMAs one block performs, padded tiles included (edge waste is real work).
  const double k_slice = std::ceil(std::ceil(double(p.k) / c.bk) / c.split_k) * c.bk;
  const double block_fma = double(c.bm) * c.bn * k_slice;
  // Shared-memory reads per FMA: fewer is better down to 16x16 register
  // tiles (0.125); on H200 16x8 tiles beat 8x8 by ~3-4% at 4096^3.
  const double lds_per_fma = double(c.tm + c.tn) / double(c.tm * c.tn);
  const double f_reg = std::min(1.0, 0.15 / lds_per_fma);
  // Blocks one SM holds at a time: occ, except for skinny problems (M or
  // N <= 16, bandwidth-bound) in a single partial wave: there each SM holds
  // only its share, so more and thinner split-K slices do not shorten the
  // run. (Replaying the recorded exhaustive H200 measurements of
  // tests/tuner/data, the model's best pick for 16x11008x4096 goes from 96.5%
  // to 100% of the exhaustive best; applied to all shapes it would also
  // reshuffle the small squares, which no exhaustive data covers yet.)
  const bool skinny = std::min(p.m, p.n) <= 16;
  const double resident = (skinny && waves <= 1) ? std::min(occ, std::ceil(blocks / lim.sm_count)) : occ;
  // Latency hiding wants >= 8 warps per SM; more than ~16 buys little.
  const double warps = resident * t / 32.0;
  const double f_occ = std::min(1.0, warps / 8.0);
  // Global (L2) traffic: a block reads (bm + bn) * k_slice floats.
  const double intensity = double(c.bm) * c.bn / double(c.bm + c.bn);  // FMA per float loaded
  const double f_mem = std::min(1.0, intensity / 48.0);
  const double per_sm_rate = f_reg * f_occ * f_mem;
  double total = waves * resident * block_fma / per_sm_rate;
  // Split-K: partials written and read back once more, plus a second launch.
  if (c.split_k > 1) total += double(p.m) * p.n * c.split_k * 64.0 / lim.sm_count + 4e5;
  // rd=0: one block per tile folds all slices (few SMs busy, one launch);
  // rd=1: a second launch spreads the fold over every SM.
  // cp.async stages and partial unrolling win only on some shapes (measured
  // on H200: 3000^3 +3% with st=3, most large shapes -5..-10%); a slight
  // penalty ranks them right behind the same tiles without them.
  if (c.stages > 0) total *= 1.01;
  if (c.k_unroll > 0) total *= 1.005;
  if (c.split_k > 1)
    total += c.split_reduce ? 3e5 : double(c.split_k) * c.bm * c.bn * 16.0 * std::ceil(tiles_m * tiles_n / lim.sm_count);
  return total;
}

}  // namespace autogemm
