// gemm_bench: autogemm (dispatching from the tuning cache) against cuBLAS
// SGEMM (TF32 off), same process, same inputs, same timing method.
//
//   gemm_bench                       the public suite, default cache
//   gemm_bench --shape 4096x4096x4096:NT --db my.db --json out.json
//
// Each side is timed with CUDA events around the call (warm-up first, median
// of repeated runs, L2 overwritten before every run so neither side finds its
// operands cached), and each result is compared with an FP64 reference.
#include <CLI/CLI.hpp>
#include <cublas_v2.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "autogemm/autogemm.h"
#include "autogemm/benchmark.h"
#include "autogemm/cuda_driver.h"
#include "autogemm/kernel_launch.h"
#include "autogemm/log.h"
#include "autogemm/tuner.h"
#include "autogemm/verifier.h"

using namespace autogemm;

namespace {

void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + " failed (cuBLAS status " + std::to_string(int(s)) + ")");
}

autogemm_transpose tr(bool t) { return t ? AUTOGEMM_TRANS : AUTOGEMM_NO_TRANS; }

// Row-major canonical call -> autogemm's C API.
autogemm_status run_autogemm(const CanonicalCall& c, CUstream s) {
  const Problem& p = c.problem;
  return autogemm_sgemm(AUTOGEMM_ROW_MAJOR, tr(p.trans_a), tr(p.trans_b), int(p.m), int(p.n), int(p.k), c.alpha,
                        c.a, int(p.lda), c.b, int(p.ldb), c.beta, c.c, int(p.ldc), s);
}

// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: cuBLAS
// gets the operands swapped, each with its own transpose.
void run_cublas(cublasHandle_t h, const CanonicalCall& c) {
  const Problem& p = c.problem;
  cublas_check(cublasSgemm(h, p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, int(p.n),
                           int(p.m), int(p.k), &c.alpha, c.b, int(p.ldb), c.a, int(p.lda), &c.beta, c.c, int(p.ldc)),
               "cublasSgemm");
}

struct Row {
  std::string shape, config;
  double ag_tflops = 0, cb_tflops = 0, ag_err = 0, cb_err = 0, ag_spread = 0, cb_spread = 0;
  bool ag_ok = false, cb_ok = false;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gemm_bench: autogemm against cuBLAS SGEMM (TF32 off), side by side, with accuracy against FP64."};
  int device = 0;
  std::vector<std::string> shapes;
  std::string shapes_file, db, json_out;
  int overhead_calls = 20000;
  app.add_option("--device,-d", device, "GPU ordinal")->check(CLI::NonNegativeNumber);
  app.add_option("--shape,-s", shapes, "shape to measure (repeatable), as gemm_tune takes it");
  app.add_option("--shapes-file", shapes_file, "file with one shape per line");
  app.add_option("--db", db, "tuning cache to dispatch from (default: the default cache)");
  app.add_option("--json", json_out, "also write the results as JSON to this file");
  app.add_option("--overhead-calls", overhead_calls, "calls timed for the host dispatch overhead (0: skip)");
  CLI11_PARSE(app, argc, argv);
  route_default_logger_to_autogemm();

