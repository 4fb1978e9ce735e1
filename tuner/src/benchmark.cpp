#include "autogemm/benchmark.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "reference_module.h"

namespace autogemm {

Timing summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  Timing t;
  t.runs = int(ms.size());
  if (ms.empty()) return t;
  auto q = [&](double f) {
    const double pos = f * double(ms.size() - 1);
    const size_t lo = size_t(pos);
    const size_t hi = std::min(lo + 1, ms.size() - 1);
    return ms[lo] + (ms[hi] - ms[lo]) * (pos - double(lo));
  };
  t.median_ms = q(0.5);
  t.iqr_ms = q(0.75) - q(0.25);
  t.min_ms = ms.front();
  return t;
}

namespace {

// Floats an operand spans over every product of a batch (one product: its extent).
size_t span(int64_t extent, int64_t stride, int64_t batch) { return size_t(extent + (batch - 1) * stride); }
size_t a_floats(const Problem& p) { return span(p.a_extent(), p.stride_a, p.batch); }
size_t b_floats(const Problem& p) { return span(p.b_extent(), p.stride_b, p.batch); }
size_t c_floats(const Problem& p) { return span(p.c_extent(), p.stride_c, p.batch); }

// Each copy keeps its original's address modulo this, so a copy is in the
// same alignment class as the call it copies.
constexpr size_t kCopyAlign = 256;

size_t padded(size_t floats) { return (floats * 4 + 2 * kCopyAlign - 1) / kCopyAlign * kCopyAlign; }

}  // namespace

size_t RotatingOperands::footprint_bytes(const Problem& p) { return 4 * (a_floats(p) + b_floats(p) + c_floats(p)); }

int RotatingOperands::copies_for(const Problem& p, size_t l2_bytes) {
  const double footprint = double(std::max<size_t>(footprint_bytes(p), 1));
  const double most = std::min(1024.0, std::floor(double(size_t(4) << 30) / footprint));
  return int(std::clamp(std::ceil(3.0 * double(l2_bytes) / footprint), 1.0, std::max(most, 1.0)));
}

RotatingOperands::RotatingOperands(const Problem& p, const CanonicalCall& call, size_t l2_bytes, CUstream s) {
  calls_.push_back(call);
  const int copies = copies_for(p, l2_bytes);
  if (copies == 1) return;
  const size_t per_copy = padded(a_floats(p)) + padded(b_floats(p)) + padded(c_floats(p));
  buffers_.emplace_back(per_copy * size_t(copies - 1));
  CUdeviceptr next = buffers_.back().get();
  // Places `floats` floats copied from `src` at the next free address with src's offset modulo kCopyAlign.
  auto place = [&](const void* src, size_t floats) {
    const auto from = CUdeviceptr(reinterpret_cast<uintptr_t>(src));
    const CUdeviceptr to = next + from % kCopyAlign;
    if (floats) AUTOGEMM_CU(cuMemcpyDtoDAsync(to, from, floats * 4, s));
    next += padded(floats);
    return to;
  };
  for (int i = 1; i < copies; ++i) {
    CanonicalCall c = call;
    c.a = reinterpret_cast<const float*>(place(call.a, a_floats(p)));
    c.b = reinterpret_cast<const float*>(place(call.b, b_floats(p)));
    c.c = reinterpret_cast<float*>(place(call.c, c_floats(p)));
    calls_.push_back(c);
  }
  AUTOGEMM_CU(cuStreamSynchronize(s));
}

Benchmark::Benchmark(const DeviceInfo& dev, CUstream stream)
    : dev_(dev), stream_(stream), flush_(size_t(std::max(dev.l2_bytes, 1 << 20)) * 2) {}

Benchmark::~Benchmark() = default;

void Benchmark::flush() {
  AUTOGEMM_CU(cuMemsetD32Async(flush_.get(), 0x5a5a5a5a, flush_.bytes() / 4, stream_));
}

double Benchmark::once(const std::function<void(CUstream)>& launch) {
  TimingOptions o;
  o.warmup = 1;
  o.min_runs = 1;
  o.max_runs = 1;
  return time(launch, o).median_ms;
}

Timing Benchmark::time(const std::function<void(CUstream)>& launch, const TimingOptions& opt) {
  for (int i = 0; i < opt.warmup; ++i) launch(stream_);
  AUTOGEMM_CU(cuStreamSynchronize(stream_));
  std::vector<double> samples;
  double total = 0;
  // Runs go in batches so the GPU is never idle waiting for the host, and
  // the batch size adapts to reach target_ms without too many runs.
  int batch = opt.min_runs;
  while (int(samples.size()) < opt.max_runs) {
    batch = std::min(batch, opt.max_runs - int(samples.size()));
    while (events_.size() < size_t(2 * batch)) events_.push_back(std::make_unique<Event>());
    for (int i = 0; i < batch; ++i) {
      if (opt.flush_l2) flush();
      events_[2 * i]->record(stream_);
      launch(stream_);
      events_[2 * i + 1]->record(stream_);
    }
    AUTOGEMM_CU(cuStreamSynchronize(stream_));
    for (int i = 0; i < batch; ++i) {
      const double ms = events_[2 * i + 1]->elapsed_since(*events_[2 * i]);
      samples.push_back(ms);
      total += ms;
    }
    if (int(samples.size()) >= opt.min_runs && total >= opt.target_ms) break;
    const double per = total / samples.size();
    batch = int(std::clamp((opt.target_ms - total) / std::max(per, 1e-3), 1.0, double(opt.max_runs)));
  }
  return summarize(std::move(samples));
}

