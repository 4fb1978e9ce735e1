// sgemm_tf32x3wg.cu — FP32-accurate GEMM on Hopper tensor cores: 3xTF32 on
// wgmma (sm_90a only).
//
// Computes, in autogemm's canonical form (row-major, 64-bit leading dims):
//     C[M x N] = alpha * op(A)[M x K] * op(B)[K x N] + beta * C
// op(A) = A (A is M x K, k contiguous)   when AG_TRANS_A == 0
//       = A^T (A is K x M, m contiguous) when AG_TRANS_A == 1
// op(B) = B (B is K x N, n contiguous)   when AG_TRANS_B == 0
//       = B^T (B is N x K, k contiguous) when AG_TRANS_B == 1
//
// Every FP32 operand x is split into two TF32 values, big = tf32(x) and
// small = tf32(x - big), and each product is small*big + big*small + big*big
// (small*small, ~2^-22 relative, is dropped), computed by
// wgmma.mma_async.m64nNk8.f32.tf32.tf32 with FP32 accumulation.
//
// Compiled by NVRTC at run time; every parameter arrives as a -D value that
// autogemm generates from a validated KernelConfig (never from file text).
//
// ---- Parameters ----------------------------------------------------------
// AG_BN          block tile width (n): 64, 128 or 192
// AG_WG          consumer warpgroups, 1 or 2; each owns a 64-row slab, so
//                the block tile is AG_BM = 64 * AG_WG rows by AG_BN
// AG_PRODUCERS   producer warpgroups, 1 or 2 (copies and splits)
// AG_A_REGS      1: A is split by the consumers into registers and fed to
//                wgmma from there (needs k-contiguous A: AG_TRANS_A == 0,
//                or AG_A_TRANSPOSED); 0: both operands are split by the
//                producers
// AG_A_TRANSPOSED 1 (with AG_TRANS_A): the main loop reads A k-contiguous
//                from the workspace, where the pre-pass agemm_tf32x3wg_kmajor
//                transposed it; A itself is read only by fp32_dot
// AG_RAW         FP32 slices in flight from global memory (2 or 3 buffers;
//                0 with AG_B_SPLIT)
// AG_B_SPLIT     1: B arrives split, K-major, from the workspace, where the
//                pre-pass agemm_tf32x3wg_kmajor put its big and small parts
//                (needs AG_A_REGS): the producers only copy; 0: they split B
// AG_SPLIT       split slices (TF32 big and small parts) ready for the tensor
//                cores (2 or 3 buffers; up to 4 with AG_B_SPLIT)
// AG_DRAIN       0: every product accumulates in the wgmma accumulators;
//                d > 0: d slices accumulate into restarted accumulators,
//                which are then added into FP32 totals ("accumulator drain")
// AG_SWIZZLE     block raster: groups of AG_SWIZZLE tile-rows are walked
//                column by column so concurrently running blocks share tiles
// AG_SPLIT_K     K slices computed by different blocks (blockIdx.y); > 1
//                writes partial tiles to the workspace, folded into C by
//                agemm_tf32x3wg_reduce (1, the default: no workspace)
// AG_TF32_PASSES 3 (default): 3xTF32; 1: big*big only (plain TF32). Not a
//                family parameter: a test builds 1 to prove that the verifier
//                rejects plain TF32 output.
// AG_COMPENSATE  1 (default), 0 or 2, with AG_DRAIN > 0. Not a family
//                parameter: kernel_probe builds 0 and 2 to compare. 1: the
//                cross products of a whole slice go into the accumulators
//                before its big products (the same speed as 0, and 10-25 %
//                less error: H100, 2026-12-06, DECISIONS); 2: that, and each
//                drain's rounding error carried into the next slice (see
//                "Technique" below): the least error, but 14-29 % slower
//                with A in registers and spilling in the register-heaviest
//                configs (bn=192, bn=128 with two producer warpgroups).
// AG_WIDE_FOLD   1 (default): past 16 slices of split-K the reduction folds
//                each element in 8 warps (fold_wide); 0: a thread per
//                element. Not a family parameter: kernel_probe builds 0.
// AG_PROBE       0 (default). Not a family parameter: tools/kernel_probe
//                builds 1 (no split), 2 (no copies), 3 (neither) or 4 (no
//                wgmma) to time the stages apart; the results are wrong, and
//                no output is recomputed (see fp32_dot).
// AG_TRANS_A, AG_TRANS_B  operand layouts, see above
// The K slice of a stage is fixed at 32: one 128-byte row of a swizzle atom.
// Operands arrive by TMA (tensor maps tma_a, tma_b: see tf32x3wg_family.cpp),
// which needs 16-byte aligned pointers and leading dimensions that are
// multiples of 4: the host's pre-pass (pp=1) first copies an operand that is
// not so into aligned rows of the workspace (agemm_tf32x3wg_stage). C is
// written where the caller has it, at any alignment.
// A strided batch runs product blockIdx.z (+ z_first) of the launch: the
// tensor maps are 3-D, the batch their outer dimension (an operand with
// stride 0 is one product every block reads).
// ---------------------------------------------------------------------------

#ifndef AG_BN
#error "AG_BN must be defined"
#endif
#ifndef AG_TF32_PASSES
#define AG_TF32_PASSES 3
#endif
#ifndef AG_PROBE
#define AG_PROBE 0
#endif
#ifndef AG_A_REGS
#define AG_A_REGS 0
#endif
#ifndef AG_SPLIT_K
#define AG_SPLIT_K 1
#endif
#ifndef AG_COMPENSATE
#define AG_COMPENSATE 1
#endif
#ifndef AG_B_SPLIT
#define AG_B_SPLIT 0
#endif
#ifndef AG_A_TRANSPOSED
#define AG_A_TRANSPOSED 0
#endif

