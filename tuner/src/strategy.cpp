#include "autogemm/strategy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

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
  return c.family().cost(c, p, lim);
}

namespace {

/// The built-in row of `order` whose transposes differ from p's and that is
/// nearer than every built-in row of p's own transposes, a transpose changed
/// counting log(2) on top of `distance`; null where there is none.
template <class Distance>
const HistoryEntry* nearest_builtin_of_other_transposes(const Problem& p, const std::vector<const HistoryEntry*>& order,
                                                        const Distance& distance) {
  const HistoryEntry* best = nullptr;
  double own = std::numeric_limits<double>::infinity(), other = own;
  for (const HistoryEntry* h : order) {
    if (!h->builtin) continue;
    const int changes = (h->shape.trans_a != p.trans_a) + (h->shape.trans_b != p.trans_b);
    const double d = distance(h->shape) + changes * std::log(2.0);
    if (changes == 0) own = std::min(own, d);
    else if (d < other) other = d, best = h;
  }
  return other < own ? best : nullptr;
}

}  // namespace

std::vector<KernelConfig> history_candidates(const Problem& p, const std::vector<KernelConfig>& space,
                                             const std::vector<HistoryEntry>& history, size_t limit) {
  std::map<std::string, size_t> in_space;
  for (size_t i = 0; i < space.size(); ++i) in_space.emplace(space[i].to_string(), i);
  // Log distance over M, N and K, and log(2) more for another alignment
  // class (as dispatch weighs a built-in row), so the problem's own class
  // comes first at equal sizes.
  auto distance = [&](const ShapeKey& s) {
    return std::fabs(std::log(double(s.m) / p.m)) + std::fabs(std::log(double(s.n) / p.n)) +
           std::fabs(std::log(double(s.k) / p.k)) + (s.aligned != p.aligned) * std::log(2.0);
  };
  std::vector<const HistoryEntry*> order;
  for (const HistoryEntry& h : history)
    if (h.shape.m > 0 && h.shape.n > 0 && h.shape.k > 0 && (h.builtin || !(h.shape == p.key()))) order.push_back(&h);
  std::stable_sort(order.begin(), order.end(),
                   [&](const HistoryEntry* a, const HistoryEntry* b) { return distance(a->shape) < distance(b->shape); });
  std::vector<KernelConfig> out;
  std::set<size_t> taken;
  // A built-in row of other transposes nearer (each transpose counting
  // log(2), as dispatch weighs it) than every built-in row of the problem's
  // own is what dispatch may run before tuning (fitted): measured first, so
  // tuning never ends on a slower winner than that. One at most: other
  // transposes' rows as a rule took 4096^3:TN's tuning past 10 s (DECISIONS).
  if (const HistoryEntry* other = nearest_builtin_of_other_transposes(p, order, distance)) {
    const std::optional<KernelConfig> c = other->config.family().fitted(other->config, p);
    const auto it = c ? in_space.find(c->to_string()) : in_space.end();
    if (limit > 0 && it != in_space.end() && taken.insert(it->second).second) out.push_back(space[it->second]);
  }
  for (const HistoryEntry* h : order) {
    for (const KernelConfig& v : h->config.family().history_variants(h->config)) {
      // Fitted to p's alignment class: an aligned winner's tile is worth
      // measuring on an unaligned problem (with scalar copies). Winners of
      // other transposes are not: as extra builds measured first they took
      // 4096^3:TN's tuning past 10 s (DECISIONS).
      if (v.trans_a != p.trans_a || v.trans_b != p.trans_b) continue;
      const std::optional<KernelConfig> c = v.family().fitted(v, p);
      if (!c) continue;
      const auto it = in_space.find(c->to_string());
      if (out.size() < limit && it != in_space.end() && taken.insert(it->second).second) out.push_back(space[it->second]);
    }
  }
  return out;
}

std::vector<KernelConfig> select_candidates(StrategyKind s, const std::vector<KernelConfig>& space,
                                            const Problem& p, const SearchLimits& lim, int budget,
                                            unsigned seed, const std::vector<KernelConfig>& preferred) {
  if (s == StrategyKind::Exhaustive || budget <= 0) return space;
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
  std::set<std::string> seen;  // in `out`
  for (const KernelConfig& c : preferred)
    if (seen.insert(c.to_string()).second) out.push_back(c);
  std::set<std::string> counted;             // the strategy's picks so far
  std::map<const KernelFamily*, int> taken;  // per-family budget
  for (size_t i : idx) {
    const KernelConfig& c = space[i];
    if (c.family().neighbour_only(c)) continue;  // measured next to a fast config, if at all
    const std::string text = c.to_string();
    int& n = taken[&c.family()];
    if (n >= budget || !counted.insert(text).second) continue;
    ++n;
    if (seen.insert(text).second) out.push_back(c);
  }
  return out;
}

