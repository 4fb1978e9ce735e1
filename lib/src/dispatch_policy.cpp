#include "autogemm/dispatch_policy.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include "autogemm/builtin_winners.h"
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

std::vector<TunedEntry> builtin_entries(const std::string& arch) {
  std::vector<TunedEntry> out;
  for (const BuiltinWinner& b : builtin_winners(arch)) {
    const double flops = 2.0 * double(b.shape.m) * double(b.shape.n) * double(b.shape.k) * double(b.shape.batch);
    out.push_back(TunedEntry{b.shape, b.config, flops / (b.median_ms * 1e6), b.median_ms});
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

/// The running choice: the lowest estimate wins; equal estimates go to the
/// nearer shape.
struct Choice {
  std::optional<PlanChoice> best;
  double best_s = std::numeric_limits<double>::infinity(), best_d = best_s;

  void consider(const KernelConfig& c, PlanSource source, double estimate_s, double distance) {
    if (!(estimate_s > 0) || !std::isfinite(estimate_s)) return;
    const bool tie = std::fabs(estimate_s - best_s) <= 1e-9 * best_s;
    if ((!tie && estimate_s < best_s) || (tie && distance < best_d))
      best_s = estimate_s, best_d = distance, best = PlanChoice{c, source};
  }
};

using ShapeTuple = std::tuple<int64_t, int64_t, int64_t, bool, bool, bool, int64_t>;
ShapeTuple shape_of(const ShapeKey& s) { return {s.m, s.n, s.k, s.trans_a, s.trans_b, s.aligned, s.batch}; }

/// Log distance over M, N, K and the batch (K = 0 has none: every config
/// computes it).
double distance(const ShapeKey& s, const Problem& p) {
  return std::fabs(std::log(double(s.m) / double(p.m))) + std::fabs(std::log(double(s.n) / double(p.n))) +
         (p.k > 0 ? std::fabs(std::log(double(s.k) / double(p.k))) : 0.0) +
         std::fabs(std::log(double(s.batch) / double(p.batch)));
}

/// How many built-in rows nearest to a problem compete for it (and any as
/// near as the last of them).
constexpr size_t kBuiltinNeighbours = 8;

/// Offers `choice` every entry of `rows` (other shapes' winners, `source`)
/// that `mode` admits and that suits `p`, estimated by its family's model of
/// p in seconds, through the entry's own measured/modelled ratio where its
/// shape is near (within a factor of 4 over the dimensions), else through the
/// median of its family's entries in `rows`: a far shape (an M = 1 row for a
/// square) says little of the model's error here. Returns the fastest entry
/// of exactly p's shape, if any (it is not offered).
/// `builtin` (rows shipped for the architecture, not this device's): rows of
/// other layouts or alignment class compete with their config made to fit
/// (KernelFamily::fitted), one log(2) farther per change, where the fitted
/// config is one the family's space could offer p (KernelFamily::in_space);
/// batched rows serve batched problems only and plain rows plain ones; and
/// only the kBuiltinNeighbours nearest compete, each through its own ratio,
/// so that a regime the table has no row of borrows nothing from another's
/// model error.
const TunedEntry* offer(Choice& choice, const std::vector<TunedEntry>& rows, PlanSource source, const Problem& p,
                        MathMode mode, const SearchLimits& lim, bool builtin, size_t max_workspace) {
  const ShapeKey key = p.key();
  const TunedEntry* exact = nullptr;
  const auto calib = family_calibrations(rows, lim);
  // Per shape, its fastest admitted row: a family's row that lost on its own
  // shape is not borrowed.
  std::map<ShapeTuple, double> fastest;
  for (const TunedEntry& w : rows)
    if (admits(mode, w.config.family().accuracy())) {
      auto [it, fresh] = fastest.emplace(shape_of(w.shape), w.median_ms);
      if (!fresh) it->second = std::min(it->second, w.median_ms);
    }
  struct Offer {
    KernelConfig config;
    const TunedEntry* row;
    double distance;
  };
  std::vector<Offer> offers;
  for (const TunedEntry& w : rows) {
    if (!admits(mode, w.config.family().accuracy())) continue;
    if (builtin && (w.shape.batch > 1) != (p.batch > 1)) continue;
    const std::optional<KernelConfig> c = builtin ? w.config.family().fitted(w.config, p) : std::optional<KernelConfig>(w.config);
    if (!c || !c->can_implement(p)) continue;
    if (c->workspace_floats(p) > max_workspace) continue;
    if (w.shape == key) {
      if (!exact || w.median_ms < exact->median_ms) exact = &w;
      continue;
    }
    // Borrowed configs must still suit the problem (e.g. split-K slices
    // left with real work). A built-in row's config must also be one the
    // family's space could offer p: its model was only ever fitted to such
    // configs (H100: a gemv ring fitted to scalar loads, which the space
    // never offers, ran col:15x1197x15199:TT at 0.30 of cuBLAS).
    if (!c->family().worth_borrowing(*c, p) || (builtin && !c->family().in_space(*c, p, lim))) continue;
    if (w.median_ms > fastest.at(shape_of(w.shape))) continue;
    const double changes = (w.shape.trans_a != p.trans_a) + (w.shape.trans_b != p.trans_b) +
                           (w.shape.aligned != p.aligned);
    offers.push_back(Offer{*c, &w, distance(w.shape, p) + changes * std::log(2.0)});
  }
  if (builtin && offers.size() > kBuiltinNeighbours) {
    std::stable_sort(offers.begin(), offers.end(), [](const Offer& a, const Offer& b) { return a.distance < b.distance; });
    // Rows as near as the last one kept compete too: which of two equally
    // near rows came first in the table decides nothing.
    size_t keep = kBuiltinNeighbours;
    while (keep < offers.size() && offers[keep].distance <= offers[kBuiltinNeighbours - 1].distance + 1e-12) ++keep;
    offers.resize(keep);
  }
  for (const Offer& o : offers) {
    const auto it = calib.find(&o.row->config.family());
    const bool own = builtin || o.distance <= std::log(4.0) || it == calib.end();
    const double ratio = own ? calibration(*o.row, lim) : it->second;
    choice.consider(o.config, source, ratio * o.config.family().cost(o.config, p, lim), o.distance);
  }
  return exact;
}

}  // namespace

PlanChoice choose_config(const Problem& p, const std::vector<TunedEntry>& winners, MathMode mode,
                         const SearchLimits& lim, const std::vector<TunedEntry>& builtin, size_t max_workspace) {
  Choice choice;
  if (const TunedEntry* exact = offer(choice, winners, PlanSource::Nearest, p, mode, lim, false, max_workspace))
    return PlanChoice{exact->config, PlanSource::Exact};
  // The built-in winners (measured on this architecture) compete as
  // defaults, of every layout and class; a row of exactly this shape was
  // measured fastest here, which no estimate knows better, among the
  // families of its own accuracy class. In fp32_accurate mode a strict row
  // of the shape stands for its class and competes at its measured time
  // with the other class's rows: this device's tf32x3wg winner of 16384^3
  // estimates 8192^3 at 2.4x the speed of its strict row.
  Choice built;
  if (const TunedEntry* same = offer(built, builtin, PlanSource::Default, p, mode, lim, true, max_workspace)) {
    if (mode == MathMode::Strict || same->config.family().accuracy() != AccuracyClass::StrictFp32)
      return PlanChoice{same->config, PlanSource::Default};
    std::vector<TunedEntry> accurate;
    std::copy_if(builtin.begin(), builtin.end(), std::back_inserter(accurate), [](const TunedEntry& w) {
      return w.config.family().accuracy() != AccuracyClass::StrictFp32;
    });
    built = Choice{};
    offer(built, accurate, PlanSource::Default, p, mode, lim, true, max_workspace);
    const double measured_s = calibration(*same, lim) * same->config.family().cost(same->config, p, lim);
    built.consider(same->config, PlanSource::Default, measured_s, 0.0);
  }
  if (built.best) choice.consider(built.best->config, PlanSource::Default, built.best_s, built.best_d);
  // The built-in default competes where the model of its family is
  // calibrated by stored winners of this device.
  const KernelConfig d = default_config(p);
  const auto calib = family_calibrations(winners, lim);
  if (const auto it = calib.find(&d.family()); it != calib.end() && admits(mode, d.family().accuracy()))
    choice.consider(d, PlanSource::Default, it->second * d.family().cost(d, p, lim), std::numeric_limits<double>::max());
  if (choice.best) return *choice.best;
  return PlanChoice{d, PlanSource::Default};
}

}  // namespace autogemm
