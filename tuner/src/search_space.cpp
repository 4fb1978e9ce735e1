#include "autogemm/search_space.h"

#include <algorithm>

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
  const int staged = (c.bm * c.bk + c.bn * c.bk + t - 1) / t;  // global->smem staging
  return c.tm * c.tn + c.tm + c.tn + staged + 28;
}

namespace {

int64_t next_pow2(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
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
                // Split K only while the tiles alone fill less than one wave,
                // up to ~8 waves of blocks, with at least 4 K steps a slice.
                if (sk > 1 && (tiles >= lim.sm_count || tiles * sk > 8 * lim.sm_count ||
                               p.k / sk < 4 * bk))
                  continue;
                for (int rd = 0; rd <= (sk > 1 ? 1 : 0); ++rd)
                for (int sw : {1, 8}) {
                  if (sw > 1 && (p.m + bm - 1) / bm < 2 * sw) continue;
                  KernelConfig c;
                  c.kind = KernelKind::Tiled;
                  c.bm = bm, c.bn = bn, c.bk = bk, c.tm = tm, c.tn = tn, c.wc = wc;
                  c.vec = p.aligned ? 4 : 1;
                  c.split_k = sk;
                  c.split_reduce = rd;
                  c.swizzle = sw;
                  c.trans_a = p.trans_a, c.trans_b = p.trans_b;
                  if (!c.is_valid() || !c.can_implement(p)) continue;
                  const int t = c.threads();
                  if (t < 64 || t > std::min(512, lim.max_threads)) continue;
                  if (tm * tn < 8 || tm * tn > 128) continue;
                  if (tm > 2 * tn || tn > 2 * tm) continue;  // lopsided tiles waste loads
                  if (c.smem_bytes() > lim.max_smem) continue;
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
