// The tf32x3 family: parameter table, validity, resources, launch, search
// space and cost model.
#include "autogemm/tf32x3_family.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "autogemm/cuda_driver.h"
#include "autogemm/kernel_config.h"
#include "autogemm/param_space.h"
#include "autogemm/tabled_family_impl.h"

namespace autogemm {

template class TabledFamily<Tf32x3Family, Tf32x3Params>;

namespace {

bool fail(std::string* why, const std::string& msg) {
  if (why) *why = msg;
  return false;
}

int64_t tiles_of(const Tf32x3Params& t, const Problem& p) {
  return ((p.m + t.bm - 1) / t.bm) * ((p.n + t.bn - 1) / t.bn);
}

int64_t next_pow2(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

// Registers beyond the tile: addresses, loop state, the epilogue. Measured
// with ptxas (sm_90) over the warp tiles and layouts: 22..37 above
// tile_registers(); only used to prune and to estimate occupancy.
constexpr int kOverheadRegisters = 40;
// The space keeps accumulators + fragments at or under this: the largest
// tile, 64x64 without drain (224), compiled to 248..255 registers and no
// spills in every layout tried.
constexpr int kSpaceTileRegisters = 224;

}  // namespace

bool Tf32x3Params::operator==(const Tf32x3Params& o) const { return Tf32x3Family::same(*this, o); }

const ParamTable<Tf32x3Params>& Tf32x3Family::table() {
  using P = Tf32x3Params;
  static const ParamTable<P> t = {
      {"bm", "AG_BM", &P::bm, {64, 128, 256}, 0, 0, 0, Presence::Always, nullptr, "64, 128 or 256",
       "rows of C per thread block"},
      {"bn", "AG_BN", &P::bn, {64, 128, 256}, 0, 0, 0, Presence::Always, nullptr, "64, 128 or 256",
       "columns of C per thread block"},
      {"bk", "AG_BK", &P::bk, {16, 32}, 0, 0, 0, Presence::Always, nullptr, "16 or 32",
       "K depth of one pipeline stage"},
      {"wm", "AG_WM", &P::wm, {32, 64}, 0, 0, 0, Presence::Always, nullptr, "32 or 64",
       "rows of C per warp"},
      {"wn", "AG_WN", &P::wn, {32, 64}, 0, 0, 0, Presence::Always, nullptr, "32 or 64",
       "columns of C per warp"},
      {"st", "AG_STAGES", &P::stages, {2, 3, 4}, 0, 0, 3, Presence::Always, nullptr, "2, 3 or 4",
       "cp.async pipeline depth: shared buffers per operand"},
      {"vec", "AG_VEC", &P::vec, {1, 4}, 0, 0, 1, Presence::Always, nullptr, "1 or 4",
       "4 = 16-byte copies of a k-contiguous operand and 8-byte stores of C (aligned class only); 1 = 4-byte copies, any"},
      {"dr", "AG_DRAIN", &P::drain, {0, 1, 2, 4, 8}, 0, 0, 0, Presence::Always, nullptr, "0, 1, 2, 4 or 8",
       "accumulator drain: 0 = products accumulate in the MMA accumulators; d = every d K slices are added into FP32 totals"},
      {"sw", "AG_SWIZZLE", &P::swizzle, {1, 2, 4, 8, 16}, 0, 0, 1, Presence::Always, nullptr, "1, 2, 4, 8 or 16",
       "block raster group height: groups of sw tile-rows walked column by column, for L2 reuse"},
  };
  return t;
}

int Tf32x3Family::threads(const Tf32x3Params& t) {
  if (t.wm <= 0 || t.wn <= 0) return 0;
  return (t.bm / t.wm) * (t.bn / t.wn) * 32;
}

size_t Tf32x3Family::smem_bytes(const Tf32x3Params& t) {
  const int lds = t.bk + 4;  // AG_LDS in sgemm_tf32x3.cu
  return size_t(t.stages) * size_t(t.bm + t.bn) * lds * sizeof(float);
}

int Tf32x3Family::tile_registers(const Tf32x3Params& t) {
  const int acc = t.wm * t.wn / 32;  // one FP32 accumulator per C element of the warp tile
  // Three TF32 pieces (big, cross big, small) of every fragment of one k8
  // step: 2 values per n8 tile of B, 4 per m16 tile of A (see multiply_slice).
  const int frags = 3 * 2 * (t.wn / 8) + 3 * 4 * (t.wm / 16);
  return acc * (t.drain > 0 ? 2 : 1) + frags;
}

int Tf32x3Family::blocks_per_sm(const Tf32x3Params& t, const SearchLimits& lim) {
  const int th = std::max(32, threads(t));
  const int regs = (std::min(255, tile_registers(t) + kOverheadRegisters) + 7) / 8 * 8;
  const int64_t by_regs = lim.regs_per_sm / (int64_t(regs) * th);
  const int64_t by_smem = int64_t(lim.smem_per_sm / (smem_bytes(t) + 1024));
  const int64_t by_threads = lim.max_threads_per_sm / th;
  return int(std::max<int64_t>(1, std::min({by_regs, by_smem, by_threads, int64_t(32)})));
}

int Tf32x3Family::threads(const KernelConfig& c) const { return threads(params(c)); }
size_t Tf32x3Family::smem_bytes(const KernelConfig& c) const { return smem_bytes(params(c)); }

bool Tf32x3Family::constraints_hold(const Tf32x3Params& p, const KernelConfig&, std::string* why) const {
  const int t = threads(p);
  if (t < 64 || t > 512) return fail(why, "threads per block (bm/wm)*(bn/wn)*32 must be 64..512");
  // 64K registers per block (sm_80..sm_90), at most 255 per thread; beyond
  // that ptxas spills the accumulators, which is correct but hopeless.
  if (tile_registers(p) > std::min(255, 65536 / t))
    return fail(why, "accumulators and fragments must fit in min(255, 65536/threads) registers "
                     "(a 64x64 warp tile takes no drain)");
  return true;
}

bool Tf32x3Family::can_implement(const KernelConfig& c, const Problem& p) const {
  const Tf32x3Params& t = params(c);
  // One block per tile on a 1-D grid (at most 2^31 - 1 blocks).
  if (tiles_of(t, p) > int64_t(INT32_MAX)) return false;
  return t.vec == 1 || p.aligned;
}

std::optional<KernelConfig> Tf32x3Family::default_config(const Problem&) const { return std::nullopt; }

LaunchGeometry Tf32x3Family::geometry(const KernelConfig& c, const Problem& p) const {
  const Tf32x3Params& t = params(c);
  LaunchGeometry g;
  g.grid_x = unsigned(tiles_of(t, p));
  g.block = unsigned(threads(t));
  g.smem = unsigned(smem_bytes(t));
  return g;
}

void Tf32x3Family::launch(const KernelConfig& c, const LaunchArgs& a) const {
  launch_gemm_kernel(a.functions.at(0), geometry(c, a.call.problem), a, "cuLaunchKernel(agemm_tf32x3)");
}

namespace {

// The space, as data. Axes outermost first; each constraint names the last
// axis it reads (see param_space.h).
const ParamSpace<Tf32x3Params>& tf32x3_space() {
  using P = Tf32x3Params;
  using Point = SpacePoint<P>;
  using F = Tf32x3Family;
  enum { BM, BN, WM, WN, PIPE, DR };
  // Stage depth by slice depth: bytes in flight per stage double from bk 16
  // to 32, so bk 16 gets the deeper pipelines.
  const SpaceAxis<P> pipes{{&P::bk, &P::stages}, {{16, 3}, {16, 4}, {32, 2}, {32, 3}, {32, 4}}};
  static const ParamSpace<P> space(
      {axis(&P::bm, {64, 128, 256}), axis(&P::bn, {64, 128, 256}), axis(&P::wm, {32, 64}), axis(&P::wn, {32, 64}),
       pipes, axis(&P::drain, {0, 1, 4})},
      {{"the alignment class sets the copy width", -1, [](P& c, const Problem& p) { c.vec = p.aligned ? 4 : 1; }},
       // Swizzle is not searched: bands of 8 tile-rows where there are enough.
       {"raster bands of 8 tile rows where there are 16", BM,
        [](P& c, const Problem& p) { c.swizzle = (p.m + c.bm - 1) / c.bm >= 16 ? 8 : 1; }}},
      {{"tiles up to the next power of two of M", BM,
        [](const Point& x) { return x.params.bm <= std::max<int64_t>(64, next_pow2(x.problem.m)); }},
       {"tiles up to the next power of two of N", BN,
        [](const Point& x) { return x.params.bn <= std::max<int64_t>(64, next_pow2(x.problem.n)); }},
       // 4..8 warps: fewer leaves the tensor cores of an SM's four schedulers
       // idle; more makes each warp's share of a tile thin.
       {"4 to 8 warps, within the device's limit", WN,
        [](const Point& x) {
          const int t = F::threads(x.params);
          return t >= 128 && t <= std::min(256, x.limits.max_threads);
        }},
       {"shared memory within the device's limits", PIPE,
        [](const Point& x) {
          const size_t bytes = F::smem_bytes(x.params);
          return bytes <= x.limits.max_smem && bytes <= x.limits.smem_per_sm;
        }},
       // A drain interval of all slices or more changes nothing but the
       // register count.
       {"a drain interval shorter than K", DR,
        [](const Point& x) { return x.params.drain == 0 || x.params.drain < (x.problem.k + x.params.bk - 1) / x.params.bk; }},
       // Technique: no undrained accumulation for deep K. Measured on the
       // H200 (2026-12-01, wide-exponent data): dr=0 errs 1.4e-5 at K = 2048
       // and 3e-5 at K = 4096 (FFMA: 8e-7), above the 1e-5 bound; drained
       // configs verified at every K measured.
       {"K above 1024 drains its accumulators", DR, [](const Point& x) { return x.params.drain > 0 || x.problem.k <= 1024; }},
       {"the tile's registers within the space's bound and the SM's file", DR,
        [](const Point& x) {
          const int tile = F::tile_registers(x.params);
          return tile <= kSpaceTileRegisters && int64_t(std::min(255, tile + kOverheadRegisters)) * F::threads(x.params) <= x.limits.regs_per_sm;
        }},
       implements_problem<P>()});
  return space;
}

}  // namespace

std::vector<KernelConfig> Tf32x3Family::search_space(const Problem& p, const SearchLimits& lim) const {
  return tf32x3_space().enumerate(p, lim);
}

bool Tf32x3Family::in_space(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const {
  return tf32x3_space().admits(c, p, lim);
}

double Tf32x3Family::cost(const KernelConfig& cfg, const Problem& p, const SearchLimits& lim) const {
  const Tf32x3Params& c = params(cfg);
  const double blocks = double(tiles_of(c, p));
  const double occ = blocks_per_sm(c, lim);
  const double waves = std::ceil(blocks / (lim.sm_count * occ));
  // Blocks an SM runs at once: occ, or its share of a single partial wave.
  const double resident = std::min(occ, std::ceil(blocks / lim.sm_count));
  // MMA work of one block, padded tiles included (edge waste is real work).
  const double block_mac = double(c.bm) * c.bn * std::ceil(double(p.k) / c.bk) * c.bk;
  // Splitting is ALU work beside the MMAs: per k8 step a lane splits
  // (wm + wn)/4 values for wm*wn/128 * 3 MMAs of its warp; larger warp tiles
  // amortize it (32x32: 0.67 splits per MMA, 64x64: 0.33).
  const double splits_per_mma = (c.wm + c.wn) / 4.0 / (c.wm * c.wn / 128.0 * 3.0);
  const double f_warp = 1.0 / (1.0 + 0.5 * splits_per_mma);
  // L2 traffic: a block reads (bm + bn) floats per k for bm*bn MACs; at
  // ~100 TFLOP/s an intensity of ~64 keeps the loads under L2 bandwidth.
  const double intensity = double(c.bm) * c.bn / double(c.bm + c.bn);
  const double f_mem = std::min(1.0, intensity / 64.0);
  // Latency hiding wants >= 8 resident warps per SM.
  const double warps = resident * threads(c) / 32.0;
  const double f_occ = std::min(1.0, warps / 8.0);
  double total = waves * resident * block_mac / (f_warp * f_mem * f_occ);
  // A drain adds the partial accumulators into the totals: a few percent
  // every slice, less with longer intervals.
  if (c.drain > 0) total *= 1.0 + 0.02 / c.drain;
  return total;
}

std::optional<std::string> Tf32x3Family::arch(const DeviceInfo& dev) const {
  // mma.sync.m16n8k8 with .tf32 operands and cp.async need sm_80.
  if (dev.cc_major < 8) return std::nullopt;
  return dev.arch();
}

}  // namespace autogemm
