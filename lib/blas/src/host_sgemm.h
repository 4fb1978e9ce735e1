// The host's own SGEMM: the last resort when autogemm cannot run a call and
// no other sgemm_ is loaded in the process, and the alpha == 0 / K == 0
// case, which only scales C and is cheaper here than a trip to the GPU.
#pragma once

#include "fortran_call.h"

namespace autogemm::blas {

/// C := beta * C over M x N, or 0 where beta is 0 (then C is never read, so
/// a NaN there does not survive), as the reference does for alpha == 0.
void scale_c(const FortranSgemm& g);

/// C := alpha * op(A) * op(B) + beta * C for checked arguments that are not
/// a quick return. Each element is one FP32 sum of fused multiply-adds in k
/// order, then alpha * sum + beta * C (alpha * sum when beta is 0: C not
/// read). alpha == 0 or K == 0 goes to scale_c: A and B are not read.
void host_sgemm(const FortranSgemm& g);

}  // namespace autogemm::blas
