// A module that links "cuBLAS" (the stand-in) and calls it, as PyTorch's CUDA
// module does; test_cublas_dlopen opens it with RTLD_LOCAL, so its cuBLAS is
// not in the global lookup scope where the drop-in could find it by RTLD_NEXT.
#include <cublas_v2.h>

extern "C" __attribute__((visibility("default"))) int client_sgemm(float* c) {
  cublasHandle_t h;
  if (cublasCreate_v2(&h) != CUBLAS_STATUS_SUCCESS) return -1;
  const float alpha = 1, beta = 0;
  float* p = reinterpret_cast<float*>(0x10000);
  const cublasStatus_t st = cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, p, 4, p, 4, &beta, c, 4);
  cublasDestroy_v2(h);
  return int(st);
}
