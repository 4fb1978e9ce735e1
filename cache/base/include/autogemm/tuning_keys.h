// Tuning keys and records: the plain values that name a device, a problem
// and one measured candidate. Shared by the core, the tuner and the store, so
// code that only needs to *name* a tuning result does not link SQLite.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace autogemm {

/// What identifies a GPU for tuning purposes: everything that changes kernel
/// behaviour or speed. The device ordinal is deliberately not part of it.
struct DeviceKey {
  std::string name;         ///< e.g. "NVIDIA H200"
  int cc_major = 0;         ///< compute capability
  int cc_minor = 0;
  int sm_count = 0;         ///< multiprocessors
  int driver_version = 0;   ///< cuDriverGetVersion, e.g. 13000
  int nvrtc_version = 0;    ///< major*1000 + minor*10, e.g. 13000
  bool operator==(const DeviceKey& o) const {
    return name == o.name && cc_major == o.cc_major && cc_minor == o.cc_minor &&
           sm_count == o.sm_count && driver_version == o.driver_version &&
           nvrtc_version == o.nvrtc_version;
  }
};

/// A GEMM problem in autogemm's canonical form (row-major C = op(A) op(B)).
struct ShapeKey {
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  bool aligned = false;  ///< alignment class: 16-byte vector access is legal
  /// Batch bucket of a strided-batched call (batch_bucket of its count); 1
  /// for a plain call. Counts of one bucket share a tuned entry: they differ
  /// in waves of blocks, not in what tile suits a product.
  int64_t batch = 1;
  bool operator==(const ShapeKey& o) const {
    return m == o.m && n == o.n && k == o.k && trans_a == o.trans_a &&
           trans_b == o.trans_b && aligned == o.aligned && batch == o.batch;
  }
};

/// The bucket a batch count is tuned and stored under: the count itself up
/// to 8, then the power of two at or above it (9..16 -> 16, 17..32 -> 32).
/// Small counts stay apart because each one changes the waves a lot.
int64_t batch_bucket(int64_t count);

/// Outcome of measuring one candidate configuration.
enum class TrialStatus { Ok, CompileFailed, LimitsExceeded, WrongResult, Timeout, Crashed };

const char* to_string(TrialStatus s);
std::optional<TrialStatus> parse_trial_status(const std::string& s);

/// How a candidate's time was measured. Rotate: launches back to back over
/// copies of the operands that together exceed L2, so each call finds its
/// operands in DRAM (a program that streams through data). Warm: the same
/// operands call after call, so they stay in L2 (most applications'
/// repeated calls). The two can rank configs differently, so every trial
/// and winner says which it was.
enum class TimingRegime { Rotate, Warm };

const char* to_string(TimingRegime t);  ///< "rotate", "warm"
std::optional<TimingRegime> parse_timing_regime(const std::string& s);

struct TrialRecord {
  std::string config;          ///< canonical KernelConfig string
  TrialStatus status = TrialStatus::Ok;
  double median_ms = 0;        ///< median kernel time (0 unless status Ok)
  double spread_ms = 0;        ///< measurement noise: interquartile range
  double gflops = 0;
  std::string detail;          ///< why it failed (compile log excerpt, error)
  TimingRegime timing = TimingRegime::Rotate;  ///< how median_ms was measured
};

struct TuningCost {
  int candidates = 0;          ///< configurations tried
  double compile_s = 0;        ///< summed NVRTC time
  double wall_s = 0;           ///< wall time of the whole tuning of the shape
  std::string strategy;        ///< e.g. "exhaustive", "sampled"
};

}  // namespace autogemm
