#include "autogemm/strategy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <numeric>
#include <random>

namespace autogemm {

const char* to_string(StrategyKind s) {
  switch (s) {
    case StrategyKind::Exhaustive: return "exhaustive";
    case StrategyKind::Sampled: return "sampled";
    case StrategyKind::Model: return "model";
  }
  return "?";
}

std::optional<StrategyKind> parse_strategy(const std::string& s) {
  if (s == "exhaustive") return StrategyKind::Exhaustive;
  if (s == "sampled") return StrategyKind::Sampled;
  if (s == "model") return StrategyKind::Model;
  return std::nullopt;
}

double model_cost(const KernelConfig& c, const Problem& p, const SearchLimits& lim) {
  const double tiles_m = std::ceil(double(p.m) / c.bm), tiles_n = std::ceil(double(p.n) / c.bn);
  const double blocks = tiles_m * tiles_n * c.split_k;
  const int t = c.threads();
  const double occ = SearchSpace::blocks_per_sm(c, lim);
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
  double cost = waves * resident * block_fma / per_sm_rate;
  // Split-K: partials written and read back once more, plus a second launch.
  if (c.split_k > 1) cost += double(p.m) * p.n * c.split_k * 64.0 / lim.sm_count + 4e5;
  // rd=0: one block per tile folds all slices (few SMs busy, one launch);
  // rd=1: a second launch spreads the fold over every SM.
  // cp.async stages and partial unrolling win only on some shapes (measured
  // on H200: 3000^3 +3% with st=3, most large shapes -5..-10%); a slight
  // penalty ranks them right behind the same tiles without them.
  if (c.stages > 0) cost *= 1.01;
  if (c.k_unroll > 0) cost *= 1.005;
  if (c.split_k > 1)
    cost += c.split_reduce ? 3e5 : double(c.split_k) * c.bm * c.bn * 16.0 * std::ceil(tiles_m * tiles_n / lim.sm_count);
  return cost;
}

std::vector<KernelConfig> history_candidates(const Problem& p, const std::vector<KernelConfig>& space,
                                             const std::vector<HistoryEntry>& history, size_t limit) {
  std::map<std::string, size_t> in_space;
  for (size_t i = 0; i < space.size(); ++i) in_space.emplace(space[i].to_string(), i);
  auto distance = [&](const ShapeKey& s) {
    return std::fabs(std::log(double(s.m) / p.m)) + std::fabs(std::log(double(s.n) / p.n)) +
           std::fabs(std::log(double(s.k) / p.k));
  };
  std::vector<const HistoryEntry*> order;
  for (const HistoryEntry& h : history)
    if (h.shape.m > 0 && h.shape.n > 0 && h.shape.k > 0 && !(h.shape == p.key())) order.push_back(&h);
  std::stable_sort(order.begin(), order.end(),
                   [&](const HistoryEntry* a, const HistoryEntry* b) { return distance(a->shape) < distance(b->shape); });
  std::vector<KernelConfig> out;
  std::set<size_t> taken;
  for (const HistoryEntry* h : order) {
    KernelConfig plain = h->config;  // the same tiles without split-K
    plain.split_k = 1;
    plain.split_reduce = 0;
    for (const KernelConfig& c : {h->config, plain}) {
      const auto it = in_space.find(c.to_string());
      if (out.size() < limit && it != in_space.end() && taken.insert(it->second).second) out.push_back(space[it->second]);
    }
  }
  return out;
}

std::vector<KernelConfig> select_candidates(StrategyKind s, const std::vector<KernelConfig>& space,
                                            const Problem& p, const SearchLimits& lim, int budget,
                                            unsigned seed, const std::vector<KernelConfig>& preferred) {
  if (s == StrategyKind::Exhaustive || budget <= 0 || size_t(budget) >= space.size()) return space;
  std::vector<size_t> idx(space.size());
  std::iota(idx.begin(), idx.end(), 0);
  if (s == StrategyKind::Sampled) {
    std::mt19937 rng(seed);
    std::shuffle(idx.begin(), idx.end(), rng);
  } else {
    std::vector<double> cost(space.size());
    for (size_t i = 0; i < space.size(); ++i) cost[i] = model_cost(space[i], p, lim);
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return cost[a] < cost[b]; });
  }
  std::vector<KernelConfig> out;
  std::set<std::string> seen;
  for (const KernelConfig& c : preferred)
    if (out.size() < size_t(budget) && seen.insert(c.to_string()).second) out.push_back(c);
  for (size_t i = 0; i < idx.size() && out.size() < size_t(budget); ++i)
    if (seen.insert(space[idx[i]].to_string()).second) out.push_back(space[idx[i]]);
  return out;
}

}  // namespace autogemm
