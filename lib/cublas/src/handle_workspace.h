// The workspace each cuBLAS handle was given (cublasSetWorkspace_v2), kept
// beside the real cuBLAS so that a routed call captured into a CUDA graph
// can use that memory for split-K, as cuBLAS itself would.
#pragma once

#include <cublas_v2.h>

#include "gemm_runner.h"

namespace autogemm::cublas {

/// The memory last set on `h`, or none (cuBLAS's own default workspace is
/// not visible from outside it).
LentWorkspace handle_workspace(cublasHandle_t h);

}  // namespace autogemm::cublas