#define AG_BK 32
#define AG_BM (64 * AG_WG)
#define AG_PT (128 * AG_PRODUCERS)  // producer threads
#define AG_THREADS (128 * (AG_WG + AG_PRODUCERS))
// Technique: register reallocation (setmaxnreg). 512 or 384 threads start
// with at most 65536/threads registers each; producers give theirs back
// and consumers take them, keeping the sum within the 64K file.
#if AG_PRODUCERS == 2
#define AG_PRODUCER_REGS 96
#define AG_CONSUMER_REGS (AG_WG == 2 ? 160 : 232)
#elif AG_WG == 2
#define AG_PRODUCER_REGS 64
#define AG_CONSUMER_REGS 216
#endif
#define AG_ACC (AG_BN / 2)  // accumulator registers per consumer thread

static_assert(AG_BN == 64 || AG_BN == 128 || AG_BN == 192, "AG_BN must be 64, 128 or 192");
static_assert(AG_WG == 1 || AG_WG == 2, "AG_WG must be 1 or 2");
static_assert(AG_PRODUCERS == 1 || AG_PRODUCERS == 2, "AG_PRODUCERS must be 1 or 2");
static_assert(AG_B_SPLIT ? AG_RAW == 0 && AG_SPLIT >= 2 && AG_SPLIT <= 4
                         : AG_RAW >= 2 && AG_RAW <= 3 && AG_SPLIT >= 2 && AG_SPLIT <= 3,
              "2..3 raw and split buffers, or no raw and 2..4 split buffers with AG_B_SPLIT");
static_assert(!AG_B_SPLIT || AG_A_REGS, "a pre-split B needs A in registers");
static_assert(AG_TF32_PASSES == 1 || AG_TF32_PASSES == 3, "AG_TF32_PASSES must be 1 or 3");
static_assert(!AG_A_REGS || !AG_TRANS_A || AG_A_TRANSPOSED, "A in registers needs k-contiguous A");
static_assert(!AG_A_TRANSPOSED || (AG_TRANS_A && AG_A_REGS), "a transposed A is for A^T, split in registers");
static_assert(AG_COMPENSATE >= 0 && AG_COMPENSATE <= 2, "AG_COMPENSATE must be 0, 1 or 2");
// Slice order and carry only change how drained totals are formed.
#define AG_SLICE_ORDER (AG_COMPENSATE >= 1 && AG_DRAIN > 0 && AG_TF32_PASSES == 3)
#define AG_CARRY (AG_COMPENSATE >= 2 && AG_DRAIN > 0)

#include "agemm_device.cuh"  // the shared device helpers (part of this template's hash)
typedef unsigned long long u64;

// Technique: warp specialization. Warpgroups 0..AG_PRODUCERS-1 produce: one
// thread has the FP32 slices copied by TMA into the raw ring, and all of them
// split the slices into the split ring (ALU work beside the tensor cores,
// done once per element per block instead of once per reading warp as in the
// mma.sync family). The AG_WG consumer warpgroups after them wait, split A
// into registers where AG_A_REGS, issue wgmma and drain. The rings'
// hand-over is mbarriers.
//
// Shared memory, from a 1024-byte aligned base (the 128-byte swizzle repeats
// every 8 rows = 1024 bytes and wgmma computes it from address bits):
//   split ring: AG_SPLIT x { A big [BM][32], A small [BM][32],
//                            B big [BN][32], B small [BN][32] }  (swizzled)
//   raw ring:   AG_RAW x { A [BM][32] or [32][BM], B [BN][32] or [32][BN] }
#if AG_A_REGS
// With A in registers a split stage holds A as TMA wrote it (FP32, the
// 128-byte swizzle) and B's big and small parts; the raw ring holds B only.
#define AG_SPLIT_STAGE ((AG_BM + 2 * AG_BN) * AG_BK)  // floats
#define AG_RAW_STAGE (AG_B_SPLIT ? 0 : AG_BN * AG_BK)
#define AG_RAW_B 0  // offset of B in a raw stage
#else
#define AG_SPLIT_STAGE (2 * (AG_BM + AG_BN) * AG_BK)  // floats
#define AG_RAW_STAGE ((AG_BM + AG_BN) * AG_BK)
#define AG_RAW_B (AG_BM * AG_BK)
#endif
#define AG_SMEM_FLOATS (AG_SPLIT * AG_SPLIT_STAGE + AG_RAW * AG_RAW_STAGE)

// ---- TMA (producer) -----------------------------------------------------------
// A CUtensorMap as the kernel receives it (cuda.h is not available to NVRTC):
// 128 opaque bytes, 64-byte aligned, passed by value as a __grid_constant__.
struct __align__(64) TensorMap {
  unsigned long long opaque[16];
};

// Technique: the tensor memory accelerator copies a whole box (one slice of
// one operand of product z, in its global order) with one instruction from
// one thread, zero-filling what lies outside the matrix, and signals an
// mbarrier with the bytes it wrote: no address arithmetic, bounds checks or
// copy instructions in the producer threads, which are left with the split.
__device__ __forceinline__ void tma_load(unsigned dst, const TensorMap* map, int x, int y, int z, unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];\n" ::"r"(dst),
      "l"(reinterpret_cast<u64>(map)), "r"(x), "r"(y), "r"(z), "r"(bar)
      : "memory");
}

// ---- mbarriers ----------------------------------------------------------------
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// Arrives and announces `bytes` of TMA writes that complete the phase.
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
  asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(bar) : "memory");
}
// Waits for the completion of the phase with parity `parity` (a fresh
// barrier counts its phase "-1", parity 1, as complete).
// Technique: the retry loop inside the asm (its labels are local to the
// braces). A C++ loop on the try_wait result is divergent to the compiler,
// and ptxas then serializes every wgmma after it (warning C7518).
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n.reg .pred p;\nWAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

