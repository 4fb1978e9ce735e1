// kernel_probe: times one kernel config on one shape, as built and with
// extra -D values (variants that leave a stage out or change a constant),
// side by side in one process: the developer's experiment harness for
// locating where a kernel's time goes (HOPPER/H200 advice: time variants and
// take differences). Prints a table; --json writes the same rows.
//
//   kernel_probe --config "tf32x3wg bn=128 wg=2 ..." --shape 4096x4096x4096
//                --variant "-DAG_PROBE=1" --variant "-DAG_TF32_PASSES=1"
// --source times a working copy of the config's template instead of the
// one built in (an experiment that need not be committed to be measured).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "autogemm/benchmark.h"
#include "autogemm/kernel_launch.h"
#include "autogemm/problem.h"
#include "autogemm/verifier.h"
#include "autogemm/shape_spec.h"

namespace {

using namespace autogemm;

struct ProbeRow {
  std::string variant;
  double ms = 0, tflops = 0, rel_error = 0;
  bool verified = false;
  std::string error;
};

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

/// Builds `cfg` with `extra` -D values, checks it once on the verifier's
/// inputs and times it (L2 flushed before each run).
/// With `cubin_path` non-empty the build's cubin is also written there (for
/// cuobjdump -sass on the GPU machine).
/// `source` replaces the template's text where it is not empty.
ProbeRow probe(const KernelConfig& cfg, const std::string& extra, const DeviceInfo& dev, Verifier& ver,
               Benchmark& bench, CUstream st, const Problem& p, const std::string& cubin_path,
               const std::string& source) {
  ProbeRow row;
  row.variant = extra.empty() ? "(as built)" : extra;
  try {
    const KernelTemplate& t = cfg.family().source();
    const CompileResult r = compile_kernel(cfg, kernel_arch(cfg, dev), source.empty() ? t.source() : source, t.file(),
                                           split_words(extra));
    if (!cubin_path.empty())
      std::ofstream(cubin_path, std::ios::binary).write(reinterpret_cast<const char*>(r.cubin.data()),
                                                        std::streamsize(r.cubin.size()));
    const LoadedKernel k = LoadedKernel::load(cfg, r.cubin, dev);
    DeviceBuffer ws(std::max<size_t>(cfg.workspace_floats(p), 1) * sizeof(float));
    check(driver().cuMemsetD32Async(ws.get(), 0, ws.bytes() / 4, st), "cuMemsetD32Async");
    ver.prepare(st);
    k.launch(ver.call(), st, ws.get());
    const VerifyResult v = ver.check(st, cfg.family().accuracy());
    row.verified = v.ok, row.rel_error = v.rel_error;
    TimingOptions opt;
    opt.min_runs = 10, opt.target_ms = 300;
    row.ms = bench.time([&](CUstream s) { k.launch(ver.call(), s, ws.get()); }, opt).median_ms;
    row.tflops = p.flops() / (row.ms * 1e9);
  } catch (const std::exception& e) {
    row.error = e.what();
  }
  return row;
}

/// What the command line asks for.
struct ProbeRequest {
  std::string config_text, shape_text, json_out, cubin_dir, source_path;
  std::vector<std::string> variants;
  int device = 0, spread = 4;
};

/// Builds and times every variant (the first, "", is the config as built),
/// printing a row each; returns the rows for --json.
nlohmann::json run_probes(const ProbeRequest& req, const KernelConfig& cfg, const Problem& p,
                          const std::string& source) {
  ScopedPrimaryContext ctx(req.device);
  const DeviceInfo dev = DeviceInfo::query(ctx.device(), req.device);
  Stream stream;
  Benchmark bench(dev, stream.get());
  Verifier ver(p, dev, 1.0f, 0.0f, 11, req.spread);
  std::vector<std::string> variants = req.variants;
  variants.insert(variants.begin(), "");
  nlohmann::json rows = nlohmann::json::array();
  std::printf("%s on %s, exponent spread %d\n%-44s %10s %9s %9s  %s\n", cfg.to_string().c_str(),
              p.to_string().c_str(), req.spread, "variant", "ms", "TFLOP/s", "rel err", "verified");
  for (size_t i = 0; i < variants.size(); ++i) {
    const std::string cubin = req.cubin_dir.empty() ? "" : req.cubin_dir + "/variant" + std::to_string(i) + ".cubin";
    const ProbeRow r = probe(cfg, variants[i], dev, ver, bench, stream.get(), p, cubin, source);
    if (!r.error.empty())
      std::printf("%-44s failed: %s\n", r.variant.c_str(), r.error.c_str());
    else
      std::printf("%-44s %10.4f %9.2f %9.2e  %s\n", r.variant.c_str(), r.ms, r.tflops, r.rel_error,
                  r.verified ? "yes" : "no");
    rows.push_back({{"variant", r.variant}, {"ms", r.ms}, {"tflops", r.tflops}, {"rel_error", r.rel_error},
                    {"verified", r.verified}, {"error", r.error}});
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kernel_probe: time one kernel config and its -D variants on one shape (GPU)"};
  ProbeRequest req;
  app.add_option("--config", req.config_text, "canonical config text")->required();
  app.add_option("--shape", req.shape_text, "shape, e.g. 4096x4096x4096 or 1000x1000x1000:TN")->required();
  app.add_option("--variant", req.variants, "extra NVRTC options of one variant (repeatable), e.g. \"-DAG_PROBE=1\"");
  app.add_option("--device", req.device, "GPU ordinal");
  app.add_option("--exponent-spread", req.spread,
                 "inputs scaled by 2^e, e uniform in [-E, E] (default 4; 0: values in +-[0.25, 1)): the error "
                 "column on a wide exponent range, as gemm_bench --exponent-spread")
      ->check(CLI::Range(0, 30));
  app.add_option("--json", req.json_out, "write the rows as JSON here");
  app.add_option("--cubin-dir", req.cubin_dir,
                 "also write each variant's cubin here as variant<N>.cubin (0: as built)");
  app.add_option("--source", req.source_path,
                 "compile this working copy of the config's template instead of the built-in one")
      ->check(CLI::ExistingFile);
  CLI11_PARSE(app, argc, argv);
  std::string source;
  if (!req.source_path.empty()) {
    std::ifstream in(req.source_path, std::ios::binary);
    source.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) return std::fprintf(stderr, "kernel_probe: cannot read %s\n", req.source_path.c_str()), 2;
  }
  std::string err;
  const auto cfg = KernelConfig::parse(req.config_text, &err);
  if (!cfg) return std::fprintf(stderr, "kernel_probe: --config: %s\n", err.c_str()), 2;
  ShapeSpec spec;
  if (!parse_shape(req.shape_text, &spec, &err))
    return std::fprintf(stderr, "kernel_probe: --shape: %s\n", err.c_str()), 2;
  const Problem p = spec.problem();
  if (cfg->trans_a != p.trans_a || cfg->trans_b != p.trans_b || !cfg->can_implement(p))
    return std::fprintf(stderr, "kernel_probe: %s cannot compute %s\n", cfg->to_string().c_str(),
                        p.to_string().c_str()), 2;
  try {
    const nlohmann::json rows = run_probes(req, *cfg, p, source);
    if (!req.json_out.empty())
      std::ofstream(req.json_out) << nlohmann::json{{"config", cfg->to_string()}, {"shape", p.to_string()},
                                                    {"exponent_spread", req.spread}, {"rows", rows}}.dump(2)
                                  << "\n";
  } catch (const std::exception& e) {
    return std::fprintf(stderr, "kernel_probe: %s\n", e.what()), 1;
  }
  return 0;
}
