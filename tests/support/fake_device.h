// A DeviceInfo that looks like an H200 (sm_90, 132 SMs, its limits) to code
// that only reads the fields: search spaces, families' arch(), the tuner with
// the fake worker. No GPU needed.
#pragma once

#include "autogemm/device_info.h"

namespace autogemm::testing {

inline DeviceInfo fake_h200() {
  DeviceInfo d;
  d.name = "fake H200";
  d.cc_major = 9, d.cc_minor = 0;
  d.sm_count = 132;
  d.max_threads_per_block = 1024;
  d.max_smem_per_block_optin = 232448;
  d.max_smem_per_sm = 233472;
  d.regs_per_sm = d.regs_per_block = 65536;
  d.max_threads_per_sm = 2048;
  d.l2_bytes = 60 << 20;
  d.nvrtc_version = 13000;
  return d;
}

}  // namespace autogemm::testing
