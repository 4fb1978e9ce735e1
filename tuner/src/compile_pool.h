// CompilePool: a tuning pass's NVRTC builds, on a pool of threads ahead of
// the measuring, in the order the pass measures them (tuner.cpp's only).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "autogemm/kernel_launch.h"
#include "autogemm/tuner.h"
#include "compile_memo.h"

namespace autogemm::tuning {

using Clock = std::chrono::steady_clock;

struct Compiled {
  std::optional<CompileResult> result;
  std::string error;
  bool ruled_out = false;  ///< left out before compiling (ModelCutoff)
  bool past_deadline = false;  ///< not compiled: the build would have ended past the pass's deadline
  bool built_now = false;  ///< NVRTC ran for it (not ruled out, not kept from an earlier shape)
};

/// One thing to compile: a config from its template, or an injected source.
struct Job {
  KernelConfig config;
  std::string arch;  ///< the family's NVRTC target on this device
  const InjectedKernel* injected = nullptr;
  /// Model tunings: the job waits to be compiled until the measuring has
  /// gone past job `hold_until` (its family's last calibrating candidate),
  /// so that ModelCutoff can rule it out first. -1: compiled in turn.
  long hold_until = -1;
  bool calibrates = true;  ///< false for another shape's winner (history): sets the cutoff's best time only
};

/// Wall seconds of one tuning's builds so far, over all its passes: what
/// the next build will likely take. Only builds NVRTC ran count: a build
/// kept from an earlier shape takes no time, and two thirds of a suite's
/// candidates are such, so counting them made the next real build look a
/// third of its time and started builds the pass's end then waited for.
/// Thread-safe.
class BuildTimes {
 public:
  void add(double s) {
    std::lock_guard<std::mutex> lock(mu_);
    sum_s_ += s, ++count_;
  }
  double mean_s() const {
    std::lock_guard<std::mutex> lock(mu_);
    return count_ > 0 ? sum_s_ / count_ : 0.0;
  }

 private:
  mutable std::mutex mu_;
  double sum_s_ = 0;
  int count_ = 0;
};

/// Whether a pass begun at `now` would not build and measure two jobs
/// before `next_deadline`: the builds still in flight end first (a pool's
/// end waits for them), then the pass's own, then its two measurements.
inline bool starves_next_pass(Clock::time_point now, Clock::time_point next_deadline, double build_mean_s,
                              double measure_mean_s) {
  if (next_deadline == Clock::time_point::max()) return false;
  const double need_s = 2 * build_mean_s + 2 * measure_mean_s;
  return now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(need_s)) > next_deadline;
}

/// Compiles `jobs` on `threads` workers; results are consumed in order
/// while later ones are still compiling, so NVRTC overlaps GPU measuring.
/// Compiling stays at most two jobs a thread ahead of the consumer, and a
/// job waits for its hold_until to be consumed, so that when `skip` (asked
/// as a job's turn comes) rules a job out, its compile is saved too; a
/// skipped job is not compiled. Nor is a job from `first_cut` on whose
/// build, as long as the tuning's builds took on average (`times`, which
/// the pool adds its own to), would end past `deadline`: the pass could not
/// measure it, and its end would wait for the build. A job the process
/// built before (CompileMemo) costs nothing and always starts.
class CompilePool {
 public:
  CompilePool(const std::vector<Job>& jobs, int threads, std::function<bool(const Job&)> skip, BuildTimes& times,
              Clock::time_point deadline = Clock::time_point::max(), size_t first_cut = 0)
      : jobs_(jobs), skip_(std::move(skip)), times_(times), deadline_(deadline), first_cut_(first_cut),
        promises_(jobs.size()) {
    for (auto& p : promises_) futures_.push_back(p.get_future());
    const int n = std::max(1, std::min<int>(threads, int(jobs.size())));
    ahead_ = size_t(2 * n);
    for (int i = 0; i < n; ++i) workers_.emplace_back([this] { work(); });
  }
  ~CompilePool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    turn_.notify_all();
    for (auto& w : workers_) w.join();
  }
  Compiled get(size_t i) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      consumed_ = std::max(consumed_, i);
    }
    turn_.notify_all();
    return futures_[i].get();
  }

 private:
  void work() {
    for (size_t i; (i = next_++) < jobs_.size();) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        const long hold = jobs_[i].hold_until;
        turn_.wait(lock, [&] { return stop_ || (i < consumed_ + ahead_ && (hold < 0 || consumed_ > size_t(hold))); });
        if (stop_) return;
      }
      if (i >= first_cut_ && !built_before(jobs_[i]) && past_deadline_when_built()) {
        Compiled late;
        late.past_deadline = true;
        promises_[i].set_value(std::move(late));
        continue;
      }
      const auto t0 = Clock::now();
      Compiled c = build(jobs_[i]);
      if (c.built_now) times_.add(std::chrono::duration<double>(Clock::now() - t0).count());
      promises_[i].set_value(std::move(c));
    }
  }
  static bool built_before(const Job& j) {
    return !j.injected && CompileMemo::process().contains(CompileMemo::key(j.config, j.arch));
  }
  bool past_deadline_when_built() const {
    if (deadline_ == Clock::time_point::max()) return false;
    const auto mean = std::chrono::duration<double>(times_.mean_s());
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(mean) > deadline_;
  }
  Compiled build(const Job& j) const {
    Compiled c;
    if (skip_ && skip_(j)) {
      c.ruled_out = true;
      return c;
    }
    try {
      if (j.injected) {
        c.built_now = true;
        c.result = compile_kernel(j.config, j.arch, j.injected->source, j.injected->name, j.injected->options);
      } else {
        const std::string key = CompileMemo::key(j.config, j.arch);
        c.result = CompileMemo::process().find(key);
        if (!c.result) {
          c.built_now = true;
          c.result = compile_kernel(j.config, j.arch);
          CompileMemo::process().put(key, *c.result);
        }
      }
      // Spilled registers: correct, but far from the config's speed; it is
      // recorded as a failed build and never measured (or retried).
      const std::string spills = spill_report(*c.result);
      if (!spills.empty()) {
        c.result.reset();
        c.error = "rejected before measuring: the build spills registers (" + spills + ")";
      }
    } catch (const CompileError& e) {
      c.error = std::string(e.what()) + "\n" + e.log().substr(0, 2000);
    } catch (const std::exception& e) {
      c.error = e.what();
    }
    return c;
  }
  const std::vector<Job>& jobs_;
  std::function<bool(const Job&)> skip_;
  BuildTimes& times_;
  Clock::time_point deadline_;
  size_t first_cut_;
  std::vector<std::promise<Compiled>> promises_;
  std::vector<std::future<Compiled>> futures_;
  std::vector<std::thread> workers_;
  std::atomic<size_t> next_{0};
  std::mutex mu_;
  std::condition_variable turn_;
  size_t consumed_ = 0, ahead_ = 1;
  bool stop_ = false;
};

}  // namespace autogemm::tuning
