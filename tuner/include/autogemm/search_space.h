// SearchSpace: the candidate configurations of one problem, over families.
//
// Each family enumerates its own candidates (KernelFamily::search_space:
// valid, implementable, within the device's static limits, sensible for the
// shape); the space of a tuning is the union over the families the caller
// enabled that run on the device, family by family in registry order.
#pragma once

#include <cstddef>
#include <vector>

#include "autogemm/device_info.h"
#include "autogemm/kernel_config.h"
#include "autogemm/math_mode.h"
#include "autogemm/problem.h"

namespace autogemm {

class SearchSpace {
 public:
  /// All candidates for `p` under `lim` of `families`, in a deterministic order.
  static std::vector<KernelConfig> enumerate(const Problem& p, const SearchLimits& lim,
                                             const std::vector<const KernelFamily*>& families);
  /// The same over every family of the registry.
  static std::vector<KernelConfig> enumerate(const Problem& p, const SearchLimits& lim);
};

/// The families a tuning on `dev` in `mode` may use: those named in `names`
/// (all of the registry when empty) that can run on `dev` and that `mode`
/// admits. Throws std::invalid_argument naming an unknown family, or a named
/// family the mode does not admit.
std::vector<const KernelFamily*> tunable_families(const DeviceInfo& dev, const std::vector<std::string>& names,
                                                  MathMode mode = MathMode::Strict);

}  // namespace autogemm
