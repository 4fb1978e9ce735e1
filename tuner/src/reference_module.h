#pragma once

#include <memory>

#include "autogemm/cuda_driver.h"
#include "autogemm/device_info.h"

namespace autogemm {

/// gemm_reference.cu compiled for (trans_a, trans_b) and loaded in the
/// current context; compiled once per process and arch, loaded once per call.
Module load_reference_module(const DeviceInfo& dev, bool trans_a, bool trans_b);

}  // namespace autogemm
