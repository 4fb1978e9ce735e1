// The gemv family: parameter table, validity, resources, launch, search
// space and cost model.
#include "autogemm/gemv_family.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "autogemm/kernel_config.h"
#include "autogemm/param_space.h"
#include "autogemm/tabled_family_impl.h"

namespace autogemm {

template class TabledFamily<GemvFamily, GemvParams>;

namespace {

bool fail(std::string* why, const std::string& msg) {
  if (why) *why = msg;
  return false;
}

int64_t outputs(const GemvParams& g, const Problem& p) { return g.one == 0 ? p.n : p.m; }
int64_t short_dim(const GemvParams& g, const Problem& p) { return g.one == 0 ? p.m : p.n; }

// Blocks along the outputs (x): a warp per output for dot, 4 outputs per
// thread for axpy.
int64_t blocks_x(const KernelConfig& c, const Problem& p) {
  const GemvParams& g = c.get<GemvParams>();
  const int64_t per_block = GemvFamily::is_dot(c) ? g.threads / 32 : int64_t(g.threads / g.k_groups) * 4;
  return (outputs(g, p) + per_block - 1) / per_block;
}

int next_pow2(int64_t v) {
  int r = 1;
  while (r < v) r *= 2;
  return r;
}

}  // namespace

bool GemvParams::operator==(const GemvParams& o) const { return GemvFamily::same(*this, o); }

const ParamTable<GemvParams>& GemvFamily::table() {
  using P = GemvParams;
  static const ParamTable<P> t = {
      {"one", "AG_ONE", &P::one, {0, 1}, 0, 0, 0, Presence::Always, nullptr, "0 (M is short) or 1 (N is short)",
       "which output side is short: 0 = M (y = x . op(B)), 1 = N (y = op(A) . x)"},
      {"rows", "AG_ROWS", &P::rows, {1, 2, 4, 8, 16}, 0, 0, 1, Presence::UnlessDefault, nullptr,
       "1, 2, 4, 8 or 16",
       "short-side rows served per thread: the kernel computes up to rows of them"},
      {"thr", "AG_THREADS", &P::threads, {64, 128, 256, 512}, 0, 0, 256, Presence::Always, nullptr,
       "64, 128, 256 or 512",
       "threads per block"},
      {"kg", "AG_KGROUPS", &P::k_groups, {1, 2, 4, 8, 16, 32, 64}, 0, 0, 1, Presence::Always, nullptr,
       "1, 2, 4, 8, 16, 32 or 64",
       "axpy kernel: thread groups along k within a block (1 for the dot kernel)"},
      {"sk", "AG_SPLIT_K", &P::split_k, {}, 1, 1024, 1, Presence::Always, nullptr, "1..1024",
       "axpy kernel: K slices across blocks, reduced deterministically (1 = none)"},
      {"un", "AG_UNROLL", &P::unroll, {1, 2, 4}, 0, 0, 1, Presence::UnlessDefault, nullptr, "1, 2 or 4",
       "matrix loads in flight per thread: 4 * un"},
      {"pf", "AG_PREFETCH", &P::prefetch, {0, 1}, 0, 0, 0, Presence::UnlessDefault, nullptr, "0 or 1",
       "axpy kernel: 1 = load the next batch of the matrix before using this one"},
      {"st", "AG_STAGES", &P::stages, {0, 2, 3, 4, 6, 8}, 0, 0, 0, Presence::UnlessDefault, nullptr,
       "0, 2, 3, 4, 6 or 8",
       "axpy kernel: 0 = matrix batches straight to registers, S = a ring of S batches in shared memory per thread"},
      {"ld", "AG_LDHINT", &P::ld_hint, {0, 1}, 0, 0, 0, Presence::UnlessDefault, nullptr, "0 or 1",
       "1 = matrix loads skip L1 and ask L2 for 256-byte fetches"},
      {"vec", "AG_VEC", &P::vec, {1, 4}, 0, 0, 1, Presence::Always, nullptr, "1 or 4",
       "4 = 16-byte loads (aligned class only); 1 = any (16-byte where the pointers allow)"},
  };
  return t;
}

bool GemvFamily::is_dot(const KernelConfig& c) { return params(c).one == 0 ? c.trans_b : !c.trans_a; }

bool GemvFamily::constraints_hold(const GemvParams& g, const KernelConfig& c, std::string* why) const {
  if (is_dot(c) && (g.split_k != 1 || g.k_groups != 1 || g.rows != 1 || g.prefetch != 0))
    return fail(why, "sk, kg and rows must be 1 and pf 0 where the matrix's rows along k are contiguous (the dot kernel)");
  if (g.stages > 0 && (is_dot(c) || g.prefetch != 0))
    return fail(why, "st needs the axpy kernel and pf 0 (the ring replaces the register prefetch)");
  if (smem_bytes(c) > kMaxSmemBytes) return fail(why, "the rings need more than 227 KB of shared memory (st*un*thr)");
  if (g.threads / g.k_groups < 8) return fail(why, "thr/kg must be at least 8 (threads along the outputs)");
  // A ring's batches wait in shared memory, not in registers.
  if (g.rows * g.unroll > (g.stages > 0 ? 64 : 32))
    return fail(why, "rows*un must be at most 32, 64 with rings (the sums and loads in flight fit in registers)");
  return true;
}

bool GemvFamily::can_implement(const KernelConfig& c, const Problem& p) const {
  const GemvParams& g = params(c);
  if (short_dim(g, p) < 1 || short_dim(g, p) > g.rows) return false;
  if (g.vec == 4 && !p.aligned) return false;
  // One counter per block along x in the workspace's counter area.
  if (g.split_k > 1 && blocks_x(c, p) > int64_t(kWorkspaceCounterFloats)) return false;
  return blocks_x(c, p) <= int64_t(INT32_MAX);
}

std::optional<KernelConfig> GemvFamily::default_config(const Problem&) const { return std::nullopt; }

int GemvFamily::threads(const KernelConfig& c) const { return params(c).threads; }

size_t GemvFamily::smem_bytes(const KernelConfig& c) const {
  const GemvParams& g = params(c);
  if (is_dot(c)) return 0;
  // sgemv.cu: the rings (st batches of 4 * un float4 a thread for the
  // matrix; per warp st slots of x for its groups, rows * un + 1 float4 a
  // group), then, in the same bytes, the groups' fold (AG_FOLD rows of a
  // float4 a thread).
  const size_t groups_per_warp = size_t(32 / std::min(32, g.threads / g.k_groups));
  const size_t x_ring = size_t(g.threads / 32) * g.stages * groups_per_warp * (g.rows * g.unroll + 1) * 16;
  const size_t ring = size_t(g.stages) * 4 * g.unroll * g.threads * 16 + x_ring;
  const size_t fold = g.k_groups > 1 ? size_t(g.threads) * std::min(g.rows, 2048 / g.threads) * 16 : 0;
  return std::max(ring, fold);
}

size_t GemvFamily::workspace_floats(const KernelConfig& c, const Problem& p) const {
  const GemvParams& g = params(c);
  if (g.split_k <= 1) return 0;
  // The counter area (one counter per block along x), then the partial sums:
  // sk x rows x a float4 per thread along the outputs (lanes per group).
  const int64_t lanes = std::min(32, g.threads / g.k_groups);
  const size_t quads = size_t((outputs(g, p) + 4 * lanes - 1) / (4 * lanes) * lanes);
  return kWorkspaceCounterFloats + size_t(g.split_k) * size_t(short_dim(g, p)) * quads * 4;
}

size_t GemvFamily::workspace_counter_floats(const KernelConfig& c) const {
  return params(c).split_k > 1 ? kWorkspaceCounterFloats : 0;
}

LaunchGeometry GemvFamily::geometry(const KernelConfig& c, const Problem& p) const {
  LaunchGeometry g;
  g.grid_x = unsigned(std::max<int64_t>(1, blocks_x(c, p)));
  g.grid_y = unsigned(params(c).split_k);
  g.block = unsigned(params(c).threads);
  g.smem = unsigned(smem_bytes(c));
  return g;
}

std::vector<std::string> GemvFamily::entry_points(const KernelConfig&) const { return {"agemv"}; }

void GemvFamily::launch(const KernelConfig& c, const LaunchArgs& a) const {
  // A programmatic dependent launch: agemv waits (griddepcontrol.wait)
  // before it touches memory, so its launch and block start overlap the
  // previous kernel's tail, which at 20-30 us a call is a few percent.
  launch_gemm_kernel(a.functions.at(0), geometry(c, a.call.problem), a, "cuLaunchKernelEx(agemv)", true);
}

namespace {

// The space, as data. Axes outermost first; each constraint names the last
// axis it reads (see param_space.h).
const ParamSpace<GemvParams>& gemv_space() {
  using P = GemvParams;
  using Point = SpacePoint<P>;
  enum { ONE, THR, KG, SK, UN, PF, ST, LD };
  static constexpr auto served = [](const P& g, const Problem& p) {
    return short_dim(g, p) >= 1 && short_dim(g, p) <= GemvFamily::kMaxRows;
  };
  static const ParamSpace<P> space(
      {axis(&P::one, {0, 1}), axis(&P::threads, {64, 128, 256, 512}), axis(&P::k_groups, {1, 2, 4, 8, 16, 32, 64}),
       axis(&P::split_k, {1, 2, 4, 8, 16, 32, 64, 128}), axis(&P::unroll, {1, 2, 4}), axis(&P::prefetch, {0, 1}),
       axis(&P::stages, {0, 2, 3, 4, 6}), axis(&P::ld_hint, {0, 1})},
      {{"the alignment class sets the load width", -1, [](P& g, const Problem& p) { g.vec = p.aligned ? 4 : 1; }},
       {"rows: the short side's next power of two", ONE,
        [](P& g, const Problem& p) { g.rows = served(g, p) ? next_pow2(short_dim(g, p)) : 1; }}},
      {{"the short side within the rows the family serves", ONE, [](const Point& x) { return served(x.params, x.problem); }},
       {"threads within the device's limit", THR, [](const Point& x) { return x.params.threads <= x.limits.max_threads; }},
       // Every thread gets at least one batch of loads.
       {"a batch of loads for every thread", UN,
        [](const Point& x) {
          const P& g = x.params;
          return x.problem.k / (int64_t(g.split_k) * g.k_groups) >= 4 * g.unroll;
        }},
       // Sums and loads in flight must fit the registers the block size
       // leaves (measured: rows=16 un=2 needs ~170; the unaligned class also
       // holds its scalar path).
       {"sums and loads in flight fit the registers", PF,
        [](const Point& x) {
          const P& g = x.params;
          const int regs = 48 + 4 * g.rows + 16 * g.unroll * (1 + g.prefetch) + (g.vec == 1 ? 16 * g.unroll : 0);
          return regs <= std::min(255, x.limits.regs_per_sm / g.threads);
        }},
       // Bands narrower than a warp serve one or two rows without rings
       // (measured: 8 and 16 rows never won with them).
       {"narrow bands: rings beyond two rows", ST,
        [](const Point& x) { return x.params.threads / x.params.k_groups >= 32 || x.params.rows <= 2 || x.params.stages != 0; }},
       // Rings serve the 16-byte path of 4 rows or more, where the sums leave
       // no registers for batches in flight, with up to 8 loads a thread in
       // flight during the FMAs ((st - 1) * un) and no 256-byte hint (it
       // measured within 1% on rings).
       {"rings: the 16-byte path, 4 rows or more, at most 8 loads in flight, no hint", LD,
        [](const Point& x) {
          const P& g = x.params;
          return g.stages == 0 || (g.vec == 4 && g.rows >= 4 && (g.stages - 1) * g.unroll <= 8 && g.ld_hint == 0);
        }},
       implements_problem<P>(),
       {"shared memory within the device's limit", kWholeConfig,
        [](const Point& x) { return x.config->smem_bytes() <= x.limits.max_smem; }},
       // Split K only while the outputs alone leave SMs idle.
       {"split-K only while the outputs leave SMs idle", kWholeConfig,
        [](const Point& x) {
          return x.params.split_k == 1 || blocks_x(*x.config, x.problem) * x.params.split_k <= 32 * x.limits.sm_count;
        }},
       workspace_within_dispatch<P>()});
  return space;
}

}  // namespace

std::vector<KernelConfig> GemvFamily::search_space(const Problem& p, const SearchLimits& lim) const {
  return gemv_space().enumerate(p, lim);
}

bool GemvFamily::in_space(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const {
  return gemv_space().admits(c, p, lim);
}

double GemvFamily::cost(const KernelConfig& cfg, const Problem& p, const SearchLimits& lim) const {
  const GemvParams& g = params(cfg);
  const double len = double(outputs(g, p)), rs = double(short_dim(g, p)), sms = double(lim.sm_count);
  // Bytes: the matrix once, plus the partial sums written and read back.
  const double bytes = len * double(p.k) * 4.0 + (g.split_k > 1 ? len * rs * g.split_k * 8.0 : 0.0);
  // Residency from a register estimate, then the bytes in flight it keeps:
  // ~32 KB per SM covers DRAM latency at full bandwidth.
  // (A ring's kernel keeps every row's x in registers: ptxas gives 168-170
  // at 16 rows.)
  const double regs =
      g.stages > 0 ? 104.0 + 4.0 * g.rows : 40.0 + 4.0 * g.rows + 16.0 * g.unroll * (1 + g.prefetch);
  const double by_smem = std::floor(double(lim.smem_per_sm) / double(smem_bytes(cfg) + 1024));
  const double per_sm = std::max(1.0, std::min({double(lim.max_threads_per_sm / g.threads),
                                                std::floor(lim.regs_per_sm / (regs * g.threads)), by_smem}));
  const double threads = double(blocks_x(cfg, p)) * g.split_k * g.threads;
  const double resident = std::min(threads, per_sm * g.threads * sms);
  // A ring keeps st - 1 batches in flight during the FMAs; registers one.
  const double in_flight = resident * 4.0 * g.unroll * 16.0 * std::max(1, g.stages - 1);
  // The 256-byte L2 fetch hint measured 5-12% faster where a warp reads
  // 512 bytes of a row; bands narrower than a warp read 128 or 256, and
  // there it fetched bytes another block reads (exhaustive H200 runs,
  // tests/tuner/data/h200_exhaustive_gemv.csv).
  const bool narrow = g.threads / g.k_groups < 32;
  const double peak = narrow ? (g.ld_hint ? 3.45e12 : 3.6e12) : (g.ld_hint ? 3.6e12 : 3.25e12);
  const double bandwidth = peak * std::min(1.0, in_flight / (32768.0 * sms));
  const double t_mem = bytes / bandwidth;
  // Each thread's serial chain of batches (~0.8 us each, less when the next
  // batch is in flight during the FMAs), once per wave.
  const double waves = std::ceil(threads / (per_sm * g.threads * sms));
  const double k_per_thread = is_dot(cfg) ? double(p.k) / 32.0 : double(p.k) / (g.split_k * g.k_groups);
  // A longer batch waits longer for its last load (measured: un=1 won with
  // 8 and 16 rows, where each load feeds 4 * rows FMAs).
  // With a ring the chain is a batch's FMAs (16 * rows * un a thread, one
  // warp instruction a cycle per scheduler, shared by its warps) and a
  // warp barrier, after one fill.
  const double resident_per_sm = std::min(per_sm * g.threads, std::ceil(threads / sms / g.threads) * g.threads);
  const double warps_per_scheduler = std::max(1.0, resident_per_sm / 128.0);
  const double per_batch = g.stages > 0   ? 16.0 * g.rows * g.unroll * warps_per_scheduler / 1.9e9 + 0.1e-6
                           : g.prefetch ? 0.5e-6 * (1.0 + 0.3 * (g.unroll - 1))
                                        : 0.8e-6 * (1.0 + 0.3 * (g.unroll - 1));
  const double t_chain =
      waves * (std::ceil(k_per_thread / (4.0 * g.unroll)) * per_batch + (g.stages > 0 ? 1e-6 : 0.0));
  // The last block's ordered fold (16 partials per round trip), the FMAs.
  const double t_fold = g.split_k > 1 ? (1.0 + std::ceil(g.split_k / 16.0)) * 1e-6 : 0.0;
  // The thread groups' fold in shared memory: one group adds the others'
  // sums in order, a row at a time (~4 cycles an add at ~2 GHz).
  const double t_group_fold = double(g.k_groups - 1) * g.rows * 2e-9;
  const double t_fma = 2.0 * g.rows * len * double(p.k) / 40e12;
  // The chain overlaps the stream but for its start, which a dependent
  // launch overlaps with the previous call's tail: a tenth of the shorter
  // shows (fitted to the exhaustive H200 recordings of tests/tuner/data).
  return std::max(t_mem, t_chain) + 0.1 * std::min(t_mem, t_chain) + t_fold + t_group_fold + t_fma;
}

std::optional<KernelConfig> GemvFamily::fitted(const KernelConfig& c, const Problem& p) const {
  KernelConfig t = c;
  GemvParams& g = t.get<GemvParams>();
  const int64_t side = short_dim(g, p);
  if (side >= 1 && side <= 16 && next_pow2(side) < g.rows) g.rows = int(next_pow2(side));
  if (!is_valid(t, nullptr)) t = c;
  return KernelFamily::fitted(t, p);
}

}  // namespace autogemm
