// NVRTC compiles every configuration the default strategy (model, budget 48)
// can pick for the public suite on an H100/H200 (sm_90), plus the built-in
// defaults of every layout and alignment class. No GPU needed: NVRTC is a
// compiler. A template edit that breaks any reachable config fails here.
// Split-K factors only set a loop bound and a grid size, so configs that
// differ in nothing but the factor are compiled once (with factor 2): ~730
// compiles instead of ~1200, a few minutes on two cores.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "autogemm/kernel_launch.h"
#include "autogemm/search_space.h"
#include "autogemm/strategy.h"
#include "autogemm/tuner.h"

namespace autogemm {
namespace {

TEST(DefaultSpace, EveryReachableConfigCompilesForSm90) {
  const SearchLimits lim;
  std::set<std::string> configs;
  for (const ShapeSpec& spec : default_suite()) {
    for (bool aligned : {true, false}) {
      Problem p = spec.problem();
      p.aligned = aligned;
      for (KernelConfig c : select_candidates(StrategyKind::Model, SearchSpace::enumerate(p, lim), p, lim, 48, 1)) {
        if (c.split_k > 1) c.split_k = 2;
        configs.insert(c.to_string());
      }
      configs.insert(default_config(p).to_string());
    }
  }
  for (bool ta : {false, true})
    for (bool tb : {false, true}) configs.insert(KernelConfig::generic(ta, tb).to_string());
  std::vector<std::string> list(configs.begin(), configs.end());
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::vector<std::string> failures;
  auto work = [&] {
    for (size_t i; (i = next++) < list.size();) {
      try {
        const CompileResult r = compile_kernel(*KernelConfig::parse(list[i]), "sm_90");
        if (r.cubin.size() < 4 || r.cubin[0] != 0x7f) throw CompileError("not an ELF cubin", "");
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mu);
        failures.push_back(list[i] + ": " + e.what());
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::max(2u, std::thread::hardware_concurrency()); ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  std::printf("compiled %zu configurations\n", list.size());
  EXPECT_TRUE(failures.empty()) << failures.size() << " failed, first: " << failures.front();
}

}  // namespace
}  // namespace autogemm
