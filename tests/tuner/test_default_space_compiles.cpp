// NVRTC compiles every configuration the default strategy (model, the
// default budget kDefaultBudget per family) can pick for the public suite on an H100/H200 (sm_90, sm_90a
// for wgmma families), plus
// each family's defaults of every layout and alignment class. One instance
// per family of the registry; a family with an empty space (generic) still
// compiles its defaults. No GPU needed: NVRTC is a compiler. A template edit
// that breaks any reachable config fails here.
// Tiled split-K factors only set a loop bound and a grid size, so configs
// that differ in nothing but the factor are compiled once (with factor 2):
// the tiled instance is the longest.
// The builds skip NVVM's optimizer (NVRTC's fast-compile level, where the
// NVRTC has it): this checks that every config compiles and assembles, which
// the front end and ptxas decide, at about half the CPU time (CUDA 13.0:
// NVVM was 0.32 of a warptiled build's 0.65 s, 0.08 with it); the optimized
// builds' registers and spills are BuildWithoutSpills's in test_kernel_templates.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "autogemm/cpu_affinity.h"
#include "autogemm/kernel_launch.h"
#include "autogemm/search_space.h"
#include "autogemm/strategy.h"
#include "autogemm/tuner.h"
#include "autogemm/shape_spec.h"
#include "fake_device.h"

namespace autogemm {
namespace {

/// The config whose build stands for `c`'s: itself, except that split-K
/// factors above 2 build as 2 and raster heights of tf32x3wg and warptiled
/// as 1 (they change no code structure).
KernelConfig compile_representative(KernelConfig c) {
  if (c.is<TiledParams>() && c.get<TiledParams>().split_k > 1) c.get<TiledParams>().split_k = 2;
  if (c.is<WarpTiledParams>()) {
    WarpTiledParams& w = c.get<WarpTiledParams>();
    if (w.split_k > 1) w.split_k = 2;  // a loop bound, a grid size and a workspace offset
    w.swizzle = 1;
  }
  // tf32x3wg's raster band height is one constant in the tile index math.
  if (c.is<Tf32x3WgParams>()) c.get<Tf32x3WgParams>().swizzle = 1;
  return c;
}

/// Everything of `f` the default tuning can measure on the public suite,
/// and f's defaults, as canonical texts.
std::set<std::string> reachable_configs(const KernelFamily& f) {
  const SearchLimits lim;
  std::set<std::string> configs;
  for (const ShapeSpec& spec : default_suite()) {
    for (bool aligned : {true, false}) {
      Problem p = spec.problem();
      p.aligned = aligned;
      for (const KernelConfig& c : select_candidates(StrategyKind::Model, f.search_space(p, lim), p, lim, kDefaultBudget, 1))
        configs.insert(compile_representative(c).to_string());
      if (auto d = f.default_config(p)) configs.insert(d->to_string());
    }
  }
  // The suite may lack a layout: the defaults of all four, both classes.
  for (int t = 0; t < 4; ++t)
    for (bool aligned : {true, false})
      for (int64_t size : {64, 4096})
        if (auto d = f.default_config(make_problem(AUTOGEMM_ROW_MAJOR, t & 1, t & 2, size, size, size, aligned)))
          configs.insert(d->to_string());
  return configs;
}

class DefaultSpace : public ::testing::TestWithParam<const KernelFamily*> {};

TEST_P(DefaultSpace, EveryReachableConfigCompilesForSm90) {
  const std::set<std::string> configs = reachable_configs(*GetParam());
  ASSERT_FALSE(configs.empty()) << GetParam()->name() << " has neither a space nor a default";
  const std::vector<std::string> list(configs.begin(), configs.end());
  const std::vector<std::string> fast =
      Compiler::version() >= 12080 ? std::vector<std::string>{"--Ofast-compile=max"} : std::vector<std::string>{};
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::vector<std::string> failures;
  auto work = [&] {
    for (size_t i; (i = next++) < list.size();) {
      try {
        const auto cfg = KernelConfig::parse(list[i]);
        if (!cfg) throw std::runtime_error("does not parse");
        const KernelTemplate& t = cfg->family().source();
        const CompileResult r = compile_kernel(*cfg, kernel_arch(*cfg, testing::fake_h200()), t.source(), t.file(), fast);
        if (r.cubin.size() < 4 || r.cubin[0] != 0x7f) throw CompileError("not an ELF cubin", "");
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mu);
        failures.push_back(list[i] + ": " + e.what());
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(2, usable_cpu_count()); ++t) pool.emplace_back(work);  // the CPUs this test may use
  for (auto& t : pool) t.join();
  std::printf("compiled %zu configurations of %s\n", list.size(), GetParam()->name());
  EXPECT_TRUE(failures.empty()) << failures.size() << " failed, first: " << failures.front();
}

INSTANTIATE_TEST_SUITE_P(Registry, DefaultSpace, ::testing::ValuesIn(all_families()),
                         [](const ::testing::TestParamInfo<const KernelFamily*>& info) {
                           return std::string(info.param->name());
                         });

}  // namespace
}  // namespace autogemm
