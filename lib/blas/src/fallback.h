// Where a call goes that autogemm cannot run: the next sgemm_ in the process
// (the program's own BLAS, past this library in the lookup order: the one
// linked after it, or the one LD_PRELOAD put it ahead of), else the host
// loop (host_sgemm.h). Either way the caller gets its product.
#pragma once

#include <cstddef>

#include "blas_stats.h"
#include "fortran_call.h"

extern "C" {
/// The Fortran (gfortran ABI) SGEMM: every argument by pointer, then the
/// hidden lengths of TRANSA and TRANSB. Defined in sgemm_entry.cpp.
__attribute__((visibility("default"))) void sgemm_(const char* transa, const char* transb, const int* m,
                                                   const int* n, const int* k, const float* alpha, const float* a,
                                                   const int* lda, const float* b, const int* ldb, const float* beta,
                                                   float* c, const int* ldc, size_t transa_len, size_t transb_len);
}

namespace autogemm::blas {

using SgemmFn = decltype(&::sgemm_);

/// The next sgemm_ past this one (looked up once), or nullptr.
SgemmFn next_sgemm();

/// Counts the fallback (`why`, `what`: the error) and runs `g` on the next
/// sgemm_, else on host_sgemm. Checked arguments, not a quick return.
void fall_back(const FortranSgemm& g, Why why, const char* what);

}  // namespace autogemm::blas
