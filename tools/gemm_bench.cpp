// gemm_bench: autogemm (dispatching from the tuning cache) against cuBLAS
// SGEMM (TF32 off), same process, same inputs, same timing method.
//
//   gemm_bench                       the public suite, default cache
//   gemm_bench --shape 4096x4096x4096:NT --db my.db --json out.json
//
// Each side is timed with CUDA events (warm-up first, median of repeated
// samples) and neither finds its operands in L2: by default calls run back to
// back over copies of the operands that together exceed L2 (--timing rotate),
// or one call per event pair after L2 is overwritten (--timing flush, which
// charges a bandwidth-bound call for the write-back of the flush). --timing
// warm runs calls back to back on the same operands, as an application that
// reuses its tensors does: whatever fits in L2 stays there. Each result is
// compared with an FP64 reference, on inputs over a wide exponent range with
// --exponent-spread (relative and element-wise errors in the JSON).
//
// Which kernel autogemm ran comes from autogemm_describe_plan (fields, not
// text to parse); a plan that cannot be described or whose config does not
// parse is reported, never dereferenced.
#include <CLI/CLI.hpp>
#include <cublas_v2.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

#include "autogemm/autogemm.h"
#include "autogemm/benchmark.h"
#include "autogemm/cuda_driver.h"
#include "autogemm/kernel_family.h"
#include "autogemm/kernel_launch.h"
#include "autogemm/tuner.h"
#include "autogemm/verifier.h"
#include "autogemm/shape_spec.h"
#include "bench_plot.h"
#include "bench_report.h"

using namespace autogemm;
using autogemm::bench::Overhead;
using autogemm::bench::Row;
using autogemm::bench::Side;

namespace {

void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed (cuBLAS status " + std::to_string(int(s)) + ")");
}

autogemm_transpose tr(bool t) { return t ? AUTOGEMM_TRANS : AUTOGEMM_NO_TRANS; }

// Row-major canonical call -> autogemm's C API.
autogemm_status run_autogemm(const CanonicalCall& c, CUstream s) {
  const Problem& p = c.problem;
  if (p.batch > 1)
    return autogemm_sgemm_strided_batched(AUTOGEMM_ROW_MAJOR, tr(p.trans_a), tr(p.trans_b), int(p.m), int(p.n),
                                          int(p.k), c.alpha, c.a, int(p.lda), p.stride_a, c.b, int(p.ldb),
                                          p.stride_b, c.beta, c.c, int(p.ldc), p.stride_c, int(p.batch), s);
  return autogemm_sgemm(AUTOGEMM_ROW_MAJOR, tr(p.trans_a), tr(p.trans_b), int(p.m), int(p.n), int(p.k), c.alpha,
                        c.a, int(p.lda), c.b, int(p.ldb), c.beta, c.c, int(p.ldc), s);
}

// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: cuBLAS
// gets the operands swapped, each with its own transpose.
void run_cublas(cublasHandle_t h, const CanonicalCall& c) {
  const Problem& p = c.problem;
  if (p.batch > 1) {
    cublas_check(cublasSgemmStridedBatched(h, p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                                           int(p.n), int(p.m), int(p.k), &c.alpha, c.b, int(p.ldb), p.stride_b, c.a,
                                           int(p.lda), p.stride_a, &c.beta, c.c, int(p.ldc), p.stride_c, int(p.batch)),
                 "cublasSgemmStridedBatched");
    return;
  }
  cublas_check(cublasSgemm(h, p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, int(p.n),
                           int(p.m), int(p.k), &c.alpha, c.b, int(p.ldb), c.a, int(p.lda), &c.beta, c.c, int(p.ldc)),
               "cublasSgemm");
}

/// What autogemm dispatches for `c`: the plan, or the reason there is none.
struct DispatchedPlan {
  std::optional<KernelConfig> config;  ///< parsed from the plan; nullopt if unusable
  std::string text;                    ///< "config (source)" or what went wrong
};

