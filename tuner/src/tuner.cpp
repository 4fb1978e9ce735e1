#include "autogemm/tuner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <set>
#include <thread>

#include "autogemm/kernel_launch.h"
#include "autogemm/log.h"
#include "autogemm/search_space.h"
#include "autogemm/worker.h"

namespace autogemm {
namespace {

using Clock = std::chrono::steady_clock;

struct Compiled {
  std::optional<CompileResult> result;
  std::string error;
};

/// One thing to compile: a config from its template, or an injected source.
struct Job {
  KernelConfig config;
  const InjectedKernel* injected = nullptr;
};

/// Compiles `jobs` on `threads` workers; results are consumed in order
/// while later ones are still compiling, so NVRTC overlaps GPU measuring.
class CompilePool {
 public:
  CompilePool(const std::vector<Job>& jobs, const std::string& arch, int threads)
      : jobs_(jobs), arch_(arch), promises_(jobs.size()) {
    for (auto& p : promises_) futures_.push_back(p.get_future());
    const int n = std::max(1, std::min<int>(threads, int(jobs.size())));
    for (int i = 0; i < n; ++i) workers_.emplace_back([this] { work(); });
  }
  ~CompilePool() {
    stop_ = true;
    for (auto& w : workers_) w.join();
  }
  Compiled get(size_t i) { return futures_[i].get(); }

 private:
  void work() {
    for (size_t i; !stop_ && (i = next_++) < jobs_.size();) {
      Compiled c;
      const Job& j = jobs_[i];
      try {
        c.result = j.injected ? compile_kernel(j.config, arch_, j.injected->source, j.injected->name,
                                               j.injected->options)
                              : compile_kernel(j.config, arch_);
      } catch (const CompileError& e) {
        c.error = std::string(e.what()) + "\n" + e.log().substr(0, 2000);
      } catch (const std::exception& e) {
        c.error = e.what();
      }
      promises_[i].set_value(std::move(c));
    }
  }
  const std::vector<Job>& jobs_;
  std::string arch_;
  std::vector<std::promise<Compiled>> promises_;
  std::vector<std::future<Compiled>> futures_;
  std::vector<std::thread> workers_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace

TuneResult Tuner::tune(const Problem& p, const TuneProgress& progress) {
  const auto t0 = Clock::now();
  // Found first: without a worker nothing can be measured, so say so before compiling.
  Worker worker(Worker::locate(opt_.worker_path), dev_.ordinal);
  TuneResult out;
  out.problem = p;
  const SearchLimits lim = SearchLimits::of(dev_);
  const std::vector<KernelConfig> space = SearchSpace::enumerate(p, lim);
  const std::vector<KernelConfig> from_history = history_candidates(p, space, opt_.history, opt_.history_limit);
  std::vector<KernelConfig> chosen =
      select_candidates(opt_.strategy, space, p, lim, opt_.budget, opt_.seed, from_history);

  const KernelConfig def = default_config(p);
  std::set<std::string> skip(opt_.skip.begin(), opt_.skip.end());
  std::vector<Job> jobs = {{def}};  // the default first: it is the bar to beat
  std::set<std::string> seen = {def.to_string()};
  for (const KernelConfig& c : chosen) {
    const std::string s = c.to_string();
    if (skip.count(s) || !seen.insert(s).second) continue;
    jobs.push_back({c});
  }
  for (const InjectedKernel& k : opt_.injected) jobs.push_back({k.config, &k});
  log().info("tuning {}: {} candidates ({} in the search space, strategy {})", p.to_string(), jobs.size(),
             space.size(), to_string(opt_.strategy));

  const int threads = opt_.compile_threads > 0 ? opt_.compile_threads
                                               : int(std::max(1u, std::thread::hardware_concurrency()));
  CompilePool pool(jobs, dev_.arch(), threads);
  const double timeout_s = opt_.candidate_timeout_s > 0 ? opt_.candidate_timeout_s : default_candidate_timeout(p);
  worker.set_problem(p, opt_.seed, default_setup_timeout(p));
  double best_ms = std::numeric_limits<double>::infinity();

  for (size_t i = 0; i < jobs.size(); ++i) {
    Candidate cand;
    cand.config = jobs[i].config;
    cand.is_default = i == 0;
    cand.injected = jobs[i].injected != nullptr;
    cand.trial.config = cand.config.to_string();
    Compiled compiled = pool.get(i);
    if (!compiled.result) {
      cand.trial.status = TrialStatus::CompileFailed;
      cand.trial.detail = compiled.error;
    } else {
      out.cost.compile_s += compiled.result->seconds;
      const WorkerOutcome r = worker.run(cand.trial.config, compiled.result->cubin, best_ms, timeout_s);
      cand.trial.status = r.status;
      cand.trial.detail = r.detail;
      cand.registers = r.registers;
      cand.local_bytes = r.local_bytes;
      if (r.status == TrialStatus::Ok) {
        cand.trial.median_ms = r.median_ms;
        cand.trial.spread_ms = r.spread_ms;
        cand.trial.gflops = r.median_ms > 0 ? p.flops() / (r.median_ms * 1e6) : 0;
        // An injected kernel's time must not steer the "far slower" shortcut.
        if (!cand.injected) best_ms = std::min(best_ms, r.median_ms);
        cand.cubin = std::move(compiled.result->cubin);
      }
    }
    if (cand.injected) cand.trial.detail = "injected test kernel " + jobs[i].injected->name + ": " + cand.trial.detail;
    if (progress) progress(i + 1, jobs.size(), cand);
    out.candidates.push_back(std::move(cand));
  }

  for (size_t i = 0; i < out.candidates.size(); ++i) {
    const Candidate& c = out.candidates[i];
    if (c.is_default) out.default_index = i;
    if (c.trial.status != TrialStatus::Ok || c.injected || c.trial.median_ms <= 0) continue;
    if (!out.best || c.trial.median_ms < out.candidates[*out.best].trial.median_ms) out.best = i;
  }
  // Only the winner's and the default's cubins are worth keeping.
  for (size_t i = 0; i < out.candidates.size(); ++i)
    if (i != out.best && i != out.default_index) out.candidates[i].cubin.clear();
  out.cost.candidates = int(jobs.size());
  out.cost.strategy = to_string(opt_.strategy);
  out.cost.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  out.workers_started = worker.started();
  return out;
}

}  // namespace autogemm
