// The tiled family's search space and cost model (the tuner's view of it).
#include <algorithm>
#include <cmath>

#include "autogemm/kernel_config.h"
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

}  // namespace

std::vector<KernelConfig> TiledFamily::search_space(const Problem& p, const SearchLimits& lim) const {
  std::vector<KernelConfig> out;
  const int64_t m_cap = std::max<int64_t>(16, next_pow2(p.m));
  const int64_t n_cap = std::max<int64_t>(16, next_pow2(p.n));
  for (int bm : {16, 32, 64, 128, 256}) {
    if (bm > m_cap) continue;
    for (int bn : {16, 32, 64, 128, 256}) {
      if (bn > n_cap) continue;
      const int64_t tiles = ((p.m + bm - 1) / bm) * ((p.n + bn - 1) / bn);
      for (int bk : {8, 16, 32}) {
        if (bk > std::max<int64_t>(8, next_pow2(p.k))) continue;
        for (int tm : {2, 4, 8, 16}) {
          for (int tn : {2, 4, 8, 16}) {
            for (int wc : {4, 8}) {
              for (int sk : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128}) {
                for (int rd = 0; rd <= (sk > 1 ? 1 : 0); ++rd)
                for (int sw : {1, 8})
                for (int st : {0, 3, 4})
                for (int ku : {0, 2, 4, 8, 16}) {
                  // Four stages only for skinny, bandwidth-bound problems (more
                  // bytes in flight per SM); elsewhere three did as well.
                  if (st == 4 && std::min(p.m, p.n) > 16) continue;
                  if (sw > 1 && (p.m + bm - 1) / bm < 2 * sw) continue;
                  // Large outputs: register tiles under 32 never win (more
                  // shared-memory reads per FMA), so they are not tried.
                  if (p.m * p.n >= (int64_t(1) << 22) && tm * tn < 32) continue;
                  TiledParams c;
                  c.bm = bm, c.bn = bn, c.bk = bk, c.tm = tm, c.tn = tn, c.wc = wc;
                  c.vec = p.aligned ? 4 : 1;
                  c.split_k = sk;
                  c.split_reduce = rd;
                  c.swizzle = sw;
                  c.stages = st;
                  c.k_unroll = ku;
                  c.batched = p.batch > 1 ? 1 : 0;
                  const KernelConfig cfg(c, p.trans_a, p.trans_b);
                  if (!is_valid(cfg, nullptr) || !cfg.can_implement(p)) continue;
                  const int t = threads(c);
                  if (t < 64 || t > std::min(512, lim.max_threads)) continue;
                  if (tm * tn < 8 || tm * tn > 128) continue;
                  if (tm > 2 * tn || tn > 2 * tm) continue;  // lopsided tiles waste loads
                  if (smem_bytes(c) > lim.max_smem) continue;
                  // Partial k unrolling only where the fully unrolled body
                  // (tm*tn*bk FFMAs) outgrows the instruction cache, and then
                  // to about 1024 FFMAs a loop trip.
                  if (ku != 0 && (tm * tn * bk <= 1024 || ku != 1024 / (tm * tn))) continue;
                  if (cfg.workspace_floats(p) > KernelConfig::kMaxWorkspaceFloats) continue;
                  if (sk > 1 && !split_k_worth_trying(p, c, tiles, lim)) continue;
                  if (estimated_registers(c) > 255) continue;
                  if (int64_t(estimated_registers(c)) * t > lim.regs_per_sm) continue;
                  out.push_back(cfg);
                }
              }
            }
          }
        }
      }
    }
  }
  return out;
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