DispatchedPlan dispatched_plan(const CanonicalCall& c) {
  const Problem& p = c.problem;
  autogemm_plan_info info{};
  const autogemm_status st =
      p.batch > 1 ? autogemm_describe_plan_strided_batched(AUTOGEMM_ROW_MAJOR, tr(p.trans_a), tr(p.trans_b), int(p.m),
                                                           int(p.n), int(p.k), c.a, int(p.lda), p.stride_a, c.b,
                                                           int(p.ldb), p.stride_b, c.c, int(p.ldc), p.stride_c,
                                                           int(p.batch), &info)
                  : autogemm_describe_plan(AUTOGEMM_ROW_MAJOR, tr(p.trans_a), tr(p.trans_b), int(p.m), int(p.n),
                                           int(p.k), c.a, int(p.lda), c.b, int(p.ldb), c.c, int(p.ldc), &info);
  DispatchedPlan out;
  if (st != AUTOGEMM_SUCCESS) {
    out.text = std::string("(no plan: ") + autogemm_status_string(st) + ": " + autogemm_last_error() + ")";
    return out;
  }
  out.text = std::string(info.config) + " (" + info.source_name + ")";
  std::string why;
  out.config = KernelConfig::parse(info.config, &why);
  if (!out.config) out.text += " [config does not parse: " + why + "]";
  return out;
}

struct Session {
  const DeviceInfo& dev;
  Stream& stream;
  Benchmark& bench;
  cublasHandle_t cublas;
  TimingOptions topt;
  bool rotate = true;                    ///< --timing rotate or both
  bool warm = false;                     ///< --timing warm (neither: flush)
  bool both = false;                     ///< --timing both: warm too, after rotating
  cublasHandle_t cublas_tf32 = nullptr;  ///< --fp32-accurate: TF32 tensor cores (error reference)
  std::unique_ptr<RotatingOperands> copies;  ///< the current shape's, when rotating
  int spread = 0;                        ///< the inputs' exponent spread (Verifier)
};

/// Times `run` on the verifier's call by the session's method (rotating:
/// on each copy of the operands in turn).
Timing time_calls(Session& s, const CanonicalCall& call,
                  const std::function<void(const CanonicalCall&, CUstream)>& run) {
  if (s.warm) return s.bench.time_rotating([&](CUstream x, int) { run(call, x); }, 1, s.topt);
  if (!s.copies) return s.bench.time([&](CUstream x) { run(call, x); }, s.topt);
  return s.bench.time_rotating([&](CUstream x, int i) { run(s.copies->call(i), x); }, s.copies->count(), s.topt);
}

void run_autogemm_checked(const CanonicalCall& c, CUstream s) {
  if (run_autogemm(c, s) != AUTOGEMM_SUCCESS) throw std::runtime_error(autogemm_last_error());
}

/// autogemm in math mode FP32_ACCURATE on the verifier's inputs (this thread only).
Side measure_accurate(Session& s, Verifier& ver, const Problem& p) {
  const CanonicalCall& call = ver.call();
  const CUstream st = s.stream.get();
  autogemm_set_thread_math_mode(AUTOGEMM_MATH_FP32_ACCURATE);
  Side side;
  ver.prepare(st);
  if (run_autogemm(call, st) != AUTOGEMM_SUCCESS) throw std::runtime_error(autogemm_last_error());
  const DispatchedPlan plan = dispatched_plan(call);
  side.config = plan.text;
  const AccuracyClass cls = plan.config ? plan.config->family().accuracy() : AccuracyClass::StrictFp32;
  const VerifyResult v = ver.check(st, cls);
  side.ok = v.ok;
  side.err = v.rel_error;
  side.worst = v.worst_ratio * Verifier::bound_scale(cls, p.k);  // against FFMA's bound, as the others
  side.tflops = p.flops() / (time_calls(s, call, run_autogemm_checked).median_ms * 1e9);
  autogemm_set_thread_math_mode(AUTOGEMM_MATH_DEFAULT);
  return side;
}

