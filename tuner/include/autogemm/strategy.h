// Strategy: which candidates of the search space are measured.
//
//   exhaustive  every candidate (the yardstick; slow for big spaces)
//   sampled     `budget` candidates drawn uniformly at random (seeded)
//   model       the `budget` candidates an analytic model ranks fastest
//               (waves over the SMs, occupancy, shared-memory traffic per
//               FMA, edge waste, split-K reduction cost)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "autogemm/kernel_config.h"
#include "autogemm/problem.h"
#include "autogemm/search_space.h"

namespace autogemm {

enum class StrategyKind { Exhaustive, Sampled, Model };

const char* to_string(StrategyKind s);
std::optional<StrategyKind> parse_strategy(const std::string& s);

/// Estimated run time (arbitrary units, lower is better) of `c` on `p`.
double model_cost(const KernelConfig& c, const Problem& p, const SearchLimits& lim);

/// Picks at most `budget` configs of `space` (all of them for Exhaustive).
std::vector<KernelConfig> select_candidates(StrategyKind s, const std::vector<KernelConfig>& space,
                                            const Problem& p, const SearchLimits& lim, int budget,
                                            unsigned seed);

}  // namespace autogemm
