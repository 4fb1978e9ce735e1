// A routed cublasLtMatmul on autogemm: C copied to D when they differ, the
// bias epilogue as a rank-1 update with a vector of ones that each CUDA
// context keeps (made outside graph captures, never freed: captured graphs
// may hold its address), then the product added onto D.
#pragma once

#include <cuda.h>

#include <string>

#include "gemm_runner.h"
#include "route.h"

namespace autogemm::cublas {

/// Runs `r` (a routed Lt call) on `stream`, with the call's workspace lent
/// to a captured product. Nothing is written before every kernel it needs is
/// ready and its arguments are checked, so a Failed or NotReady call can go
/// to cuBLASLt.
RunOutcome run_lt(const LtRoute& r, float alpha, const float* a, const float* b, float beta, const float* c, float* d,
                  CUstream stream, LentWorkspace lent, std::string* what);

}  // namespace autogemm::cublas