/// cuBLAS with TF32 tensor cores: its error is the lossy reference (it is
/// expected not to verify against the FP32 bound).
Side measure_tf32(Session& s, Verifier& ver, const Problem& p) {
  const CanonicalCall& call = ver.call();
  Side side;
  ver.prepare(s.stream.get());
  run_cublas(s.cublas_tf32, call);
  const VerifyResult v = ver.check(s.stream.get());
  side.ok = v.ok;
  side.err = v.rel_error;
  side.worst = v.worst_ratio;
  side.tflops =
      p.flops() / (time_calls(s, call, [&](const CanonicalCall& c, CUstream) { run_cublas(s.cublas_tf32, c); })
                       .median_ms * 1e9);
  side.config = "cublasSgemm, CUBLAS_TF32_TENSOR_OP_MATH";
  return side;
}

/// One shape, both sides: correctness first, then timing.
Row measure_shape(Session& s, const ShapeSpec& spec, double* first_call_ms) {
  const Problem p = spec.problem();
  Row row;
  row.shape = spec.to_string();
  Verifier ver(p, s.dev, 1.0f, 0.0f, 11, s.spread);
  const CanonicalCall& call = ver.call();
  const CUstream st = s.stream.get();
  ver.prepare(st);
  const auto t_call = std::chrono::steady_clock::now();
  const autogemm_status status = run_autogemm(call, st);
  if (*first_call_ms < 0)
    *first_call_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_call).count();
  if (status != AUTOGEMM_SUCCESS)
    throw std::runtime_error(std::string("autogemm_sgemm: ") + autogemm_status_string(status) + ": " +
                             autogemm_last_error());
  const DispatchedPlan plan = dispatched_plan(call);
  row.config = plan.text;
  const AccuracyClass accuracy = plan.config ? plan.config->family().accuracy() : AccuracyClass::StrictFp32;
  const VerifyResult va = ver.check(st, accuracy);
  row.ag_ok = va.ok;
  row.ag_err = va.rel_error;
  row.ag_worst = va.worst_ratio * Verifier::bound_scale(accuracy, p.k);
  s.copies.reset();
  if (s.rotate) s.copies = std::make_unique<RotatingOperands>(p, call, size_t(s.dev.l2_bytes), st);
  row.ag = time_calls(s, call, run_autogemm_checked);
  ver.prepare(st);  // cuBLAS on the same inputs
  run_cublas(s.cublas, call);
  const VerifyResult vc = ver.check(st);
  row.cb_ok = vc.ok;
  row.cb_err = vc.rel_error;
  row.cb_worst = vc.worst_ratio;
  const auto cublas = [&](const CanonicalCall& c, CUstream) { run_cublas(s.cublas, c); };
  row.cb = time_calls(s, call, cublas);
  row.ag_tflops = p.flops() / (row.ag.median_ms * 1e9);
  row.cb_tflops = p.flops() / (row.cb.median_ms * 1e9);
  if (s.both) {  // the same calls on a warm L2, beside the rotating figures
    s.warm = true;
    row.ag_warm_tflops = p.flops() / (time_calls(s, call, run_autogemm_checked).median_ms * 1e9);
    row.cb_warm_tflops = p.flops() / (time_calls(s, call, cublas).median_ms * 1e9);
    s.warm = false;
  }
  if (s.cublas_tf32) {
    row.accurate = measure_accurate(s, ver, p);
    row.tf32 = measure_tf32(s, ver, p);
    std::fprintf(stderr, "%-22s fp32_accurate %7.2f (err %.1e)  cuBLAS TF32 %7.2f (err %.1e)  (%s)\n",
                 row.shape.c_str(), row.accurate->tflops, row.accurate->err, row.tf32->tflops, row.tf32->err,
                 row.accurate->config.c_str());
  }
  std::fprintf(stderr, "%-22s autogemm %7.2f  cuBLAS %7.2f TFLOP/s  (%s)\n", row.shape.c_str(), row.ag_tflops,
               row.cb_tflops, row.config.c_str());
  return row;
}

/// Host time per call of `f` in microseconds, in batches small enough that
/// the launch queue never fills (a full queue would make calls wait for the GPU).
double host_us_per_call(Stream& stream, int calls, const std::function<void()>& f) {
  double us = 0;
  const int batch = 128;
  for (int done = 0; done < calls; done += batch) {
    stream.synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) f();
    us += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  }
  stream.synchronize();
  return us / (((calls + batch - 1) / batch) * batch);
}

