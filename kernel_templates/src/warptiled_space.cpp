// The warptiled family's search space and cost model (the tuner's view of it).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "autogemm/kernel_config.h"
#include "autogemm/param_space.h"
#include "autogemm/warptiled_family.h"

namespace autogemm {

namespace {

int64_t next_pow2(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

// Split-K is tried (a) while the tiles alone fill less than one wave, up to
// ~8 waves of blocks, and (b) with 2..4 slices when the tiles leave the last
// wave less than 3/4 full. Every slice keeps at least 8 K steps. Counts off
// the classic ladder (1, 2, 3, 4, 6, 8, 12, 16) only where they fill the
// blocks' waves to 90 %: 18 tiles of a 2300x124 C run 7 slices in one wave
// of 126 blocks, where 12 slices take two waves, the second 2/3 empty.
bool split_k_worth_trying(const Problem& p, const WarpTiledParams& c, const SearchLimits& lim) {
  const int sk = c.split_k;
  if (sk == 1) return true;
  if (p.k / sk < 8 * c.bk) return false;
  const int64_t tiles = WarpTiledFamily::tiles(c, p);
  const double slots = double(lim.sm_count) * WarpTiledFamily::blocks_per_sm(c, lim);
  const bool ladder = sk <= 4 || sk == 6 || sk == 8 || sk == 12 || sk == 16;
  if (tiles < lim.sm_count) {
    if (tiles * sk > 8 * lim.sm_count) return false;
    const double blocks = double(tiles) * sk;
    return ladder || blocks / (std::ceil(blocks / slots) * slots) >= 0.9;
  }
  if (sk > 4 || tiles > 16 * lim.sm_count) return false;
  const double waves = double(tiles) / slots;
  const double last = waves - std::floor(waves);
  return last > 0.0 && last < 0.75;
}

}  // namespace

namespace {

// The space, as data. Axes outermost first; each constraint names the last
// axis it reads (see param_space.h).
const ParamSpace<WarpTiledParams>& warptiled_space() {
  using P = WarpTiledParams;
  using Point = SpacePoint<P>;
  using F = WarpTiledFamily;
  enum { BM, BN, WM, WN, LN, BK, ST, SK, PE, TP, SA, FO };
  // Tiles up to the next power of two of each side. Plain problems of 16 or
  // fewer rows or columns belong to gemv and tiled's 16-row tiles, but a
  // batch has neither: there the smallest tile, 32, stays eligible.
  static constexpr auto cap = [](int64_t side, const Problem& p) {
    return std::max<int64_t>(p.batch > 1 ? 32 : 16, next_pow2(side));
  };
  static const ParamSpace<P> space(
      {axis(&P::bm, {32, 64, 128, 256}), axis(&P::bn, {32, 64, 128, 256}), axis(&P::wm, {16, 32, 64}),
       axis(&P::wn, {16, 32, 64}), axis(&P::ln, {4, 8}), axis(&P::bk, {8, 16}), axis(&P::stages, {2, 3, 4}),
       axis(&P::split_k, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}), axis(&P::peel, {0, 1}), axis(&P::stage_b, {0, 1}),
       axis(&P::stage_a, {0, 1}), axis(&P::ffma_order, {0, 1, 2})},
      {{"the alignment class sets the copy width", -1, [](P& c, const Problem& p) { c.vec = p.aligned ? 4 : 1; }},
       {"a batch goes into grid z", -1, [](P& c, const Problem& p) { c.batched = p.batch > 1 ? 1 : 0; }},
       // Swizzle is not searched: bands of 8 tile-rows where there are enough.
       {"raster bands of 8 tile rows where there are 16", BM,
        [](P& c, const Problem& p) { c.swizzle = (p.m + c.bm - 1) / c.bm >= 16 ? 8 : 1; }}},
      {{"tiles up to the next power of two of M", BM, [](const Point& x) { return x.params.bm <= cap(x.problem.m, x.problem); }},
       {"tiles up to the next power of two of N", BN, [](const Point& x) { return x.params.bn <= cap(x.problem.n, x.problem); }},
       {"64 to 512 threads, within the device's limit", WN,
        [](const Point& x) {
          const int t = F::threads(x.params);
          return t >= 64 && t <= std::min(512, x.limits.max_threads);
        }},
       {"no lopsided thread tiles (they waste loads)", LN,
        [](const Point& x) { return x.params.tm() <= 2 * x.params.tn() && x.params.tn() <= 2 * x.params.tm(); }},
       {"the block's registers fit the SM", LN,
        [](const Point& x) { return int64_t(F::estimated_registers(x.params)) * F::threads(x.params) <= x.limits.regs_per_sm; }},
       {"shared memory within the device's limits", ST,
        [](const Point& x) {
          const size_t bytes = F::smem_bytes(x.params);
          return bytes <= x.limits.max_smem && bytes <= x.limits.smem_per_sm;
        }},
       {"split-K with three stages (stages are second-order next to the split)", SK,
        [](const Point& x) { return x.params.split_k == 1 || x.params.stages == 3; }},
       {"split-K only where it fills the GPU better", SK,
        [](const Point& x) { return split_k_worth_trying(x.problem, x.params, x.limits); }},
       {"an edge peeled only where it leaves a sliver, and not in a batch", PE,
        [](const Point& x) {
          if (x.params.peel == 0) return true;
          const F::MainPart main = F::main_part(x.params, x.problem);
          return x.params.batched == 0 && (main.m < x.problem.m || main.n < x.problem.n);
        }},
       {"B staged only where it is k-contiguous, for one product without peel", TP,
        [](const Point& x) {
          const P& c = x.params;
          return c.stage_b == 0 || (x.problem.trans_b && c.peel == 0 && c.batched == 0);
        }},
       {"A staged only where it is k-contiguous, for one product without peel", SA,
        [](const Point& x) {
          const P& c = x.params;
          return c.stage_a == 0 || (!x.problem.trans_a && c.peel == 0 && c.batched == 0);
        }},
       implements_problem<P>(),
       workspace_within_dispatch<P>()});
  return space;
}

}  // namespace

std::vector<KernelConfig> WarpTiledFamily::search_space(const Problem& p, const SearchLimits& lim) const {
  return warptiled_space().enumerate(p, lim);
}

bool WarpTiledFamily::in_space(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const {
  return warptiled_space().admits(c, p, lim);
}

namespace {

// The main kernel's cost model (FMA slots of one SM) on problem p.
double tile_cost(const WarpTiledParams& c, const Problem& p, const SearchLimits& lim) {
  using F = WarpTiledFamily;
  // A strided batch launches its tiles once per product (split_k is 1 then).
  const double blocks = double(WarpTiledFamily::tiles(c, p)) * c.split_k * double(p.batch);
  const double occ = F::blocks_per_sm(c, lim);
  const double waves = std::ceil(blocks / (lim.sm_count * occ));
  // Blocks an SM runs at once: occ, or its share of a single partial wave.
  const double resident = std::min(occ, std::ceil(blocks / lim.sm_count));
  // FMAs of one block, padded tiles included (edge waste is real work).
  const double k_slice = std::ceil(std::ceil(double(p.k) / c.bk) / c.split_k) * c.bk;
  const double block_fma = double(c.bm) * c.bn * k_slice;
  // Shared-memory reads per FMA: 16x8 (0.19) and 8x8 (0.25) thread tiles
  // run near the FFMA peak, smaller ones lose issue slots to ld.shared
  // (0.235 fitted on the 23 recorded warptiled shapes; 0.22 and 0.245 each
  // miss one).
  const double lds_per_fma = double(c.tm() + c.tn()) / double(c.tm() * c.tn());
  const double f_reg = std::min(1.0, 0.235 / lds_per_fma);
  // Latency hiding wants >= 8 resident warps per SM, or deeper pipelines.
  const double warps = resident * F::threads(c) / 32.0;
  const double f_occ = std::min(1.0, warps * (c.stages >= 3 ? 1.25 : 1.0) / 8.0);
  // L2 traffic: a block reads (bm + bn) floats per k for bm*bn FMAs; from
  // 32 FMAs per float read, L2 keeps up.
  const double intensity = double(c.bm) * c.bn / double(c.bm + c.bn);
  const double f_mem = std::min(1.0, intensity / 32.0);
  // Whichever of the three limits binds sets the rate; they do not compound
  // (a small tile with few warps is latency-bound, and its extra shared
  // loads issue in slots the latency leaves free).
  double total = waves * resident * block_fma / std::min({f_occ, f_reg, f_mem});
  // Per wave: filling the pipeline (stages - 1 slices of latency) and the
  // epilogue, which no FFMA hides (~1 us of a 128-FMA/cycle SM).
  total += waves * (1.5e5 + 0.5e5 * (c.stages - 1));
  // Split-K: partial tiles written and read back (FMA slots of one SM per
  // byte of the GPU's traffic: ~1/16), and the reducing launch.
  if (c.split_k > 1) total += double(p.m) * p.n * (c.split_k + 1) / 2.0 + 7.5e5;
  // Ties (equal by everything above): two stages hide less latency, four
  // take shared memory from a second block.
  if (c.stages == 2) total *= 1.01;
  if (c.stages == 4) total *= 1.005;
  return total;
}

}  // namespace

double WarpTiledFamily::cost(const KernelConfig& cfg, const Problem& p, const SearchLimits& lim) const {
  const WarpTiledParams& c = params(cfg);
  const MainPart main = main_part(c, p);
  Problem inner = p;
  inner.m = main.m, inner.n = main.n;
  double total = tile_cost(c, inner, lim);
  // A strip streams its wide operand once (~0.3 FMA slots per float, as the
  // split-K partials) and is one more launch.
  if (main.n < p.n) total += 0.3 * double(p.m) * p.k + 7.5e5;
  if (main.m < p.m) total += 0.3 * double(main.n) * p.k + 7.5e5;
  // A k-contiguous operand is copied a float at a time (4096^3 on the H200:
  // 0.91 of cuBLAS as NT, 0.98 as NN, 1.01 as TN, where neither is); staged,
  // it is read and written once more (0.5 FMA slots per float, as the
  // split-K partials) in one more launch.
  if (c.stage_b == 1) total += 0.5 * double(p.n) * double(p.k) + 7.5e5;
  else if (p.trans_b) total *= 1.08;
  if (c.stage_a == 1) total += 0.5 * double(p.m) * double(p.k) + 7.5e5;
  else if (!p.trans_a) total *= 1.03;
  // Copies staged in K chunks: each chunk after the first reads and writes
  // C once more, in two more launches.
  const int64_t chunk = (c.stage_a == 1 || c.stage_b == 1) ? staged_k(c, p) : p.k;
  if (chunk > 0 && chunk < p.k) total += double((p.k - 1) / chunk) * (double(p.m) * p.n + 1.5e6);
  return total;
}

bool WarpTiledFamily::neighbour_only(const KernelConfig& c) const {
  return params(c).stage_a == 1 || params(c).ffma_order != 0;
}

}  // namespace autogemm