// ---- wgmma ----------------------------------------------------------------------
// Shared-memory matrix descriptor of a K-major tile with the 128-byte swizzle:
// start address, leading offset 16 bytes (unused within one swizzle row),
// stride 1024 bytes between 8-row groups, swizzle mode 1 (128B).
// Technique: K steps by address. The k8 step j of a 32-deep slice starts 32*j
// bytes into each 128-byte row: the descriptor's start address field (bytes
// / 16) grows by 2*j; the swizzle is applied by the hardware on the final
// address bits, so the stored layout is the one written below.
__device__ __forceinline__ u64 smem_desc(unsigned addr) {
  return (u64)((addr & 0x3FFFF) >> 4) | ((u64)1 << 16) | ((u64)(1024 >> 4) << 32) | ((u64)1 << 62);
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from moving reads or writes of an accumulator across a
// wgmma fence or wait (the asm statements above do not name the registers).
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }

// Fragment of D (PTX ISA, wgmma .m64nNk8 f32): warp w of the warpgroup, lane
// (g = lane>>2, t = lane&3): d[i] is row 16w + g + 8*((i>>1)&1), column
// 8*(i>>2) + 2t + (i&1).
// The accumulator operands of one wgmma: AG_D_LIST is the text "{%0, ..., %(AG_ACC-1)}",
// AG_D_OPERANDS the matching "+f" constraints on d[0..AG_ACC-1]; AG_In is
// operand number AG_ACC + n, as text.
#if AG_BN == 64
#define AG_N_STR "64"
#define AG_I0 "32"
#define AG_I1 "33"
#define AG_I2 "34"
#define AG_I3 "35"
#define AG_I4 "36"
#define AG_I5 "37"
#define AG_D_LIST \
  "{"  \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}"
#define AG_D_OPERANDS \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#endif
#if AG_BN == 128
#define AG_N_STR "128"
#define AG_I0 "64"
#define AG_I1 "65"
#define AG_I2 "66"
#define AG_I3 "67"
#define AG_I4 "68"
#define AG_I5 "69"
#define AG_D_LIST \
  "{"  \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31," \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47," \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
  "}"
#define AG_D_OPERANDS \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#endif
#if AG_BN == 192
#define AG_N_STR "192"
#define AG_I0 "96"
#define AG_I1 "97"
#define AG_I2 "98"
#define AG_I3 "99"
#define AG_I4 "100"
#define AG_I5 "101"
#define AG_D_LIST \
  "{"  \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31," \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47," \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63," \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79," \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95" \
  "}"
#define AG_D_OPERANDS \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
#endif

// D (64 x AG_BN, FP32, registers) = A (64x8, smem) * B (8 x AG_BN, smem) + (scale_d ? D : 0).
__device__ __forceinline__ void wgmma_tf32(float (&d)[AG_ACC], u64 da, u64 db, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" AG_I2 ", 0;\n"
               "wgmma.mma_async.sync.aligned.m64n" AG_N_STR "k8.f32.tf32.tf32 " AG_D_LIST ", %" AG_I0 ", %" AG_I1
               ", p, 1, 1;\n}\n"
               : AG_D_OPERANDS
               : "l"(da), "l"(db), "r"(scale_d));
}

// The same with A (64x8) from registers: a[i] is the TF32 element (g + 8*(i&1),
// t + 4*(i>>1)) of the warp's 16 rows (the mma.m16n8k8 A fragment).
__device__ __forceinline__ void wgmma_tf32_ra(float (&d)[AG_ACC], const unsigned (&a)[4], u64 db, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" AG_I5 ", 0;\n"
               "wgmma.mma_async.sync.aligned.m64n" AG_N_STR "k8.f32.tf32.tf32 " AG_D_LIST ", {%" AG_I0 ", %" AG_I1
               ", %" AG_I2 ", %" AG_I3 "}, %" AG_I4 ", p, 1, 1;\n}\n"
               : AG_D_OPERANDS
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
}

// ---- the producer ---------------------------------------------------------------
// x rounded to TF32 (10 mantissa bits), to nearest with ties away from zero,
// by integer arithmetic on the bits.
// Technique: integer rounding instead of cvt.rna.tf32.f32, which runs on a
// slower pipe: measured 4096^3, 1.73 ms against 1.85 ms with the conversion.
__device__ __forceinline__ float tf32_round(float x) {
  return __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xffffe000u);
}

// Technique: a split with no special cases. big = tf32(x), small = tf32(x -
// big) (x - big is exact in FP32). Inf or NaN inputs, and finite x that round
// to Inf near FLT_MAX, make big or small non-finite, so every output they
// reach is Inf or NaN; the epilogue recomputes exactly those outputs in FP32
// (see fp32_dot), which is what FP32 SGEMM gives there.
__device__ __forceinline__ void split4(float4 v, float* big, float* small) {
  float4 hi, lo;
  hi.x = tf32_round(v.x), hi.y = tf32_round(v.y), hi.z = tf32_round(v.z), hi.w = tf32_round(v.w);
  lo.x = tf32_round(v.x - hi.x), lo.y = tf32_round(v.y - hi.y);
  lo.z = tf32_round(v.z - hi.z), lo.w = tf32_round(v.w - hi.w);
  *reinterpret_cast<float4*>(big) = hi;
  *reinterpret_cast<float4*>(small) = lo;
}

