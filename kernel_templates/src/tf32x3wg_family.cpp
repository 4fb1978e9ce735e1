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
constexpr int kMaxSplitK = 128;

int64_t k_slices(const Problem& p) { return (p.k + kSliceK - 1) / kSliceK; }

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
      {"raw", "AG_RAW", &P::raw, {0, 2, 3}, 0, 0, 2, Presence::Always, nullptr, "2 or 3 (0 with bs=1)",
       "FP32 slice buffers in flight from global memory"},
      {"split", "AG_SPLIT", &P::split, {2, 3, 4}, 0, 0, 2, Presence::Always, nullptr, "2 or 3 (4 with bs=1)",
       "split TF32 slice buffers (big and small parts) ready for the tensor cores"},
      {"dr", "AG_DRAIN", &P::drain, {0, 1, 2, 4, 8}, 0, 0, 0, Presence::Always, nullptr, "0, 1, 2, 4 or 8",
       "accumulator drain: 0 = products accumulate in the wgmma accumulators; d = every d slices are added into FP32 totals"},
      {"sw", "AG_SWIZZLE", &P::swizzle, {1, 2, 4, 8, 16}, 0, 0, 1, Presence::Always, nullptr, "1, 2, 4, 8 or 16",
       "block raster group height: groups of sw tile-rows walked column by column, for L2 reuse"},
      {"sk", "AG_SPLIT_K", &P::split_k, {}, 1, kMaxSplitK, 1, Presence::UnlessDefault, nullptr, "1..128",
       "split-K: K slices in separate blocks, folded by a second kernel (1 = none)"},
      {"pp", nullptr, &P::pre_pass, {0, 1}, 0, 0, 0, Presence::UnlessDefault, nullptr, "0 or 1",
       "1 = pre-pass: unaligned operands copied to aligned rows in the workspace first (the unaligned class)"},
      {"bs", "AG_B_SPLIT", &P::b_split, {0, 1}, 0, 0, 0, Presence::UnlessDefault, nullptr, "0 or 1",
       "1 = B split into its TF32 parts once, by a pre-pass into the workspace; the producers only copy (needs ar=1)"},
      {"at", "AG_A_TRANSPOSED", &P::a_transposed, {0, 1}, 0, 0, 0, Presence::UnlessDefault, nullptr, "0 or 1",
       "1 = A^T copied k-contiguous into the workspace by a pre-pass, for A split in registers (ta=1, ar=1)"},
  };
  return t;
}

size_t Tf32x3WgFamily::smem_bytes(const Tf32x3WgParams& t) {
  // Split stages hold big and small of both operands (with A in registers:
  // A's FP32 slice and B's parts), raw stages the FP32 slices (of B alone
  // with A in registers); 1024 bytes of slack align the base for the
  // 128-byte swizzle. Rows of 32 floats.
  const size_t bm = size_t(block_m(t)), bn = size_t(t.bn);
  const size_t split_rows = t.a_regs ? bm + 2 * bn : 2 * (bm + bn);
  const size_t raw_rows = t.b_split ? 0 : t.a_regs ? bn : bm + bn;
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
  if (p.a_regs && c.trans_a && !p.a_transposed) return fail(why, "ar=1 needs k-contiguous A (ta=0, or ta=1 with at=1)");
  if (p.a_transposed && !(c.trans_a && p.a_regs)) return fail(why, "at=1 is for ta=1 with ar=1");
  if (p.b_split && !p.a_regs) return fail(why, "bs=1 needs ar=1 (the producers split nothing)");
  if ((p.raw == 0) != (p.b_split == 1)) return fail(why, "raw=0 exactly with bs=1 (a pre-split B needs no raw ring)");
  if (p.split == 4 && !p.b_split) return fail(why, "split=4 only with bs=1 (the raw ring leaves no room)");
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
  if (tiles_of(t, p) > int64_t(INT32_MAX) || p.batch > int64_t(INT32_MAX)) return false;
  // A batch's tensor maps step by whole products: each operand's stride is
  // 0 (one product for all) or spans its product (TMA takes no overlapping
  // outer dimension for granted).
  // Every stride of a tensor map stays below 2^40 bytes.
  constexpr int64_t kMaxStride = (int64_t(1) << 38) - 1;  // floats
  const auto steps = [](int64_t stride, int64_t extent) {
    return stride == 0 || (stride >= extent && stride <= kMaxStride);
  };
  if (p.a_extent() > kMaxStride || p.b_extent() > kMaxStride) return false;
  if (p.batch > 1 && !(steps(p.stride_a, p.a_extent()) && steps(p.stride_b, p.b_extent()))) return false;
  // B's parts: one product, in what dispatch allocates; the split's grid y
  // counts 32-deep K slices.
  if ((t.b_split || t.a_transposed) &&
      (p.batch > 1 || k_slices(p) > 65535 || workspace_floats(c, p) > KernelConfig::kMaxWorkspaceFloats))
    return false;
  // TMA needs 16-byte aligned operands, leading dimensions and strides: an
  // unaligned single product is staged by the pre-pass, whose 2-D copies
  // take row pitches below 2^31 bytes.
  if (p.aligned) return true;
  const int64_t max_ld = int64_t(INT32_MAX) / 4;
  return t.pre_pass == 1 && p.batch == 1 && p.lda <= max_ld && p.ldb <= max_ld && p.ldc <= max_ld;
}

