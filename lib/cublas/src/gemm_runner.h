// Runs a routed call on autogemm: a column- (or row-) major GEMM as cuBLAS
// describes it, one product or a strided batch, on the caller's stream.
#pragma once

#include <cuda.h>

#include <string>

#include "route.h"

namespace autogemm::cublas {

enum class RunOutcome {
  Done,     ///< autogemm ran it (or it was a quick return)
  Refused,  ///< autogemm refused the arguments: cuBLAS should report them
  Failed,   ///< a run-time failure (no GPU, CUDA, NVRTC): cuBLAS should run it
  NotReady, ///< inside a graph capture, a buffer it needs is not there yet
};

/// Device memory the caller gave cuBLAS for its work: a handle's workspace,
/// or the one passed to cublasLtMatmul.
struct LentWorkspace {
  void* ptr = nullptr;
  size_t bytes = 0;
};

/// autogemm_sgemm (or its strided batch) for `g`, with `lent` as its
/// workspace inside a graph capture; *what gets the error text of a failure.
RunOutcome run_gemm(const GemmCall& g, float alpha, const float* a, const float* b, float beta, float* c,
                    CUstream stream, LentWorkspace lent, std::string* what);

}  // namespace autogemm::cublas
