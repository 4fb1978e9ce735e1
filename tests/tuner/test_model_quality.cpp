// Model quality on recorded H200 measurements: for every shape and family of
// tests/tuner/data/h200_exhaustive*.csv (exhaustive gemm_tune runs, one file
// per recording), the model strategy's candidates from that family's space
// (the default budget, no history, plus the family's default where it has one, as
// gemm_tune measures them) must include a config within 3% of the family's
// exhaustive best — ">= 97% of the exhaustive best", checked on the CPU
// against real numbers; the few recorded shapes it misses are listed with
// the share they reached (kKnownMisses), which must not drop. The files keep the configs within 10% of each best;
// a candidate missing from them is slower than 90% and cannot count.
// Re-record a file (gemm_tune --strategy exhaustive, then
// scripts/trials_to_csv.py) after a change to its family's kernel.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "autogemm/search_space.h"
#include "autogemm/strategy.h"
#include "autogemm/tuner.h"

namespace autogemm {
namespace {

struct Recorded {
  Problem problem;
  const KernelFamily* family = nullptr;
  std::map<std::string, double> gflops;  ///< config -> measured GFLOP/s
};

/// Adds `path`'s records to `out`, keyed by problem and family.
void load(const std::string& path, std::map<std::string, Recorded>& out) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    std::string f[8];
    for (int i = 0; i < 7; ++i) std::getline(ss, f[i], ',');
    std::getline(ss, f[7]);
    Problem p;
    p.m = std::stoll(f[0]), p.n = std::stoll(f[1]), p.k = std::stoll(f[2]);
    p.trans_a = f[3] == "1", p.trans_b = f[4] == "1", p.aligned = f[5] == "1";
    p.lda = p.trans_a ? p.m : p.k, p.ldb = p.trans_b ? p.k : p.n, p.ldc = p.n;
    const auto cfg = KernelConfig::parse(f[7]);
    ASSERT_TRUE(cfg.has_value()) << path << ": " << f[7] << " no longer parses";
    Recorded& r = out[p.to_string() + " " + cfg->family().name()];
    r.problem = p, r.family = &cfg->family();
    r.gflops[f[7]] = std::stod(f[6]);
  }
}

/// Recorded shapes where the model alone falls short of 97%, each with the
/// share its picks reached when recorded: they must not get worse, and the
/// list may only shrink.
const std::map<std::string, double> kKnownMisses = {
    // Re-recorded under rotating timing in session 12.
    {"1x4097x4095 NN unaligned gemv", 0.967},
};

TEST(ModelQuality, ReachesNinetySevenPercentOfTheExhaustiveBestOnRecordedH200Data) {
  std::map<std::string, Recorded> data;
  for (const char* file : {"/h200_exhaustive.csv", "/h200_exhaustive_tiled.csv", "/h200_exhaustive_gemv.csv",
                           "/h200_exhaustive_warptiled.csv"})
    load(AUTOGEMM_TEST_DATA + std::string(file), data);
  ASSERT_GE(data.size(), 20u);
  const SearchLimits h200;  // 132 SMs, 64K registers, 228 KB shared memory per SM
  for (const auto& [name, rec] : data) {
    const Problem& p = rec.problem;
    double exhaustive = 0;
    for (const auto& [cfg, g] : rec.gflops) exhaustive = std::max(exhaustive, g);
    auto picks =
        select_candidates(StrategyKind::Model, rec.family->search_space(p, h200), p, h200, kDefaultBudget, 1);
    if (auto d = rec.family->default_config(p)) picks.push_back(*d);
    double best = 0;
    std::string best_cfg = "(none within 10% of the best)";
    for (const KernelConfig& c : picks) {
      const auto it = rec.gflops.find(c.to_string());
      if (it != rec.gflops.end() && it->second > best) best = it->second, best_cfg = it->first;
    }
    const auto miss = kKnownMisses.find(name);
    const double floor = miss == kKnownMisses.end() ? 0.97 : miss->second;
    EXPECT_GE(best, floor * exhaustive) << name << ": model's best " << best_cfg << " " << best
                                        << " GFLOP/s against " << exhaustive << " exhaustive";
  }
}

}  // namespace
}  // namespace autogemm
