// The tf32x3wg family: parameter table, validity, resources, launch, search
// space and cost model.
#include "autogemm/tf32x3wg_family.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "autogemm/cuda_driver.h"
#include "autogemm/kernel_config.h"
#include "autogemm/param_space.h"
#include "autogemm/tabled_family_impl.h"

namespace autogemm {

template class TabledFamily<Tf32x3WgFamily, Tf32x3WgParams>;

namespace {

bool fail(std::string* why, const std::string& msg) {
  if (why) *why = msg;
  return false;
}

int64_t tiles_of(const Tf32x3WgParams& t, const Problem& p) {
  const int bm = Tf32x3WgFamily::block_m(t);
  return ((p.m + bm - 1) / bm) * ((p.n + t.bn - 1) / t.bn);
}

// Registers beyond the accumulators: descriptors, loop state, the epilogue.
// Measured with ptxas (sm_90a, 2026-12-01): 12..27 above tile_registers().
constexpr int kOverheadRegisters = 28;
constexpr int kSliceK = 32;  // AG_BK in sgemm_tf32x3wg.cu

}  // namespace

bool Tf32x3WgParams::operator==(const Tf32x3WgParams& o) const { return Tf32x3WgFamily::same(*this, o); }

const ParamTable<Tf32x3WgParams>& Tf32x3WgFamily::table() {
  using P = Tf32x3WgParams;
  static const ParamTable<P> t = {
      {"bn", "AG_BN", &P::bn, {64, 128, 192}, 0, 0, 0, Presence::Always, nullptr, "64, 128 or 192",
       "columns of C per thread block"},
      {"wg", "AG_WG", &P::wg, {1, 2}, 0, 0, 0, Presence::Always, nullptr, "1 or 2",
       "consumer warpgroups, each a 64-row slab: the block tile is 64*wg rows"},
      {"pw", "AG_PRODUCERS", &P::producers, {1, 2}, 0, 0, 1, Presence::Always, nullptr, "1 or 2",
       "producer warpgroups (TMA copies and TF32 splits)"},
      {"ar", "AG_A_REGS", &P::a_regs, {0, 1}, 0, 0, 0, Presence::Always, nullptr, "0 or 1",
       "1 = consumers split A into registers (k-contiguous A only); 0 = producers split both operands"},
      {"raw", "AG_RAW", &P::raw, {2, 3}, 0, 0, 2, Presence::Always, nullptr, "2 or 3",
       "FP32 slice buffers in flight from global memory"},
      {"split", "AG_SPLIT", &P::split, {2, 3}, 0, 0, 2, Presence::Always, nullptr, "2 or 3",
       "split TF32 slice buffers (big and small parts) ready for the tensor cores"},
      {"dr", "AG_DRAIN", &P::drain, {0, 1, 2, 4, 8}, 0, 0, 0, Presence::Always, nullptr, "0, 1, 2, 4 or 8",
       "accumulator drain: 0 = products accumulate in the wgmma accumulators; d = every d slices are added into FP32 totals"},
      {"sw", "AG_SWIZZLE", &P::swizzle, {1, 2, 4, 8, 16}, 0, 0, 1, Presence::Always, nullptr, "1, 2, 4, 8 or 16",
       "block raster group height: groups of sw tile-rows walked column by column, for L2 reuse"},
  };
  return t;
}

size_t Tf32x3WgFamily::smem_bytes(const Tf32x3WgParams& t) {
  // Split stages hold big and small of both operands (with A in registers:
  // A's FP32 slice and B's parts), raw stages the FP32 slices (of B alone
  // with A in registers); 1024 bytes of slack align the base for the
  // 128-byte swizzle. Rows of 32 floats.
  const size_t bm = size_t(block_m(t)), bn = size_t(t.bn);
  const size_t split_rows = t.a_regs ? bm + 2 * bn : 2 * (bm + bn), raw_rows = t.a_regs ? bn : bm + bn;
  return 1024 + (size_t(t.split) * split_rows + size_t(t.raw) * raw_rows) * kSliceK * sizeof(float);
}

int Tf32x3WgFamily::consumer_registers(const Tf32x3WgParams& t) {
  // AG_CONSUMER_REGS (setmaxnreg) where the kernel defines it.
  if (t.producers == 2) return t.wg == 2 ? 160 : 232;
  if (t.wg == 2) return 216;
  return std::min(255, 65536 / threads(t) / 8 * 8);
}

int Tf32x3WgFamily::threads(const KernelConfig& c) const { return threads(params(c)); }
size_t Tf32x3WgFamily::smem_bytes(const KernelConfig& c) const { return smem_bytes(params(c)); }

bool Tf32x3WgFamily::constraints_hold(const Tf32x3WgParams& p, const KernelConfig& c, std::string* why) const {
  // One block per SM by design (__launch_bounds__(threads, 1)): 64K registers
  // for the block, at most 255 per thread; beyond that ptxas spills.
  if (p.a_regs && c.trans_a) return fail(why, "ar=1 needs k-contiguous A (ta=0)");
  if (tile_registers(p) + kOverheadRegisters > consumer_registers(p))
    return fail(why, "accumulators (and drain totals) must fit in a consumer's registers: min(255, "
                     "65536/threads), or 160 (wg=2) and 232 (wg=1) with two producer warpgroups");
  // 227 KiB: the opt-in limit of sm_90 (the family runs nowhere else).
  if (smem_bytes(p) > 227 * 1024) return fail(why, "shared memory above 227 KiB (fewer raw or split buffers)");
  return true;
}

bool Tf32x3WgFamily::can_implement(const KernelConfig& c, const Problem& p) const {
  const Tf32x3WgParams& t = params(c);
  // One block per tile on a 1-D grid (at most 2^31 - 1 blocks).
  if (tiles_of(t, p) > int64_t(INT32_MAX)) return false;
  // TMA needs 16-byte aligned operands and leading dimensions.
  return p.aligned;
}

std::optional<KernelConfig> Tf32x3WgFamily::default_config(const Problem&) const { return std::nullopt; }

LaunchGeometry Tf32x3WgFamily::geometry(const KernelConfig& c, const Problem& p) const {
  const Tf32x3WgParams& t = params(c);
  LaunchGeometry g;
  g.grid_x = unsigned(tiles_of(t, p));
  g.block = unsigned(threads(t));
  g.smem = unsigned(smem_bytes(t));
  return g;
}

namespace {

/// A 2-D tensor map over a row-major FP32 matrix of `rows` x `cols` (cols
/// contiguous, `ld` floats apart) read in boxes of box_rows x box_cols,
/// zero-filled outside the matrix.
CUtensorMap tensor_map(const float* base, int64_t rows, int64_t cols, int64_t ld, int box_rows, int box_cols,
                       CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE) {
  CUtensorMap map;
  // A dimension of 0 (K = 0: no slice is ever loaded) is not encodable.
  const cuuint64_t dims[2] = {cuuint64_t(std::max<int64_t>(cols, 1)), cuuint64_t(std::max<int64_t>(rows, 1))};
  const cuuint64_t strides[1] = {cuuint64_t(std::max<int64_t>(ld, 4)) * sizeof(float)};
  const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  check(driver().cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(base), dims,
                                        strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        "cuTensorMapEncodeTiled");
  return map;
}

}  // namespace

void Tf32x3WgFamily::launch(const KernelConfig& c, const LaunchArgs& a) const {
  const Tf32x3WgParams& t = params(c);
  const Problem& p = a.call.problem;
  const int bm = block_m(t);
  // Boxes of one K slice in each operand's global order (sgemm_tf32x3wg.cu):
  // A is M x K (k contiguous) or, transposed, K x M; B is K x N or N x K.
  // With A in registers, A lands in the 128-byte swizzled layout the
  // consumers read (a 32-float box row is exactly one swizzle row).
  const CUtensorMap ta = p.trans_a  ? tensor_map(a.call.a, p.k, p.m, p.lda, kSliceK, bm)
                         : t.a_regs ? tensor_map(a.call.a, p.m, p.k, p.lda, bm, kSliceK, CU_TENSOR_MAP_SWIZZLE_128B)
                                    : tensor_map(a.call.a, p.m, p.k, p.lda, bm, kSliceK);
  const CUtensorMap tb = p.trans_b ? tensor_map(a.call.b, p.n, p.k, p.ldb, t.bn, kSliceK)
                                   : tensor_map(a.call.b, p.k, p.n, p.ldb, kSliceK, t.bn);
  int m = int(p.m), n = int(p.n), k = int(p.k);
  float alpha = a.call.alpha, beta = a.call.beta;
  CUdeviceptr pa = reinterpret_cast<CUdeviceptr>(a.call.a), pb = reinterpret_cast<CUdeviceptr>(a.call.b),
              pc = reinterpret_cast<CUdeviceptr>(a.call.c), ws = a.workspace;
  long long lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  CUtensorMap map_a = ta, map_b = tb;
  void* args[] = {&m, &n, &k, &alpha, &pa, &lda, &pb, &ldb, &beta, &pc, &ldc, &ws, &map_a, &map_b};
  const LaunchGeometry g = geometry(c, p);
  check(driver().cuLaunchKernel(a.functions.at(0), g.grid_x, 1, 1, g.block, 1, 1, g.smem, a.stream, args, nullptr),
        "cuLaunchKernel(agemm_tf32x3wg)");
}

namespace {

// The space, as data. Axes outermost first; each constraint names the last
// axis it reads (see param_space.h).
const ParamSpace<Tf32x3WgParams>& tf32x3wg_space() {
  using P = Tf32x3WgParams;
  using Point = SpacePoint<P>;
  using F = Tf32x3WgFamily;
  enum { BN, WG, AR, RINGS, DR };
  // Ring depths (raw, split), deepest first; is_valid keeps those that fit
  // in 227 KiB with the block's tiles.
  const SpaceAxis<P> rings{{&P::raw, &P::split}, {{3, 3}, {3, 2}, {2, 2}}};
  static const ParamSpace<P> space(
      {axis(&P::bn, {64, 128, 192}), axis(&P::wg, {1, 2}), axis(&P::a_regs, {0, 1}), rings, axis(&P::drain, {0, 1})},
      {{"raster bands of 8 tile rows where there are 16", WG,
        [](P& c, const Problem& p) { c.swizzle = (p.m + F::block_m(c) - 1) / F::block_m(c) >= 16 ? 8 : 1; }},
       {"one producer warpgroup with A in registers, else two", AR,
        [](P& c, const Problem&) { c.producers = c.a_regs ? 1 : 2; }}},
      // One pipeline per layout, the faster measured at 4096^3 (H200,
      // 2026-12-01): k-contiguous A is split by the consumers into registers
      // with one producer warpgroup (1.29 ms); transposed A by two producer
      // warpgroups (1.36 ms; one: 1.90 ms).
      {{"A in registers exactly when A is k-contiguous", AR,
        [](const Point& x) { return x.params.a_regs == (x.problem.trans_a ? 0 : 1); }},
       // Technique: the shortest accumulation chains. The tensor cores'
       // accumulation loses bits with the chain's length: on the public suite
       // (wide-exponent inputs, H200, 2026-12-01) dr=4 errs 8.8e-7 at every
       // K, dr=2 4.8e-7, dr=1 2.5e-7, while cuBLAS SGEMM errs 2.0e-7 (K =
       // 128) to 1.9e-6 (K = 11008), 3.9e-7 at 128x11008x4096. Only dr=1 (a
       // drain every 32 k) stays at or below cuBLAS's error wherever K >= 256;
       // dr=0 is the same chain when K fits in one slice.
       {"a drain every slice, none when K is one slice", DR,
        [](const Point& x) { return (x.params.drain == 0) == ((x.problem.k + kSliceK - 1) / kSliceK <= 1); }},
       {"a valid config that implements the problem", kWholeConfig,
        [](const Point& x) { return x.config->is_valid(nullptr) && x.config->can_implement(x.problem); }},
       {"shared memory and threads within the device's limits", kWholeConfig,
        [](const Point& x) {
          return F::smem_bytes(x.params) <= x.limits.max_smem && F::threads(x.params) <= x.limits.max_threads;
        }}});
  return space;
}

}  // namespace

std::vector<KernelConfig> Tf32x3WgFamily::search_space(const Problem& p, const SearchLimits& lim) const {
  return tf32x3wg_space().enumerate(p, lim);
}

double Tf32x3WgFamily::cost(const KernelConfig& cfg, const Problem& p, const SearchLimits& lim) const {
  const Tf32x3WgParams& c = params(cfg);
  const double blocks = double(tiles_of(c, p));
  const double waves = std::ceil(blocks / lim.sm_count);
  const double resident = std::min(1.0, blocks / lim.sm_count);
  // Tensor-core work of one block, padded tiles included.
  const double block_mac = double(block_m(c)) * c.bn * std::ceil(double(p.k) / kSliceK) * kSliceK;
  // One consumer warpgroup leaves the tensor cores idle while it waits and
  // drains; two alternate. n64 wgmmas move as many A bytes for half the work.
  const double f_wg = c.wg == 2 ? 1.0 : 0.75;
  const double f_n = c.bn == 64 ? 0.8 : 1.0;
  // L2 traffic: (bm + bn) floats per k for bm*bn MACs.
  const double intensity = double(block_m(c)) * c.bn / double(block_m(c) + c.bn);
  const double f_mem = std::min(1.0, intensity / 64.0);
  // Deeper rings hide more latency.
  const double f_pipe = 1.0 - 0.03 * (3 - c.raw) - 0.02 * (3 - c.split);
  double total = waves * std::max(resident, 0.0) * block_mac / (f_wg * f_n * f_mem * f_pipe);
  if (c.drain > 0) total *= 1.0 + 0.04 / c.drain;
  return total;
}

std::optional<std::string> Tf32x3WgFamily::arch(const DeviceInfo& dev) const {
  // wgmma exists only as sm_90a, whose cubins run only on 9.0.
  if (dev.cc_major != 9 || dev.cc_minor != 0) return std::nullopt;
  return std::string("sm_90a");
}

}  // namespace autogemm
