// The stand-in cuBLAS of the drop-in's CPU tests (cublas_standin.cpp).
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

extern "C" {

/// The last GEMM call that reached the stand-in ("cuBLAS ran it").
struct StandinCall {
  const char* name;
  int m, n, k;
  const void* c;  ///< its C (or D) pointer
};
__attribute__((visibility("default"))) StandinCall standin_last_call(void);
/// How many GEMM calls reached the stand-in.
__attribute__((visibility("default"))) int standin_call_count(void);
/// The workspace cublasSetWorkspace_v2 last gave `h` (NULL: none).
__attribute__((visibility("default"))) void* standin_workspace(cublasHandle_t h);
/// Calls cublasLtMatmul from inside the stand-in "libcublas" (8x8x8 on `d`).
__attribute__((visibility("default"))) int standin_lt_from_inside(void* d);

}