/// Host cost of a dispatch on a seen shape against a bare cuLaunchKernel of
/// the very same kernel (tiny problem: the GPU queue never fills up). Skipped,
/// with the reason, when the dispatched plan cannot be described or parsed.
Overhead measure_overhead(Session& s, int calls) {
  const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 64, 64, 64, true);
  Verifier ver(p, s.dev, 1.0f, 0.0f, 5);
  const CanonicalCall& call = ver.call();
  const autogemm_status st = run_autogemm(call, s.stream.get());
  const DispatchedPlan plan = dispatched_plan(call);
  if (st != AUTOGEMM_SUCCESS || !plan.config) {
    std::fprintf(stderr, "gemm_bench: dispatch overhead not measured: %s\n",
                 st != AUTOGEMM_SUCCESS ? autogemm_last_error() : plan.text.c_str());
    return {};
  }
  const KernelConfig& cfg = *plan.config;
  LoadedKernel k = LoadedKernel::load(cfg, compile_kernel(cfg, kernel_arch(cfg, s.dev)).cubin, s.dev);
  DeviceBuffer ws(std::max<size_t>(cfg.workspace_floats(p), 1) * 4);
  AUTOGEMM_CU(cuMemsetD32(ws.get(), 0, ws.bytes() / 4));
  AUTOGEMM_CU(cuCtxSynchronize());  // the memset may still run when a non-blocking stream starts
  Overhead o;
  for (int rep = 0; rep < 3; ++rep) {  // best of 3 for each
    const double b = host_us_per_call(s.stream, calls, [&] { k.launch(call, s.stream.get(), ws.get()); });
    const double a = host_us_per_call(s.stream, calls, [&] { run_autogemm(call, s.stream.get()); });
    o.bare_us = o.bare_us < 0 ? b : std::min(o.bare_us, b);
    o.dispatch_us = o.dispatch_us < 0 ? a : std::min(o.dispatch_us, a);
  }
  return o;
}

struct Options {
  int device = 0;
  std::vector<std::string> shapes;
  std::string shapes_file, db, json_out, plot, plot_from, suite;
  int overhead_calls = 20000;
  bool fp32_accurate = false;
  std::string timing = "rotate";
  int spread = 0;  ///< --exponent-spread
};

