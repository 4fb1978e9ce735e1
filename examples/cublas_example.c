/* cublas_example.c — an ordinary cuBLAS program, run on autogemm by linking
 * libautogemm_cublas ahead of cuBLAS:
 *
 *   cc cublas_example.c -lautogemm_cublas -lcublas -lcudart -lm
 *   cublas_example [M N K]      (default 1000 700 500, column-major, A^T B)
 *
 * The source knows nothing of autogemm: cublasSgemm_v2 resolves to the
 * drop-in, which routes it (strict FP32 by default) and finds the real cuBLAS
 * for everything else (cublasCreate, streams). It checks sampled elements
 * against a double-precision product on the host, then prints the drop-in's
 * counters. Exit status: 0 correct, 1 wrong or failed, 77 no GPU (skip). */
#include <autogemm/autogemm_cublas.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static float rnd(unsigned* s) {
  *s = *s * 1664525u + 1013904223u;
  const float u = (float)(*s >> 8) / 16777216.0f;
  return (*s & 1u) ? -(0.25f + 0.75f * u) : (0.25f + 0.75f * u);
}

/* Sampled elements of C = A^T B (A: k x m, B: k x n, column-major) against
 * double precision; returns the number of elements off by more than the bound. */
static int check(const float* a, const float* b, const float* c, int m, int n, int k) {
  int bad = 0;
  for (int s = 0; s < 256; ++s) {
    const int i = (s * 7919) % m, j = (s * 104729) % n;
    double ref = 0, mag = 0;
    for (int p = 0; p < k; ++p) {
      ref += (double)a[p + (size_t)i * k] * b[p + (size_t)j * k];
      mag += fabs((double)a[p + (size_t)i * k] * b[p + (size_t)j * k]);
    }
    if (!(fabs(c[i + (size_t)j * m] - ref) <= 2.0 * (k + 1) * 1.2e-7 * mag)) ++bad;
  }
  return bad;
}

int main(int argc, char** argv) {
  const int m = argc > 3 ? atoi(argv[1]) : 1000, n = argc > 3 ? atoi(argv[2]) : 700, k = argc > 3 ? atoi(argv[3]) : 500;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    fprintf(stderr, "cublas_example: no GPU\n");
    return 77;
  }
  float *a = malloc(sizeof(float) * k * m), *b = malloc(sizeof(float) * k * n), *c = malloc(sizeof(float) * m * n);
  unsigned seed = 1;
  for (size_t i = 0; i < (size_t)k * m; ++i) a[i] = rnd(&seed);
  for (size_t i = 0; i < (size_t)k * n; ++i) b[i] = rnd(&seed);
  float *da, *db, *dc;
  cudaMalloc((void**)&da, sizeof(float) * k * m);
  cudaMalloc((void**)&db, sizeof(float) * k * n);
  cudaMalloc((void**)&dc, sizeof(float) * m * n);
  cudaMemcpy(da, a, sizeof(float) * k * m, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof(float) * k * n, cudaMemcpyHostToDevice);
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  const float alpha = 1.0f, beta = 0.0f;
  const cublasStatus_t st = cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, da, k, db, k, &beta, dc, m);
  cudaMemcpy(c, dc, sizeof(float) * m * n, cudaMemcpyDeviceToHost);
  const int bad = st == CUBLAS_STATUS_SUCCESS ? check(a, b, c, m, n, k) : -1;
  printf("cublas_example %dx%dx%d: %s\n", m, n, k, bad == 0 ? "correct" : "WRONG");
  autogemm_cublas_counts counts;
  autogemm_cublas_get_counts(&counts);
  printf("drop-in: cublasSgemm_v2 routed=%llu passed=%llu fell_back=%llu\n", counts.routed[0], counts.passed[0],
         counts.fallbacks[0]);
  cublasDestroy(h);
  cudaFree(da), cudaFree(db), cudaFree(dc);
  free(a), free(b), free(c);
  return bad == 0 && counts.routed[0] == 1 ? 0 : 1;
}
