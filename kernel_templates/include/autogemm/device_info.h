// DeviceInfo: identity and limits of one GPU, read through the driver API.
#pragma once

#include <cuda.h>

#include <string>

#include "autogemm/tuning_keys.h"

namespace autogemm {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::string uuid;              ///< for display only; never a key
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_block = 0;
  int max_smem_per_block_optin = 0;  ///< bytes a block may opt in to
  int max_smem_per_sm = 0;
  int regs_per_sm = 0;
  int regs_per_block = 0;
  int max_threads_per_sm = 0;
  int l2_bytes = 0;
  int clock_khz = 0;
  size_t total_mem = 0;
  int driver_version = 0;
  int nvrtc_version = 0;

  /// "sm_90"
  std::string arch() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }
  DeviceKey key() const {
    return DeviceKey{name, cc_major, cc_minor, sm_count, driver_version, nvrtc_version};
  }
  /// Reads everything for device `dev` (throws CudaError).
  static DeviceInfo query(CUdevice dev, int ordinal);
  /// Device of the context current on this thread.
  static DeviceInfo current();
};

}  // namespace autogemm
