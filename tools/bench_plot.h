// gemm_bench --plot: autogemm against cuBLAS, TFLOP/s per shape, drawn by
// gnuplot (Debian's gnuplot-nox) from gemm_bench's own JSON. The plotter is
// invoked, not reimplemented: this file writes its data and script and runs it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace autogemm::bench {

/// Draws `results` (what gemm_bench --json writes) into the PNG `png_path`:
/// one pair of bars per shape (autogemm, cuBLAS SGEMM; FP32-accurate and
/// cuBLAS TF32 too when measured), the ratio above each pair, the geometric
/// mean in the title. Throws std::runtime_error when the JSON lacks a field,
/// gnuplot is not installed, or it fails (its message included).
void plot_results(const nlohmann::json& results, const std::string& png_path);

}  // namespace autogemm::bench