// Splits a raw ROWS x 32 slice (as TMA wrote it: [ROWS][32] when k is the
// contiguous global dimension (KCONTIG), [32][ROWS] otherwise) into the K-major swizzled big and small tiles
// [ROWS][32] of the split ring: 16-byte chunk c (k 4c..4c+3) of row r is
// stored at chunk c ^ (r & 7) of the row (wgmma's 128-byte swizzle).
// Technique: conflict-free both ways. KCONTIG: 8 lanes take the 8 chunks of
// one row (a 128-byte read; 8 distinct write chunks). Otherwise a warp takes
// 32 consecutive rows of one chunk: 4 conflict-free word reads, and 8
// consecutive rows write 8 distinct chunk positions.
template <int ROWS, bool KCONTIG>
__device__ __forceinline__ void split_slice(const float* __restrict__ raw, float* __restrict__ big,
                                            float* __restrict__ small, int ptid) {
  enum { LOADS = ROWS * AG_BK / 4 / AG_PT };
  // Technique: fully unrolled: one producer warp per scheduler must keep
  // many independent loads and stores in flight (measured: the rolled loop,
  // unroll 4, left the producer alone at 79% of the kernel's time).
#pragma unroll
  for (int i = 0; i < LOADS; ++i) {
    const int q = ptid + i * AG_PT;
    const int r = KCONTIG ? q >> 3 : q % ROWS, c = KCONTIG ? q & 7 : q / ROWS;
    float4 v;
    if (KCONTIG) {
      v = *reinterpret_cast<const float4*>(raw + r * AG_BK + 4 * c);
    } else {
      v.x = raw[(4 * c + 0) * ROWS + r], v.y = raw[(4 * c + 1) * ROWS + r];
      v.z = raw[(4 * c + 2) * ROWS + r], v.w = raw[(4 * c + 3) * ROWS + r];
    }
    const int at = r * AG_BK + ((c ^ (r & 7)) << 2);
    split4(v, big + at, small + at);
  }
}

// C(m, n) over k in [k0, k1) in plain FP32 (fused multiply-adds in k order):
// the value FP32 SGEMM gives where special values or overflow reach an output.
__device__ __noinline__ float fp32_dot(const float* __restrict__ A, i64 lda, const float* __restrict__ B, i64 ldb,
                                       i64 m, i64 n, int k0, int k1) {
  float s = 0.f;
  for (int k = k0; k < k1; ++k) {
    const float a = AG_TRANS_A ? A[(i64)k * lda + m] : A[m * lda + k];
    const float b = AG_TRANS_B ? B[n * ldb + k] : B[(i64)k * ldb + n];
    s = fmaf(a, b, s);
  }
  return s;
}

__device__ __forceinline__ bool non_finite(float v) { return (__float_as_uint(v) & 0x7f800000u) == 0x7f800000u; }

extern "C" __global__ void __launch_bounds__(AG_THREADS, 1)
    agemm_tf32x3wg(int M, int N, int K, float alpha, const float* __restrict__ A, i64 lda,
                   const float* __restrict__ B, i64 ldb, float beta, float* __restrict__ C, i64 ldc,
                   float* __restrict__ workspace, i64 stride_a, i64 stride_b, i64 stride_c, int z_first,
                   const __grid_constant__ TensorMap tma_a, const __grid_constant__ TensorMap tma_b) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __shared__ __align__(8) u64 full_bar[AG_SPLIT], empty_bar[AG_SPLIT], raw_bar[AG_RAW > 0 ? AG_RAW : 1];
  float* smem = reinterpret_cast<float*>(smem_raw + ((1024 - (smem_addr(smem_raw) & 1023)) & 1023));
  float* split_ring = smem;                             // [AG_SPLIT][AG_SPLIT_STAGE]
#if !AG_B_SPLIT
  float* raw_ring = smem + AG_SPLIT * AG_SPLIT_STAGE;   // [AG_RAW][AG_RAW_STAGE]
#endif

  const int tid = threadIdx.x;
  const int tiles_m = (int)(((i64)M + AG_BM - 1) / AG_BM);
  const int tiles_n = (int)(((i64)N + AG_BN - 1) / AG_BN);
  int tile_m, tile_n;
  tile_of_block<AG_SWIZZLE>(blockIdx.x, tiles_m, tiles_n, &tile_m, &tile_n);
  const int m0 = tile_m * AG_BM, n0 = tile_n * AG_BN;
  // Product z of a strided batch; an operand of stride 0 is every product's.
  const int z = z_first + (int)blockIdx.z;
  const int za = stride_a != 0 ? z : 0, zb = stride_b != 0 ? z : 0;
  A += za * stride_a, B += zb * stride_b, C += z * stride_c;
  // Technique: 8-byte stores of C (n is even) where C's rows are 8-byte
  // aligned; an unaligned C (the pre-pass class) takes 4-byte stores instead
  // of a copy into the workspace and back.
  const bool c_pairs = ((reinterpret_cast<u64>(C) & 7) | (u64)(ldc & 1)) == 0;
  // alpha == 0 never reads A or B (reference-BLAS rule): no K slices at all.
  const int k_tiles_all = alpha != 0.f ? (int)(((i64)K + AG_BK - 1) / AG_BK) : 0;
  // Technique: split-K. Block y owns a contiguous run of slices, so a
  // problem of few output tiles and long K still fills every SM; a run may
  // be empty (its partial tile is zero).
  const int k_per = (k_tiles_all + AG_SPLIT_K - 1) / AG_SPLIT_K;
  const int kt0 = min(k_tiles_all, (int)blockIdx.y * k_per);
  const int k_tiles = min(k_tiles_all, kt0 + k_per) - kt0;

  if (tid == 0) {
    for (int s = 0; s < AG_SPLIT; ++s) {
      // Every producer thread (and, with A in registers, the issuer of A's
      // copy, plus its bytes); with B pre-split, the issuer alone.
      mbar_init(smem_addr(&full_bar[s]), AG_B_SPLIT ? 1 : AG_PT + AG_A_REGS);
      mbar_init(smem_addr(&empty_bar[s]), 4 * AG_WG);  // lane 0 of every consumer warp
    }
    for (int r = 0; r < AG_RAW; ++r) mbar_init(smem_addr(&raw_bar[r]), 1);  // the TMA issuer, plus bytes
    // The barriers' initialization, visible to the copy engine.
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  // Warpgroup index through a shuffle: the compiler then knows it is
  // uniform in each warp, and the wgmma code below is not a divergent path.
  const int wg = __shfl_sync(0xffffffffu, tid >> 7, 0);
  if (wg < AG_PRODUCERS) {
    // ---------------- producer warpgroups ----------------
#ifdef AG_PRODUCER_REGS
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(AG_PRODUCER_REGS));
#endif
#if AG_B_SPLIT
    // Technique: B split once per problem by a pre-pass, not once per block
    // tile by the producers: their shared-memory reads and writes (48 KB a
    // slice at bn=128) competed with the tensor cores' operand reads, and
    // 4096^3 ran at 0.72 of its time without the splits (H100, DECISIONS).
    // A stage is three copies: A (swizzled, split by the consumers) and B's
    // big and small parts, the workspace's two matrices (the map's z).
    if (tid == 0) {
      for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % AG_SPLIT, k0 = (kt0 + kt) * AG_BK;
        const unsigned bar = smem_addr(&full_bar[s]), dst = smem_addr(split_ring + s * AG_SPLIT_STAGE);
        mbar_wait(smem_addr(&empty_bar[s]), ((kt / AG_SPLIT) & 1) ^ 1);
        if (AG_PROBE == 2 || AG_PROBE == 3) {
          mbar_arrive(bar);
          continue;
        }
        mbar_arrive_expect_tx(bar, 4u * AG_SPLIT_STAGE);
        tma_load(dst, &tma_a, k0, m0, za, bar);
        tma_load(dst + 4u * AG_BM * AG_BK, &tma_b, k0, n0, 0, bar);
        tma_load(dst + 4u * (AG_BM + AG_BN) * AG_BK, &tma_b, k0, n0, 1, bar);
      }
    }
