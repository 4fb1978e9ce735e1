// Strategy: which candidates of the search space are measured.
//
//   exhaustive  every candidate (the yardstick; slow for big spaces)
//   sampled     `budget` candidates per family drawn uniformly at random (seeded)
//   model       the `budget` candidates per family that the family's cost
//               model ranks fastest (KernelFamily::cost; costs are compared
//               within a family only, so the budget applies per family)
// model and sampled put the winners of the nearest already-tuned shapes of
// the device first (history), within the same budget.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "autogemm/kernel_config.h"
#include "autogemm/problem.h"
#include "autogemm/search_space.h"
#include "autogemm/tuning_keys.h"

namespace autogemm {

enum class StrategyKind { Exhaustive, Sampled, Model };

const char* to_string(StrategyKind s);
std::optional<StrategyKind> parse_strategy(const std::string& s);

/// Estimated run time (the family's units, lower is better) of `c` on `p`.
double model_cost(const KernelConfig& c, const Problem& p, const SearchLimits& lim);

/// A winner stored for another shape on the same device.
struct HistoryEntry {
  ShapeKey shape;
  KernelConfig config;
};

/// History-based pruning: configs that won on other shapes of this device,
/// nearest shapes first (log distance over M, N and K), each with the
/// variants its family suggests (KernelFamily::history_variants), kept only
/// where they are in `space` (so valid for `p` and within the limits). At
/// most `limit`, no duplicates.
std::vector<KernelConfig> history_candidates(const Problem& p, const std::vector<KernelConfig>& space,
                                             const std::vector<HistoryEntry>& history, size_t limit);

/// Picks at most `budget` configs per family of `space` (all of them for
/// Exhaustive): `preferred` first (history, counted in its family's
/// budget), then the strategy's own picks. Deterministic for a given seed.
std::vector<KernelConfig> select_candidates(StrategyKind s, const std::vector<KernelConfig>& space,
                                            const Problem& p, const SearchLimits& lim, int budget,
                                            unsigned seed, const std::vector<KernelConfig>& preferred = {});

}  // namespace autogemm