Tf32x3WgFamily::Staging Tf32x3WgFamily::staging(const Tf32x3WgParams& t, const Problem& p) {
  const auto up = [](int64_t v, int64_t q) { return size_t((v + q - 1) / q * q); };
  Staging s;
  // B's parts take at most half of what dispatch allocates: past that, B is
  // split and multiplied a band of whole tile columns at a time.
  s.chunk_n = p.n;
  if (t.b_split) {
    const int64_t fit = int64_t(KernelConfig::kMaxWorkspaceFloats / 2 / (2 * up(p.k, 4))) / t.bn * t.bn;
    s.chunk_n = std::min<int64_t>(p.n, std::max<int64_t>(t.bn, fit));
  }
  s.end = t.split_k > 1 ? kWorkspaceCounterFloats + size_t(t.split_k) * size_t(p.m) * up(s.chunk_n, 4) : 0;
  if (t.pre_pass == 1 && !p.aligned) {  // an aligned problem is never staged
    s.a = up(int64_t(std::max(s.end, kWorkspaceCounterFloats)), 32);
    // A transposed by its own pre-pass is not staged: B goes where A would.
    s.b = t.a_transposed ? s.a : s.a + up(int64_t((p.trans_a ? p.k : p.m) * up(p.trans_a ? p.m : p.k, 4)), 32);
    s.end = t.b_split ? s.b : s.b + size_t(p.trans_b ? p.n : p.k) * up(p.trans_b ? p.k : p.n, 4);
  }
  if (t.b_split) {
    s.b_parts = up(int64_t(std::max(s.end, kWorkspaceCounterFloats)), 32);
    s.end = s.b_parts + 2 * size_t(s.chunk_n) * up(p.k, 4);
  }
  if (t.a_transposed) {
    s.a_kmajor = up(int64_t(std::max(s.end, kWorkspaceCounterFloats)), 32);
    s.end = s.a_kmajor + size_t(p.m) * up(p.k, 4);
  }
  return s;
}

size_t Tf32x3WgFamily::workspace_floats(const KernelConfig& c, const Problem& p) const {
  // AG_WS_SKIP, then AG_SPLIT_K partial tiles of rows AG_WS_LD(N) long, then
  // the staged operands.
  return staging(params(c), p).end;
}

bool Tf32x3WgFamily::worth_borrowing(const KernelConfig& c, const Problem& p) const {
  const int sk = params(c).split_k;
  return sk == 1 || k_slices(p) >= 4 * int64_t(sk);
}

std::optional<KernelConfig> Tf32x3WgFamily::fitted(const KernelConfig& c, const Problem& p) const {
  Tf32x3WgParams t = params(c);
  if (!p.aligned) t.pre_pass = 1;
  const KernelConfig out(t, p.trans_a, p.trans_b);
  if (!out.is_valid(nullptr) || !out.can_implement(p)) return std::nullopt;
  return out;
}

std::vector<std::string> Tf32x3WgFamily::entry_points(const KernelConfig& c) const {
  std::vector<std::string> out = {"agemm_tf32x3wg"};
  if (params(c).split_k > 1) out.push_back("agemm_tf32x3wg_reduce");
  if (params(c).b_split || params(c).a_transposed) out.push_back("agemm_tf32x3wg_kmajor");  // before the stage
  if (params(c).pre_pass == 1) out.push_back("agemm_tf32x3wg_stage");  // last: launch() takes it from the back
  return out;
}

std::optional<KernelConfig> Tf32x3WgFamily::default_config(const Problem&) const { return std::nullopt; }

