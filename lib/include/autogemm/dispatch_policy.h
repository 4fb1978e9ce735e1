// Dispatch policy: which config runs a problem, decided without the GPU.
//
//   1. exact: a tuned winner for exactly this (device, canonical shape)
//   2. nearest: the winner of the closest tuned shape (log-distance over M, N,
//      K) with the same layouts whose config can implement the problem
//   3. default: a built-in tiled config that implements any problem of the
//      alignment class; the generic kernel if even that cannot be used.
#pragma once

#include <cstddef>
#include <vector>

#include "autogemm/kernel_config.h"
#include "autogemm/problem.h"
#include "autogemm/tuning_cache.h"

namespace autogemm {

/// A stored winner, parsed and checked against the current templates.
struct TunedEntry {
  ShapeKey shape;
  KernelConfig config;
  double gflops = 0;
};

enum class PlanSource { Exact, Nearest, Default };
const char* to_string(PlanSource s);

struct PlanChoice {
  KernelConfig config;
  PlanSource source = PlanSource::Default;
};

/// Parses stored winners; drops (with a warning) rows whose config does not
/// parse or whose template hash is not the current one (stale).
std::vector<TunedEntry> usable_winners(const std::vector<WinnerRecord>& rows);

/// Largest split-K workspace dispatch will allocate, in floats (256 MiB).
constexpr size_t kMaxWorkspaceFloats = KernelConfig::kMaxWorkspaceFloats;

/// Applies the policy above.
PlanChoice choose_config(const Problem& p, const std::vector<TunedEntry>& winners);

}  // namespace autogemm