#else
    const unsigned raw0 = smem_addr(raw_ring);
    // Issues the TMA copies of slice kt into raw buffer kt % AG_RAW (thread 0).
    auto issue = [&](int kt) {
      if (tid == 0 && kt < k_tiles && AG_PROBE != 2 && AG_PROBE != 3) {
        const unsigned bar = smem_addr(&raw_bar[kt % AG_RAW]);
        const unsigned raw = raw0 + 4u * (kt % AG_RAW) * AG_RAW_STAGE;
        const int k0 = (kt0 + kt) * AG_BK;
        mbar_arrive_expect_tx(bar, 4u * AG_RAW_STAGE);
        // Box coordinates (x: the contiguous dimension) of the slice.
        if (!AG_A_REGS) tma_load(raw, &tma_a, AG_TRANS_A ? m0 : k0, AG_TRANS_A ? k0 : m0, za, bar);
        tma_load(raw + 4u * AG_RAW_B, &tma_b, AG_TRANS_B ? k0 : n0, AG_TRANS_B ? n0 : k0, zb, bar);
      }
    };
#pragma unroll
    for (int r = 0; r < AG_RAW; ++r) issue(r);
    for (int kt = 0; kt < k_tiles; ++kt) {
      const int s = kt % AG_SPLIT;
      mbar_wait(smem_addr(&empty_bar[s]), ((kt / AG_SPLIT) & 1) ^ 1);  // consumers left buffer s
      float* dst = split_ring + s * AG_SPLIT_STAGE;
#if AG_A_REGS
      // A goes straight into the split buffer, 128-byte swizzled by the copy
      // engine (its tensor map), the layout the consumers' loads expect.
      if (tid == 0 && AG_PROBE != 2 && AG_PROBE != 3) {
        mbar_arrive_expect_tx(smem_addr(&full_bar[s]), 4u * AG_BM * AG_BK);
        tma_load(smem_addr(dst), &tma_a, (kt0 + kt) * AG_BK, m0, za, smem_addr(&full_bar[s]));
      } else if (tid == 0) {
        mbar_arrive(smem_addr(&full_bar[s]));
      }
      float* b_dst = dst + AG_BM * AG_BK;
#else
      float* b_dst = dst + 2 * AG_BM * AG_BK;
#endif
      if (AG_PROBE != 2 && AG_PROBE != 3) mbar_wait(smem_addr(&raw_bar[kt % AG_RAW]), (kt / AG_RAW) & 1);
      const float* raw = raw_ring + (kt % AG_RAW) * AG_RAW_STAGE;
      if (AG_PROBE != 1 && AG_PROBE != 3) {
        if (!AG_A_REGS) split_slice<AG_BM, !AG_TRANS_A>(raw, dst, dst + AG_BM * AG_BK, tid);
        split_slice<AG_BN, (bool)AG_TRANS_B>(raw + AG_RAW_B, b_dst, b_dst + AG_BN * AG_BK, tid);
      }
      // Ordinary stores read next by the tensor cores (the async proxy).
      asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
      mbar_arrive(smem_addr(&full_bar[s]));
      // Every producer thread has read raw buffer kt % AG_RAW: refill it.
      asm volatile("bar.sync 1, %0;\n" ::"n"(AG_PT) : "memory");
      issue(kt + AG_RAW);
    }
#endif
    return;
  }

  // ---------------- consumer warpgroups ----------------
#ifdef AG_CONSUMER_REGS
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(AG_CONSUMER_REGS));
#endif
  const int cw = wg - AG_PRODUCERS;  // consumer warpgroup: rows 64*cw.. of the tile
  const int w = (tid >> 5) & 3, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  float acc[AG_ACC];
#pragma unroll
  for (int i = 0; i < AG_ACC; ++i) acc[i] = 0.f;
#if AG_DRAIN > 0
  // Technique: accumulator drain. Long in-MMA accumulation chains lose bits
  // (issue 9: 3xTF32 from cuBLAS TF32 GEMMs errs 9.6e-6 at K = 4096, 2.5e-7 at
  // 64); every AG_DRAIN slices the accumulators are added into FP32 totals
  // with IEEE adds and the next wgmma restarts them (scale-d = 0). Costs
  // AG_ACC registers.
  float tot[AG_ACC];
#pragma unroll
  for (int i = 0; i < AG_ACC; ++i) tot[i] = 0.f;
  // Technique: staggered drains. The consumer warpgroups work on the same
  // slices in lockstep; were their drains (wait for all wgmmas, then adds)
  // at the same slices, the tensor cores would idle at each. The second
  // warpgroup's intervals are shifted by half an interval.
  int since_drain = cw * (AG_DRAIN / 2);