Benchmark::Batch Benchmark::run_batch(const std::function<void(CUstream, int)>& launch, int copies, int launches,
                                      double hold_ms, int* next_copy) {
  if (!hold_) {
    hold_module_ = load_reference_module(dev_, false, false);
    hold_ = hold_module_.function("agemm_hold");
  }
  while (events_.size() < 2) events_.push_back(std::make_unique<Event>());
  unsigned long long ns = static_cast<unsigned long long>(hold_ms * 1e6);
  void* args[] = {&ns};
  AUTOGEMM_CU(cuLaunchKernel(hold_, 1, 1, 1, 1, 1, 1, 0, stream_, args, nullptr));
  events_[0]->record(stream_);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i, *next_copy = (*next_copy + 1) % copies) launch(stream_, *next_copy);
  const double host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  events_[1]->record(stream_);
  AUTOGEMM_CU(cuStreamSynchronize(stream_));
  return {events_[1]->elapsed_since(*events_[0]) / launches, host_ms};
}

namespace {

/// How long to hold the stream so that `launches` launches, enqueued at
/// `host_ms` each and running `gpu_ms` each, never find the GPU idle: the
/// host must stay ahead of the GPU, so only what it is slower by, summed,
/// has to be made up in advance (with a margin), plus the first launches.
double hold_ms(double host_ms, double gpu_ms, int launches) {
  return 0.02 + 2 * host_ms + 1.5 * std::max(0.0, host_ms - gpu_ms) * launches;
}

// Before anything is measured: 20 us a launch for the host, a GPU as fast as free.
constexpr double kHostGuessMs = 0.02;

}  // namespace

double Benchmark::once_rotating(const std::function<void(CUstream, int)>& launch, int copies, bool warm) {
  if (warm) {
    for (int i = 0; i < copies; ++i) launch(stream_, i);
    AUTOGEMM_CU(cuStreamSynchronize(stream_));
  }
  int next = 0;
  const int launches = std::min(copies, 256);
  return run_batch(launch, copies, launches, hold_ms(kHostGuessMs, 0, launches), &next).gpu_ms_per_launch;
}

Timing Benchmark::time_rotating(const std::function<void(CUstream, int)>& launch, int copies,
                                const TimingOptions& opt) {
  copies = std::max(copies, 1);
  for (int w = 0; w < opt.warmup; ++w)
    for (int i = 0; i < copies; ++i) launch(stream_, i);
  AUTOGEMM_CU(cuStreamSynchronize(stream_));
  // Batches of about 1 ms of GPU work and at most 256 launches (the
  // driver's launch queue holds about a thousand, and a split-K call takes
  // two); a first batch of one launch per copy sizes them unless the caller
  // knows a launch's time. The copies are taken in turn across batches.
  int next = 0;
  double gpu_ms = opt.expected_ms, host_ms = kHostGuessMs;
  if (!(gpu_ms > 0)) {
    const int first = std::min(copies, 256);
    const Batch b = run_batch(launch, copies, first, hold_ms(kHostGuessMs, 0, first), &next);
    gpu_ms = b.gpu_ms_per_launch;
    host_ms = b.host_ms / first;
  }
  const int launches = int(std::clamp(std::ceil(1.0 / std::max(gpu_ms, 1e-4)), 1.0, 256.0));
  std::vector<double> samples;
  double total = 0;
  for (int retries = 0; int(samples.size()) < opt.max_runs;) {
    const double hold = hold_ms(host_ms, gpu_ms, launches);
    const Batch b = run_batch(launch, copies, launches, hold, &next);
    host_ms = b.host_ms / launches;
    // The host finished enqueueing after the GPU could have finished the
    // batch: the GPU may have waited for it. Measure again, held longer.
    if (b.host_ms > hold + b.gpu_ms_per_launch * (launches - 1) && retries++ < 3) continue;
    gpu_ms = b.gpu_ms_per_launch;
    samples.push_back(gpu_ms);
    total += gpu_ms * launches;
    if (int(samples.size()) >= opt.min_runs && total >= opt.target_ms) break;
  }
  return summarize(std::move(samples));
}

const char* settled_by_one_run(double first_ms, double best_ms) {
  if (!(first_ms > 0) || !(best_ms > 0) || !std::isfinite(best_ms)) return nullptr;
  if (first_ms > (first_ms >= 1.0 ? 1.5 : 3.0) * best_ms) return "timed once: far slower than the best";
  // Past the finalists' margin by more than a long run's own spread.
  constexpr double kLongRunSpread = 0.01;
  if (first_ms >= 30.0 && first_ms > (1 + kFinalistMargin + kLongRunSpread) * best_ms)
    return "timed once: a long run past the finalists' margin";
  return nullptr;
}

}  // namespace autogemm
