#include "autogemm/tuner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "autogemm/cpu_affinity.h"
#include "autogemm/kernel_launch.h"
#include "autogemm/log.h"
#include "autogemm/search_space.h"
#include "autogemm/worker.h"
#include "compile_pool.h"
#include "refine.h"

namespace autogemm {
namespace {

using namespace tuning;

/// Holds each family's candidates after its first ModelCutoff::kMinMeasured
/// (calibration_first put those in front) until they are measured: only
/// then can the cutoff rule the others out before they are compiled. In
/// plain turn the compile threads, ahead of the measuring, built most of a
/// family's far end before its first measurement came back.
void hold_for_calibration(std::vector<Job>& jobs) {
  std::map<const KernelFamily*, long> last_calibrating;
  std::map<const KernelFamily*, int> seen;
  for (size_t i = 0; i < jobs.size(); ++i)
    if (jobs[i].calibrates && seen[&jobs[i].config.family()]++ < ModelCutoff::kMinMeasured)
      last_calibrating[&jobs[i].config.family()] = long(i);
  seen.clear();
  for (Job& j : jobs)
    if (j.calibrates && seen[&j.config.family()]++ >= ModelCutoff::kMinMeasured)
      j.hold_until = last_calibrating[&j.config.family()];
}

/// The candidates of one tuning, in measuring order: the default first (the
/// bar to beat), then the strategy's picks (for the model: history, then
/// each family's calibrating picks, then the rest; see calibration_first);
/// failed and already-measured configs left out. `space_out` gets the
/// search space.
std::vector<Job> plan_jobs(const Problem& p, const DeviceInfo& dev, const TuneOptions& opt,
                           const std::vector<const KernelFamily*>& families, std::vector<KernelConfig>* space_out) {
  const SearchLimits lim = SearchLimits::of(dev);
  const std::vector<KernelConfig>& space = *space_out = SearchSpace::enumerate(p, lim, families);
  const std::vector<KernelConfig> from_history = history_candidates(p, space, opt.history, opt.history_limit);
  std::vector<KernelConfig> chosen = select_candidates(opt.strategy, space, p, lim, opt.budget, opt.seed, from_history);
  // Other shapes' winners among the history candidates: measured first,
  // but they do not calibrate the cutoff (ModelCutoff::measured).
  const std::set<std::string> elsewhere = [&] {
    std::set<std::string> own, out;
    for (const HistoryEntry& h : opt.history)
      if (h.shape == p.key())
        for (const KernelConfig& c : h.config.family().history_variants(h.config)) own.insert(c.to_string());
    for (const KernelConfig& c : from_history)
      if (!own.count(c.to_string())) out.insert(c.to_string());
    return out;
  }();
  if (opt.strategy == StrategyKind::Model) chosen = calibration_first(chosen, elsewhere);
  const KernelConfig def = default_config(p);
  if (std::find(families.begin(), families.end(), &def.family()) != families.end()) chosen.insert(chosen.begin(), def);
  std::set<std::string> skip(opt.skip.begin(), opt.skip.end());
  for (const TrialRecord& t : opt.measured) skip.insert(t.config);
  std::vector<Job> jobs;
  std::set<std::string> seen;
  for (const KernelConfig& c : chosen) {
    const std::string s = c.to_string();
    if (skip.count(s) || !seen.insert(s).second) continue;
    jobs.push_back({c, kernel_arch(c, dev)});
    jobs.back().calibrates = !elsewhere.count(s);
  }
  if (opt.strategy == StrategyKind::Model) hold_for_calibration(jobs);
  return jobs;
}

/// The injected test kernels, measured after everything else.
std::vector<Job> injected_jobs(const DeviceInfo& dev, const TuneOptions& opt) {
  std::vector<Job> jobs;
  for (const InjectedKernel& k : opt.injected) {
    jobs.push_back({k.config, kernel_arch(k.config, dev), &k});
    jobs.back().calibrates = false;  // never reported to the cutoff
  }
  return jobs;
}

/// The neighbour pass's jobs (neighbour_configs); they do not calibrate
/// the cutoff: the model ranked them low, which is the point.
std::vector<Job> neighbour_jobs(const std::vector<KernelConfig>& space, const std::vector<Candidate>& done,
                                const Problem& p, const DeviceInfo& dev, const TuneOptions& opt) {
  std::vector<Job> jobs;
  for (const KernelConfig& c : neighbour_configs(space, done, p, SearchLimits::of(dev), opt)) {
    jobs.push_back({c, kernel_arch(c, dev)});
    jobs.back().calibrates = false;
  }
  return jobs;
}

/// Earlier runs' verified trials of this problem, as candidates.
std::vector<Candidate> resumed_candidates(const Problem& p, const TuneOptions& opt) {
  std::vector<Candidate> out;
  const KernelConfig def = default_config(p);
  for (const TrialRecord& t : opt.measured) {
    auto cfg = KernelConfig::parse(t.config);
    if (!cfg || t.status != TrialStatus::Ok || !cfg->can_implement(p)) continue;
    Candidate c;
    c.config = *cfg;
    c.trial = t;
    c.resumed = true;
    c.timings = 0;
    c.is_default = *cfg == def;
    out.push_back(std::move(c));
  }
  return out;
}

/// Runs one compiled candidate in the worker (verify, time).
Candidate measure(Worker& worker, const Job& job, Compiled compiled, const Problem& p, double& best_ms,
                  double timeout_s) {
  Candidate cand;
  cand.config = job.config;
  cand.injected = job.injected != nullptr;
  cand.trial.config = cand.config.to_string();
  if (!compiled.result) {
    cand.timings = 0;
    cand.trial.status = TrialStatus::CompileFailed;
    cand.trial.detail = compiled.error;
  } else {
    cand.compile_s = compiled.result->seconds;
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
  if (cand.injected) cand.trial.detail = "injected test kernel " + job.injected->name + ": " + cand.trial.detail;
  return cand;
}

/// Compiles and measures a tuning's jobs, pass after pass (the strategy's
/// picks, the neighbour pass, injected kernels), with one worker, one
/// cutoff, one fastest time and one progress count.
class Measuring {
 public:
  Measuring(Worker& worker, const Problem& p, const DeviceInfo& dev, const TuneOptions& opt,
            const TuneProgress& progress, TuneResult& out, size_t total)
      : worker_(worker), p_(p), opt_(opt), progress_(progress), out_(out), cutoff_(p, SearchLimits::of(dev)),
        def_(default_config(p)), done_(out.candidates.size()), total_(total) {
    // The CPUs this process may run on, not the host's: a rank bound to one
    // core runs one compile at a time whatever the host has (cpu_affinity.h).
    threads_ = opt.compile_threads > 0 ? opt.compile_threads : usable_cpu_count();
    timeout_s_ = opt.candidate_timeout_s > 0 ? opt.candidate_timeout_s : default_candidate_timeout(p);
    for (const Candidate& c : out.candidates) {
      best_ms_ = std::min(best_ms_, c.trial.median_ms);
      cutoff_.measured(c.config, c.trial.median_ms);
    }
  }
  /// Measures `jobs` in order, each handed to on_trial and progress as it
  /// ends; with `may_rule_out` the cutoff leaves out what it rules out.
  /// TuneOptions::stop ends it early (out.interrupted); so does `deadline`,
  /// quietly, for the jobs from `first_cut` on: they are left out, not
  /// interrupted; and so does `next_deadline` (the next pass's), once what
  /// is left before it would not build and measure that pass's first jobs.
  void run(const std::vector<Job>& jobs, bool may_rule_out, Clock::time_point deadline = Clock::time_point::max(),
           size_t first_cut = 0, Clock::time_point next_deadline = Clock::time_point::max());
  /// A later pass adds `n` to the progress total.
  void expect_more(size_t n) { total_ += n; }
  bool started() const { return started_; }
  double timeout_s() const { return timeout_s_; }

 private:
  Worker& worker_;
  const Problem& p_;
  const TuneOptions& opt_;
  const TuneProgress& progress_;
  TuneResult& out_;
  ModelCutoff cutoff_;
  const KernelConfig def_;
  size_t done_, total_;
  int threads_ = 1;
  double timeout_s_ = 0, best_ms_ = std::numeric_limits<double>::infinity();
  bool started_ = false;  ///< the worker was set up for the problem
  BuildTimes build_times_;  ///< every pass's builds: the next pass's estimate from its start
  double measure_s_ = 0;    ///< worker time of the measurements so far
  int measured_ = 0;
  bool leaves_too_little(Clock::time_point next_deadline) const {
    return measured_ > 0 &&
           starves_next_pass(Clock::now(), next_deadline, build_times_.mean_s(), measure_s_ / measured_);
  }
};

void Measuring::run(const std::vector<Job>& jobs, bool may_rule_out, Clock::time_point deadline, size_t first_cut,
                    Clock::time_point next_deadline) {
  if (jobs.empty()) return;
  // Injected kernels always run.
  auto ruled_out = [this, may_rule_out](const Job& j) { return may_rule_out && !j.injected && cutoff_.ruled_out(j.config); };
  CompilePool pool(jobs, threads_, ruled_out, build_times_, deadline, first_cut);
  if (!started_) worker_.set_problem(p_, opt_.seed, default_setup_timeout(p_), opt_.timing);
  started_ = true;
  for (size_t i = 0; i < jobs.size(); ++i, ++done_) {
    if (opt_.stop && opt_.stop->load()) {
      out_.interrupted = true;
      return;
    }
    if (i >= first_cut && Clock::now() > deadline) {
      log().info("{}: {} candidates left out at the pass's deadline", p_.to_string(), jobs.size() - i);
      return;
    }
    if (i >= first_cut && leaves_too_little(next_deadline)) {
      log().info("{}: {} candidates left out: the neighbour pass needs the time left", p_.to_string(),
                 jobs.size() - i);
      return;
    }
    Compiled compiled = pool.get(i);
    if (compiled.past_deadline) {
      log().info("{}: {} candidates left out at the pass's deadline", p_.to_string(), jobs.size() - i);
      return;
    }
    if (compiled.ruled_out || ruled_out(jobs[i])) {
      ++out_.ruled_out;
      continue;
    }
    const auto measure_start = Clock::now();
    Candidate cand = measure(worker_, jobs[i], std::move(compiled), p_, best_ms_, timeout_s_);
    measure_s_ += std::chrono::duration<double>(Clock::now() - measure_start).count();
    ++measured_;
    cand.trial.timing = opt_.timing;
    if (cand.trial.status == TrialStatus::Ok && !cand.injected)
      cutoff_.measured(cand.config, cand.trial.median_ms, jobs[i].calibrates);
    cand.is_default = !cand.injected && cand.config == def_;
    out_.cost.compile_s += cand.compile_s;
    if (opt_.on_trial) opt_.on_trial(cand);
    if (progress_) progress_(done_ + 1, total_, cand);
    out_.candidates.push_back(std::move(cand));
  }
}

}  // namespace

TuneResult Tuner::tune(const Problem& p, const TuneProgress& progress) {
  const auto t0 = Clock::now();
  // Found first: without a worker nothing can be measured, so say so before compiling.
  Worker worker(Worker::locate(opt_.worker_path), dev_.ordinal);
  TuneResult out;
  out.problem = p;
  const std::vector<const KernelFamily*> families = tunable_families(dev_, opt_.families, opt_.math_mode);
  std::vector<KernelConfig> space;
  const std::vector<Job> jobs = plan_jobs(p, dev_, opt_, families, &space);
  const std::vector<Job> injected = injected_jobs(dev_, opt_);
  out.candidates = resumed_candidates(p, opt_);
  const size_t resumed = out.candidates.size();
  log().info("tuning {}: {} candidates to measure, {} measured before ({} in the search space, strategy {})",
             p.to_string(), jobs.size() + injected.size(), resumed, space.size(), to_string(opt_.strategy));

  const bool model = opt_.strategy == StrategyKind::Model;
  Measuring m(worker, p, dev_, opt_, progress, out, resumed + jobs.size() + injected.size());
  auto stopping = [&] { return out.interrupted || (opt_.stop && opt_.stop->load()); };
  const auto after = [t0](double s) {
    return t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::min(s, 1e9)));
  };
  // Only a model tuning leaves candidates out, by the cutoff or, past the
  // first (the default: the bar to beat), by its deadline, or where the
  // neighbour pass, meant to run after the picks, would get too little
  // time to build anything (at 16384^3 it measured none, and the FFMA
  // orders, found only there, are worth 1-2 %).
  const bool leave_time = model && opt_.neighbours_per_seed > 0 && opt_.pick_deadline_s < opt_.neighbour_deadline_s;
  if (model)
    m.run(jobs, true, after(opt_.pick_deadline_s), 1,
          leave_time ? after(opt_.neighbour_deadline_s) : Clock::time_point::max());
  else m.run(jobs, false);
  if (model && opt_.neighbours_per_seed > 0 && !stopping()) {
    const std::vector<Job> near = neighbour_jobs(space, out.candidates, p, dev_, opt_);
    log().info("{}: neighbour pass: {} more candidates around the best", p.to_string(), near.size());
    m.expect_more(near.size());
    // Never ruled out: they are what the model misjudged. The deadline
    // keeps a shape's tuning near its 10 s (the pass costs ~2.5 s a shape).
    m.run(near, false, after(opt_.neighbour_deadline_s));
  }
  if (!out.interrupted) m.run(injected, false);
  if (!stopping() && m.started()) remeasure_finalists(worker, out.candidates, resumed, p, m.timeout_s(), opt_.on_trial,
                        model ? after(opt_.finalist_deadline_s) : Clock::time_point::max());
  if (out.ruled_out > 0)
    log().info("{}: {} candidates left out unmeasured: their family's model, calibrated on its measured ones, "
               "puts them over {}x the best time",
               p.to_string(), out.ruled_out, ModelCutoff::kMargin);
  rank(out);
  out.cost.candidates = int(out.candidates.size() - resumed);
  out.cost.strategy = to_string(opt_.strategy);
  out.cost.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  out.workers_started = worker.started();
  return out;
}

void Tuner::rank(TuneResult& out) {
  for (size_t i = 0; i < out.candidates.size(); ++i) {
    const Candidate& c = out.candidates[i];
    if (c.is_default) out.default_index = i;
    if (c.trial.status != TrialStatus::Ok || c.injected || c.trial.median_ms <= 0) continue;
    if (!out.best || c.trial.median_ms < out.candidates[*out.best].trial.median_ms) out.best = i;
  }
  // Only the winner's and the default's cubins are worth keeping.
  for (size_t i = 0; i < out.candidates.size(); ++i)
    if (i != out.best && i != out.default_index) out.candidates[i].cubin.clear();
}

}  // namespace autogemm
