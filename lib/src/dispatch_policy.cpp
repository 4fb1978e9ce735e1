#include "autogemm/dispatch_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include "autogemm/kernel_template.h"
#include "autogemm/log.h"

namespace autogemm {

const char* to_string(PlanSource s) {
  switch (s) {
    case PlanSource::Exact: return "exact";
    case PlanSource::Nearest: return "nearest";
    case PlanSource::Default: return "default";
  }
  return "?";
}

std::vector<TunedEntry> usable_winners(const std::vector<WinnerRecord>& rows) {
  std::vector<TunedEntry> out;
  for (const WinnerRecord& w : rows) {
    std::string why;
    auto cfg = KernelConfig::parse(w.config, &why);
    if (!cfg) {
      log().warn("ignoring stored config '{}': {}", w.config, why);
      continue;
    }
    if (w.family != cfg->family().name()) {
      log().warn("ignoring stored config '{}': it is not of its row's family '{}'", w.config, w.family);
      continue;
    }
    if (w.template_hash != template_hash(*cfg)) continue;  // stale: the family's template changed
    if (w.shape.m <= 0 || w.shape.n <= 0 || w.shape.k <= 0 || !(w.median_ms > 0)) continue;
    out.push_back(TunedEntry{w.shape, *cfg, w.gflops, w.median_ms});
  }
  return out;
}

namespace {

/// Measured seconds over modelled seconds for one winner on its own shape:
/// how far its family's model is off on this device.
double calibration(const TunedEntry& w, const SearchLimits& lim) {
  const double model = w.config.family().cost(w.config, make_problem(w.shape), lim);
  return model > 0 ? w.median_ms * 1e-3 / model : 0.0;
}

/// Per family, the median calibration of its stored winners.
std::map<const KernelFamily*, double> family_calibrations(const std::vector<TunedEntry>& winners,
                                                          const SearchLimits& lim) {
  std::map<const KernelFamily*, std::vector<double>> all;
  for (const TunedEntry& w : winners)
    if (const double c = calibration(w, lim); c > 0 && std::isfinite(c)) all[&w.config.family()].push_back(c);
  std::map<const KernelFamily*, double> out;
  for (auto& [f, v] : all) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    out[f] = v[v.size() / 2];
  }
  return out;
}

}  // namespace

PlanChoice choose_config(const Problem& p, const std::vector<TunedEntry>& winners, MathMode mode,
                         const SearchLimits& lim) {
  const ShapeKey key = p.key();
  const TunedEntry* exact = nullptr;
  std::optional<PlanChoice> best;
  double best_s = std::numeric_limits<double>::infinity(), best_d = best_s;
  // The lowest estimate wins; equal estimates go to the nearer shape (log
  // distance over M, N, K; K = 0 has none, every config computes it).
  auto consider = [&](const KernelConfig& c, PlanSource source, double estimate_s, double distance) {
    if (!(estimate_s > 0) || !std::isfinite(estimate_s)) return;
    const bool tie = std::fabs(estimate_s - best_s) <= 1e-9 * best_s;
    if ((!tie && estimate_s < best_s) || (tie && distance < best_d))
      best_s = estimate_s, best_d = distance, best = PlanChoice{c, source};
  };
  const double pk = double(std::max<int64_t>(p.k, 1));
  const auto calib = family_calibrations(winners, lim);
  // Per stored shape, its fastest admitted row: a family's row that lost on
  // its own shape is not borrowed.
  std::map<std::tuple<int64_t, int64_t, int64_t, bool, bool, bool, int64_t>, double> fastest;
  auto shape_of = [](const ShapeKey& s) { return std::make_tuple(s.m, s.n, s.k, s.trans_a, s.trans_b, s.aligned, s.batch); };
  for (const TunedEntry& w : winners)
    if (admits(mode, w.config.family().accuracy())) {
      auto [it, fresh] = fastest.emplace(shape_of(w.shape), w.median_ms);
      if (!fresh) it->second = std::min(it->second, w.median_ms);
    }
  for (const TunedEntry& w : winners) {
    if (!admits(mode, w.config.family().accuracy())) continue;
    if (!w.config.can_implement(p)) continue;
    if (w.config.workspace_floats(p) > kMaxWorkspaceFloats) continue;
    if (w.shape == key) {
      if (!exact || w.median_ms < exact->median_ms) exact = &w;
      continue;
    }
    // Borrowed configs must still suit the problem (e.g. split-K slices
    // left with real work); the family's space says what suits it.
    if (!w.config.family().worth_borrowing(w.config, p)) continue;
    if (w.median_ms > fastest.at(shape_of(w.shape))) continue;
    const double d = std::fabs(std::log(double(w.shape.m) / double(p.m))) +
                     std::fabs(std::log(double(w.shape.n) / double(p.n))) +
                     (p.k > 0 ? std::fabs(std::log(double(w.shape.k) / pk)) : 0.0) +
                     std::fabs(std::log(double(w.shape.batch) / double(p.batch)));
    // Its family's model of the problem, in seconds through the winner's
    // own measured/modelled ratio where its shape is near (within a factor
    // of 4 over the three dimensions), else through its family's median: a
    // far shape (an M = 1 row for a square) says little of the model's error
    // here.
    const auto it = calib.find(&w.config.family());
    const double ratio = d <= std::log(4.0) || it == calib.end() ? calibration(w, lim) : it->second;
    consider(w.config, PlanSource::Nearest, ratio * w.config.family().cost(w.config, p, lim), d);
  }
  if (exact) return PlanChoice{exact->config, PlanSource::Exact};
  // The built-in default competes where the model of its family is
  // calibrated by stored winners of this device.
  const KernelConfig d = default_config(p);
  if (const auto it = calib.find(&d.family()); it != calib.end() && admits(mode, d.family().accuracy()))
    consider(d, PlanSource::Default, it->second * d.family().cost(d, p, lim), std::numeric_limits<double>::max());
  if (best) return *best;
  return PlanChoice{d, PlanSource::Default};
}

}  // namespace autogemm