#define AG_RESULT tot
#else
#define AG_RESULT acc
#endif
  const unsigned split0 = smem_addr(split_ring);
  int held = -1;  // split buffer whose wgmmas are committed but not yet released
  int fresh = 1;  // the next wgmma starts the accumulators from zero
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int s = kt % AG_SPLIT;
    mbar_wait(smem_addr(&full_bar[s]), (kt / AG_SPLIT) & 1);
    const unsigned st = split0 + 4u * s * AG_SPLIT_STAGE;
#if AG_A_REGS
    const u64 b_big = smem_desc(st + 4u * AG_BM * AG_BK), b_small = smem_desc(st + 4u * (AG_BM + AG_BN) * AG_BK);
    // Technique: A split in registers by the consumers. Each A element is
    // read once by its one consumer thread (4 per k8 step), split there, and
    // fed to wgmma from registers: the producers split only B, and the
    // tensor cores read no A from shared memory: shared-memory traffic per
    // slice 272 -> 192 KB, 4096^3 1.36 -> 1.29 ms on the H200.
    // A's rows as TMA swizzled them: 16-byte chunk c of row r at c ^ (r & 7),
    // here r & 7 == g, so lanes g, t hit 32 distinct banks.
    const float* a_rows = split_ring + s * AG_SPLIT_STAGE + (cw * 64 + w * 16 + g) * AG_BK;
    unsigned a_hi[AG_BK / 8][4], a_lo[AG_BK / 8][4];
#pragma unroll
    for (int j = 0; j < AG_BK / 8; ++j) {
      const int c0 = ((2 * j) ^ g) << 2, c1 = ((2 * j + 1) ^ g) << 2;
      const float x[4] = {a_rows[c0 + t], a_rows[8 * AG_BK + c0 + t], a_rows[c1 + t], a_rows[8 * AG_BK + c1 + t]};
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float hi = tf32_round(x[e]);
        a_hi[j][e] = __float_as_uint(hi);
        a_lo[j][e] = __float_as_uint(tf32_round(x[e] - hi));
      }
    }
#else
    const u64 a_big = smem_desc(st + 4u * cw * 64 * AG_BK), a_small = smem_desc(st + 4u * (AG_BM + cw * 64) * AG_BK);
    const u64 b_big = smem_desc(st + 4u * 2 * AG_BM * AG_BK), b_small = smem_desc(st + 4u * (2 * AG_BM + AG_BN) * AG_BK);
#endif
#pragma unroll
    for (int i = 0; i < AG_ACC; ++i) fence_operand(acc[i]);
    wgmma_fence();
    // With the carry the accumulators always continue (they hold it).
    const int restart = (fresh && !AG_CARRY) ? 0 : 1;
#if AG_SLICE_ORDER
    // Technique: the cross products of the whole slice first, then its big
    // products. The tensor cores round each wgmma's sum toward zero, a loss
    // of up to one unit in the last place of the accumulator: cross terms
    // (~2^-11 of a big product) added after big products each cost a unit
    // of the big sum, added before them a unit of a sum 2^11 smaller. Per
    // slice, 4 truncations of the big sum instead of 12 (an error model
    // fitted to the H200's 3xTF32 errors, scripts/tf32x3_error_model.sh).
#pragma unroll
    for (int j = 0; j < (AG_PROBE == 4 ? 0 : AG_BK / 8); ++j) {
#if AG_A_REGS
      wgmma_tf32_ra(acc, a_lo[j], b_big + 2 * j, j == 0 ? restart : 1);
      wgmma_tf32_ra(acc, a_hi[j], b_small + 2 * j, 1);
#else
      wgmma_tf32(acc, a_small + 2 * j, b_big + 2 * j, j == 0 ? restart : 1);
      wgmma_tf32(acc, a_big + 2 * j, b_small + 2 * j, 1);
#endif
    }
#pragma unroll
    for (int j = 0; j < (AG_PROBE == 4 ? 0 : AG_BK / 8); ++j) {
#if AG_A_REGS
      wgmma_tf32_ra(acc, a_hi[j], b_big + 2 * j, 1);
#else
      wgmma_tf32(acc, a_big + 2 * j, b_big + 2 * j, 1);
#endif
    }
#else
#pragma unroll
    for (int j = 0; j < (AG_PROBE == 4 ? 0 : AG_BK / 8); ++j) {
      // Technique: small products first (the cross terms, ~2^-11 of the big
      // product each, then big*big), so the restart (scale-d = 0) is the
      // first wgmma of a drain interval.
#if AG_A_REGS && AG_TF32_PASSES == 3
      wgmma_tf32_ra(acc, a_lo[j], b_big + 2 * j, j == 0 ? restart : 1);
      wgmma_tf32_ra(acc, a_hi[j], b_small + 2 * j, 1);
      wgmma_tf32_ra(acc, a_hi[j], b_big + 2 * j, 1);
#elif AG_A_REGS
      wgmma_tf32_ra(acc, a_hi[j], b_big + 2 * j, j == 0 ? restart : 1);
#elif AG_TF32_PASSES == 3
      wgmma_tf32(acc, a_small + 2 * j, b_big + 2 * j, j == 0 ? restart : 1);
      wgmma_tf32(acc, a_big + 2 * j, b_small + 2 * j, 1);
      wgmma_tf32(acc, a_big + 2 * j, b_big + 2 * j, 1);
#else
      wgmma_tf32(acc, a_big + 2 * j, b_big + 2 * j, j == 0 ? restart : 1);
#endif
    }
#endif
    wgmma_commit();
    fresh = 0;
#if AG_DRAIN > 0
    const bool drain = ++since_drain == AG_DRAIN || kt + 1 == k_tiles;
#else
    const bool drain = kt + 1 == k_tiles;
