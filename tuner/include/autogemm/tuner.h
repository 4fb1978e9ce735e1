// Tuner: finds and verifies the fastest configuration for one problem.
//
//   search space -> strategy (budget) -> NVRTC on a thread pool, overlapped
//   with measuring -> load (limits read back) -> run once on poisoned C,
//   verify against the FP64 reference -> time (events, median) -> rank.
//
// Every candidate ends as a TrialRecord with a status; only candidates whose
// output verified can win. The built-in default config is always measured
// too, so the report can show what tuning bought.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "autogemm/device_info.h"
#include "autogemm/kernel_config.h"
#include "autogemm/problem.h"
#include "autogemm/strategy.h"
#include "autogemm/tuning_cache.h"

namespace autogemm {

struct TuneOptions {
  StrategyKind strategy = StrategyKind::Model;
  int budget = 48;                 ///< candidates measured (not for exhaustive)
  unsigned seed = 1;               ///< sampling and input data
  int compile_threads = 0;         ///< 0: all hardware threads
  std::vector<std::string> skip;   ///< configs that failed before: never retried
};

struct Candidate {
  KernelConfig config;
  TrialRecord trial;
  int registers = 0;
  int local_bytes = 0;
  std::vector<char> cubin;         ///< kept for the winner and the default
  bool is_default = false;
};

struct TuneResult {
  Problem problem;
  std::vector<Candidate> candidates;
  std::optional<size_t> best;          ///< index of the winner
  std::optional<size_t> default_index; ///< the built-in default's trial
  TuningCost cost;
};

/// Progress callback: (candidates done, candidates total, latest candidate).
using TuneProgress = std::function<void(size_t, size_t, const Candidate&)>;

class Tuner {
 public:
  /// The device's context must be current on the calling thread for tune().
  Tuner(const DeviceInfo& dev, TuneOptions opt) : dev_(dev), opt_(std::move(opt)) {}

  TuneResult tune(const Problem& p, const TuneProgress& progress = {});

 private:
  DeviceInfo dev_;
  TuneOptions opt_;
};

/// The public shape suite: the default of gemm_tune and gemm_bench.
std::vector<ShapeSpec> default_suite();

/// Reads a shapes file: one shape per line as parse_shape() accepts; blank
/// lines and '#' comments ignored. Throws std::runtime_error naming the line.
std::vector<ShapeSpec> read_shapes_file(const std::string& path);

/// The shapes a tool was asked for: each `--shape` text, then the shapes
/// file's lines; the public suite when both are empty. Throws
/// std::runtime_error naming the first bad shape.
std::vector<ShapeSpec> resolve_shapes(const std::vector<std::string>& shapes, const std::string& shapes_file);

}  // namespace autogemm
