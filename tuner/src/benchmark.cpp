#include "autogemm/benchmark.h"

#include <algorithm>

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

Benchmark::Benchmark(const DeviceInfo& dev, CUstream stream)
    : stream_(stream), flush_(size_t(std::max(dev.l2_bytes, 1 << 20)) * 2) {}

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

}  // namespace autogemm
