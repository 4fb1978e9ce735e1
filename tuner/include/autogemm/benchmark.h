// Benchmark: event timing of one launch function on the GPU.
//
// Each timed run is preceded by a write over a buffer twice the size of L2,
// so no run finds its operands in L2 left warm by the previous one (the
// flush itself sits outside the events). Warm-up runs first; the median of
// the timed runs is the result and the interquartile range its noise.
#pragma once

#include <cuda.h>

#include <functional>
#include <memory>
#include <vector>

#include "autogemm/cuda_driver.h"
#include "autogemm/device_info.h"

namespace autogemm {

struct Timing {
  double median_ms = 0;
  double iqr_ms = 0;   ///< spread: 75th - 25th percentile
  double min_ms = 0;
  int runs = 0;
};

struct TimingOptions {
  int warmup = 2;
  int min_runs = 5;
  int max_runs = 50;
  double target_ms = 60;  ///< stop adding runs once their sum passes this
  bool flush_l2 = true;
};

class Benchmark {
 public:
  Benchmark(const DeviceInfo& dev, CUstream stream);

  /// Times `launch` (which enqueues work on the given stream).
  Timing time(const std::function<void(CUstream)>& launch, const TimingOptions& opt = {});

  /// Times `launch` once (after one warm-up) — used to drop hopeless candidates early.
  double once(const std::function<void(CUstream)>& launch);

 private:
  CUstream stream_;
  DeviceBuffer flush_;
  std::vector<std::unique_ptr<Event>> events_;
  void flush();
};

/// Median and IQR of samples (not empty).
Timing summarize(std::vector<double> ms);

}  // namespace autogemm
