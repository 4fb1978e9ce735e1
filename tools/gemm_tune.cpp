// gemm_tune: tunes a set of shapes on one GPU and stores the winners.
//
//   gemm_tune --device 0                      the public suite, default cache
//   gemm_tune --shape 4096x4096x4096:NT --shape col:1000x1000x1000 --db my.db
//
// Thin: parses arguments, asks the tuner, stores results in the cache,
// prints a table. Shapes already tuned for this device and template are
// skipped (so an interrupted run resumes), unless --force.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "autogemm/cuda_driver.h"
#include "autogemm/kernel_template.h"
#include "autogemm/log.h"
#include "autogemm/tuner.h"
#include "autogemm/tuning_cache.h"

using namespace autogemm;

namespace {

struct Row {
  std::string shape, config, note;
  double gflops = 0, default_gflops = 0, seconds = 0;
  int candidates = 0;
};

void print_table(const std::vector<Row>& rows) {
  std::printf("\n%-24s %10s %10s %7s %6s %7s  %s\n", "shape", "GFLOP/s", "default", "speedup", "cands",
              "tune s", "best config");
  for (const Row& r : rows) {
    if (!r.note.empty()) {
      std::printf("%-24s %s\n", r.shape.c_str(), r.note.c_str());
      continue;
    }
    std::printf("%-24s %10.1f %10.1f %6.2fx %6d %7.1f  %s\n", r.shape.c_str(), r.gflops, r.default_gflops,
                r.default_gflops > 0 ? r.gflops / r.default_gflops : 0.0, r.candidates, r.seconds,
                r.config.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "gemm_tune: tune FP32 GEMM kernels for this GPU and store the winners in the tuning cache.\n"
      "Shapes are MxNxK in row-major form with optional layout prefix and transposes, e.g.\n"
      "4096x4096x4096, 128x11008x4096:NT, col:1000x1000x1000:TN. Without --shape or\n"
      "--shapes-file the built-in public suite is tuned."};
  int device = 0;
  std::vector<std::string> shapes;
  std::string shapes_file, db, strategy = "model", json_out;
  int budget = 48;
  unsigned seed = 1;
  bool force = false;
  double candidate_timeout = 0;
  app.add_option("--device,-d", device, "GPU ordinal")->check(CLI::NonNegativeNumber);
  app.add_option("--shape,-s", shapes, "shape to tune (repeatable)");
  app.add_option("--shapes-file", shapes_file, "file with one shape per line ('#' comments)");
  app.add_option("--db", db, "tuning cache file (default: $AUTOGEMM_CACHE, else $XDG_CACHE_HOME/autogemm/tuning.db, else ~/.cache/autogemm/tuning.db)");
  app.add_option("--strategy", strategy, "model (default), sampled or exhaustive")
      ->check(CLI::IsMember({"model", "sampled", "exhaustive"}));
  app.add_option("--budget", budget, "candidates measured per shape (model, sampled)")->check(CLI::Range(1, 100000));
  app.add_option("--seed", seed, "seed for sampling and input data");
  app.add_flag("--force", force, "re-tune shapes that already have a winner");
  app.add_option("--json", json_out, "also write the results as JSON to this file");
  app.add_option("--candidate-timeout", candidate_timeout,
                 "seconds a candidate may run in the worker before it is killed and recorded as timeout "
                 "(default: 20 plus more for big shapes)")
      ->check(CLI::Range(0.1, 86400.0));
  CLI11_PARSE(app, argc, argv);
  set_default_log_level(spdlog::level::info);
  route_default_logger_to_autogemm();

  std::vector<ShapeSpec> specs;
  try {
    specs = resolve_shapes(shapes, shapes_file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_tune: %s\n", e.what());
    return 2;
  }

  // The cache first: a file that cannot be written is reported before any
  // GPU work starts (and on machines without a GPU too).
  const std::string path = db.empty() ? TuningCache::default_path() : db;
  std::unique_ptr<TuningCache> cache;
  try {
    cache = TuningCache::open(path, TuningCache::Mode::ReadWrite);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_tune: cannot use the tuning cache: %s\n", e.what());
    return 4;
  }
  std::string why;
  if (!gpu_available(&why)) {
    std::fprintf(stderr, "gemm_tune: no CUDA GPU is available on this machine (%s).\n", why.c_str());
    return 3;
  }

  try {
    ScopedPrimaryContext ctx(device);
    const DeviceInfo dev = DeviceInfo::query(ctx.device(), device);
    const DeviceKey key = dev.key();
    log().info("device {}: {} ({}, {} SMs), cache {}", device, dev.name, dev.arch(), dev.sm_count, path);
    StrategyKind sk = *parse_strategy(strategy);
    std::vector<Row> rows;
    nlohmann::json js = nlohmann::json::array();
    for (size_t si = 0; si < specs.size(); ++si) {
      const ShapeSpec& spec = specs[si];
      const Problem p = spec.problem();
      Row row;
      row.shape = spec.to_string();
      const std::string& tiled_hash = KernelTemplate::for_kind(KernelKind::Tiled).hash();
      if (!force) {
        if (auto w = cache->find_winner(key, p.key(), tiled_hash)) {
          log().info("[{}/{}] {}: already tuned ({:.1f} GFLOP/s), skipping", si + 1, specs.size(), row.shape, w->gflops);
          row.note = "already tuned: " + w->config + " (--force re-tunes)";
          rows.push_back(row);
          continue;
        }
      }
      TuneOptions opt;
      opt.strategy = sk;
      opt.budget = budget;
      opt.seed = seed;
      opt.candidate_timeout_s = candidate_timeout;  // 0: the tuner's default for the shape
      opt.skip = cache->failed_configs(key, p.key(), tiled_hash);
      // History: this device's winners so far (earlier shapes of this run included).
      for (const WinnerRecord& w : cache->load_winners(key)) {
        if (w.template_hash != tiled_hash) continue;
        if (auto c = KernelConfig::parse(w.config)) opt.history.push_back({w.shape, *c});
      }
      Tuner tuner(dev, opt);
      log().info("[{}/{}] tuning {}", si + 1, specs.size(), row.shape);
      TuneResult r = tuner.tune(p, [&](size_t done, size_t total, const Candidate& c) {
        if (c.trial.status == TrialStatus::Ok)
          log().debug("  {}/{} {:8.1f} GFLOP/s  {}", done, total, c.trial.gflops, c.trial.config);
        else
          log().info("  {}/{} {}: {} ({})", done, total, to_string(c.trial.status), c.trial.config,
                     c.trial.detail.substr(0, 200));
        if (done % 10 == 0 || done == total) log().info("  {}/{} candidates measured", done, total);
      });
      std::vector<TrialRecord> trials;
      for (const Candidate& c : r.candidates) trials.push_back(c.trial);
      cache->record_trials(key, p.key(), tiled_hash, trials);
      if (r.default_index) row.default_gflops = r.candidates[*r.default_index].trial.gflops;
      row.candidates = r.cost.candidates;
      row.seconds = r.cost.wall_s;
      if (!r.best) {
        row.note = "no candidate verified; nothing stored";
        rows.push_back(row);
        continue;
      }
      const Candidate& best = r.candidates[*r.best];
      WinnerRecord w;
      w.shape = p.key();
      w.config = best.trial.config;
      w.template_hash = template_hash(best.config);
      w.median_ms = best.trial.median_ms;
      w.spread_ms = best.trial.spread_ms;
      w.gflops = best.trial.gflops;
      w.tuned_at = (int64_t)std::time(nullptr);
      const bool stored = cache->record_winner(key, w, r.cost);
      // Cubins of the winner and the default: a new process dispatches them without NVRTC.
      for (size_t idx : {*r.best, r.default_index.value_or(*r.best)}) {
        const Candidate& c = r.candidates[idx];
        if (!c.cubin.empty())
          cache->store_cubin(CubinKey{template_hash(c.config), c.trial.config, dev.arch(), dev.nvrtc_version}, c.cubin);
      }
      row.config = best.trial.config;
      row.gflops = best.trial.gflops;
      if (!stored) row.note = "";
      log().info("{}: best {:.1f} GFLOP/s ({}), default {:.1f}, {:.1f} s{}", row.shape, row.gflops, row.config,
                 row.default_gflops, row.seconds, stored ? "" : " (the stored winner is as fast; kept)");
      js.push_back({{"shape", row.shape}, {"config", row.config}, {"gflops", row.gflops},
                    {"default_gflops", row.default_gflops}, {"median_ms", best.trial.median_ms},
                    {"spread_ms", best.trial.spread_ms}, {"candidates", row.candidates},
                    {"compile_s", r.cost.compile_s}, {"tune_s", row.seconds}, {"stored", stored}});
      rows.push_back(row);
    }
    print_table(rows);
    if (!json_out.empty()) {
      std::ofstream f(json_out);
      f << js.dump(2) << "\n";
      if (!f) std::fprintf(stderr, "gemm_tune: could not write %s\n", json_out.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_tune: %s\n", e.what());
    return 1;
  }
  return 0;
}
