/* autogemm_cublas.h — what the cuBLAS drop-in (libautogemm_cublas) did.
 *
 * libautogemm_cublas answers cuBLAS's FP32 GEMM entry points (cublasSgemm_v2,
 * its _64 and strided-batched forms, cublasGemmEx and
 * cublasGemmStridedBatchedEx with FP32 data and compute, cublasSgemmBatched,
 * cublasLtMatmul for FP32 with no epilogue or a bias) in a program that loads
 * it ahead of cuBLAS (LD_PRELOAD, or linked before -lcublas). Calls it routes
 * run on autogemm_sgemm; everything else goes to the real cuBLAS, found at
 * run time. These functions read its counters; a program that does not load
 * the drop-in does not need them. The drop-in trusts the caller's device
 * pointers as cuBLAS does; it checks everything else before routing.
 */
#ifndef AUTOGEMM_AUTOGEMM_CUBLAS_H
#define AUTOGEMM_AUTOGEMM_CUBLAS_H

#include "autogemm/autogemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Entry points, in this order: cublasSgemm_v2, cublasSgemm_v2_64,
 * cublasSgemmStridedBatched, cublasSgemmStridedBatched_64, cublasGemmEx,
 * cublasGemmEx_64, cublasGemmStridedBatchedEx, cublasGemmStridedBatchedEx_64,
 * cublasSgemmBatched, cublasLtMatmul. */
#define AUTOGEMM_CUBLAS_ENTRIES 10
/* Reasons a call went to cuBLAS (index 0, "routed", is never counted there). */
#define AUTOGEMM_CUBLAS_REASONS 12

typedef struct {
  unsigned long long routed[AUTOGEMM_CUBLAS_ENTRIES];    /* run by autogemm */
  unsigned long long passed[AUTOGEMM_CUBLAS_ENTRIES];    /* sent to cuBLAS by decision */
  unsigned long long fallbacks[AUTOGEMM_CUBLAS_ENTRIES]; /* routed, autogemm failed, cuBLAS ran it */
  unsigned long long passed_by_reason[AUTOGEMM_CUBLAS_REASONS];
} autogemm_cublas_counts;

/* The counters of this process since it started. */
AUTOGEMM_API void autogemm_cublas_get_counts(autogemm_cublas_counts* out);
/* The name of entry point `i` or reason `i` (static text; "unknown" out of range). */
AUTOGEMM_API const char* autogemm_cublas_entry_name(int i);
AUTOGEMM_API const char* autogemm_cublas_reason_name(int i);

#ifdef __cplusplus
}
#endif

#endif /* AUTOGEMM_AUTOGEMM_CUBLAS_H */
