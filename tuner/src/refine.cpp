#include "refine.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string>

#include "autogemm/benchmark.h"
#include "autogemm/log.h"
#include "autogemm/strategy.h"

namespace autogemm {

std::vector<KernelConfig> neighbour_configs(const std::vector<KernelConfig>& space, const std::vector<Candidate>& done,
                                            const Problem& p, const SearchLimits& lim, const TuneOptions& opt) {
  std::set<std::string> measured(opt.skip.begin(), opt.skip.end());
  for (const TrialRecord& t : opt.measured) measured.insert(t.config);
  std::vector<const Candidate*> ok;
  for (const Candidate& c : done) {
    measured.insert(c.trial.config);
    if (c.trial.status == TrialStatus::Ok && !c.injected && c.trial.median_ms > 0) ok.push_back(&c);
  }
  // Fastest first; ties keep the measuring order, so the seeds are deterministic.
  std::stable_sort(ok.begin(), ok.end(),
                   [](const Candidate* a, const Candidate* b) { return a->trial.median_ms < b->trial.median_ms; });
  std::vector<KernelConfig> seeds;
  for (size_t i = 0; i < ok.size() && i < 2; ++i) seeds.push_back(ok[i]->config);
  return neighbour_candidates(space, seeds, measured, p, lim, size_t(std::max(0, opt.neighbours_per_seed)));
}

void remeasure_finalists(Worker& worker, std::vector<Candidate>& cands, size_t first, const Problem& p,
                         double timeout_s, const std::function<void(const Candidate&)>& on_trial,
                         std::chrono::steady_clock::time_point deadline) {
  constexpr size_t kMaxFinalists = 4;
  auto eligible = [](const Candidate& c) {
    return c.trial.status == TrialStatus::Ok && !c.injected && c.trial.median_ms > 0 && !c.cubin.empty();
  };
  double best = std::numeric_limits<double>::infinity();
  for (const Candidate& c : cands)
    if (c.trial.status == TrialStatus::Ok && !c.injected && c.trial.median_ms > 0) best = std::min(best, c.trial.median_ms);
  std::vector<size_t> finalists;
  for (size_t i = first; i < cands.size(); ++i)
    if (eligible(cands[i]) && cands[i].trial.median_ms <= best * (1 + kFinalistMargin)) finalists.push_back(i);
  if (finalists.size() < 2) return;
  std::sort(finalists.begin(), finalists.end(),
            [&](size_t a, size_t b) { return cands[a].trial.median_ms < cands[b].trial.median_ms; });
  if (finalists.size() > kMaxFinalists) finalists.resize(kMaxFinalists);
  for (size_t i : finalists) {
    if (std::chrono::steady_clock::now() > deadline) return;
    Candidate& c = cands[i];
    const WorkerOutcome r = worker.run(c.trial.config, c.cubin, std::numeric_limits<double>::infinity(), timeout_s);
    ++c.timings;
    if (r.status != TrialStatus::Ok || !(r.median_ms > 0)) {
      // The worker verifies every run: a kernel wrong (or crashing) once is
      // out, whatever its first run gave.
      log().warn("{}: {} failed its second timing: {}", p.to_string(), c.trial.config, r.detail);
      c.trial.status = r.status == TrialStatus::Ok ? TrialStatus::WrongResult : r.status;
      c.trial.detail = "second timing of a finalist: " + r.detail;
      c.trial.median_ms = 0, c.trial.gflops = 0;
      if (on_trial) on_trial(c);
      continue;
    }
    c.trial.median_ms = (c.trial.median_ms + r.median_ms) / 2;
    c.trial.spread_ms = std::max(c.trial.spread_ms, r.spread_ms);
    c.trial.gflops = p.flops() / (c.trial.median_ms * 1e6);
    if (on_trial) on_trial(c);
  }
}

}  // namespace autogemm