#endif
    if (drain) {
      wgmma_wait<0>();
#pragma unroll
      for (int i = 0; i < AG_ACC; ++i) fence_operand(acc[i]);
      if (lane == 0) {
        if (held >= 0) mbar_arrive(smem_addr(&empty_bar[held]));
        mbar_arrive(smem_addr(&empty_bar[s]));
      }
      held = -1;
#if AG_CARRY
      // Technique: the drain's rounding error, carried. TwoSum gives the
      // exact error of tot + acc; the next slice's products accumulate onto
      // it, and it reaches the totals at the next drain. Long K then loses
      // nothing to the chain of FP32 additions into the totals.
#pragma unroll
      for (int i = 0; i < AG_ACC; ++i) {
        const float sum = tot[i] + acc[i], tot_part = sum - acc[i];
        acc[i] = (tot[i] - tot_part) + (acc[i] - (sum - tot_part));
        tot[i] = sum;
      }
      since_drain = 0;
#elif AG_DRAIN > 0
#pragma unroll
      for (int i = 0; i < AG_ACC; ++i) tot[i] += acc[i];
      since_drain = 0;
      fresh = 1;
#endif
    } else {
#if AG_A_REGS
      // The wgmmas read A's registers until they complete, and the next
      // slice's A overwrites them (ptxas does not order this: measured, a
      // wait 1 here gave wrong products). The other consumer warpgroup keeps
      // the tensor cores busy meanwhile.
      wgmma_wait<0>();
      if (lane == 0) mbar_arrive(smem_addr(&empty_bar[s]));
#else
      // Technique: one wgmma group in flight across the hand-over: waiting
      // for all but the newest group frees the previous slice's buffer
      // while this slice's products run.
      wgmma_wait<1>();
      if (lane == 0 && held >= 0) mbar_arrive(smem_addr(&empty_bar[held]));
      held = s;
#endif
    }
  }
  // (The last slice drained with wait 0; this says so to ptxas, which
  // otherwise inserts its own wait on the loop exit, warning C7517.)
  wgmma_wait<0>();
#if AG_CARRY
#pragma unroll
  for (int i = 0; i < AG_ACC; ++i) tot[i] += acc[i];  // the last drain's error
#endif

  // This block's K range, for outputs recomputed in FP32.
  const int k_lo = kt0 * AG_BK, k_hi = min(K, (kt0 + k_tiles) * AG_BK);
#if AG_SPLIT_K > 1
  // Partial tile y goes to workspace slice y, rows of AG_WS_LD(N) floats;
  // the reduce kernel applies alpha and beta.
  float* part = workspace + AG_WS_SKIP + (i64)blockIdx.y * M * AG_WS_LD(N);
#endif

  // ---- Epilogue: C = alpha * result + beta * C, from the D fragment layout ----
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    // 64-bit row and column: m0 + offset passes 2^31 in the last tile near 2^31.
    const i64 m = (i64)m0 + cw * 64 + w * 16 + h * 8 + g;
    if (m >= M) continue;
#pragma unroll
    for (int nb = 0; nb < AG_BN / 8; ++nb) {
      const i64 n = (i64)n0 + nb * 8 + 2 * t;
      float r0 = AG_RESULT[4 * nb + 2 * h], r1 = AG_RESULT[4 * nb + 2 * h + 1];
      if (AG_PROBE == 0 && non_finite(r0) && n < N) r0 = fp32_dot(A, lda, B, ldb, m, n, k_lo, k_hi);
      if (AG_PROBE == 0 && non_finite(r1) && n + 1 < N) r1 = fp32_dot(A, lda, B, ldb, m, n + 1, k_lo, k_hi);
#if AG_SPLIT_K > 1
      // n is even and the row length a multiple of 4: an 8-byte store that
      // stays inside the row's padding where n + 1 == N.
      if (n < N) *reinterpret_cast<float2*>(part + m * AG_WS_LD(N) + n) = make_float2(r0, r1);
      continue;
#endif
      const float v0 = alpha * r0, v1 = alpha * r1;
      float* c = C + m * ldc + n;
      if (c_pairs && n + 1 < N) {
        float2 out = make_float2(v0, v1);
        if (beta != 0.f) {  // beta == 0 never reads C: NaN there must not leak
          const float2 old = *reinterpret_cast<const float2*>(c);
          out.x = fmaf(beta, old.x, v0);
          out.y = fmaf(beta, old.y, v1);
        }
        *reinterpret_cast<float2*>(c) = out;
      } else {
        if (n < N) c[0] = beta != 0.f ? fmaf(beta, c[0], v0) : v0;
        if (n + 1 < N) c[1] = beta != 0.f ? fmaf(beta, c[1], v1) : v1;
      }
    }
  }
#undef AG_RESULT
}

