// Built-in winners: configurations that tuning measured fastest for a set of
// shapes on one GPU architecture, shipped with the library so that a shape
// dispatches a well-suited kernel before anything is tuned on the machine.
//
// Trust boundary: the table is compiled-in text that goes through
// KernelConfig::parse like any cache row (range-checked, or left out).
//
// Why measured rows and not only a rule per size class: the dispatch policy
// already turns measured winners of other shapes into an estimate for a new
// shape (each family's cost model, scaled by measured over modelled time), so
// shipping measurements lets the same policy choose before the first tuning,
// and a tuned cache then competes with them on equal terms.
#pragma once

#include <string>
#include <vector>

#include "autogemm/kernel_config.h"
#include "autogemm/tuning_keys.h"

namespace autogemm {

/// One measured winner: the canonical shape, its config and the median time
/// the tuner measured for it (rotating timing).
struct BuiltinWinner {
  ShapeKey shape;
  KernelConfig config;
  double median_ms = 0;
};

/// The winners measured on devices of NVRTC target `arch` ("sm_90": an
/// H200, builtin_winners.cpp names the runs they come from); empty for every
/// other architecture, whose devices keep the plain built-in default.
const std::vector<BuiltinWinner>& builtin_winners(const std::string& arch);

/// How many rows the table of `arch` has (tests: every one must parse).
size_t builtin_winner_rows(const std::string& arch);

}  // namespace autogemm
