#include "autogemm/search_space.h"

#include <algorithm>
#include <cmath>

namespace autogemm {

SearchLimits SearchLimits::of(const DeviceInfo& dev) {
  SearchLimits l;
  l.max_threads = dev.max_threads_per_block;
  l.max_smem = size_t(dev.max_smem_per_block_optin);
  l.sm_count = dev.sm_count;
  l.regs_per_sm = dev.regs_per_sm;
  l.max_threads_per_sm = dev.max_threads_per_sm;
  l.smem_per_sm = size_t(dev.max_smem_per_sm);
  return l;
}

int SearchSpace::estimated_registers(const KernelConfig& c) {
  const int t = c.threads();
  // Staging registers with st=0; cp.async (st>0) needs about as many for
  // the per-copy addresses the compiler keeps live instead.
  const int staged = (c.bm * c.bk + c.bn * c.bk + t - 1) / t;
  const int natural = c.tm * c.tn + c.tm + c.tn + staged + 28;
  return std::min(natural, register_cap(c));
}

int SearchSpace::blocks_per_sm(const KernelConfig& c, const SearchLimits& lim) {
  const int t = std::max(1, c.threads());
  const int regs = estimated_registers(c);
  const int64_t by_regs = lim.regs_per_sm / (int64_t(regs) * t);
  const int64_t by_smem = int64_t(lim.smem_per_sm / (c.smem_bytes() + 1024));
  const int64_t by_threads = lim.max_threads_per_sm / t;
  return int(std::max<int64_t>(1, std::min({by_regs, by_smem, by_threads, int64_t(32)})));
}

int SearchSpace::register_cap(const KernelConfig& c) {
  const int t = std::max(1, c.threads());
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
bool split_k_worth_trying(const Problem& p, const KernelConfig& c, int64_t tiles, const SearchLimits& lim) {
  const int sk = c.split_k;
  if (p.k / sk < 4 * c.bk) return false;
  if (tiles < lim.sm_count) return tiles * sk <= 8 * lim.sm_count;
  if (sk > 4 || tiles > 16 * lim.sm_count) return false;
  const double waves = double(tiles) / (double(lim.sm_count) * SearchSpace::blocks_per_sm(c, lim));
  const double last = waves - std::floor(waves);
  return last > 0.0 && last < 0.75;
}

}  // namespace

std::vector<KernelConfig> SearchSpace::enumerate(const Problem& p, const SearchLimits& lim) {
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
                  KernelConfig c;
                  c.kind = KernelKind::Tiled;
                  c.bm = bm, c.bn = bn, c.bk = bk, c.tm = tm, c.tn = tn, c.wc = wc;
                  c.vec = p.aligned ? 4 : 1;
                  c.split_k = sk;
                  c.split_reduce = rd;
                  c.swizzle = sw;
                  c.stages = st;
                  c.k_unroll = ku;
                  c.trans_a = p.trans_a, c.trans_b = p.trans_b;
                  if (!c.is_valid() || !c.can_implement(p)) continue;
                  const int t = c.threads();
                  if (t < 64 || t > std::min(512, lim.max_threads)) continue;
                  if (tm * tn < 8 || tm * tn > 128) continue;
                  if (tm > 2 * tn || tn > 2 * tm) continue;  // lopsided tiles waste loads
                  if (c.smem_bytes() > lim.max_smem) continue;
                  // Partial k unrolling only where the fully unrolled body
                  // (tm*tn*bk FFMAs) outgrows the instruction cache, and then
                  // to about 1024 FFMAs a loop trip.
                  if (ku != 0 && (tm * tn * bk <= 1024 || ku != 1024 / (tm * tn))) continue;
                  if (c.workspace_floats(p) > KernelConfig::kMaxWorkspaceFloats) continue;
                  if (sk > 1 && !split_k_worth_trying(p, c, tiles, lim)) continue;
                  if (estimated_registers(c) > 255) continue;
                  if (int64_t(estimated_registers(c)) * t > lim.regs_per_sm) continue;
                  out.push_back(c);
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

}  // namespace autogemm