std::vector<KernelConfig> calibration_first(const std::vector<KernelConfig>& candidates,
                                            const std::set<std::string>& fixed) {
  std::map<const KernelFamily*, int> taken;
  std::vector<KernelConfig> front, first, rest;
  for (const KernelConfig& c : candidates)
    if (fixed.count(c.to_string()))
      front.push_back(c);
    else
      (taken[&c.family()]++ < ModelCutoff::kMinMeasured ? first : rest).push_back(c);
  front.insert(front.end(), first.begin(), first.end());
  front.insert(front.end(), rest.begin(), rest.end());
  return front;
}

namespace {

/// A config's canonical text split into its family name (the words before
/// the first `key=value` field) and its fields.
struct ConfigFields {
  std::string family;
  std::map<std::string, std::string> fields;
};

ConfigFields fields_of(const KernelConfig& c) {
  ConfigFields out;
  std::istringstream in(c.to_string());
  for (std::string tok; in >> tok;) {
    const size_t eq = tok.find('=');
    if (eq != std::string::npos)
      out.fields[tok.substr(0, eq)] = tok.substr(eq + 1);
    else if (out.fields.empty())
      out.family += (out.family.empty() ? "" : " ") + tok;
  }
  return out;
}

/// Fields whose values differ, a key only one side has included; a
/// different family is never near (SIZE_MAX).
size_t field_distance(const ConfigFields& a, const ConfigFields& b) {
  if (a.family != b.family) return std::numeric_limits<size_t>::max();
  size_t d = 0;
  for (const auto& [key, value] : a.fields) {
    const auto it = b.fields.find(key);
    d += it == b.fields.end() || it->second != value;
  }
  for (const auto& entry : b.fields) d += !a.fields.count(entry.first);
  return d;
}

}  // namespace

std::vector<KernelConfig> neighbour_candidates(const std::vector<KernelConfig>& space,
                                               const std::vector<KernelConfig>& seeds,
                                               const std::set<std::string>& measured, const Problem& p,
                                               const SearchLimits& lim, size_t per_seed) {
  std::vector<ConfigFields> fields;
  for (const KernelConfig& c : space) fields.push_back(fields_of(c));
  std::map<size_t, double> cost;  // model cost, of the near configs only
  std::set<std::string> chosen;  // taken, and the seeds, which are never neighbours
  for (const KernelConfig& seed : seeds) chosen.insert(seed.to_string());
  std::vector<KernelConfig> out;
  for (const KernelConfig& seed : seeds) {
    const ConfigFields own = fields_of(seed);
    std::vector<std::pair<size_t, size_t>> near;  // (distance, index in space)
    for (size_t i = 0; i < space.size(); ++i) {
      if (&space[i].family() != &seed.family()) continue;
      const size_t d = field_distance(own, fields[i]);
      if (d < 1 || d > 2) continue;
      const std::string text = space[i].to_string();
      if (measured.count(text) || chosen.count(text)) continue;
      if (!cost.count(i)) cost[i] = model_cost(space[i], p, lim);
      near.emplace_back(d, i);
    }
    std::stable_sort(near.begin(), near.end(), [&](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : cost.at(a.second) < cost.at(b.second);
    });
    size_t taken = 0;
    for (const auto& [d, i] : near)
      if (taken < per_seed && chosen.insert(space[i].to_string()).second) out.push_back(space[i]), ++taken;
  }
  return out;
}

void ModelCutoff::measured(const KernelConfig& c, double ms, bool calibrates) {
  const double modelled = model_cost(c, p_, lim_);
  if (!(ms > 0) || !(modelled > 0) || !std::isfinite(ms) || !std::isfinite(modelled)) return;
  std::lock_guard<std::mutex> lock(mu_);
  best_ms_ = best_ms_ == 0 ? ms : std::min(best_ms_, ms);
  Calibration& cal = families_[&c.family()];
  cal.best_ms = cal.best_ms == 0 ? ms : std::min(cal.best_ms, ms);
  if (!calibrates) return;
  const double ratio = ms / modelled;
  cal.lowest_ratio = cal.measured == 0 ? ratio : std::min(cal.lowest_ratio, ratio);
  ++cal.measured;
  cal.picks += !(c == default_);
}

bool ModelCutoff::ruled_out(const KernelConfig& c) const {
  const double modelled = model_cost(c, p_, lim_);
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = families_.find(&c.family());
  if (it == families_.end() || best_ms_ == 0) return false;
  const Calibration& cal = it->second;
  if (cal.picks >= 1 && cal.best_ms > kHopeless * best_ms_) return true;
  if (cal.measured >= kFamilyProbe && cal.best_ms > kFarBehind * best_ms_) return true;
  return cal.measured >= kMinMeasured && modelled * cal.lowest_ratio > kMargin * best_ms_;
}

}  // namespace autogemm
