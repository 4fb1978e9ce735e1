// Benchmark: event timing of launches on the GPU, two ways.
//
// time(): each run is preceded by a write over a buffer twice the size of
// L2, so no run finds its operands in L2 left warm by the previous one (the
// flush itself sits outside the events). One launch per event pair.
//
// time_rotating(): launches run back to back, cycling over copies of the
// operands that together exceed L2 (RotatingOperands), so each launch finds
// its operands evicted by the ones before, without a flush: a flush leaves L2
// full of dirty lines whose write-back then competes with the timed kernel
// for memory bandwidth, which a bandwidth-bound kernel pays in full. A batch
// of launches waits behind a hold kernel while the host enqueues it, so host
// speed never shows; one event pair spans the batch, its mean is one sample.
//
// Both: warm-up first; the median of the samples is the result and the
// interquartile range its noise.
#pragma once

#include <cuda.h>

#include <functional>
#include <memory>
#include <vector>

#include "autogemm/cuda_driver.h"
#include "autogemm/device_info.h"
#include "autogemm/problem.h"

namespace autogemm {

struct Timing {
  double median_ms = 0;
  double iqr_ms = 0;   ///< spread: 75th - 25th percentile
  double min_ms = 0;
  int runs = 0;        ///< samples (time: launches; time_rotating: batches)
};

struct TimingOptions {
  int warmup = 2;
  int min_runs = 5;
  int max_runs = 50;
  double target_ms = 60;  ///< stop adding runs once their sum passes this
  bool flush_l2 = true;   ///< time() only
  double expected_ms = 0; ///< time_rotating(): a launch's time if known (no sizing batch)
};

/// Copies of one problem's operands, enough that together they exceed three
/// times L2 (at most 1024 copies and 4 GiB): copy 0 is the given call itself,
/// the others are filled from it on the GPU (same values, so the same power
/// draw and the same results) at the same address offsets modulo 256 bytes.
class RotatingOperands {
 public:
  RotatingOperands(const Problem& p, const CanonicalCall& call, size_t l2_bytes, CUstream s);
  int count() const { return int(calls_.size()); }
  const CanonicalCall& call(int i) const { return calls_[size_t(i)]; }

  /// How many copies of `p`'s operands exceed 3 * `l2_bytes` (at least 1,
  /// and no more than a total of 4 GiB or 1024 copies).
  static int copies_for(const Problem& p, size_t l2_bytes);
  /// Bytes of A, B and C that one call of `p` spans.
  static size_t footprint_bytes(const Problem& p);

 private:
  std::vector<CanonicalCall> calls_;
  std::vector<DeviceBuffer> buffers_;
};

class Benchmark {
 public:
  Benchmark(const DeviceInfo& dev, CUstream stream);
  ~Benchmark();

  /// Times `launch` (which enqueues work on the given stream).
  Timing time(const std::function<void(CUstream)>& launch, const TimingOptions& opt = {});

  /// Times `launch` once (after one warm-up) — used to drop hopeless candidates early.
  double once(const std::function<void(CUstream)>& launch);

  /// Times `launch(stream, i)`, i cycling over `copies` operand sets, in
  /// batches of back-to-back launches (see the top of this file); `runs`
  /// counts batches. Each sample is a batch's time over its launches.
  Timing time_rotating(const std::function<void(CUstream, int)>& launch, int copies, const TimingOptions& opt = {});

  /// One short batch of time_rotating (one launch per copy, at most 256,
  /// after one warm-up of each unless `warm` is false): the mean time of a launch.
  double once_rotating(const std::function<void(CUstream, int)>& launch, int copies, bool warm = true);

 private:
  struct Batch {
    double gpu_ms_per_launch;
    double host_ms;  ///< time the host took to enqueue the batch
  };
  DeviceInfo dev_;
  CUstream stream_;
  DeviceBuffer flush_;
  std::vector<std::unique_ptr<Event>> events_;
  Module hold_module_;
  CUfunction hold_ = nullptr;
  void flush();
  /// `launches` launches behind a hold of `hold_ms`, from copy *next_copy on.
  Batch run_batch(const std::function<void(CUstream, int)>& launch, int copies, int launches, double hold_ms,
                  int* next_copy);
};

/// Median and IQR of samples (not empty).
Timing summarize(std::vector<double> ms);

/// The tuner times again the candidates within this fraction of the best
/// (its finalists), so a single run need only tell who is outside it.
constexpr double kFinalistMargin = 0.03;

/// Whether a candidate whose first timed run took `first_ms` is settled by
/// that run alone against the best so far (`best_ms`), and why (nullptr:
/// time it fully). A run's spread shrinks with its length: below 1 ms only
/// 3x slower is sure, from 1 ms 1.5x, and from 30 ms (a run spreads about
/// 1 % there, and is 0.17 s at 16384^3) anything past the finalists' margin
/// by more than that spread.
const char* settled_by_one_run(double first_ms, double best_ms);

}  // namespace autogemm