  std::vector<ShapeSpec> specs;
  try {
    specs = resolve_shapes(shapes, shapes_file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_bench: %s\n", e.what());
    return 2;
  }
  std::string why;
  if (!gpu_available(&why)) {
    std::fprintf(stderr, "gemm_bench: no CUDA GPU is available on this machine (%s).\n", why.c_str());
    return 3;
  }
  try {
    ScopedPrimaryContext ctx(device);
    const DeviceInfo dev = DeviceInfo::query(ctx.device(), device);
    if (autogemm_init(db.empty() ? nullptr : db.c_str()) != AUTOGEMM_SUCCESS)
      std::fprintf(stderr, "gemm_bench: the tuning cache is unusable; autogemm runs on built-in defaults\n");
    cublasHandle_t h;
    cublas_check(cublasCreate(&h), "cublasCreate");
    cublas_check(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");  // strict FP32, no TF32
    Stream stream;
    cublas_check(cublasSetStream(h, reinterpret_cast<cudaStream_t>(stream.get())), "cublasSetStream");
    Benchmark bench(dev, stream.get());
    TimingOptions topt;
    topt.min_runs = 10;
    topt.max_runs = 100;
    topt.target_ms = 200;

    std::vector<Row> rows;
    nlohmann::json js;
    js["device"] = dev.name;
    js["shapes"] = nlohmann::json::array();
    double log_sum = 0;
    int counted = 0;
    double first_call_ms = -1;
    for (const ShapeSpec& spec : specs) {
      const Problem p = spec.problem();
      Row row;
      row.shape = spec.to_string();
      Verifier ver(p, dev, 1.0f, 0.0f, 11);
      const CanonicalCall& call = ver.call();
      // autogemm: correctness first, then timing.
      ver.prepare(stream.get());
      const auto t_call = std::chrono::steady_clock::now();
      const autogemm_status st = run_autogemm(call, stream.get());
      if (first_call_ms < 0)
        first_call_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_call).count();
      if (st != AUTOGEMM_SUCCESS) throw std::runtime_error(std::string("autogemm_sgemm: ") + autogemm_status_string(st));
      VerifyResult va = ver.check(stream.get());
      row.ag_ok = va.ok;
      row.ag_err = va.rel_error;
      Timing ta = bench.time([&](CUstream s) { run_autogemm(call, s); }, topt);
      // cuBLAS on the same inputs.
      ver.prepare(stream.get());
      run_cublas(h, call);
      VerifyResult vc = ver.check(stream.get());
      row.cb_ok = vc.ok;
      row.cb_err = vc.rel_error;
      Timing tc = bench.time([&](CUstream) { run_cublas(h, call); }, topt);
      row.ag_tflops = p.flops() / (ta.median_ms * 1e9);
      row.cb_tflops = p.flops() / (tc.median_ms * 1e9);
      row.ag_spread = ta.iqr_ms / ta.median_ms;
      row.cb_spread = tc.iqr_ms / tc.median_ms;
      char cfg[256] = "";
      autogemm_describe(AUTOGEMM_ROW_MAJOR, tr(p.trans_a), tr(p.trans_b), int(p.m), int(p.n), int(p.k), call.a,
                        int(p.lda), call.b, int(p.ldb), call.c, int(p.ldc), cfg, sizeof cfg);
      row.config = cfg;
      log_sum += std::log(row.ag_tflops / row.cb_tflops);
      ++counted;
      std::fprintf(stderr, "%-22s autogemm %7.2f  cuBLAS %7.2f TFLOP/s  (%s)\n", row.shape.c_str(), row.ag_tflops,
                   row.cb_tflops, row.config.c_str());
      js["shapes"].push_back({{"shape", row.shape}, {"autogemm_tflops", row.ag_tflops}, {"cublas_tflops", row.cb_tflops},
                              {"ratio", row.ag_tflops / row.cb_tflops}, {"autogemm_rel_error", row.ag_err},
                              {"cublas_rel_error", row.cb_err}, {"autogemm_verified", row.ag_ok},
                              {"cublas_verified", row.cb_ok}, {"autogemm_median_ms", ta.median_ms},
                              {"cublas_median_ms", tc.median_ms}, {"autogemm_iqr_ms", ta.iqr_ms},
                              {"cublas_iqr_ms", tc.iqr_ms}, {"config", row.config}});
      rows.push_back(row);
    }
    const double geo = counted ? std::exp(log_sum / counted) : 0;
    js["geomean_ratio"] = geo;
    js["first_autogemm_call_ms"] = first_call_ms;

    // Host cost of a dispatch on a seen shape against a bare cuLaunchKernel
    // of the very same kernel (tiny problem: the GPU queue never fills up).
    double over_us = -1, bare_us = -1;
    if (overhead_calls > 0) {
      const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 64, 64, 64, true);
      Verifier ver(p, dev, 1.0f, 0.0f, 5);
      const CanonicalCall& call = ver.call();
      run_autogemm(call, stream.get());
      std::string text(256, '\0');
      autogemm_describe(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 64, 64, 64, call.a, 64, call.b, 64,
                        call.c, 64, text.data(), text.size());
      auto cfg = KernelConfig::parse(text.substr(0, text.find(" (")));
      LoadedKernel k = LoadedKernel::load(*cfg, compile_kernel(*cfg, dev.arch()).cubin, dev);
      DeviceBuffer ws(std::max<size_t>(cfg->workspace_floats(p), 1) * 4);
      AUTOGEMM_CU(cuMemsetD32(ws.get(), 0, ws.bytes() / 4));
      // Host time only: batches small enough that the launch queue never
      // fills (a full queue would make the calls wait for the GPU).
      auto time_calls = [&](const std::function<void()>& f) {
        double us = 0;
        const int batch = 128;
        for (int done = 0; done < overhead_calls; done += batch) {
          stream.synchronize();
          const auto t0 = std::chrono::steady_clock::now();
          for (int i = 0; i < batch; ++i) f();
          us += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
        }
        stream.synchronize();
        return us / (((overhead_calls + batch - 1) / batch) * batch);
      };
      for (int rep = 0; rep < 3; ++rep) {  // best of 3 for each
        const double b = time_calls([&] { k.launch(call, stream.get(), ws.get()); });
        const double a = time_calls([&] { run_autogemm(call, stream.get()); });
        bare_us = bare_us < 0 ? b : std::min(bare_us, b);
        over_us = over_us < 0 ? a : std::min(over_us, a);
      }
      js["dispatch_us"] = over_us;
      js["bare_launch_us"] = bare_us;
    }
    cublasDestroy(h);

    std::printf("\n%-22s %9s %9s %6s %9s %9s  %s\n", "shape", "autogemm", "cuBLAS", "ratio", "err(ag)", "err(cb)",
                "autogemm config");
    for (const Row& r : rows)
      std::printf("%-22s %9.2f %9.2f %6.3f %9.1e %9.1e  %s%s\n", r.shape.c_str(), r.ag_tflops, r.cb_tflops,
                  r.ag_tflops / r.cb_tflops, r.ag_err, r.cb_err, r.config.c_str(), r.ag_ok ? "" : "  WRONG");
    std::printf("geometric mean autogemm/cuBLAS over %d shapes: %.3f   (TFLOP/s, median of event-timed runs)\n",
                counted, geo);
    if (over_us >= 0)
      std::printf("host time per call: autogemm_sgemm %.2f us, bare cuLaunchKernel %.2f us (+%.2f us)\n", over_us,
                  bare_us, over_us - bare_us);
    std::printf("first autogemm_sgemm call in this process: %.2f ms\n", first_call_ms);
    if (!json_out.empty()) {
      std::ofstream f(json_out);
      f << js.dump(2) << "\n";
    }
    for (const Row& r : rows)
      if (!r.ag_ok) return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
