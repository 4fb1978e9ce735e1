#include "autogemm/tuner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <set>
#include <thread>

#include "autogemm/benchmark.h"
#include "autogemm/kernel_launch.h"
#include "autogemm/log.h"
#include "autogemm/search_space.h"
#include "autogemm/verifier.h"

namespace autogemm {
namespace {

using Clock = std::chrono::steady_clock;

struct Compiled {
  std::optional<CompileResult> result;
  std::string error;
};

/// Compiles `configs` on `threads` workers; results are consumed in order
/// while later ones are still compiling, so NVRTC overlaps GPU measuring.
class CompilePool {
 public:
  CompilePool(const std::vector<KernelConfig>& configs, const std::string& arch, int threads)
      : configs_(configs), arch_(arch), promises_(configs.size()) {
    for (auto& p : promises_) futures_.push_back(p.get_future());
    const int n = std::max(1, std::min<int>(threads, int(configs.size())));
    for (int i = 0; i < n; ++i) workers_.emplace_back([this] { work(); });
  }
  ~CompilePool() {
    stop_ = true;
    for (auto& w : workers_) w.join();
  }
  Compiled get(size_t i) { return futures_[i].get(); }

 private:
  void work() {
    for (size_t i; !stop_ && (i = next_++) < configs_.size();) {
      Compiled c;
      try {
        c.result = compile_kernel(configs_[i], arch_);
      } catch (const CompileError& e) {
        c.error = std::string(e.what()) + "\n" + e.log().substr(0, 2000);
      } catch (const std::exception& e) {
        c.error = e.what();
      }
      promises_[i].set_value(std::move(c));
    }
  }
  const std::vector<KernelConfig>& configs_;
  std::string arch_;
  std::vector<std::promise<Compiled>> promises_;
  std::vector<std::future<Compiled>> futures_;
  std::vector<std::thread> workers_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> stop_{false};
};

/// CUDA errors after which the context cannot be used any more.
bool context_is_lost(CUresult r) {
  return r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_LAUNCH_FAILED ||
         r == CUDA_ERROR_ILLEGAL_INSTRUCTION || r == CUDA_ERROR_MISALIGNED_ADDRESS ||
         r == CUDA_ERROR_HARDWARE_STACK_ERROR || r == CUDA_ERROR_INVALID_PC ||
         r == CUDA_ERROR_ASSERT || r == CUDA_ERROR_LAUNCH_TIMEOUT || r == CUDA_ERROR_ECC_UNCORRECTABLE;
}

}  // namespace

TuneResult Tuner::tune(const Problem& p, const TuneProgress& progress) {
  const auto t0 = Clock::now();
  TuneResult out;
  out.problem = p;
  const SearchLimits lim = SearchLimits::of(dev_);
  const std::vector<KernelConfig> space = SearchSpace::enumerate(p, lim);
  std::vector<KernelConfig> chosen = select_candidates(opt_.strategy, space, p, lim, opt_.budget, opt_.seed);

  const KernelConfig def = default_config(p);
  std::set<std::string> skip(opt_.skip.begin(), opt_.skip.end());
  std::vector<KernelConfig> configs = {def};  // the default first: it is the bar to beat
  std::set<std::string> seen = {def.to_string()};
  for (const KernelConfig& c : chosen) {
    const std::string s = c.to_string();
    if (skip.count(s) || !seen.insert(s).second) continue;
    configs.push_back(c);
  }
  log().info("tuning {}: {} candidates ({} in the search space, strategy {})", p.to_string(),
             configs.size(), space.size(), to_string(opt_.strategy));

  const int threads = opt_.compile_threads > 0 ? opt_.compile_threads
                                               : int(std::max(1u, std::thread::hardware_concurrency()));
  CompilePool pool(configs, dev_.arch(), threads);
  Verifier ver(p, dev_, 1.0f, 0.0f, opt_.seed);
  Stream stream;
  Benchmark bench(dev_, stream.get());
  DeviceBuffer workspace;
  double best_ms = std::numeric_limits<double>::infinity();

  for (size_t i = 0; i < configs.size(); ++i) {
    Candidate cand;
    cand.config = configs[i];
    cand.is_default = i == 0;
    cand.trial.config = configs[i].to_string();
    Compiled compiled = pool.get(i);
    if (!compiled.result) {
      cand.trial.status = TrialStatus::CompileFailed;
      cand.trial.detail = compiled.error;
    } else {
      out.cost.compile_s += compiled.result->seconds;
      try {
        LoadedKernel k = LoadedKernel::load(cand.config, compiled.result->cubin, dev_);
        cand.registers = k.resources().registers;
        cand.local_bytes = k.resources().local_bytes;
        const size_t ws = cand.config.workspace_floats(p);
        if (workspace.bytes() < ws * 4) {
          workspace = DeviceBuffer();
          workspace = DeviceBuffer(ws * 4);
          AUTOGEMM_CU(cuMemsetD32(workspace.get(), 0, ws));  // kernels keep it zeroed afterwards
        }
        // Counters zeroed per candidate: a faulty earlier candidate must not
        // leave traps for the next one.
        if (ws) AUTOGEMM_CU(cuMemsetD32(workspace.get(), 0, KernelConfig::kSplitTiles));
        auto launch = [&](CUstream s) { k.launch(ver.call(), s, workspace.get()); };
        ver.prepare(stream.get());
        launch(stream.get());
        const VerifyResult vr = ver.check(stream.get());
        if (!vr.ok) {
          cand.trial.status = TrialStatus::WrongResult;
          cand.trial.detail = vr.why;
        } else {
          // One timed run first: a candidate 3x slower than the best so far
          // is recorded from that run alone instead of a full measurement.
          const double first = bench.once(launch);
          Timing t;
          if (first > 3 * best_ms) {
            t.median_ms = first;
            t.runs = 1;
            cand.trial.detail = "timed once: far slower than the best";
          } else {
            t = bench.time(launch);
          }
          cand.trial.status = TrialStatus::Ok;
          cand.trial.median_ms = t.median_ms;
          cand.trial.spread_ms = t.iqr_ms;
          cand.trial.gflops = p.flops() / (t.median_ms * 1e6);
          best_ms = std::min(best_ms, t.median_ms);
          if (cand.local_bytes > 0)
            cand.trial.detail += (cand.trial.detail.empty() ? "" : "; ") + std::to_string(cand.local_bytes) +
                                 " bytes of local memory per thread";
        }
      } catch (const LimitsError& e) {
        cand.trial.status = TrialStatus::LimitsExceeded;
        cand.trial.detail = e.what();
      } catch (const CudaError& e) {
        cand.trial.status = TrialStatus::Crashed;
        cand.trial.detail = e.what();
        if (context_is_lost(e.code())) {
          // The context is gone: nothing more can be measured in this process.
          out.candidates.push_back(std::move(cand));
          throw;
        }
      }
      if (cand.trial.status == TrialStatus::Ok) cand.cubin = std::move(compiled.result->cubin);
    }
    if (progress) progress(i + 1, configs.size(), cand);
    out.candidates.push_back(std::move(cand));
  }

  for (size_t i = 0; i < out.candidates.size(); ++i) {
    const Candidate& c = out.candidates[i];
    if (c.is_default) out.default_index = i;
    if (c.trial.status != TrialStatus::Ok) continue;
    if (!out.best || c.trial.median_ms < out.candidates[*out.best].trial.median_ms) out.best = i;
  }
  // Only the winner's and the default's cubins are worth keeping.
  for (size_t i = 0; i < out.candidates.size(); ++i)
    if (i != out.best && i != out.default_index) out.candidates[i].cubin.clear();
  out.cost.candidates = int(configs.size());
  out.cost.strategy = to_string(opt_.strategy);
  out.cost.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
}

}  // namespace autogemm
