// Model quality on recorded H200 measurements: for every shape and family of
// tests/tuner/data/h200_exhaustive*.csv (exhaustive gemm_tune runs, one file
// per recording), the model strategy's candidates from that family's space
// (the default budget, no history, plus the family's default where it has one, as
// gemm_tune measures them) must include a config within 3% of the family's
// exhaustive best — ">= 97% of the exhaustive best", checked on the CPU
// against real numbers; the few recorded shapes it misses are listed with
// the share they reached (kKnownMisses), which must not drop. The files keep the configs within 10% of each best;
// a candidate missing from them is slower than 90% and cannot count. The
// neighbour pass is replayed on the same data: the known misses reach 97%, its gains printed.
// Re-record a file (gemm_tune --strategy exhaustive, then
// scripts/trials_to_csv.py) after a change to its family's kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
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

/// Every recording of tests/tuner/data.
std::map<std::string, Recorded> load_all() {
  std::map<std::string, Recorded> data;
  for (const char* file : {"/h200_exhaustive.csv", "/h200_exhaustive_tiled.csv", "/h200_exhaustive_gemv.csv",
                           "/h200_exhaustive_warptiled.csv"})
    load(AUTOGEMM_TEST_DATA + std::string(file), data);
  return data;
}

/// The fastest recorded GFLOP/s: the family's exhaustive best.
double exhaustive_best(const Recorded& rec) {
  double best = 0;
  for (const auto& [cfg, g] : rec.gflops) best = std::max(best, g);
  return best;
}

/// What gemm_tune measures of the family by model: the default budget (no
/// history), plus the family's default where it has one.
std::vector<KernelConfig> model_picks(const Recorded& rec, const SearchLimits& lim) {
  const Problem& p = rec.problem;
  auto picks = select_candidates(StrategyKind::Model, rec.family->search_space(p, lim), p, lim, kDefaultBudget, 1);
  if (auto d = rec.family->default_config(p)) picks.push_back(*d);
  return picks;
}

/// Recorded shapes where the model alone falls short of 97%, each with the
/// share its picks reached when recorded: they must not get worse, and the
/// list may only shrink.
const std::map<std::string, double> kKnownMisses = {
    // Re-recorded under rotating timing in session 12.
    {"1x4097x4095 NN unaligned gemv", 0.967},
};

TEST(ModelQuality, ReachesNinetySevenPercentOfTheExhaustiveBestOnRecordedH200Data) {
  const std::map<std::string, Recorded> data = load_all();
  ASSERT_GE(data.size(), 20u);
  const SearchLimits h200;  // 132 SMs, 64K registers, 228 KB shared memory per SM
  for (const auto& [name, rec] : data) {
    const double exhaustive = exhaustive_best(rec);
    double best = 0;
    std::string best_cfg = "(none within 10% of the best)";
    for (const KernelConfig& c : model_picks(rec, h200)) {
      const auto it = rec.gflops.find(c.to_string());
      if (it != rec.gflops.end() && it->second > best) best = it->second, best_cfg = it->first;
    }
    const auto miss = kKnownMisses.find(name);
    const double floor = miss == kKnownMisses.end() ? 0.97 : miss->second;
    EXPECT_GE(best, floor * exhaustive) << name << ": model's best " << best_cfg << " " << best
                                        << " GFLOP/s against " << exhaustive << " exhaustive";
  }
}

// The neighbour pass (TuneOptions::neighbours_per_seed) replayed: after the
// picks above, the configs next to the two best picks the recording has
// (the fastest measured, as a tuning's seeds are) count too. Every known
// miss reaches 97% with them; how many shapes it improves, and how many it lifts
// to 97% of their exhaustive best, is printed (not asserted: it tells what
// the pass buys on this data, which a re-recording may change).
TEST(ModelQuality, TheNeighbourPassLiftsTheKnownMissesAndItsGainsAreReported) {
  const std::map<std::string, Recorded> data = load_all();
  ASSERT_GE(data.size(), 20u);
  const SearchLimits h200;
  const size_t per_seed = size_t(TuneOptions{}.neighbours_per_seed);
  int improved = 0, lifted = 0, added = 0;
  for (const auto& [name, rec] : data) {
    const Problem& p = rec.problem;
    const double exhaustive = exhaustive_best(rec);
    const auto picks = model_picks(rec, h200);
    std::set<std::string> measured;
    std::vector<std::pair<double, size_t>> recorded;  // (GFLOP/s, pick), of the picks the recording has
    for (size_t i = 0; i < picks.size(); ++i) {
      measured.insert(picks[i].to_string());
      const auto it = rec.gflops.find(picks[i].to_string());
      if (it != rec.gflops.end()) recorded.emplace_back(it->second, i);
    }
    std::stable_sort(recorded.begin(), recorded.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const double alone = recorded.empty() ? 0 : recorded.front().first;
    std::vector<KernelConfig> seeds;
    for (size_t i = 0; i < recorded.size() && i < 2; ++i) seeds.push_back(picks[recorded[i].second]);
    const auto near = neighbour_candidates(rec.family->search_space(p, h200), seeds, measured, p, h200, per_seed);
    EXPECT_LE(near.size(), 2 * per_seed) << name;
    added += int(near.size());
    double with = alone;
    std::string best_cfg;
    for (const KernelConfig& c : near) {
      EXPECT_FALSE(measured.count(c.to_string())) << name << ": " << c.to_string() << " measured twice";
      const auto it = rec.gflops.find(c.to_string());
      if (it != rec.gflops.end() && it->second > with) with = it->second, best_cfg = it->first;
    }
    // The known misses are what the pass is for: with it they reach 97%.
    if (kKnownMisses.count(name)) {
      EXPECT_GE(with, 0.97 * exhaustive) << name << ": the neighbour pass reached " << with / exhaustive;
    }
    if (with > alone) {
      ++improved;
      lifted += alone < 0.97 * exhaustive && with >= 0.97 * exhaustive;
      std::cout << "  " << name << ": " << alone / exhaustive << " -> " << with / exhaustive
                << " of the exhaustive best with " << best_cfg << "\n";
    }
  }
  std::cout << "neighbour pass: " << improved << " of " << data.size() << " recorded shapes and families improved, "
            << lifted << " lifted to 97%, " << added << " candidates added\n";
  RecordProperty("improved", improved);
  RecordProperty("lifted_to_97", lifted);
  RecordProperty("added", added);
}

}  // namespace
}  // namespace autogemm
