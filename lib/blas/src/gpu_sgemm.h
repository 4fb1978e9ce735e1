// A checked Fortran SGEMM on autogemm: the referenced parts of the host's A
// and B (and C unless beta is 0) copied into device memory this library
// keeps for reuse, autogemm_sgemm in column-major order in the process's
// math mode, C copied back. It runs on device 0's primary context (the one
// the CUDA runtime uses; CUDA_VISIBLE_DEVICES picks the GPU), made current
// for the call and the caller's context restored after it.
#pragma once

#include <string>

#include "fortran_call.h"

namespace autogemm::blas {

enum class GpuOutcome {
  Done,      ///< C holds the product
  NoGpu,     ///< no driver or GPU: nothing was touched
  Cuda,      ///< a CUDA step failed before C was written back
  Autogemm,  ///< autogemm_sgemm returned a failure status: C untouched
};

/// Runs `g` (checked, not a quick return, alpha != 0 and K > 0); on any
/// outcome but Done, *why says what went wrong and the host's C is as it was.
GpuOutcome run_on_autogemm(const FortranSgemm& g, std::string* why);

}  // namespace autogemm::blas
