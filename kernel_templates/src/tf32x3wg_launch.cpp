// The tf32x3wg family's launch: the pre-passes that stage unaligned operands
// in the workspace (one copy kernel), split B there (bs=1) and transpose A^T
// there (at=1), the operands' 3-D tensor maps, the main kernel over the grid
// (tiles, split-K runs, products) and the split-K fold.
#include <algorithm>
#include <cstdint>

#include "autogemm/cuda_driver.h"
#include "autogemm/kernel_config.h"
#include "autogemm/tf32x3wg_family.h"

namespace autogemm {

namespace {

/// One operand as TMA reads it: `count` row-major FP32 matrices of `rows` x
/// `cols` (cols contiguous, `ld` floats apart), `stride` floats apart.
struct OperandView {
  const float* base;
  int64_t rows, cols, ld;
  int64_t count = 1, stride = 0;
};

/// A 3-D tensor map over `v` (the matrices its outer dimension) read in
/// boxes of box_rows x box_cols of one matrix, zero-filled outside it.
CUtensorMap tensor_map(const OperandView& v, int box_rows, int box_cols,
                       CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE) {
  CUtensorMap map;
  // A dimension of 0 (K = 0: no slice is ever loaded) is not encodable; a
  // single matrix's outer stride is its extent (never stepped over).
  const int64_t rows = std::max<int64_t>(v.rows, 1), ld = std::max<int64_t>(v.ld, 4);
  const bool many = v.count > 1 && v.stride != 0;
  const cuuint64_t dims[3] = {cuuint64_t(std::max<int64_t>(v.cols, 1)), cuuint64_t(rows),
                              cuuint64_t(many ? v.count : 1)};
  const cuuint64_t strides[2] = {cuuint64_t(ld) * sizeof(float),
                                 cuuint64_t(many ? v.stride : rows * ld) * sizeof(float)};
  const cuuint32_t box[3] = {cuuint32_t(box_cols), cuuint32_t(box_rows), 1};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  check(driver().cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, const_cast<float*>(v.base), dims,
                                        strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        "cuTensorMapEncodeTiled");
  return map;
}

constexpr int kSliceK = 32;  // AG_BK in sgemm_tf32x3wg.cu

int64_t up4(int64_t v) { return (v + 3) / 4 * 4; }

bool aligned_rows(const void* p, int64_t ld) { return reinterpret_cast<uintptr_t>(p) % 16 == 0 && ld % 4 == 0; }

CUdeviceptr device(const void* p) { return reinterpret_cast<CUdeviceptr>(p); }

/// One operand's copy by agemm_tf32x3wg_stage: `rows` rows of `cols` floats,
/// `ld` floats apart at `src`, to rows `ld_out` floats apart at `dst` (0
/// rows: no copy).
struct StagedOperand {
  CUdeviceptr src = 0, dst = 0;
  long long ld = 0, rows = 0, cols = 0, ld_out = 0;
  long long blocks() const { return (cols + 63) / 64 * ((rows + 31) / 32); }  // 64 x 32 floats a block
};

/// The call with each operand TMA cannot read as it is (pointer or leading
/// dimension off 16 bytes) replaced by its aligned copy in the workspace,
/// both copied by one launch of `stage_kernel` on the stream. Nothing is
/// copied when alpha is 0 (A and B never read). C stays where it is: the
/// main kernel writes any alignment.
CanonicalCall stage(const Tf32x3WgParams& t, CUfunction stage_kernel, const LaunchArgs& a) {
  CanonicalCall call = a.call;
  Problem& p = call.problem;
  const Tf32x3WgFamily::Staging at = Tf32x3WgFamily::staging(t, p);
  const auto slot = [&](size_t floats) { return a.workspace + floats * sizeof(float); };
  const auto restage = [&](const float*& ptr, int64_t& ld, int64_t rows, int64_t cols, size_t where) {
    StagedOperand s;
    if (aligned_rows(ptr, ld)) return s;
    if (call.alpha != 0.f) s = {device(ptr), slot(where), ld, rows, cols, up4(cols)};
    ptr = reinterpret_cast<const float*>(slot(where)), ld = up4(cols);
    return s;
  };
  // A pre-split B and a transposed A are read by their pre-pass at any alignment.
  StagedOperand sa = t.a_transposed ? StagedOperand{}
                                    : restage(call.a, p.lda, p.trans_a ? p.k : p.m, p.trans_a ? p.m : p.k, at.a);
  StagedOperand sb = t.b_split ? StagedOperand{}
                               : restage(call.b, p.ldb, p.trans_b ? p.n : p.k, p.trans_b ? p.k : p.n, at.b);
  p.aligned = true;  // for A and B, what the main kernel's tensor maps need
  const long long blocks = std::max(sa.blocks(), sb.blocks());
  if (blocks == 0) return call;
  void* args[] = {&sa.src, &sa.ld, &sa.rows, &sa.cols, &sa.dst, &sa.ld_out,
                  &sb.src, &sb.ld, &sb.rows, &sb.cols, &sb.dst, &sb.ld_out};
  check(driver().cuLaunchKernel(stage_kernel, unsigned(blocks), 2, 1, 256, 1, 1, 0, a.stream, args, nullptr),
        "cuLaunchKernel(agemm_tf32x3wg_stage)");
  return call;
}

/// One launch of agemm_tf32x3wg_kmajor (`kernel`, blocks of 32 rows x 32
/// k): `rows` x K of `src` (k-contiguous or not) K-major into the workspace
/// at float `at`, as `parts` (2: B's big and small parts; 1: A^T as it is).
/// Nothing when the operands are never read.
void kmajor(CUfunction kernel, const CanonicalCall& call, const float* src, int64_t rows, int64_t ld, bool kcontig,
            size_t at, int parts, const LaunchArgs& a) {
  if (call.alpha == 0.f || call.problem.k == 0 || rows == 0) return;
  int r = int(rows), k = int(call.problem.k), kc = kcontig ? 1 : 0;
  CUdeviceptr s = device(src), out = a.workspace + at * sizeof(float);
  long long ld_ = ld, kp = up4(call.problem.k);
  void* args[] = {&r, &k, &s, &ld_, &kc, &out, &kp, &parts};
  check(driver().cuLaunchKernel(kernel, unsigned((rows + 31) / 32), unsigned((k + 31) / 32), 1, 256, 1, 1, 0,
                                a.stream, args, nullptr),
        "cuLaunchKernel(agemm_tf32x3wg_kmajor)");
}

/// The main kernel on `call` (aligned class): grid (tiles, split-K runs,
/// products), grid z in launches of at most 65535 products.
void launch_main(const Tf32x3WgParams& t, const LaunchGeometry& g, const CanonicalCall& call, const LaunchArgs& a) {
  const Problem& p = call.problem;
  const int bm = Tf32x3WgFamily::block_m(t);
  // Boxes of one K slice in each operand's global order (sgemm_tf32x3wg.cu):
  // A is M x K (k contiguous) or, transposed, K x M; B is K x N or N x K.
  // With A in registers, A lands in the 128-byte swizzled layout the
  // consumers read (a 32-float box row is exactly one swizzle row).
  const int64_t batch = std::max<int64_t>(1, p.batch);
  OperandView va = p.trans_a ? OperandView{call.a, p.k, p.m, p.lda, batch, p.stride_a}
                             : OperandView{call.a, p.m, p.k, p.lda, batch, p.stride_a};
  OperandView vb = p.trans_b ? OperandView{call.b, p.n, p.k, p.ldb, batch, p.stride_b}
                             : OperandView{call.b, p.k, p.n, p.ldb, batch, p.stride_b};
  // Where no slice is read (alpha 0: A and B may be null; K 0), the maps
  // are encoded over an aligned address that is never read.
  if (call.alpha == 0.f || p.k == 0) {
    const float* any = a.workspace ? reinterpret_cast<const float*>(a.workspace) : call.c;
    va = vb = OperandView{any, 1, 4, 4};
  }
  // A transposed by its pre-pass: M x K, k contiguous, swizzled for the
  // consumers' register loads (the kernel's A stays the caller's, for fp32_dot).
  if (t.a_transposed && call.alpha != 0.f && p.k != 0) {
    const size_t at = Tf32x3WgFamily::staging(t, a.call.problem).a_kmajor;
    va = OperandView{reinterpret_cast<const float*>(a.workspace + at * sizeof(float)), p.m, p.k, up4(p.k)};
  }
  CUtensorMap map_a = p.trans_a && !t.a_transposed ? tensor_map(va, kSliceK, bm)
                      : t.a_regs ? tensor_map(va, bm, kSliceK, CU_TENSOR_MAP_SWIZZLE_128B)
                                 : tensor_map(va, bm, kSliceK);
  // A pre-split B: its two parts (the map's z), N x K each, k contiguous,
  // land swizzled as the consumers' wgmma descriptors read them.
  if (t.b_split && call.alpha != 0.f && p.k != 0) {
    // (Offsets from the caller's problem: `p` may be the staged one.)
    const size_t at = Tf32x3WgFamily::staging(t, a.call.problem).b_parts;
    const auto* parts = reinterpret_cast<const float*>(a.workspace + at * sizeof(float));
    vb = OperandView{parts, p.n, p.k, up4(p.k), 2, p.n * up4(p.k)};
  }
  CUtensorMap map_b = t.b_split   ? tensor_map(vb, t.bn, kSliceK, CU_TENSOR_MAP_SWIZZLE_128B)
                      : p.trans_b ? tensor_map(vb, t.bn, kSliceK)
                                  : tensor_map(vb, kSliceK, t.bn);
  int m = int(p.m), n = int(p.n), k = int(p.k), z_first = 0;
  float alpha = call.alpha, beta = call.beta;
  CUdeviceptr pa = device(call.a), pb = device(call.b), pc = device(call.c), ws = a.workspace;
  long long lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  long long sa = batch > 1 ? p.stride_a : 0, sb = batch > 1 ? p.stride_b : 0, sc = batch > 1 ? p.stride_c : 0;
  void* args[] = {&m, &n, &k, &alpha, &pa, &lda, &pb, &ldb, &beta, &pc, &ldc, &ws, &sa, &sb, &sc, &z_first, &map_a, &map_b};
  constexpr int64_t kMaxZ = 65535;
  for (int64_t first = 0; first < batch; first += kMaxZ) {
    z_first = int(first);
    const unsigned z = unsigned(std::min(kMaxZ, batch - first));
    check(driver().cuLaunchKernel(a.functions.at(0), g.grid_x, g.grid_y, z, g.block, 1, 1, g.smem, a.stream, args,
                                  nullptr),
          "cuLaunchKernel(agemm_tf32x3wg)");
  }
}

}  // namespace

void Tf32x3WgFamily::launch(const KernelConfig& c, const LaunchArgs& a) const {
  const Tf32x3WgParams& t = params(c);
  const Problem& p = a.call.problem;
  const CanonicalCall call = t.pre_pass == 1 && !p.aligned ? stage(t, a.functions.back(), a) : a.call;
  const Staging s = staging(t, p);
  const CUfunction kmajor_kernel = t.b_split || t.a_transposed ? a.functions.at(t.split_k > 1 ? 2 : 1) : nullptr;
  if (t.a_transposed) kmajor(kmajor_kernel, a.call, a.call.a, p.m, p.lda, false, s.a_kmajor, 1, a);
  // One band of columns, or (bs=1, B's parts past half the workspace) bands
  // of chunk_n, each a GEMM of its own on the stream: B's split (read where
  // the caller has B), the main kernel, the fold.
  const int64_t band_n = std::max<int64_t>(1, s.chunk_n);
  int64_t n0 = 0;
  do {
    CanonicalCall band = call;
    band.problem.n = std::min(band_n, p.n - n0);
    band.b = call.b + (p.trans_b ? n0 * p.ldb : n0);
    band.c = call.c + n0;
    const LaunchArgs band_args{a.functions, band, a.stream, a.workspace, a.sm_count, a.dependent_launch};
    if (t.b_split) kmajor(kmajor_kernel, band, band.b, band.problem.n, p.ldb, p.trans_b, s.b_parts, 2, a);
    launch_main(t, geometry(c, band.problem), band, a);
    // sk > 1: the second kernel folds the partial tiles into the caller's C,
    // over the GPU. Past 16 slices the fold is wide: a block per 32 elements
    // (fold_wide in sgemm_tf32x3wg.cu).
    if (t.split_k > 1)
      launch_reduce_kernel(a.functions.at(1), band_args, "cuLaunchKernel(agemm_tf32x3wg_reduce)",
                           t.split_k > 16 ? 32 : 256);
    n0 += band_n;
  } while (n0 < p.n);
}

}  // namespace autogemm