/// The whole benchmark on a GPU; returns the exit status.
int run(const Options& opt, const std::vector<ShapeSpec>& specs) {
  ScopedPrimaryContext ctx(opt.device);
  const DeviceInfo dev = DeviceInfo::query(ctx.device(), opt.device);
  if (autogemm_init(opt.db.empty() ? nullptr : opt.db.c_str()) != AUTOGEMM_SUCCESS)
    std::fprintf(stderr, "gemm_bench: autogemm runs on built-in defaults: %s\n", autogemm_last_error());
  cublasHandle_t h;
  cublas_check(cublasCreate(&h), "cublasCreate");
  cublas_check(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");  // strict FP32, no TF32
  Stream stream;
  cublas_check(cublasSetStream(h, reinterpret_cast<cudaStream_t>(stream.get())), "cublasSetStream");
  Benchmark bench(dev, stream.get());
  Session s{dev, stream, bench, h, TimingOptions{}, true, false, false, nullptr, nullptr, 0};
  s.rotate = opt.timing == "rotate" || opt.timing == "both";
  s.warm = opt.timing == "warm";
  s.both = opt.timing == "both";
  s.spread = opt.spread;
  if (opt.fp32_accurate) {
    cublas_check(cublasCreate(&s.cublas_tf32), "cublasCreate");
    cublas_check(cublasSetMathMode(s.cublas_tf32, CUBLAS_TF32_TENSOR_OP_MATH), "cublasSetMathMode(TF32)");
    cublas_check(cublasSetStream(s.cublas_tf32, reinterpret_cast<cudaStream_t>(stream.get())), "cublasSetStream");
  }
  s.topt.min_runs = 10;
  s.topt.max_runs = 100;
  s.topt.target_ms = 200;
  std::vector<Row> rows;
  double first_ms = -1;
  for (const ShapeSpec& spec : specs) rows.push_back(measure_shape(s, spec, &first_ms));
  const Overhead o = opt.overhead_calls > 0 ? measure_overhead(s, opt.overhead_calls) : Overhead{};
  cublasDestroy(h);
  if (s.cublas_tf32) cublasDestroy(s.cublas_tf32);
  const bench::RunInfo info{dev.name, opt.timing, opt.spread, first_ms};
  bench::print_results(info, rows, o);
  const nlohmann::json js = bench::to_json(info, rows, o);
  if (!opt.json_out.empty()) {
    std::ofstream f(opt.json_out);
    f << js.dump(2) << "\n";
  }
  if (!opt.plot.empty()) {
    try {
      bench::plot_results(js, opt.plot);
      std::printf("plot: %s\n", opt.plot.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gemm_bench: no plot: %s (the results are above%s)\n", e.what(),
                   opt.json_out.empty() ? "" : " and in the JSON file");
    }
  }
  for (const Row& r : rows)
    if (!r.ag_ok || (r.accurate && !r.accurate->ok)) return 1;
  return 0;
}

/// --plot-from: draws an earlier run's JSON.
int replot(const Options& opt) {
  if (opt.plot.empty()) {
    std::fprintf(stderr, "gemm_bench: --plot-from needs --plot OUT.png\n");
    return 2;
  }
  try {
    std::ifstream in(opt.plot_from);
    bench::plot_results(nlohmann::json::parse(in), opt.plot);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_bench: cannot plot %s: %s\n", opt.plot_from.c_str(), e.what());
    return 1;
  }
  std::printf("plot: %s\n", opt.plot.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gemm_bench: autogemm against cuBLAS SGEMM (TF32 off), side by side, with accuracy against FP64."};
  Options opt;
  app.add_option("--device,-d", opt.device, "GPU ordinal")->check(CLI::NonNegativeNumber);
  app.add_option("--shape,-s", opt.shapes, "shape to measure (repeatable), as gemm_tune takes it");
  app.add_option("--shapes-file", opt.shapes_file, "file with one shape per line");
  app.add_option("--suite", opt.suite,
                 "a built-in suite: public (the default without --shape/--shapes-file), batched (strided "
                 "batches MxNxK@COUNT, against cublasSgemmStridedBatched), large, ksweep, classes[:SEED] (as "
                 "gemm_tune)")
      ->check(CLI::Validator([](std::string& v) { return autogemm::suite_name_error(v); }, "SUITE"));
  app.add_option("--exponent-spread", opt.spread,
                 "inputs also scaled by 2^e, e uniform in [-E, E] (0, the default: values in +-[0.25, 1)); errors "
                 "are then measured on a wide exponent range")
      ->check(CLI::Range(0, 30));
  app.add_option("--db", opt.db, "tuning cache to dispatch from (default: the default cache)");
  app.add_option("--json", opt.json_out, "also write the results as JSON to this file");
  app.add_option("--timing", opt.timing,
                 "rotate (default): calls back to back over copies of the operands exceeding L2; warm: back to "
                 "back on the same operands (what fits in L2 stays); flush: one call per event pair, L2 "
                 "overwritten before each; both: rotate, then warm beside it (a second table and geometric mean)")
      ->check(CLI::IsMember({"rotate", "warm", "flush", "both"}));
  app.add_option("--overhead-calls", opt.overhead_calls, "calls timed for the host dispatch overhead (0: skip)");
  app.add_flag("--fp32-accurate", opt.fp32_accurate,
               "also measure autogemm in math mode fp32_accurate (tensor-core 3xTF32 families) and cuBLAS with "
               "TF32 tensor cores, whose error is the lossy reference");
  app.add_option("--plot", opt.plot, "also draw autogemm vs cuBLAS TFLOP/s per shape into this PNG (needs gnuplot)");
  app.add_option("--plot-from", opt.plot_from,
                 "draw --plot from the JSON of an earlier run (--json) instead of measuring; no GPU needed")
      ->check(CLI::ExistingFile);
  CLI11_PARSE(app, argc, argv);
  if (!opt.plot_from.empty()) return replot(opt);

  std::vector<ShapeSpec> specs;
  try {
    specs = resolve_shapes(opt.shapes, opt.shapes_file, opt.suite);
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
    return run(opt, specs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_bench: %s\n", e.what());
    return 1;
  }
}
