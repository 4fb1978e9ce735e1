#include "autogemm/dispatch_policy.h"

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
    if (w.template_hash != template_hash(*cfg)) continue;  // stale: template changed
    if (w.shape.m <= 0 || w.shape.n <= 0 || w.shape.k <= 0) continue;
    out.push_back(TunedEntry{w.shape, *cfg, w.gflops});
  }
  return out;
}

PlanChoice choose_config(const Problem& p, const std::vector<TunedEntry>& winners) {
  const ShapeKey key = p.key();
  const TunedEntry* nearest = nullptr;
  double best = std::numeric_limits<double>::infinity();
  for (const TunedEntry& w : winners) {
    if (!w.config.can_implement(p)) continue;
    if (w.config.workspace_floats(p) > kMaxWorkspaceFloats) continue;
    if (w.shape == key) return PlanChoice{w.config, PlanSource::Exact};
    // Borrowed split-K configs must still leave each slice real work.
    if (w.config.split_k > 1 && p.k / w.config.split_k < 2 * w.config.bk) continue;
    const double d = std::fabs(std::log(double(w.shape.m) / p.m)) +
                     std::fabs(std::log(double(w.shape.n) / p.n)) +
                     std::fabs(std::log(double(w.shape.k) / p.k));
    if (d < best) best = d, nearest = &w;
  }
  if (nearest) return PlanChoice{nearest->config, PlanSource::Nearest};
  return PlanChoice{default_config(p), PlanSource::Default};
}

}  // namespace autogemm
