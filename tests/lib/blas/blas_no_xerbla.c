/* A program with no xerbla_ anywhere (no BLAS, no XERBLA of its own) calling
 * libautogemm_blas's sgemm_ with a bad argument: the library still loads,
 * logs the error instead, and leaves C alone. Exit status 0 when it does. */
#include <stddef.h>

void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const float* alpha,
            const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c,
            const int* ldc, size_t transa_len, size_t transb_len);

int main(void) {
  float a[4] = {1, 1, 1, 1}, b[4] = {1, 1, 1, 1}, c[4] = {5, 5, 5, 5};
  const int m = 2, n = 2, k = 2, ld = 2, bad_ldc = 1; /* LDC < M: INFO 13 */
  const float alpha = 1, beta = 0;
  sgemm_("N", "T", &m, &n, &k, &alpha, a, &ld, b, &ld, &beta, c, &bad_ldc, 1, 1);
  for (int i = 0; i < 4; ++i)
    if (c[i] != 5) return 1;
  /* And a valid call still computes: C = A * B^T, every element 2. */
  sgemm_("N", "T", &m, &n, &k, &alpha, a, &ld, b, &ld, &beta, c, &ld, 1, 1);
  for (int i = 0; i < 4; ++i)
    if (c[i] != 2) return 2;
  return 0;
}
