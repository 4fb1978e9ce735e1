// Building and launching one kernel configuration.
//
//   compile_kernel: KernelConfig -> cubin (NVRTC, for one arch)
//   LoadedKernel:   cubin -> module in the current context, resources read
//                   back, launch on a stream.
#pragma once

#include <cuda.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "autogemm/cuda_driver.h"
#include "autogemm/device_info.h"
#include "autogemm/kernel_config.h"
#include "autogemm/kernel_template.h"
#include "autogemm/nvrtc_compiler.h"

namespace autogemm {

/// The config does not fit the device (shared memory, registers, threads).
class LimitsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The NVRTC target of `cfg`'s family on `dev` (e.g. "sm_90", "sm_90a");
/// throws LimitsError when the family cannot run on that device.
std::string kernel_arch(const KernelConfig& cfg, const DeviceInfo& dev);

/// NVRTC build of `cfg` for `arch`; throws CompileError with the log. Every
/// build asks ptxas to warn about spilled registers (see spill_report).
CompileResult compile_kernel(const KernelConfig& cfg, const std::string& arch);

/// NVRTC build of `source` (named `name` in diagnostics) with the -D values
/// of `cfg` plus `extra_options`: a variant of the template with its entry
/// points and signature, such as kernel_probe's stage probes (-DAG_PROBE=n)
/// or a candidate injected into a tuning run (TuningOptions::injected).
/// Throws CompileError.
CompileResult compile_kernel(const KernelConfig& cfg, const std::string& arch, const std::string& source,
                             const std::string& name, const std::vector<std::string>& extra_options = {});

/// ptxas's line about spilled registers in a build's log ("Registers are
/// spilled to local memory in function ..., N bytes spill stores, ..."), or
/// empty when the build keeps everything in registers. A spilling kernel is
/// correct but slow: the tuner rejects it before measuring.
std::string spill_report(const CompileResult& r);

struct KernelResources {
  int registers = 0;      ///< per thread
  int local_bytes = 0;    ///< per thread; > 0 means spills or local arrays
  int max_threads = 0;    ///< the most threads per block this build can launch
  int blocks_per_sm = 0;  ///< occupancy estimate from registers and shared memory
};

class LoadedKernel {
 public:
  /// Loads `cubin` into the current context and checks it fits `dev`.
  /// Throws LimitsError when it does not, CudaError on driver failures.
  static LoadedKernel load(const KernelConfig& cfg, const std::vector<char>& cubin,
                           const DeviceInfo& dev);

  const KernelConfig& config() const { return cfg_; }
  const KernelResources& resources() const { return res_; }

  /// Enqueues the product on `stream` (one launch). `workspace` must hold at
  /// least config().workspace_floats(call.problem) floats, zero-filled when
  /// first allocated (ignored when that is 0).
  /// The problem must satisfy config().can_implement().
  void launch(const CanonicalCall& call, CUstream stream, CUdeviceptr workspace) const;

 private:
  KernelConfig cfg_;
  KernelResources res_;
  Module module_;
  std::vector<CUfunction> functions_;  ///< the family's entry points, main first
  int sm_count_ = 0;
  bool dependent_launch_ = false;  ///< reductions as programmatic dependent launches
};

}  // namespace autogemm
