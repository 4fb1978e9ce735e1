// gemm_bench's results: the rows it measures and their two reports, the
// table on stdout and the JSON document (what --plot and scripts read).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "autogemm/benchmark.h"
#include "autogemm/device_info.h"

namespace autogemm::bench {

/// One more side of a row (--fp32-accurate): speed, errors, whether it verified.
/// Element-wise errors of every side are against the FFMA bound, so they compare.
struct Side {
  double tflops = 0, err = 0, worst = 0;  ///< worst: max |out - ref| / the element's bound
  bool ok = false;
  std::string config;
};

/// One shape: autogemm and cuBLAS SGEMM, each timed and checked against FP64.
struct Row {
  std::string shape, config;
  double ag_tflops = 0, cb_tflops = 0, ag_err = 0, cb_err = 0, ag_worst = 0, cb_worst = 0;
  Timing ag, cb;
  bool ag_ok = false, cb_ok = false;
  std::optional<Side> accurate, tf32;  ///< autogemm in fp32_accurate mode; cuBLAS TF32
  /// --timing both: TFLOP/s of autogemm and cuBLAS on a warm L2 (the same
  /// operands call after call), beside the rotating figures above.
  std::optional<double> ag_warm_tflops, cb_warm_tflops;
};

/// Host time per call: autogemm_sgemm against a bare launch of its kernel (< 0: not measured).
struct Overhead {
  double dispatch_us = -1, bare_us = -1;
};

/// What the run was: the device, the timing method ("rotate", "warm",
/// "flush" or "both") and the inputs' exponent spread.
struct RunInfo {
  std::string device, timing;
  int spread = 0;
  double first_call_ms = -1;  ///< the process's first autogemm_sgemm call
};

/// Geometric mean of autogemm's TFLOP/s over cuBLAS's (rotating or flushed timing).
double geomean_ratio(const std::vector<Row>& rows);

nlohmann::json to_json(const RunInfo& run, const std::vector<Row>& rows, const Overhead& o);

/// The table(s) on stdout: every shape, the geometric means, the host overhead.
void print_results(const RunInfo& run, const std::vector<Row>& rows, const Overhead& o);

}  // namespace autogemm::bench
