// The passes after a tuning's picks are measured: the neighbour pass of a
// model tuning (the configs next to the two fastest, which the model may
// have ranked too low to measure) and the finalists' second timing (which
// keeps run-to-run drift from choosing between configs that close).
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include "autogemm/kernel_config.h"
#include "autogemm/problem.h"
#include "autogemm/search_space.h"
#include "autogemm/tuner.h"
#include "autogemm/worker.h"

namespace autogemm {

/// The neighbour pass's configs: neighbour_candidates of `space` around the
/// two fastest verified, non-injected candidates of `done` (this run's and
/// resumed ones), TuneOptions::neighbours_per_seed a seed, leaving out every
/// config of `done`, TuneOptions::measured and TuneOptions::skip (measured,
/// failed, or failed before).
std::vector<KernelConfig> neighbour_configs(const std::vector<KernelConfig>& space, const std::vector<Candidate>& done,
                                            const Problem& p, const SearchLimits& lim, const TuneOptions& opt);

/// Times the candidates of `cands` from index `first` on within kFinalistMargin of the fastest (at most
/// kMaxFinalists, fastest first) once more, back to back, and ranks them by
/// the mean of their two medians. Why: over a tuning run a candidate's time
/// drifts by 1-3% (clocks, temperature, what ran just before), enough to
/// swap two tiles that close (2048x11008x4096 kept a tile 3% slower than
/// the one another run chose, on the H200). Only candidates of
/// this run qualify: an earlier run's have no cubin in memory. Each new
/// timing goes to `on_trial`. None starts past `deadline` (a shape's
/// tuning keeps to 10 s; at 16384^3 one timing takes about half a second).
void remeasure_finalists(Worker& worker, std::vector<Candidate>& cands, size_t first, const Problem& p,
                         double timeout_s, const std::function<void(const Candidate&)>& on_trial,
                         std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

}  // namespace autogemm
