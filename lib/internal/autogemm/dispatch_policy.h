// Dispatch policy: which config runs a problem, decided without the GPU.
//
//   1. exact: the fastest tuned winner, over the families, for exactly this
//      (device, canonical shape) whose config can implement the problem
//   2. by the cost model: every stored winner of another shape with the same
//      layouts that can implement the problem and was the fastest family's
//      on its own shape (source "nearest": borrowed); the built-in winners
//      measured on the device's architecture (builtin_winners.h; source
//      "default"), of any layout and class, their configs made to fit; and
//      the built-in default where its family has stored winners. Each is
//      estimated as its family's model of the problem times measured over
//      modelled time (an entry's own ratio where its shape is within a
//      factor of 4, else the median of its family's entries of the same
//      list); the lowest estimate runs, the nearer shape on a tie
//   3. default: the built-in default that implements any problem of the
//      alignment class (nothing stored or built in); the generic kernel if
//      even that cannot be used.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "autogemm/kernel_config.h"
#include "autogemm/math_mode.h"
#include "autogemm/problem.h"
#include "autogemm/tuning_cache.h"

namespace autogemm {

/// A stored winner, parsed and checked against the current templates.
struct TunedEntry {
  ShapeKey shape;
  KernelConfig config;
  double gflops = 0;
  double median_ms = 0;
};

enum class PlanSource { Exact, Nearest, Default };
const char* to_string(PlanSource s);

struct PlanChoice {
  KernelConfig config;
  PlanSource source = PlanSource::Default;
};

/// Parses stored winners; drops (with a warning) rows whose config does not
/// parse or does not belong to the row's family, and rows whose template
/// hash is not the family's current one (stale).
std::vector<TunedEntry> usable_winners(const std::vector<WinnerRecord>& rows);

/// The built-in winners of NVRTC target `arch` as entries (builtin_winners.h).
std::vector<TunedEntry> builtin_entries(const std::string& arch);

/// Largest workspace dispatch will allocate, in floats (KernelConfig's).
constexpr size_t kMaxWorkspaceFloats = KernelConfig::kMaxWorkspaceFloats;

/// Applies the policy above to the winners whose family `mode` admits (the
/// built-in default is strict FP32, admitted by every mode); `lim` are the
/// device's limits the cost models take.
/// `builtin`: the built-in winners of the device's architecture.
/// `max_workspace`: configs needing more split-K workspace (floats) are left
/// out; 0 while a stream is captured into a CUDA graph, where dispatch may
/// not allocate (the built-in default never needs any).
PlanChoice choose_config(const Problem& p, const std::vector<TunedEntry>& winners,
                         MathMode mode = MathMode::Strict, const SearchLimits& lim = SearchLimits{},
                         const std::vector<TunedEntry>& builtin = {}, size_t max_workspace = kMaxWorkspaceFloats);

}  // namespace autogemm
