// gemm_bench's table and JSON (bench_report.h).
#include "bench_report.h"

#include <cmath>
#include <cstdio>

namespace autogemm::bench {
namespace {

double geomean_warm_ratio(const std::vector<Row>& rows) {
  double log_sum = 0;
  for (const Row& r : rows) log_sum += std::log(*r.ag_warm_tflops / *r.cb_warm_tflops);
  return rows.empty() ? 0 : std::exp(log_sum / double(rows.size()));
}

}  // namespace

nlohmann::json to_json(const RunInfo& run, const std::vector<Row>& rows, const Overhead& o) {
  nlohmann::json js;
  js["device"] = run.device;
  js["timing"] = run.timing;
  js["exponent_spread"] = run.spread;
  js["shapes"] = nlohmann::json::array();
  for (const Row& r : rows)
    js["shapes"].push_back({{"shape", r.shape}, {"autogemm_tflops", r.ag_tflops}, {"cublas_tflops", r.cb_tflops},
                            {"ratio", r.ag_tflops / r.cb_tflops}, {"autogemm_rel_error", r.ag_err},
                            {"cublas_rel_error", r.cb_err}, {"autogemm_verified", r.ag_ok},
                            {"cublas_verified", r.cb_ok}, {"autogemm_median_ms", r.ag.median_ms},
                            {"cublas_median_ms", r.cb.median_ms}, {"autogemm_iqr_ms", r.ag.iqr_ms},
                            {"cublas_iqr_ms", r.cb.iqr_ms}, {"config", r.config},
                            {"autogemm_worst_to_bound", r.ag_worst}, {"cublas_worst_to_bound", r.cb_worst}});
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (!r.accurate) continue;
    js["shapes"][i]["fp32_accurate"] = {{"tflops", r.accurate->tflops}, {"rel_error", r.accurate->err},
                                        {"verified", r.accurate->ok}, {"config", r.accurate->config},
                                        {"ratio_to_cublas_sgemm", r.accurate->tflops / r.cb_tflops},
                                        {"worst_to_bound", r.accurate->worst}};
    js["shapes"][i]["cublas_tf32"] = {
        {"tflops", r.tf32->tflops}, {"rel_error", r.tf32->err}, {"worst_to_bound", r.tf32->worst}};
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (!r.ag_warm_tflops) continue;
    js["shapes"][i]["autogemm_warm_tflops"] = *r.ag_warm_tflops;
    js["shapes"][i]["cublas_warm_tflops"] = *r.cb_warm_tflops;
    js["shapes"][i]["warm_ratio"] = *r.ag_warm_tflops / *r.cb_warm_tflops;
  }
  js["geomean_ratio"] = geomean_ratio(rows);
  if (!rows.empty() && rows[0].ag_warm_tflops) js["geomean_ratio_warm"] = geomean_warm_ratio(rows);
  js["first_autogemm_call_ms"] = run.first_call_ms;
  if (o.dispatch_us >= 0) {
    js["dispatch_us"] = o.dispatch_us;
    js["bare_launch_us"] = o.bare_us;
  }
  return js;
}

namespace {

void print_overhead(const Overhead& o, double first_ms) {
  if (o.dispatch_us >= 0)
    std::printf("host time per call: autogemm_sgemm %.2f us, bare cuLaunchKernel %.2f us (+%.2f us)\n",
                o.dispatch_us, o.bare_us, o.dispatch_us - o.bare_us);
  std::printf("first autogemm_sgemm call in this process: %.2f ms\n", first_ms);
}

void print_warm(const std::vector<Row>& rows) {
  std::printf("\n%-22s %9s %9s %6s  %s\n", "shape", "ag warm", "cb warm", "ratio", "(warm L2: the same operands)");
  for (const Row& r : rows)
    std::printf("%-22s %9.2f %9.2f %6.3f\n", r.shape.c_str(), *r.ag_warm_tflops, *r.cb_warm_tflops,
                *r.ag_warm_tflops / *r.cb_warm_tflops);
  std::printf("geometric mean autogemm/cuBLAS over %zu shapes, warm L2: %.3f\n", rows.size(), geomean_warm_ratio(rows));
}

}  // namespace

double geomean_ratio(const std::vector<Row>& rows) {
  double log_sum = 0;
  for (const Row& r : rows) log_sum += std::log(r.ag_tflops / r.cb_tflops);
  return rows.empty() ? 0 : std::exp(log_sum / double(rows.size()));
}

void print_results(const RunInfo& run, const std::vector<Row>& rows, const Overhead& o) {
  const std::string& timing = run.timing;
  const double first_ms = run.first_call_ms;
  std::printf("\n%-22s %9s %9s %6s %9s %9s  %s\n", "shape", "autogemm", "cuBLAS", "ratio", "err(ag)", "err(cb)",
              "autogemm config");
  for (const Row& r : rows)
    std::printf("%-22s %9.2f %9.2f %6.3f %9.1e %9.1e  %s%s\n", r.shape.c_str(), r.ag_tflops, r.cb_tflops,
                r.ag_tflops / r.cb_tflops, r.ag_err, r.cb_err, r.config.c_str(), r.ag_ok ? "" : "  WRONG");
  std::printf("geometric mean autogemm/cuBLAS over %zu shapes: %.3f   (TFLOP/s, median of event-timed runs, %s)\n",
              rows.size(), geomean_ratio(rows),
              timing == "rotate" || timing == "both" ? "back to back over operand copies exceeding L2"
              : timing == "warm" ? "back to back on the same operands, warm L2"
                                 : "L2 flushed before each call");
  if (!rows.empty() && rows[0].ag_warm_tflops) print_warm(rows);
  if (rows.empty() || !rows[0].accurate) return print_overhead(o, first_ms);
  std::printf("\n%-22s %9s %6s %9s %9s %9s  %s\n", "shape", "fp32-acc", "ratio", "err(acc)", "cb-tf32",
              "err(tf32)", "fp32_accurate config");
  double log_sum = 0;
  for (const Row& r : rows) {
    log_sum += std::log(r.accurate->tflops / r.cb_tflops);
    std::printf("%-22s %9.2f %6.3f %9.1e %9.2f %9.1e  %s%s\n", r.shape.c_str(), r.accurate->tflops,
                r.accurate->tflops / r.cb_tflops, r.accurate->err, r.tf32->tflops, r.tf32->err,
                r.accurate->config.c_str(), r.accurate->ok ? "" : "  WRONG");
  }
  std::printf("geometric mean fp32_accurate/cuBLAS SGEMM over %zu shapes: %.3f\n", rows.size(),
              std::exp(log_sum / double(rows.size())));
  print_overhead(o, first_ms);
}

}  // namespace autogemm::bench
