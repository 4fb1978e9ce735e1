// ParamSpace: a family's search space declared as data, next to its
// parameter table, instead of as loop nests.
//
// The data is three lists:
//   axes         the parameters searched and their values, outermost first;
//                an axis may set several fields together (e.g. a pipeline's
//                slice depth and stage count as pairs);
//   rules        fields that are not searched but follow from the problem
//                and the fields bound so far (the alignment class's access
//                width, a raster band that fits the tile rows);
//   constraints  named conditions every candidate meets.
// Candidates are the product of the axes in order, so the order is
// deterministic (an interrupted tuning resumes by skipping what it
// measured). A rule or constraint names the last axis it reads and runs as
// soon as that axis is bound, which prunes the product early; one that reads
// the whole config (KernelConfig::is_valid, can_implement, workspace) names
// kWholeConfig and runs on each complete candidate. Constraints run in their
// order, so a cheap one placed first spares the later ones.
//
// Only a family's .cpp includes this header (enumerate needs KernelConfig
// complete).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "autogemm/kernel_config.h"

namespace autogemm {

/// One searched parameter, or several set together: each choice gives a
/// value to every field, in the order of `fields`.
template <class P>
struct SpaceAxis {
  std::vector<int P::*> fields;
  std::vector<std::vector<int>> choices;
};

/// One searched field and its values, the common case.
template <class P>
SpaceAxis<P> axis(int P::*field, std::vector<int> values) {
  SpaceAxis<P> a{{field}, {}};
  for (int v : values) a.choices.push_back({v});
  return a;
}

/// What a rule or a constraint reads.
template <class P>
struct SpacePoint {
  const P& params;
  const Problem& problem;
  const SearchLimits& limits;
  /// The candidate as a config: only for those that name kWholeConfig.
  const KernelConfig* config;
};

/// Runs a check once every axis is bound, on the candidate as a config.
constexpr int kWholeConfig = 1 << 20;

/// A field that follows from the problem and the fields bound so far.
template <class P>
struct SpaceRule {
  const char* name;
  int after;  ///< index of the last axis it reads (-1: none)
  void (*apply)(P& params, const Problem& problem);
};

/// A condition every candidate meets; `name` says why it exists.
template <class P>
struct SpaceConstraint {
  const char* name;
  int after;  ///< index of the last axis it reads, or kWholeConfig
  bool (*holds)(const SpacePoint<P>& point);
};

/// The whole-config constraints every family's space ends with: the
/// candidate is a valid config that implements the problem ...
template <class P>
SpaceConstraint<P> implements_problem() {
  return {"a valid config that implements the problem", kWholeConfig,
          [](const SpacePoint<P>& x) { return x.config->is_valid(nullptr) && x.config->can_implement(x.problem); }};
}
/// ... and, for a family with a workspace, needs no more than dispatch allocates.
template <class P>
SpaceConstraint<P> workspace_within_dispatch() {
  return {"the workspace within what dispatch allocates", kWholeConfig, [](const SpacePoint<P>& x) {
            return x.config->workspace_floats(x.problem) <= KernelConfig::kMaxWorkspaceFloats;
          }};
}

template <class P>
class ParamSpace {
 public:
  ParamSpace(std::vector<SpaceAxis<P>> axes, std::vector<SpaceRule<P>> rules,
              std::vector<SpaceConstraint<P>> constraints)
      : axes_(std::move(axes)), rules_(std::move(rules)), constraints_(std::move(constraints)) {}

  const std::vector<SpaceAxis<P>>& axes() const { return axes_; }
  const std::vector<SpaceConstraint<P>>& constraints() const { return constraints_; }

  /// Every candidate for `p` under `lim` that meets every constraint, in
  /// axis order, as configs of p's layouts.
  std::vector<KernelConfig> enumerate(const Problem& p, const SearchLimits& lim) const {
    std::vector<KernelConfig> out;
    P params;
    apply_rules(params, p, -1);
    if (checks_hold(params, p, lim, -1)) bind(0, params, p, lim, out);
    return out;
  }

  /// Whether `c` (of this space's family) meets every constraint of the
  /// space for `p` under `lim`, its fields as given: a config tuned for
  /// another shape, or fitted to p, that the space would never offer p
  /// (a ring of scalar loads, split-K past where the outputs fill the SMs)
  /// was never measured where it would run. Axis values outside the axes'
  /// choices are allowed (history and older spaces chose them).
  bool admits(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const {
    const P& params = c.get<P>();
    for (const SpaceConstraint<P>& k : constraints_)
      if (!k.holds(SpacePoint<P>{params, p, lim, k.after == kWholeConfig ? &c : nullptr})) return false;
    return true;
  }

 private:
  void bind(size_t level, P& params, const Problem& p, const SearchLimits& lim,
            std::vector<KernelConfig>& out) const {
    if (level == axes_.size()) {
      const KernelConfig cfg(params, p.trans_a, p.trans_b);
      for (const SpaceConstraint<P>& c : constraints_)
        if (c.after == kWholeConfig && !c.holds(SpacePoint<P>{params, p, lim, &cfg})) return;
      out.push_back(cfg);
      return;
    }
    const SpaceAxis<P>& a = axes_[level];
    for (const std::vector<int>& choice : a.choices) {
      for (size_t f = 0; f < a.fields.size(); ++f) params.*a.fields[f] = choice[f];
      apply_rules(params, p, int(level));
      if (checks_hold(params, p, lim, int(level))) bind(level + 1, params, p, lim, out);
    }
  }

  void apply_rules(P& params, const Problem& p, int level) const {
    for (const SpaceRule<P>& r : rules_)
      if (r.after == level) r.apply(params, p);
  }

  bool checks_hold(const P& params, const Problem& p, const SearchLimits& lim, int level) const {
    for (const SpaceConstraint<P>& c : constraints_)
      if (c.after == level && !c.holds(SpacePoint<P>{params, p, lim, nullptr})) return false;
    return true;
  }

  std::vector<SpaceAxis<P>> axes_;
  std::vector<SpaceRule<P>> rules_;
  std::vector<SpaceConstraint<P>> constraints_;
};

}  // namespace autogemm
