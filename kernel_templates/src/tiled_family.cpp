// The tiled family: parameter table, validity, resources, launch.
// Its search space and cost model are in tiled_space.cpp.
#include "autogemm/tiled_family.h"

#include <algorithm>

#include "autogemm/cuda_driver.h"
#include "autogemm/kernel_config.h"
#include "autogemm/tabled_family_impl.h"

namespace autogemm {

template class TabledFamily<TiledFamily, TiledParams>;

namespace {

bool fail(std::string* why, const std::string& msg) {
  if (why) *why = msg;
  return false;
}

}  // namespace

bool TiledParams::operator==(const TiledParams& o) const { return TiledFamily::same(*this, o); }

const ParamTable<TiledParams>& TiledFamily::table() {
  using P = TiledParams;
  // Text order is row order. st, mb and ku came later: optional, so stored
  // configs from before them keep their meaning.
  static const ParamTable<P> t = {
      {"bm", "AG_BM", &P::bm, {16, 32, 64, 128, 256}, 0, 0, 0, Presence::Always, nullptr, "16..256, a power of two",
       "rows of C per thread block"},
      {"bn", "AG_BN", &P::bn, {16, 32, 64, 128, 256}, 0, 0, 0, Presence::Always, nullptr, "16..256, a power of two",
       "columns of C per thread block"},
      {"bk", "AG_BK", &P::bk, {4, 8, 16, 32}, 0, 0, 0, Presence::Always, nullptr, "4, 8, 16 or 32",
       "K depth staged in shared memory per step"},
      {"tm", "AG_TM", &P::tm, {1, 2, 4, 8, 16}, 0, 0, 0, Presence::Always, nullptr, "1..16, a power of two",
       "rows of C per thread, held in registers"},
      {"tn", "AG_TN", &P::tn, {1, 2, 4, 8, 16}, 0, 0, 0, Presence::Always, nullptr, "1..16, a power of two",
       "columns of C per thread, held in registers"},
      {"wc", "AG_WC", &P::wc, {1, 2, 4, 8, 16, 32}, 0, 0, 8, Presence::Always, nullptr, "a power of two <= 32",
       "threads of a warp laid along N (the warp is 32/wc x wc threads)"},
      {"vec", "AG_VEC", &P::vec, {1, 4}, 0, 0, 1, Presence::Always, nullptr, "1 or 4",
       "global access width in floats: 4 = 16-byte (aligned class only), 1 = any pointer and leading dimension"},
      {"sk", "AG_SPLIT_K", &P::split_k, {}, 1, 256, 1, Presence::Always, nullptr, "1..256",
       "split-K: K slices computed by separate blocks and reduced deterministically (1 = none)"},
      {"rd", "AG_SPLIT_REDUCE", &P::split_reduce, {0, 1}, 0, 0, 0, Presence::When,
       [](const P& p) { return p.split_k > 1; }, "0 or 1, given exactly when sk > 1",
       "split-K reduction: 0 = the last block of each tile folds it, 1 = a second kernel folds all tiles"},
      {"sw", "AG_SWIZZLE", &P::swizzle, {1, 2, 4, 8, 16}, 0, 0, 1, Presence::Always, nullptr, "1, 2, 4, 8 or 16",
       "block raster group height: groups of sw tile-rows walked column by column, for L2 reuse"},
      {"st", "AG_STAGES", &P::stages, {0, 2, 3, 4}, 0, 0, 0, Presence::UnlessDefault, nullptr,
       "0 (register staging) or 2..4 (cp.async stages)",
       "global-to-shared pipeline: 0 = register staging, 2..4 = cp.async stages"},
      {"mb", "AG_MIN_BLOCKS", &P::min_blocks, {}, 1, 4, 1, Presence::UnlessDefault, nullptr, "1..4",
       "blocks per SM promised to __launch_bounds__ (caps registers per thread)"},
      {"ku", "AG_KUNROLL", &P::k_unroll, {0, 2, 4, 8, 16}, 0, 0, 0, Presence::UnlessDefault, nullptr,
       "0 (all of bk) or 2, 4, 8, 16 below bk",
       "k steps unrolled per inner loop trip (0 = all of bk)"},
      {"bt", "AG_BATCHED", &P::batched, {0, 1}, 0, 0, 0, Presence::UnlessDefault, nullptr, "0 or 1",
       "1 = a strided batch, one product per grid z (needs sk=1)"},
  };
  return t;
}

bool TiledFamily::constraints_hold(const TiledParams& p, const KernelConfig&, std::string* why) const {
  if (p.tm > p.bm) return fail(why, "tm must be <= bm");
  if (p.tn > p.bn) return fail(why, "tn must be <= bn");
  if (p.tm * p.tn > 256) return fail(why, "tm*tn must be <= 256 (register budget)");
  const int t = threads(p);
  if (t < 32 || t > 1024) return fail(why, "threads per block (bm/tm)*(bn/tn) must be 32..1024");
  if ((p.bn / p.tn) % p.wc != 0 || (p.bm / p.tm) % (32 / p.wc) != 0)
    return fail(why, "the warp shape (32/wc x wc) must tile the thread grid");
  if (p.split_k == 1 && p.split_reduce != 0) return fail(why, "rd must be 0 without split-K");
  if (p.batched == 1 && p.split_k > 1) return fail(why, "bt=1 (a batch in grid z) needs sk=1");
  if (p.min_blocks * t > 2048) return fail(why, "mb * threads must be <= 2048 (threads per SM)");
  if (p.k_unroll != 0 && p.k_unroll >= p.bk) return fail(why, "ku must be below bk");
  return true;
}

bool TiledFamily::can_implement(const KernelConfig& c, const Problem& p) const {
  const TiledParams& t = params(c);
  if (t.split_k > 1 && ((p.m + t.bm - 1) / t.bm) * ((p.n + t.bn - 1) / t.bn) > int64_t(kSplitTiles)) return false;
  return t.vec == 1 || p.aligned;
}

bool TiledFamily::batches(const KernelConfig& c) const { return params(c).batched == 1; }

std::optional<KernelConfig> TiledFamily::default_config(const Problem& p) const {
  TiledParams t;
  t.vec = p.aligned ? 4 : 1;
  t.batched = p.batch > 1 ? 1 : 0;
  t.bk = 8;
  t.wc = 8;
  if (p.m * p.n >= 1024 * 1024) {
    // 16x8 per thread, 128 threads: near the best measured tiles on H200 at 4096^3.
    t.bm = 128, t.bn = 128, t.tm = 16, t.tn = 8, t.swizzle = 8;
  } else {
    t.bm = 64, t.bn = 64, t.tm = 4, t.tn = 4, t.swizzle = 4;
  }
  return KernelConfig(t, p.trans_a, p.trans_b);
}

int TiledFamily::threads(const TiledParams& t) {
  if (t.tm <= 0 || t.tn <= 0) return 0;
  return (t.bm / t.tm) * (t.bn / t.tn);
}

size_t TiledFamily::smem_bytes(const TiledParams& t) {
  const int pad = 4;                                  // AG_PAD in sgemm_tiled.cu
  const int buffers = t.stages > 0 ? t.stages : 2;    // AG_NBUF
  return size_t(buffers) * t.bk * ((t.bm + pad) + (t.bn + pad)) * sizeof(float);
}

int TiledFamily::threads(const KernelConfig& c) const { return threads(params(c)); }
size_t TiledFamily::smem_bytes(const KernelConfig& c) const { return smem_bytes(params(c)); }

size_t TiledFamily::workspace_floats(const KernelConfig& c, const Problem& p) const {
  const TiledParams& t = params(c);
  if (t.split_k <= 1) return 0;
  // Tile counters, then the partial tiles (see sgemm_tiled.cu).
  return kSplitTiles + size_t(t.split_k) * size_t(p.m) * size_t(p.n);
}

size_t TiledFamily::workspace_counter_floats(const KernelConfig& c) const {
  return params(c).split_k > 1 ? kSplitTiles : 0;
}

LaunchGeometry TiledFamily::geometry(const KernelConfig& c, const Problem& p) const {
  const TiledParams& t = params(c);
  LaunchGeometry g;
  g.grid_x = unsigned(((p.m + t.bm - 1) / t.bm) * ((p.n + t.bn - 1) / t.bn));
  g.grid_z = unsigned(t.split_k);
  g.block = unsigned(threads(t));
  g.smem = unsigned(smem_bytes(t));
  return g;
}

std::vector<std::string> TiledFamily::entry_points(const KernelConfig& c) const {
  const TiledParams& t = params(c);
  if (t.split_k > 1 && t.split_reduce == 1) return {"agemm_tiled", "agemm_splitk_reduce"};
  return {"agemm_tiled"};
}

void TiledFamily::launch(const KernelConfig& c, const LaunchArgs& a) const {
  const Problem& p = a.call.problem;
  launch_gemm_kernel(a.functions.at(0), geometry(c, p), a, "cuLaunchKernelEx(agemm_tiled)", true);
  if (a.functions.size() < 2) return;
  // rd=1: the second kernel folds every tile's slices, spread over the GPU.
  launch_reduce_kernel(a.functions[1], a, "cuLaunchKernel(agemm_splitk_reduce)");
}

std::vector<KernelConfig> TiledFamily::history_variants(const KernelConfig& winner) const {
  if (params(winner).split_k == 1) return {winner};
  KernelConfig plain = winner;  // the same tiles without split-K
  plain.get<TiledParams>().split_k = 1;
  plain.get<TiledParams>().split_reduce = 0;
  return {winner, plain};
}

bool TiledFamily::worth_borrowing(const KernelConfig& c, const Problem& p) const {
  // A borrowed split-K config must still leave each slice real work.
  const TiledParams& t = params(c);
  return t.split_k == 1 || p.k / t.split_k >= 2 * t.bk;
}

}  // namespace autogemm
