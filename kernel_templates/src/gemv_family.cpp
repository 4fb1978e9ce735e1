// The gemv family: parameter table, validity, resources, launch, search
// space and cost model.
#include "autogemm/gemv_family.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "autogemm/kernel_config.h"
#include "autogemm/kernel_template.h"

namespace autogemm {
namespace {

bool fail(std::string* why, const std::string& msg) {
  if (why) *why = msg;
  return false;
}

const GemvParams& params(const KernelConfig& c) { return c.get<GemvParams>(); }

int64_t outputs(const GemvParams& g, const Problem& p) { return g.one == 0 ? p.n : p.m; }

// Blocks along the outputs (x): a warp per output for dot, 4 outputs per
// thread for axpy.
int64_t blocks_x(const KernelConfig& c, const Problem& p) {
  const GemvParams& g = params(c);
  const int64_t per_block = GemvFamily::is_dot(c) ? g.threads / 32 : int64_t(g.threads / g.k_groups) * 4;
  return (outputs(g, p) + per_block - 1) / per_block;
}

}  // namespace

bool GemvParams::operator==(const GemvParams& o) const {
  return one == o.one && threads == o.threads && k_groups == o.k_groups && split_k == o.split_k && vec == o.vec;
}

const GemvFamily& GemvFamily::instance() {
  static const GemvFamily f;
  return f;
}

const ParamTable<GemvParams>& GemvFamily::table() {
  using P = GemvParams;
  static const ParamTable<P> t = {
      {"one", "AG_ONE", &P::one, {0, 1}, 0, 0, 0, Presence::Always, nullptr, "0 (M is 1) or 1 (N is 1)"},
      {"thr", "AG_THREADS", &P::threads, {64, 128, 256, 512}, 0, 0, 256, Presence::Always, nullptr,
       "64, 128, 256 or 512"},
      {"kg", "AG_KGROUPS", &P::k_groups, {1, 2, 4, 8, 16}, 0, 0, 1, Presence::Always, nullptr, "1, 2, 4, 8 or 16"},
      {"sk", "AG_SPLIT_K", &P::split_k, {}, 1, 1024, 1, Presence::Always, nullptr, "1..1024"},
      {"vec", "AG_VEC", &P::vec, {1, 4}, 0, 0, 1, Presence::Always, nullptr, "1 or 4"},
  };
  return t;
}

bool GemvFamily::is_dot(const KernelConfig& c) { return params(c).one == 0 ? c.trans_b : !c.trans_a; }

const KernelTemplate& GemvFamily::source() const {
  static const KernelTemplate t("sgemv.cu");
  return t;
}

std::string GemvFamily::format(const KernelConfig& c) const { return format_params(table(), c); }

bool GemvFamily::parse_fields(std::vector<std::pair<std::string, int>>& fields, KernelConfig& c,
                              std::string* error) const {
  return parse_params(table(), fields, c, error);
}

std::vector<std::string> GemvFamily::defines(const KernelConfig& c) const { return define_params(table(), c); }

bool GemvFamily::is_valid(const KernelConfig& c, std::string* why) const {
  if (!table().in_range(params(c), why)) return false;
  if (is_dot(c) && (params(c).split_k != 1 || params(c).k_groups != 1))
    return fail(why, "sk and kg must be 1 where the matrix's rows along k are contiguous (the dot kernel)");
  if (params(c).threads / params(c).k_groups < 32) return fail(why, "thr/kg must be at least 32 (a warp along the outputs)");
  return true;
}

bool GemvFamily::can_implement(const KernelConfig& c, const Problem& p) const {
  const GemvParams& g = params(c);
  if ((g.one == 0 ? p.m : p.n) != 1) return false;
  if (g.vec == 4 && !p.aligned) return false;
  // One counter per block along x in the workspace's counter area.
  if (g.split_k > 1 && blocks_x(c, p) > int64_t(kWorkspaceCounterFloats)) return false;
  return blocks_x(c, p) <= int64_t(INT32_MAX);
}

std::optional<KernelConfig> GemvFamily::default_config(const Problem&) const { return std::nullopt; }

int GemvFamily::threads(const KernelConfig& c) const { return params(c).threads; }

size_t GemvFamily::workspace_floats(const KernelConfig& c, const Problem& p) const {
  const GemvParams& g = params(c);
  if (g.split_k <= 1) return 0;
  // The counter area (one counter per block along x), then the partial sums.
  return kWorkspaceCounterFloats + size_t(g.split_k) * size_t((outputs(g, p) + 3) / 4 * 4);
}

size_t GemvFamily::workspace_counter_floats(const KernelConfig& c) const {
  return params(c).split_k > 1 ? kWorkspaceCounterFloats : 0;
}

LaunchGeometry GemvFamily::geometry(const KernelConfig& c, const Problem& p) const {
  LaunchGeometry g;
  g.grid_x = unsigned(std::max<int64_t>(1, blocks_x(c, p)));
  g.grid_y = unsigned(params(c).split_k);
  g.block = unsigned(params(c).threads);
  return g;
}

std::vector<std::string> GemvFamily::entry_points(const KernelConfig&) const { return {"agemv"}; }

void GemvFamily::launch(const KernelConfig& c, const LaunchArgs& a) const {
  launch_gemm_kernel(a.functions.at(0), geometry(c, a.call.problem), a, "cuLaunchKernel(agemv)");
}

std::vector<KernelConfig> GemvFamily::search_space(const Problem& p, const SearchLimits& lim) const {
  std::vector<KernelConfig> out;
  for (int one : {0, 1}) {
    if ((one == 0 ? p.m : p.n) != 1) continue;
    for (int thr : {64, 128, 256, 512})
      for (int kg : {1, 2, 4, 8, 16})
        for (int sk : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
          GemvParams g;
          g.one = one, g.threads = thr, g.k_groups = kg, g.split_k = sk, g.vec = p.aligned ? 4 : 1;
          const KernelConfig cfg(g, p.trans_a, p.trans_b);
          if (!is_valid(cfg, nullptr) || !cfg.can_implement(p)) continue;
          if (thr > lim.max_threads) continue;
          // Split K only while the outputs alone leave SMs idle, and keep >= 8
          // k per thread.
          if (sk > 1 && (p.k / (sk * kg) < 8 || blocks_x(cfg, p) * sk > 16 * lim.sm_count)) continue;
          if (cfg.workspace_floats(p) > KernelConfig::kMaxWorkspaceFloats) continue;
          out.push_back(cfg);
        }
  }
  return out;
}

double GemvFamily::cost(const KernelConfig& cfg, const Problem& p, const SearchLimits& lim) const {
  const GemvParams& g = params(cfg);
  const double len = double(outputs(g, p));
  // Bytes: the matrix once, plus the partial sums written and read back.
  double bytes = len * double(p.k) * 4.0;
  if (g.split_k > 1) bytes += len * g.split_k * 8.0;
  // Bandwidth needs enough loads in flight: ~1536 busy threads per SM.
  const double busy = double(blocks_x(cfg, p)) * g.split_k * g.threads;
  const double f_par = std::min(1.0, busy / (1536.0 * lim.sm_count));
  // The axpy kernel's serial chains: K/(sk*kg) steps per thread, then sk
  // partial sums read in order by the last block of each output group.
  const double chain = is_dot(cfg) ? 0.0 : double(p.k) / (g.split_k * g.k_groups) * 2e-9 + g.split_k * 5e-9;
  return bytes / (3.5e12 * f_par) + chain;
}

std::vector<KernelConfig> GemvFamily::history_variants(const KernelConfig& winner) const { return {winner}; }

}  // namespace autogemm
