// SearchSpace: the tiled configurations worth trying for one problem.
//
// Enumerates the cross product of tile parameters, then keeps only configs
// that (a) are valid (KernelConfig::is_valid), (b) can implement the problem,
// (c) fit the device's static limits (threads, shared memory, an estimate of
// registers), and (d) make sense for the shape (no tile far larger than the
// matrix, split-K only when the tiles alone cannot fill the GPU).
#pragma once

#include <cstddef>
#include <vector>

#include "autogemm/device_info.h"
#include "autogemm/kernel_config.h"
#include "autogemm/problem.h"

namespace autogemm {

struct SearchLimits {
  int max_threads = 1024;
  size_t max_smem = 227 * 1024;  ///< opt-in shared memory per block
  int sm_count = 132;
  int regs_per_sm = 65536;
  int max_threads_per_sm = 2048;
  size_t smem_per_sm = 228 * 1024;

  static SearchLimits of(const DeviceInfo& dev);
};

class SearchSpace {
 public:
  /// All candidate configs for `p` under `lim`, in a deterministic order.
  static std::vector<KernelConfig> enumerate(const Problem& p, const SearchLimits& lim);

  /// Registers per thread the compiler will likely need (accumulators,
  /// fragments, staging registers, addressing); used only to prune.
  static int estimated_registers(const KernelConfig& c);

  /// Resident blocks per SM by the estimated registers, shared memory and
  /// threads (at least 1).
  static int blocks_per_sm(const KernelConfig& c, const SearchLimits& lim);

  /// Registers per thread the compiler may use under the config's
  /// __launch_bounds__ (255 unless min_blocks caps it).
  static int register_cap(const KernelConfig& c);
};

}  // namespace autogemm