// The pre-pass (pp=1): operand blockIdx.y (0: A, 1: B) copied from rows
// `ld` floats apart at any alignment into rows `ld_out` floats apart (a
// multiple of 4, 16-byte aligned: what TMA reads) in the workspace; an
// operand of 0 rows needs no copy. Built into every module (its -D values do
// not matter); the host launches it only for pp=1 on an unaligned problem.
// Technique: one launch for both operands, blocks of 64 columns x 32 rows
// numbered per operand (the grid is the larger operand's count, so no block
// walks the other's empty rows); each thread moves 8 rows, all 8 loads
// issued before the stores, and a warp reads and writes 128 contiguous bytes.
extern "C" __global__ void __launch_bounds__(256)
    agemm_tf32x3wg_stage(const float* __restrict__ a, i64 lda, i64 a_rows, i64 a_cols, float* __restrict__ a_out,
                         i64 a_ld_out, const float* __restrict__ b, i64 ldb, i64 b_rows, i64 b_cols,
                         float* __restrict__ b_out, i64 b_ld_out) {
  const bool is_b = blockIdx.y != 0;
  const float* src = is_b ? b : a;
  float* dst = is_b ? b_out : a_out;
  const i64 ld = is_b ? ldb : lda, ld_out = is_b ? b_ld_out : a_ld_out;
  const i64 rows = is_b ? b_rows : a_rows, cols = is_b ? b_cols : a_cols;
  const i64 col_blocks = (cols + 63) / 64;
  if ((i64)blockIdx.x >= col_blocks * ((rows + 31) / 32)) return;
  const i64 col = ((i64)blockIdx.x % col_blocks) * 64 + (threadIdx.x & 63);
  const i64 row0 = ((i64)blockIdx.x / col_blocks) * 32 + (threadIdx.x >> 6);
  if (col >= cols) return;
  float v[8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
    if (row0 + 4 * i < rows) v[i] = __ldg(src + (row0 + 4 * i) * ld + col);
#pragma unroll
  for (int i = 0; i < 8; ++i)
    if (row0 + 4 * i < rows) dst[(row0 + 4 * i) * ld_out + col] = v[i];
}

#if AG_B_SPLIT || AG_A_TRANSPOSED
// The K-major pre-pass: an operand of `rows` rows (B's n, A's m) by K, read
// k-contiguous (kcontig: element (r, k) at src[r * ld + k]) or not (at
// src[k * ld + r]), written K-major into the workspace, rows kp floats apart
// (16-byte aligned, whatever the source's alignment): parts == 2 (bs=1, B)
// as its big and small TF32 parts, out[0][r][k] and out[1][r][k], split as
// split4 splits; parts == 1 (A^T with AG_A_TRANSPOSED) as it is.
// Technique: 32 x 32 tiles through shared memory (a padded row: no bank
// conflicts), so that the reads and the writes are both 128 contiguous
// bytes a warp, whichever of the source's dimensions is contiguous.
extern "C" __global__ void __launch_bounds__(256)
    agemm_tf32x3wg_kmajor(int rows, int K, const float* __restrict__ src, i64 ld, int kcontig, float* __restrict__ out,
                          i64 kp, int parts) {
  __shared__ float tile[32][33];
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  const i64 r0 = (i64)blockIdx.x * 32, k0 = (i64)blockIdx.y * 32;
  // tile[j][tx] holds (r0 + j, k0 + tx) for a k-contiguous source, else (k0 + j, r0 + tx).
#pragma unroll
  for (int j = ty; j < 32; j += 8) {
    const i64 r = r0 + (kcontig ? j : tx), k = k0 + (kcontig ? tx : j);
    tile[j][tx] = r < rows && k < K ? __ldg(src + (kcontig ? r * ld + k : k * ld + r)) : 0.f;
  }
  __syncthreads();
#pragma unroll
  for (int j = ty; j < 32; j += 8) {
    const i64 r = r0 + j, k = k0 + tx;
    if (r >= rows || k >= K) continue;
    const float v = kcontig ? tile[j][tx] : tile[tx][j];
    if (parts == 1) {
      out[r * kp + k] = v;
      continue;
    }
    const float big = tf32_round(v);
    out[r * kp + k] = big;
    out[((i64)rows + r) * kp + k] = tf32_round(v - big);
  }
}
#endif

#if AG_SPLIT_K > 1
#ifndef AG_WIDE_FOLD
#define AG_WIDE_FOLD 1
#endif
// Technique: a wide fold for many slices. A thread per element folding 128
// slices waits for 8 L2 round trips of 16 loads, on a few blocks (M*N/256);
// the main kernel's partial tiles of a few-tile, long-K problem are then
// folded after it, unhidden. Here 8 warps share 32 elements (a warp reads
// 128 contiguous bytes of a slice), warp g folding slices g*PER ..
// g*PER + PER - 1 in order, all its loads in flight at once; warp 0 then
// adds the 7 others' sums in order g = 1..7 (deterministic, whatever order
// the blocks ran in). The host gives it a block per 32 elements
// (tf32x3wg_launch.cpp); blockDim is 256.
template <int SPLITS>
__device__ __forceinline__ void fold_wide(int M, int N, float alpha, const float* __restrict__ workspace, float beta,
                                          float* __restrict__ C, i64 ldc) {
  enum { GROUPS = 8, PER = (SPLITS + GROUPS - 1) / GROUPS };
  __shared__ float sums[GROUPS][32];
  const i64 ld = AG_WS_LD(N), slice = (i64)M * ld, total = (i64)M * N;
  const int lane = threadIdx.x & 31, g = threadIdx.x >> 5;
  wait_for_main_kernel();
  workspace += AG_WS_SKIP;
  for (i64 base = (i64)blockIdx.x * 32; base < total; base += (i64)gridDim.x * 32) {
    const i64 idx = base + lane;
    float sum = 0.f;
    if (idx < total) {
      const float* p = workspace + (idx / N) * ld + idx % N + (i64)g * PER * slice;
#pragma unroll
      for (int z = 0; z < PER; ++z)
        if (g * PER + z < SPLITS) sum += __ldcg(p + z * slice);
    }
    sums[g][lane] = sum;
    __syncthreads();
    if (g == 0 && idx < total) {
#pragma unroll
      for (int q = 1; q < GROUPS; ++q) sum += sums[q][lane];
      float* c = C + (idx / N) * ldc + idx % N;
      *c = beta != 0.f ? fmaf(beta, *c, alpha * sum) : alpha * sum;
    }
    __syncthreads();
  }
}

// The split-K reduction: fold_split_k (agemm_device.cuh) up to 16 slices.
extern "C" __global__ void __launch_bounds__(256)
    agemm_tf32x3wg_reduce(int M, int N, float alpha, const float* __restrict__ workspace, float beta,
                          float* __restrict__ C, i64 ldc) {
#if AG_WIDE_FOLD
  if (AG_SPLIT_K > 16) {
    fold_wide<AG_SPLIT_K>(M, N, alpha, workspace, beta, C, ldc);
    return;
  }
#endif
  fold_split_k<AG_SPLIT_K>(M, N, alpha, workspace, beta, C, ldc);
}
#endif
