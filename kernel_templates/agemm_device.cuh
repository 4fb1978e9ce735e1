// agemm_device.cuh — the device helpers the kernel sources share.
//
// Every kernel source (kernel_templates/*.cu) includes it:
// `#include "agemm_device.cuh"`. NVRTC finds it as a named header: the
// build embeds its text next to the sources (cmake/embed_sources.cmake) and
// Compiler::compile hands it to every program, so nothing is read from disk
// at run time. It is part of every family's template hash (each source's
// hash covers the source's text followed by this header's), so editing it
// makes every tuned row stale and re-tunes: change it only for a reason that
// holds for every family.
//
// It holds only what at least two sources use identically: 64-bit indices,
// the workspace's counter area, shared-memory addresses, the zero-filling
// cp.async copies and their groups, programmatic dependent launches, the
// swizzled block raster and the split-K fold of per-slice partial tiles. A family whose variant differs (warptiled's
// copies with immediate offsets, the gemv rings' copies with an L2 hint)
// keeps its own under its own name.
#ifndef AGEMM_DEVICE_CUH
#define AGEMM_DEVICE_CUH

// Index math in 64 bits: M, N, K reach 2^31 - 1 and a matrix may hold more
// than 2^31 elements.
typedef long long i64;

// Technique: split-K partials and the gemv's k-group partials start this
// many floats into the workspace, after the counter area
// (kWorkspaceCounterFloats on the host): the tiled family's split-K tile
// counters (AG_SPLIT_TILES of them) live there, zero, and another family's
// partials on the same workspace leave them so.
#define AG_WS_SKIP 65536

// Row length of a per-slice split-K partial tile in the workspace: N rounded
// up to 4, so a row starts 16-byte aligned.
#define AG_WS_LD(n) ((((i64)(n)) + 3) / 4 * 4)

// The 32-bit shared-window address of a generic pointer to shared memory,
// the form cp.async, ld.shared and the mbarrier instructions take.
__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

// Technique: cp.async copies global memory to shared memory without passing
// through registers, so no staging registers are held across the math and
// several K slices can be in flight. Out-of-range elements: src_bytes below
// the copy's size zero-fills the rest of the destination (src_bytes 0 reads
// nothing; zeros add nothing to C), and `src` is then any legal address.
// 16-byte copies bypass L1 (.cg: the tile is read once per block); 4-byte
// copies must go through it (.ca is the only form of that size).
__device__ __forceinline__ void cp_async16(float* dst, const float* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async4(float* dst, const float* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(src_bytes));
}
// Closes this thread's group of copies; a pipeline commits one group per
// stage, empty ones too, so the wait count below stays exact.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Waits until at most N of this thread's groups are pending.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Technique: programmatic dependent launches (sm_90+; the host launches the
// kernels with the programmatic-serialization attribute). A main kernel
// waits for the kernel before it in the stream to end and its memory to be
// visible before it touches any, then lets the next kernel launch: its
// blocks start while the previous call's last blocks run, and a following
// reduction's launch overlaps its own. A reduction waits for the main
// kernel's completion and memory flush before it reads a partial.
// Elsewhere both are no-ops.
__device__ __forceinline__ void begin_after_previous_kernel() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void wait_for_main_kernel() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Technique: block swizzling. Maps the linear block index `pid` to a tile
// (*tm, *tn) so that consecutive blocks cover a SWIZZLE-tall band of tiles
// column by column: blocks running together share rows of A and columns of
// B in L2. One linear grid dimension: blockIdx.y would cap the tiles at
// 65535.
template <int SWIZZLE>
__device__ __forceinline__ void tile_of_block(int pid, int tiles_m, int tiles_n, int* tm, int* tn) {
  // 64-bit: SWIZZLE * tiles_n passes 2^31 for N near 2^31 with narrow tiles.
  const i64 band = (i64)SWIZZLE * tiles_n;
  const int group = (int)(pid / band);
  const int first = group * SWIZZLE;
  const int rows = min(tiles_m - first, SWIZZLE);
  const int local = (int)(pid % band);
  *tm = first + local % rows;
  *tn = local / rows;
}

// Technique: split-K reduction as its own launch. The main kernel's block
// for K slice z wrote its partial tile, unscaled, to workspace slice z
// (after AG_WS_SKIP; slices of M rows of AG_WS_LD(N) floats). Each thread
// folds whole elements over the slices in order z = 0, 1, ...
// (deterministic: the same sum whatever order the blocks ran in), spread
// over every SM, then applies alpha and beta; beta == 0 never reads C.
template <int SPLITS>
__device__ __forceinline__ void fold_split_k(int M, int N, float alpha, const float* __restrict__ workspace, float beta,
                                             float* __restrict__ C, i64 ldc) {
  const i64 ld = AG_WS_LD(N), slice = (i64)M * ld, total = (i64)M * N;
  wait_for_main_kernel();
  workspace += AG_WS_SKIP;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total; idx += (i64)gridDim.x * blockDim.x) {
    const i64 m = idx / N, n = idx % N;
    const float* p = workspace + m * ld + n;
    float sum = 0.f;
    // Up to 16 slices' loads in flight before the first add (the adds
    // still run z = 0, 1, ... in order): one L2 round trip, not four.
#pragma unroll 16
    for (int z = 0; z < SPLITS; ++z) sum += __ldcg(p + z * slice);
    float* c = C + m * ldc + n;
    *c = beta != 0.f ? fmaf(beta, *c, alpha * sum) : alpha * sum;
  }
}

#endif  // AGEMM_DEVICE_CUH
