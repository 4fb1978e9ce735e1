/* sgemm_example.c — how to call libautogemm from C.
 *
 *   sgemm_example [M N K]      (default 1024 1024 1024, row-major NN)
 *   sgemm_example --version    the header's and the loaded library's versions
 *
 * Allocates A, B, C with the CUDA runtime, multiplies them with
 * autogemm_sgemm on a stream, checks sampled elements against a double
 * precision product on the host, and prints which kernel ran and whether
 * NVRTC was needed (0 compiles means the kernel came from the tuning cache).
 * Every failure is printed with autogemm_last_error(), the detail behind it.
 * Exit status: 0 correct, 1 wrong or failed, 77 no GPU (skip); --version:
 * 0 when header and library agree, 1 otherwise. */
#include <autogemm/autogemm.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float rnd(unsigned* s) {
  *s = *s * 1664525u + 1013904223u;
  float u = (float)(*s >> 8) / 16777216.0f;
  return (*s & 1u) ? -(0.25f + 0.75f * u) : (0.25f + 0.75f * u);
}

/* A program built against one release and run against another finds out here. */
static int print_versions(void) {
  int major = 0, minor = 0, patch = 0;
  const int lib = autogemm_version(&major, &minor, &patch);
  printf("autogemm header %d.%d.%d, library %d.%d.%d\n", AUTOGEMM_VERSION_MAJOR, AUTOGEMM_VERSION_MINOR,
         AUTOGEMM_VERSION_PATCH, major, minor, patch);
  return lib == AUTOGEMM_VERSION ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "--version") == 0) return print_versions();
  int m = 1024, n = 1024, k = 1024;
  if (argc == 4) {
    m = atoi(argv[1]);
    n = atoi(argv[2]);
    k = atoi(argv[3]);
  }
  if (m <= 0 || n <= 0 || k <= 0) {
    fprintf(stderr, "usage: sgemm_example [M N K] (positive sizes) | --version\n");
    return 1;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("sgemm_example: no CUDA GPU available, nothing to do\n");
    return 77;
  }
  size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
  float *ha = malloc(na * 4), *hb = malloc(nb * 4), *hc = malloc(nc * 4);
  unsigned seed = 12345;
  for (size_t i = 0; i < na; ++i) ha[i] = rnd(&seed);
  for (size_t i = 0; i < nb; ++i) hb[i] = rnd(&seed);
  float *a, *b, *c;
  cudaStream_t stream;
  if (cudaMalloc((void**)&a, na * 4) || cudaMalloc((void**)&b, nb * 4) || cudaMalloc((void**)&c, nc * 4) ||
      cudaStreamCreate(&stream)) {
    fprintf(stderr, "sgemm_example: CUDA allocation failed\n");
    return 1;
  }
  cudaMemcpy(a, ha, na * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb, nb * 4, cudaMemcpyHostToDevice);

  /* The library loaded at run time should be the one this was compiled for. */
  if (autogemm_version(NULL, NULL, NULL) != AUTOGEMM_VERSION)
    fprintf(stderr, "note: built against autogemm %d, running with %d\n", AUTOGEMM_VERSION,
            autogemm_version(NULL, NULL, NULL));

  /* Optional: choose the cache file; without it the default location is used. */
  autogemm_status st = autogemm_init(getenv("AUTOGEMM_CACHE"));
  if (st != AUTOGEMM_SUCCESS) fprintf(stderr, "note: %s (%s)\n", autogemm_status_string(st), autogemm_last_error());

  /* C = 1 * A * B + 0 * C, row-major, no transposes, on `stream`. */
  st = autogemm_sgemm(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, m, n, k, 1.0f, a, k, b, n,
                      0.0f, c, n, (struct CUstream_st*)stream);
  if (st != AUTOGEMM_SUCCESS) {
    fprintf(stderr, "autogemm_sgemm: %s: %s\n", autogemm_status_string(st), autogemm_last_error());
    return 1;
  }
  cudaStreamSynchronize(stream);
  cudaMemcpy(hc, c, nc * 4, cudaMemcpyDeviceToHost);

  int bad = 0;
  for (int t = 0; t < 256; ++t) {
    int i = (int)((t * 2654435761u) % (unsigned)m), j = (int)((t * 40503u + 7u) % (unsigned)n);
    double ref = 0, mag = 0;
    for (int p = 0; p < k; ++p) {
      ref += (double)ha[(size_t)i * k + p] * hb[(size_t)p * n + j];
      mag += fabs((double)ha[(size_t)i * k + p] * hb[(size_t)p * n + j]);
    }
    double err = fabs(hc[(size_t)i * n + j] - ref);
    if (!(err <= (k + 2) * 5.96e-8 * mag + 1e-30)) ++bad;
  }
  /* Which kernel ran, as fields: family, canonical config and where it came from. */
  autogemm_plan_info plan;
  if (autogemm_describe_plan(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, m, n, k, a, k, b, n, c, n,
                             &plan) != AUTOGEMM_SUCCESS) {
    fprintf(stderr, "autogemm_describe_plan: %s\n", autogemm_last_error());
    return 1;
  }
  autogemm_stats s;
  autogemm_get_stats(&s);
  printf("sgemm_example %dx%dx%d: %s\n", m, n, k, bad ? "WRONG" : "correct");
  printf("kernel: %s family, %s config: %s\n", plan.family, plan.source_name, plan.config);
  printf("stats: calls=%llu exact=%llu nearest=%llu default=%llu nvrtc_compiles=%llu cubins_loaded=%llu\n", s.calls,
         s.exact_hits, s.nearest_hits, s.default_hits, s.nvrtc_compiles, s.cubins_loaded);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaStreamDestroy(stream);
  free(ha);
  free(hb);
  free(hc);
  return bad ? 1 : 0;
}