LaunchGeometry Tf32x3WgFamily::geometry(const KernelConfig& c, const Problem& p) const {
  const Tf32x3WgParams& t = params(c);
  LaunchGeometry g;
  g.grid_x = unsigned(tiles_of(t, p));
  g.grid_y = unsigned(t.split_k);
  g.block = unsigned(threads(t));
  g.smem = unsigned(smem_bytes(t));
  return g;
}

namespace {

// Split-K is tried (a) while the tiles alone fill less than one wave of one
// block per SM, up to two waves of blocks, and (b) with 2..4 slices when the
// tiles, fewer than four waves, leave the last wave less than 3/4 full. Each
// block keeps at least 4 slices (its pipeline's depth and more); a batch
// never splits.
bool split_k_worth_trying(const Tf32x3WgParams& c, const Problem& p, const SearchLimits& lim) {
  const int sk = c.split_k;
  if (sk == 1) return true;
  const int64_t tiles = tiles_of(c, p), sms = lim.sm_count;
  if (p.batch > 1 || k_slices(p) < 4 * int64_t(sk)) return false;
  if (tiles < sms) return tiles * sk <= 2 * sms;
  if (sk > 4 || tiles >= 4 * sms) return false;
  const double waves = double(tiles) / double(sms);
  const double last = waves - std::floor(waves);
  return last > 0.0 && last < 0.75;
}

// The space, as data. Axes outermost first; each constraint names the last
// axis it reads (see param_space.h).
const ParamSpace<Tf32x3WgParams>& tf32x3wg_space() {
  using P = Tf32x3WgParams;
  using Point = SpacePoint<P>;
  using F = Tf32x3WgFamily;
  enum { BN, WG, AT, AR, BS, RINGS, DR, SK };
  // Ring depths (raw, split), deepest first; is_valid keeps those that fit
  // in 227 KiB with the block's tiles. A pre-split B has no raw ring.
  const SpaceAxis<P> rings{{&P::raw, &P::split}, {{3, 3}, {3, 2}, {2, 2}, {0, 4}, {0, 3}}};
  static const ParamSpace<P> space(
      {axis(&P::bn, {64, 128, 192}), axis(&P::wg, {1, 2}), axis(&P::a_transposed, {0, 1}), axis(&P::a_regs, {0, 1}),
       axis(&P::b_split, {0, 1}), rings,
       axis(&P::drain, {0, 1}),
       axis(&P::split_k, {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128})},
      {{"the pre-pass exactly for the unaligned class", -1,
        [](P& c, const Problem& p) { c.pre_pass = p.aligned ? 0 : 1; }},
       {"raster bands of 8 tile rows where there are 16", WG,
        [](P& c, const Problem& p) { c.swizzle = (p.m + F::block_m(c) - 1) / F::block_m(c) >= 16 ? 8 : 1; }},
       {"one producer warpgroup with A in registers, else two", AR,
        [](P& c, const Problem&) { c.producers = c.a_regs ? 1 : 2; }}},
      // k-contiguous A is split by the consumers into registers with one
      // producer warpgroup (4096^3 1.29 ms on the H200, 2026-12-01);
      // transposed A by two producer warpgroups (1.36 ms; one: 1.90 ms), or
      // copied k-contiguous by a pre-pass first (at=1) and then split in
      // registers.
      {{"a transposing pre-pass only for A^T", AT,
        [](const Point& x) { return !x.params.a_transposed || x.problem.trans_a; }},
       {"A in registers exactly when the main loop reads it k-contiguous", AR,
        [](const Point& x) { return x.params.a_regs == (x.problem.trans_a ? x.params.a_transposed : 1); }},
       // Technique: the shortest accumulation chains. The tensor cores'
       // accumulation loses bits with the chain's length: on the public suite
       // (wide-exponent inputs, H200, 2026-12-01) dr=4 errs 8.8e-7 at every
       // K, dr=2 4.8e-7, dr=1 2.5e-7, while cuBLAS SGEMM errs 2.0e-7 (K =
       // 128) to 1.9e-6 (K = 11008), 3.9e-7 at 128x11008x4096. Only dr=1 (a
       // drain every 32 k) stays at or below cuBLAS's error wherever K >= 256;
       // dr=0 is the same chain when K fits in one slice.
       {"B pre-split only with A in registers; A transposed only with B pre-split", BS,
        [](const Point& x) { return (!x.params.b_split || x.params.a_regs) && (!x.params.a_transposed || x.params.b_split); }},
       {"a raw ring exactly where B is not pre-split", RINGS,
        [](const Point& x) { return (x.params.raw == 0) == (x.params.b_split == 1); }},
       {"a drain every slice, none when K is one slice", DR,
        [](const Point& x) { return (x.params.drain == 0) == ((x.problem.k + kSliceK - 1) / kSliceK <= 1); }},
       {"split-K only where the tiles leave SMs idle", SK,
        [](const Point& x) { return split_k_worth_trying(x.params, x.problem, x.limits); }},
       implements_problem<P>(),
       workspace_within_dispatch<P>(),
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

bool Tf32x3WgFamily::in_space(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const {
  return tf32x3wg_space().admits(c, p, lim);
}

double Tf32x3WgFamily::cost(const KernelConfig& cfg, const Problem& p, const SearchLimits& lim) const {
  // A time estimate in units of one block's MAC at the tensor cores' rate
  // (about 2.4 ps on the H200's 3xTF32, from 4096^3 at 1.29 ms).
  const Tf32x3WgParams& c = params(cfg);
  const double blocks = double(tiles_of(c, p)) * c.split_k * double(std::max<int64_t>(1, p.batch));
  const double waves = std::ceil(blocks / lim.sm_count);
  // Tensor-core work of one block, padded tiles included, plus about two
  // slices of pipeline fill and epilogue.
  const double slices = std::ceil(double(k_slices(p)) / c.split_k) + 2.0;
  const double block_mac = double(block_m(c)) * c.bn * slices * kSliceK;
  // One consumer warpgroup leaves the tensor cores idle while it waits and
  // drains; two alternate. n64 wgmmas move as many A bytes for half the work.
  const double f_wg = c.wg == 2 ? 1.0 : 0.75;
  const double f_n = c.bn == 64 ? 0.8 : 1.0;
  // L2 traffic: (bm + bn) floats per k for bm*bn MACs, which matters only
  // while most SMs are busy.
  const double intensity = double(block_m(c)) * c.bn / double(block_m(c) + c.bn);
  const double busy = std::min(1.0, blocks / lim.sm_count);
  const double f_mem = 1.0 - busy * (1.0 - std::min(1.0, intensity / 64.0));
  // Deeper rings hide more latency.
  const double f_pipe = c.b_split ? 1.0 - 0.02 * (4 - c.split) : 1.0 - 0.03 * (3 - c.raw) - 0.02 * (3 - c.split);
  // Without the producers' splits of B the tensor cores lose less to their
  // shared-memory traffic: 4096^3 ran 1.39x faster with them left out (H100,
  // kernel_probe AG_PROBE=1); the parts' copies are twice B's bytes.
  const double f_split = c.b_split ? 1.3 : 1.0;
  double total = waves * block_mac / (f_wg * f_n * f_mem * f_pipe * f_split);
  if (c.drain > 0) total *= 1.0 + 0.04 / c.drain;
  // Split-K: the partial tiles written, read back with C and C written (a
  // byte about 0.17 units at L2 speed), and one more launch (~4 us).
  if (c.split_k > 1) total += 0.17 * 4.0 * (2.0 * c.split_k + 2.0) * double(p.m) * double(p.n) + 1.7e6;
  // The pre-pass: A and B read and written once, by one more launch.
  if (c.pre_pass == 1 && !p.aligned)
    total += 0.17 * 4.0 * 2.0 * double((c.a_transposed ? 0 : p.m) + (c.b_split ? 0 : p.n)) * double(p.k) + 0.8e6;
  // A's transposing copy: A read and written once, by one more launch.
  if (c.a_transposed) total += 0.17 * 4.0 * 2.0 * double(p.m) * double(p.k) + 0.8e6;
  // B's split: B read, its two parts written, by one more launch a band.
  if (c.b_split) {
    const double bands = std::ceil(double(p.n) / double(std::max<int64_t>(1, staging(c, p).chunk_n)));
    total += 0.17 * 4.0 * 3.0 * double(p.n) * double(p.k) + 0.8e6 * bands + 1.7e6 * (bands - 1.0);
  }
  return total;
}

std::optional<std::string> Tf32x3WgFamily::arch(const DeviceInfo& dev) const {
  // wgmma exists only as sm_90a, whose cubins run only on 9.0.
  if (dev.cc_major != 9 || dev.cc_minor != 0) return std::nullopt;
  return std::string("sm_90a");
}

}  // namespace autogemm
