// gemm_bench's report (tools/bench_report.h) on made-up rows: the JSON names
// every side's errors and, with --timing both, the warm figures and their
// geometric mean beside the rotating ones; the table says the same on stdout.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "bench_report.h"

namespace autogemm::bench {
namespace {

Row row(const std::string& shape, double ag, double cb) {
  Row r;
  r.shape = shape, r.config = "warptiled (exact)";
  r.ag_tflops = ag, r.cb_tflops = cb, r.ag_err = 1e-7, r.cb_err = 2e-7, r.ag_worst = 0.01, r.cb_worst = 0.02;
  r.ag_ok = r.cb_ok = true;
  return r;
}

TEST(BenchReport, JsonHasErrorsSpreadAndNoWarmFiguresUnlessMeasured) {
  const std::vector<Row> rows = {row("64x64x64:NN", 2.0, 1.0), row("128x128x128:NN", 1.0, 2.0)};
  const nlohmann::json js = to_json(RunInfo{"H200", "rotate", 16, 3.5}, rows, Overhead{});
  EXPECT_EQ(js["exponent_spread"], 16);
  EXPECT_DOUBLE_EQ(js["geomean_ratio"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(js["shapes"][0]["cublas_worst_to_bound"].get<double>(), 0.02);
  EXPECT_FALSE(js.contains("geomean_ratio_warm"));
  EXPECT_FALSE(js["shapes"][0].contains("warm_ratio"));
  EXPECT_FALSE(js.contains("dispatch_us")) << "overhead not measured";
}

TEST(BenchReport, BothTimingsSideBySide) {
  std::vector<Row> rows = {row("64x64x64:NN", 2.0, 1.0), row("128x128x128:NN", 1.0, 1.0)};
  rows[0].ag_warm_tflops = 3.0, rows[0].cb_warm_tflops = 1.5;
  rows[1].ag_warm_tflops = 1.0, rows[1].cb_warm_tflops = 2.0;
  const nlohmann::json js = to_json(RunInfo{"H200", "both", 0, 1.0}, rows, Overhead{2.5, 2.0});
  EXPECT_DOUBLE_EQ(js["geomean_ratio"].get<double>(), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(js["geomean_ratio_warm"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(js["shapes"][0]["warm_ratio"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(js["dispatch_us"].get<double>(), 2.5);
  testing::internal::CaptureStdout();
  print_results(RunInfo{"H200", "both", 0, 1.0}, rows, Overhead{});
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("warm L2: 1.000"), std::string::npos) << out;
  EXPECT_NE(out.find("over 2 shapes: 1.414"), std::string::npos) << out;
}

}  // namespace
}  // namespace autogemm::bench
