#include "autogemm/dispatch_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

PlanChoice choose_config(const Problem& p, const std::vector<TunedEntry>& winners, MathMode mode) {
  const ShapeKey key = p.key();
  // K = 0 (beta != 1: C is only scaled) has no log-distance; every config
  // of the layouts computes it, so distance over M and N alone decides.
  const double pk = double(std::max<int64_t>(p.k, 1));
  const TunedEntry* exact = nullptr;
  const TunedEntry* nearest = nullptr;
  double best = std::numeric_limits<double>::infinity();
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
    const double d = std::fabs(std::log(double(w.shape.m) / double(p.m))) +
                     std::fabs(std::log(double(w.shape.n) / double(p.n))) +
                     (p.k > 0 ? std::fabs(std::log(double(w.shape.k) / pk)) : 0.0);
    if (d < best || (d == best && nearest && w.median_ms < nearest->median_ms)) best = d, nearest = &w;
  }
  if (exact) return PlanChoice{exact->config, PlanSource::Exact};
  if (nearest) return PlanChoice{nearest->config, PlanSource::Nearest};
  return PlanChoice{default_config(p), PlanSource::Default};
}

}  // namespace autogemm
