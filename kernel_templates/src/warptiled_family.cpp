// The warptiled family: parameter table, validity, resources and launch
// (its search space and cost model: warptiled_space.cpp).
#include "autogemm/warptiled_family.h"

#include <algorithm>
#include <cstdint>

#include "autogemm/cuda_driver.h"
#include "autogemm/kernel_config.h"
#include "autogemm/tabled_family_impl.h"

namespace autogemm {

template class TabledFamily<WarpTiledFamily, WarpTiledParams>;

namespace {

bool fail(std::string* why, const std::string& msg) {
  if (why) *why = msg;
  return false;
}

// Whether one operand's AG_BK x mn tile divides into whole copies per thread
// (StageCopier in sgemm_warptiled.cu): a k-contiguous operand goes one float
// at a time, 8 threads along k, so THREADS/8 must divide mn; the other in
// chunks of vec floats.
bool copies_divide(int mn, int bk, bool k_contiguous, int vec, int threads, std::string* why) {
  if (k_contiguous) {
    if ((8 * mn) % threads != 0 || (bk * mn) % threads != 0)
      return fail(why, "a k-contiguous operand needs threads/8 to divide its tile side and bk*side copies "
                       "to divide among the threads");
    return true;
  }
  if (vec > mn || (bk * mn / vec) % threads != 0)
    return fail(why, "an operand's bk*side/vec copies must divide among the threads");
  return true;
}

}  // namespace

bool WarpTiledParams::operator==(const WarpTiledParams& o) const { return WarpTiledFamily::same(*this, o); }

const ParamTable<WarpTiledParams>& WarpTiledFamily::table() {
  using P = WarpTiledParams;
  static const ParamTable<P> t = {
      {"bm", "AG_BM", &P::bm, {16, 32, 64, 128, 256}, 0, 0, 0, Presence::Always, nullptr, "16..256, a power of two",
       "rows of C per thread block"},
      {"bn", "AG_BN", &P::bn, {16, 32, 64, 128, 256}, 0, 0, 0, Presence::Always, nullptr, "16..256, a power of two",
       "columns of C per thread block"},
      {"bk", "AG_BK", &P::bk, {8, 16, 32}, 0, 0, 0, Presence::Always, nullptr, "8, 16 or 32",
       "K depth of one pipeline stage"},
      {"wm", "AG_WM", &P::wm, {16, 32, 64}, 0, 0, 0, Presence::Always, nullptr, "16, 32 or 64",
       "rows of C per warp"},
      {"wn", "AG_WN", &P::wn, {16, 32, 64}, 0, 0, 0, Presence::Always, nullptr, "16, 32 or 64",
       "columns of C per warp"},
      {"ln", "AG_LN", &P::ln, {4, 8}, 0, 0, 8, Presence::Always, nullptr, "4 or 8",
       "lanes of a warp laid along N; a thread holds wm*ln/32 x wn/ln of C"},
      {"st", "AG_STAGES", &P::stages, {2, 3, 4}, 0, 0, 3, Presence::Always, nullptr, "2, 3 or 4",
       "shared-memory stages of the cp.async pipeline"},
      {"vec", "AG_VEC", &P::vec, {1, 4}, 0, 0, 1, Presence::Always, nullptr, "1 or 4",
       "copy width in floats of the operand whose rows run along m or n: 4 = 16-byte (aligned class only), 1 = any"},
      {"sk", "AG_SPLIT_K", &P::split_k, {}, 1, 16, 1, Presence::UnlessDefault, nullptr, "1..16",
       "split-K: K slices in separate blocks, folded by a second kernel (1 = none)"},
      {"sw", "AG_SWIZZLE", &P::swizzle, {1, 2, 4, 8, 16}, 0, 0, 1, Presence::Always, nullptr, "1, 2, 4, 8 or 16",
       "block raster group height: groups of sw tile-rows walked column by column, for L2 reuse"},
      {"bt", "AG_BATCHED", &P::batched, {0, 1}, 0, 0, 0, Presence::UnlessDefault, nullptr, "0 or 1",
       "1 = a strided batch, one product per grid z (needs sk=1, pe=0)"},
      {"pe", "AG_PEEL", &P::peel, {0, 1}, 0, 0, 0, Presence::UnlessDefault, nullptr, "0 or 1",
       "1 = the last 1..8 rows or columns past a multiple of the tile go to small peel kernels"},
      {"tp", "AG_STAGE_B", &P::stage_b, {0, 1}, 0, 0, 0, Presence::UnlessDefault, nullptr, "0 or 1",
       "1 = B^T (tb=1) is first transposed into the workspace, so the main loop copies B 16 bytes at a time (either class)"},
      {"sa", "AG_STAGE_A", &P::stage_a, {0, 1}, 0, 0, 0, Presence::UnlessDefault, nullptr, "0 or 1",
       "1 = A (ta=0) is first transposed into the workspace, so the main loop copies A 16 bytes at a time (either class)"},
      {"fo", "AG_FFMA_ORDER", &P::ffma_order, {0, 1, 2}, 0, 0, 0, Presence::UnlessDefault, nullptr, "0, 1 or 2",
       "order of a k step's FFMAs (the same sums): 0 row by row, 1 rows turning at each end, 2 columns turning"},
  };
  return t;
}

int WarpTiledFamily::threads(const WarpTiledParams& t) {
  if (t.wm <= 0 || t.wn <= 0) return 0;
  return (t.bm / t.wm) * (t.bn / t.wn) * 32;
}

size_t WarpTiledFamily::smem_bytes(const WarpTiledParams& t) {
  const int pad = 4;  // AG_PAD in sgemm_warptiled.cu
  return size_t(t.stages) * t.bk * size_t((t.bm + pad) + (t.bn + pad)) * sizeof(float);
}

int WarpTiledFamily::estimated_registers(const WarpTiledParams& t) {
  // ptxas (sm_90, every layout and vec): 236..244 for 16x8 thread tiles,
  // i.e. about 64 beyond the accumulators and two fragment sets.
  const int tile = t.tm() * t.tn() + 2 * (t.tm() + t.tn());
  return std::min(255, tile + 64);
}

int WarpTiledFamily::blocks_per_sm(const WarpTiledParams& t, const SearchLimits& lim) {
  const int th = std::max(32, threads(t));
  const int regs = (estimated_registers(t) + 7) / 8 * 8;
  const int64_t by_regs = lim.regs_per_sm / (int64_t(regs) * th);
  const int64_t by_smem = int64_t(lim.smem_per_sm / (smem_bytes(t) + 1024));
  const int64_t by_threads = lim.max_threads_per_sm / th;
  return int(std::max<int64_t>(1, std::min({by_regs, by_smem, by_threads, int64_t(32)})));
}

int64_t WarpTiledFamily::tiles(const WarpTiledParams& t, const Problem& p) {
  return ((p.m + t.bm - 1) / t.bm) * ((p.n + t.bn - 1) / t.bn);
}

int WarpTiledFamily::threads(const KernelConfig& c) const { return threads(params(c)); }
size_t WarpTiledFamily::smem_bytes(const KernelConfig& c) const { return smem_bytes(params(c)); }

bool WarpTiledFamily::constraints_hold(const WarpTiledParams& p, const KernelConfig& c, std::string* why) const {
  if (p.batched == 1 && p.split_k > 1) return fail(why, "bt=1 (a batch in grid z) needs sk=1");
  if (p.batched == 1 && p.peel == 1) return fail(why, "bt=1 (a batch in grid z) needs pe=0");
  if (p.stage_b == 1 && (!c.trans_b || p.peel == 1 || p.batched == 1))
    return fail(why, "tp=1 (B staged) needs tb=1, pe=0 and bt=0");
  if (p.stage_a == 1 && (c.trans_a || p.peel == 1 || p.batched == 1))
    return fail(why, "sa=1 (A staged) needs ta=0, pe=0 and bt=0");
  if (p.wm > p.bm || p.wn > p.bn) return fail(why, "the warp tile must fit in the block tile");
  const int t = threads(p);
  if (t < 32 || t > 512) return fail(why, "threads per block (bm/wm)*(bn/wn)*32 must be 32..512");
  if (p.tm() % 4 != 0 || p.tn() % 4 != 0)
    return fail(why, "thread tile wm*ln/32 x wn/ln must be multiples of 4 (16-byte fragments)");
  if (p.tm() * p.tn() > 128) return fail(why, "thread tile must be at most 128 accumulators (registers)");
  // A staged operand's workspace rows are 16-byte aligned in either class
  // (AG_VEC_A, AG_VEC_B in sgemm_warptiled.cu).
  const bool a_k_contiguous = !c.trans_a && p.stage_a == 0;
  const int a_vec = a_k_contiguous ? 1 : p.stage_a == 1 ? 4 : p.vec;
  if (!copies_divide(p.bm, p.bk, a_k_contiguous, a_vec, t, why)) return false;
  const bool b_k_contiguous = c.trans_b && p.stage_b == 0;
  return copies_divide(p.bn, p.bk, b_k_contiguous, b_k_contiguous ? 1 : p.stage_b == 1 ? 4 : p.vec, t, why);
}

bool WarpTiledFamily::can_implement(const KernelConfig& c, const Problem& p) const {
  const WarpTiledParams& t = params(c);
  // One block per tile on a 1-D grid (at most 2^31 - 1 blocks).
  if (tiles(t, p) > int64_t(INT32_MAX)) return false;
  // The staging launches: 32x32 tiles, N (or M) on grid y; the copies within
  // what dispatch allocates.
  if (t.stage_b == 1 && (p.n + 31) / 32 > 65535) return false;
  if (t.stage_a == 1 && (p.m + 31) / 32 > 65535) return false;
  if ((t.stage_a == 1 || t.stage_b == 1) && p.k > 0 && staged_k(t, p) == 0) return false;
  return t.vec == 1 || p.aligned;
}

bool WarpTiledFamily::batches(const KernelConfig& c) const { return params(c).batched == 1; }

std::optional<KernelConfig> WarpTiledFamily::default_config(const Problem& p) const {
  WarpTiledParams t;
  t.vec = p.aligned ? 4 : 1;
  t.batched = p.batch > 1 ? 1 : 0;
  t.wm = 64, t.wn = 64, t.stages = 3;
  if (p.m * p.n >= int64_t(2048) * 2048) {
    // The 4096^3 winner on the H200; within 3% of the tuned best on average
    // over the large suite shapes measured (results/2026-12-01-s6-*).
    t.bm = 128, t.bn = 256, t.bk = 16, t.ln = 4;
  } else {
    // Smaller outputs: 64x128 tiles, twice the blocks. No split-K: a default
    // must serve every problem of its class, and a split-K workspace grows
    // with M*N past what dispatch allocates. Warp lanes as 4x8 (ln=4): with
    // 8x4 the NT build with 16-byte copies spills (ptxas, sm_90).
    t.bm = 64, t.bn = 128, t.bk = 8, t.ln = 4;
    // A batch of them: the measured winner of 64x64x64@4096 (64x64 tiles,
    // 64x32 warps, 4 stages); the 64x64-warp tile spills in its NT build
    // with the batch's pointer moves.
    if (p.batch > 1) t.bn = 64, t.wn = 32, t.stages = 4;
  }
  t.swizzle = (p.m + t.bm - 1) / t.bm >= 16 ? 8 : 1;
  return KernelConfig(t, p.trans_a, p.trans_b);
}

LaunchGeometry WarpTiledFamily::geometry(const KernelConfig& c, const Problem& p) const {
  const WarpTiledParams& t = params(c);
  LaunchGeometry g;
  g.grid_x = unsigned(tiles(t, p));
  g.grid_z = unsigned(t.split_k);
  g.block = unsigned(threads(t));
  g.smem = unsigned(smem_bytes(t));
  return g;
}

size_t WarpTiledFamily::staged_b_at(const WarpTiledParams& t, const Problem& p) {
  // The counter area other families rely on being zero, then the partial
  // tiles, rows padded to a multiple of 4 floats (AG_WS_SKIP, AG_WS_LD).
  const size_t partials = t.split_k > 1 ? size_t(t.split_k) * size_t(p.m) * size_t((p.n + 3) / 4 * 4) : 0;
  return (kWorkspaceCounterFloats + partials + 31) / 32 * 32;
}

namespace {

// The staging layout with `k` rows a copy: where A's copy starts, and the
// workspace's end.
struct StagedLayout {
  size_t a_at, end;
};
StagedLayout staged_layout(const WarpTiledParams& t, const Problem& p, int64_t k) {
  using F = WarpTiledFamily;
  const size_t b_end = F::staged_b_at(t, p) + (t.stage_b == 1 ? size_t(k) * size_t(F::staged_ldb(p)) : 0);
  const size_t a_at = (b_end + 31) / 32 * 32;
  return {a_at, t.stage_a == 1 ? a_at + size_t(k) * size_t(F::staged_lda(p)) : b_end};
}

}  // namespace

size_t WarpTiledFamily::staged_a_at(const WarpTiledParams& t, const Problem& p) {
  return staged_layout(t, p, staged_k(t, p)).a_at;
}

int64_t WarpTiledFamily::staged_k(const WarpTiledParams& t, const Problem& p) {
  const size_t cap = KernelConfig::kMaxWorkspaceFloats;
  if (staged_layout(t, p, p.k).end <= cap) return p.k;
  const size_t start = staged_b_at(t, p);
  const size_t per_k = (t.stage_b == 1 ? size_t(staged_ldb(p)) : 0) + (t.stage_a == 1 ? size_t(staged_lda(p)) : 0);
  if (t.split_k > 1 || per_k == 0 || start >= cap) return 0;
  int64_t chunk = int64_t((cap - start) / per_k / 32 * 32);
  // A's copy starts aligned after B's: up to 31 floats more, never a 32-row step.
  if (chunk > 0 && staged_layout(t, p, chunk).end > cap) chunk -= 32;
  return chunk;
}

// The cap leaves room for exactly the counters in front of a staged copy.
static_assert(KernelConfig::kMaxWorkspaceFloats == (size_t(64) << 20) + kWorkspaceCounterFloats);

size_t WarpTiledFamily::workspace_floats(const KernelConfig& c, const Problem& p) const {
  const WarpTiledParams& t = params(c);
  if (t.stage_a == 1 || t.stage_b == 1) return staged_layout(t, p, staged_k(t, p)).end;
  if (t.split_k <= 1) return 0;
  return kWorkspaceCounterFloats + size_t(t.split_k) * size_t(p.m) * size_t((p.n + 3) / 4 * 4);
}

WarpTiledFamily::MainPart WarpTiledFamily::main_part(const WarpTiledParams& t, const Problem& p) {
  const auto keep = [&](int64_t side, int tile) {
    const int64_t rest = side % tile;
    return t.peel == 1 && side > tile && rest >= 1 && rest <= kPeelMax ? side - rest : side;
  };
  return MainPart{keep(p.m, t.bm), keep(p.n, t.bn)};
}

std::vector<std::string> WarpTiledFamily::entry_points(const KernelConfig& c) const {
  std::vector<std::string> out = {"agemm_warptiled"};
  if (params(c).split_k > 1) out.push_back("agemm_warptiled_reduce");
  if (params(c).peel == 1)
    for (const char* e : {"agemm_warptiled_peel1", "agemm_warptiled_peel2", "agemm_warptiled_peel4", "agemm_warptiled_peel8"})
      out.push_back(e);
  if (params(c).stage_a == 1 || params(c).stage_b == 1) out.push_back("agemm_warptiled_transpose");
  return out;
}

namespace {

// One strip D[l][s] = alpha * sum_k X(l, k) Y(k, s) + beta * D[l][s] (element
// strides), as agemm_warptiled_peel reads it.
struct Strip {
  int64_t l = 0, s = 0;
  const float *x = nullptr, *y = nullptr;
  long long xl = 0, xk = 0, yk = 0, ys = 0, dl = 0, ds = 0;
  float* d = nullptr;
};

// `peel` holds agemm_warptiled_peel1, 2, 4 and 8: the smallest that holds the strip runs it.
void launch_strip(const CUfunction* peel, Strip st, const LaunchArgs& a) {
  const CUfunction f = peel[st.s <= 1 ? 0 : st.s <= 2 ? 1 : st.s <= 4 ? 2 : 3];
  int l = int(st.l), s = int(st.s), k = int(a.call.problem.k);
  float alpha = a.call.alpha, beta = a.call.beta;
  CUdeviceptr x = reinterpret_cast<CUdeviceptr>(st.x), y = reinterpret_cast<CUdeviceptr>(st.y),
              d = reinterpret_cast<CUdeviceptr>(st.d);
  void* args[] = {&l, &s, &k, &alpha, &x, &st.xl, &st.xk, &y, &st.yk, &st.ys, &beta, &d, &st.dl, &st.ds};
  const unsigned blocks = unsigned((st.l + 7) / 8);  // 8 values of l a block
  check(driver().cuLaunchKernel(f, blocks, 1, 1, 256, 1, 1, 0, a.stream, args, nullptr),
        "cuLaunchKernel(agemm_warptiled_peel)");
}

// The strips outside `main`: every row of the columns past main.n, then the
// rows past main.m of the columns before it. Offsets only on real pointers
// (alpha == 0 allows null operands).
void launch_strips(const CUfunction* peel, const WarpTiledFamily::MainPart& main, const LaunchArgs& a) {
  const Problem& p = a.call.problem;
  const long long am = p.trans_a ? 1 : p.lda, ak = p.trans_a ? p.lda : 1;  // op(A)(m, k)
  const long long bk = p.trans_b ? 1 : p.ldb, bn = p.trans_b ? p.ldb : 1;  // op(B)(k, n)
  const auto at = [](const float* base, int64_t offset) { return base ? base + offset : nullptr; };
  if (main.n < p.n)
    launch_strip(peel, Strip{p.m, p.n - main.n, a.call.a, at(a.call.b, main.n * bn), am, ak, bk, bn, p.ldc, 1,
                          a.call.c + main.n},
                 a);
  if (main.m < p.m)
    launch_strip(peel, Strip{main.n, p.m - main.m, a.call.b, at(a.call.a, main.m * am), bn, bk, ak, am, 1, p.ldc,
                          a.call.c + main.m * p.ldc},
                 a);
}

// Launches agemm_warptiled_transpose: out[k][i] = src[i][k] for i < rows,
// k < `k_rows`, rows ld_out floats apart, at `out_at` floats into the workspace.
const float* transpose_into_workspace(CUfunction f, const float* src, int64_t rows, int64_t k_rows, int64_t ld,
                                      int64_t ld_out, size_t out_at, const LaunchArgs& a) {
  int r = int(rows), k = int(k_rows);
  long long lds = ld, ldo = ld_out;
  CUdeviceptr in = reinterpret_cast<CUdeviceptr>(src), out = a.workspace + out_at * sizeof(float);
  void* args[] = {&r, &k, &in, &lds, &out, &ldo};
  check(driver().cuLaunchKernel(f, unsigned((k + 31) / 32), unsigned((rows + 31) / 32), 1, 256, 1, 1, 0, a.stream,
                                args, nullptr),
        "cuLaunchKernel(agemm_warptiled_transpose)");
  return reinterpret_cast<const float*>(out);
}

// tp=1 / sa=1: B^T copied into the workspace as K x N rows, A as K x M
// rows, which `inner` then names (the main kernel is built for
// n-contiguous B, m-contiguous A). With alpha 0 or K 0 no operand is read,
// so none is staged (they may be null then).
void stage_operands(CUfunction f, const WarpTiledParams& t, CanonicalCall& inner, const LaunchArgs& a) {
  using F = WarpTiledFamily;
  Problem& p = inner.problem;
  if (a.call.alpha == 0.f || p.k == 0) return;
  if (t.stage_b == 1) {
    inner.b = transpose_into_workspace(f, inner.b, p.n, p.k, p.ldb, F::staged_ldb(p), F::staged_b_at(t, p), a);
    p.ldb = F::staged_ldb(p);
    p.trans_b = false;
  }
  if (t.stage_a == 1) {
    inner.a = transpose_into_workspace(f, inner.a, p.m, p.k, p.lda, F::staged_lda(p), F::staged_a_at(t, p), a);
    p.lda = F::staged_lda(p);
    p.trans_a = true;
  }
}

// A staged product whose copies the workspace holds staged_k rows of at a
// time: C = alpha op(A) op(B) + beta C over the first chunk of K, then
// C += alpha op(A) op(B) over each next one, each chunk staged in turn
// (stream order keeps a copy until its product is done).
void launch_staged_chunks(const KernelConfig& c, const LaunchArgs& a) {
  const WarpTiledParams& t = c.get<WarpTiledParams>();
  const Problem& p = a.call.problem;
  const int64_t chunk = WarpTiledFamily::staged_k(t, p);
  check(chunk > 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE, "warptiled: no staged chunk fits the workspace");
  const int64_t a_k = p.trans_a ? p.lda : 1, b_k = p.trans_b ? 1 : p.ldb;  // one step along K in A and in B
  for (int64_t k0 = 0; k0 < p.k; k0 += chunk) {
    CanonicalCall inner = a.call;
    inner.problem.k = std::min(chunk, p.k - k0);
    inner.a += k0 * a_k, inner.b += k0 * b_k;
    if (k0 > 0) inner.beta = 1.f;
    stage_operands(a.functions.back(), t, inner, a);
    const LaunchArgs ai{a.functions, inner, a.stream, a.workspace, a.sm_count, a.dependent_launch};
    launch_gemm_kernel(a.functions.at(0), c.family().geometry(c, inner.problem), ai,
                       "cuLaunchKernelEx(agemm_warptiled)", true);
    if (t.split_k > 1) launch_reduce_kernel(a.functions.at(1), ai, "cuLaunchKernel(agemm_warptiled_reduce)");
  }
}

}  // namespace

void WarpTiledFamily::launch(const KernelConfig& c, const LaunchArgs& a) const {
  const WarpTiledParams& t = params(c);
  const bool staged = t.stage_a == 1 || t.stage_b == 1;
  // Staged configs have no peeled edges (space and config rules).
  if (staged && a.call.alpha != 0.f && a.call.problem.k > 0) return launch_staged_chunks(c, a);
  const MainPart main = main_part(t, a.call.problem);
  CanonicalCall inner = a.call;
  inner.problem.m = main.m, inner.problem.n = main.n;
  const LaunchArgs ai{a.functions, inner, a.stream, a.workspace, a.sm_count, a.dependent_launch};
  launch_gemm_kernel(a.functions.at(0), geometry(c, inner.problem), ai, "cuLaunchKernelEx(agemm_warptiled)", true);
  // sk > 1: the second kernel folds the partial tiles into C, over the GPU.
  if (t.split_k > 1) launch_reduce_kernel(a.functions.at(1), ai, "cuLaunchKernel(agemm_warptiled_reduce)");
  if (t.peel == 1) launch_strips(a.functions.data() + a.functions.size() - 4, main, a);
}

std::optional<std::string> WarpTiledFamily::arch(const DeviceInfo& dev) const {
  if (dev.cc_major < 8) return std::nullopt;  // cp.async needs sm_80
  return dev.arch();
}

}  // namespace autogemm
