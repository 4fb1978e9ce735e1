// Strategy: which candidates of the search space are measured.
//
//   exhaustive  every candidate (the yardstick; slow for big spaces)
//   sampled     `budget` candidates per family drawn uniformly at random (seeded)
//   model       the `budget` candidates per family that the family's cost
//               model ranks fastest (KernelFamily::cost; costs are compared
//               within a family only, so the budget applies per family)
// model and sampled put the winners of the nearest already-tuned shapes of
// the device first (history), within the same budget. While a model tuning
// measures, ModelCutoff leaves out the candidates its measurements rule out;
// after it, neighbour_candidates adds the unmeasured configs one or two
// parameters away from the fastest measured ones (the model's misjudgements
// are mostly one parameter off a config it ranked well).
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <set>
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

/// A winner stored for another shape on the same device, or a built-in
/// winner of its architecture (builtin_winners.h).
struct HistoryEntry {
  ShapeKey shape;
  KernelConfig config;
  /// Built in: measured elsewhere, so a row of the problem's own shape is
  /// history too (it is what dispatch runs before the shape is tuned).
  bool builtin = false;
};

/// History-based pruning: configs that won on other shapes of this device
/// (and built-in winners, their own shape's too), nearest shapes first (log
/// distance over M, N and K, log(2) more for the other alignment class),
/// each with the variants its family suggests (KernelFamily::history_variants)
/// fitted to p's alignment class (KernelFamily::fitted; other transposes are
/// left out, but for the one built-in row of other transposes nearer than
/// every built-in row of p's own, a transpose counting log(2): dispatch may
/// run it before tuning, so it is fitted to p and comes first), kept only
/// where they are in `space` (so valid for `p` and within the limits). At
/// most `limit`, no duplicates.
std::vector<KernelConfig> history_candidates(const Problem& p, const std::vector<KernelConfig>& space,
                                             const std::vector<HistoryEntry>& history, size_t limit);

/// The strategy's `budget` picks per family of `space` (all of them for
/// Exhaustive), after `preferred` (history), which comes first and on top:
/// a preferred config the strategy picks too is taken once, one it would
/// not pick is extra, so a budget's picks are the same with or without
/// history (what ModelQuality replays). Configs their family marks
/// neighbour_only are never among the picks (history may still name them).
/// Deterministic for a given seed.
std::vector<KernelConfig> select_candidates(StrategyKind s, const std::vector<KernelConfig>& space,
                                            const Problem& p, const SearchLimits& lim, int budget,
                                            unsigned seed, const std::vector<KernelConfig>& preferred = {});

/// The measuring order of a model tuning's candidates: those in `fixed`
/// (other shapes' winners, which do not calibrate the cutoff), then each
/// family's first ModelCutoff::kMinMeasured other candidates, then the rest,
/// each part in the given order. Why: the cutoff can rule out a family's far
/// end only after that many of its picks are measured, and it saves their
/// compiles only while the compile threads (a few dozen candidates ahead of
/// measuring) have not reached them; in plain model order a family that
/// comes last (the tiled one on large shapes) was compiled whole before its
/// first measurement.
std::vector<KernelConfig> calibration_first(const std::vector<KernelConfig>& candidates,
                                            const std::set<std::string>& fixed = {});

/// The neighbour pass of a model tuning: for each of `seeds` in turn (the
/// fastest measured configs, fastest first), the configs of `space` of the
/// seed's family whose canonical text (KernelConfig::to_string) differs from
/// the seed's in one or two `key=value` fields (a key only one of them has
/// counts as a difference), that are not in `measured` (config texts), not
/// a seed and not already chosen for an earlier seed; nearest first (one field before two),
/// then by model cost, at most `per_seed` a seed. Why: the model ranks
/// within a family by an estimate, and on some shapes the true best is one
/// field or two off the measured winners yet far down the model's order
/// (on an H100, 260x3892x444:NT went from 18.1 to 21.1 TFLOP/s and
/// col:719x847x16383:TN from 36.2 to 39.0 by this pass). Deterministic:
/// ties keep `space`'s order.
std::vector<KernelConfig> neighbour_candidates(const std::vector<KernelConfig>& space,
                                               const std::vector<KernelConfig>& seeds,
                                               const std::set<std::string>& measured, const Problem& p,
                                               const SearchLimits& lim, size_t per_seed);

/// Rules out, during a model tuning, candidates that cannot win. Per family,
/// each measured candidate gives a ratio measured / modelled time (the model's
/// units differ between families); once a family has kMinMeasured of them, a
/// candidate of it is ruled out when even its lowest ratio seen (the most
/// favourable calibration of the model on this shape) puts it above
/// kMargin times the best time measured so far, of any family. Candidates
/// come in model order, so what it leaves out is the far end of a family
/// that another family, or its own first picks, already beat. A family
/// whose first kFamilyProbe picks all ran over kFarBehind times the best of
/// any family is ruled out whole before it is calibrated: in fp32_accurate
/// mode at 16384^3 the mma.sync family (6x the winner, 0.45 s a launch) and
/// the strict ones (2.4x and 2.8x) took 6 s of a 14 s tuning (H100) to be
/// calibrated and lose. A family whose very first pick ran over kHopeless
/// times the best is ruled out at once: the mma.sync family's picks at 6x
/// cost about a second each there. The default is no pick for that rule: a
/// shape-blind config, it ran 3.6x behind on 128x4096x11008 (warptiled
/// without split-K) and, taken for warptiled's first pick, kept the
/// family's split-K picks from ever running. Thread-safe: compile threads ask while
/// the measuring thread reports.
class ModelCutoff {
 public:
  static constexpr int kMinMeasured = 6;
  static constexpr double kMargin = 1.15;
  static constexpr int kFamilyProbe = 3;
  static constexpr double kFarBehind = 2.0;
  static constexpr double kHopeless = 3.0;

  ModelCutoff(const Problem& p, const SearchLimits& lim) : p_(p), lim_(lim), default_(default_config(p)) {}
  /// A verified measurement of `c`. Another shape's winner (history) does
  /// not calibrate (`calibrates` false), it sets the best time alone: the
  /// model may rank it far down on this shape, and its ratio, when it runs
  /// well, kept the family's whole far end under the margin
  /// (128x11008x4096: 68 candidates measured in the suite, 42 alone). The
  /// shape's own recorded winner and the default still calibrate: without
  /// them the cutoff ruled out 256³'s winner (0.930 of its exhaustive best).
  void measured(const KernelConfig& c, double ms, bool calibrates = true);
  bool ruled_out(const KernelConfig& c) const;

 private:
  struct Calibration {
    int measured = 0;          ///< calibrating measurements
    int picks = 0;             ///< of them, the strategy's (all but the default)
    double lowest_ratio = 0;
    double best_ms = 0;        ///< of every measurement of the family, history's too
  };
  Problem p_;
  SearchLimits lim_;
  KernelConfig default_;
  mutable std::mutex mu_;
  std::map<const KernelFamily*, Calibration> families_;
  double best_ms_ = 0;  ///< 0: nothing measured yet
};

}  // namespace autogemm
