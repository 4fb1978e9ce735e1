// gemm_tune: tunes a set of shapes on one GPU and stores the winners.
//
//   gemm_tune --device 0                      the public suite, default cache
//   gemm_tune --shape 4096x4096x4096:NT --shape col:1000x1000x1000 --db my.db
//   gemm_tune --from-record                   what the applications ran untuned
//
// Thin: parses arguments, runs a TuningSession per shape, prints progress
// and a table. What is already tuned is skipped and an interrupted shape
// continues where it stopped (see tuning_session.h). Ctrl-C stops after the
// candidate in flight; a second Ctrl-C stops at once.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include "autogemm/cuda_driver.h"
#include "autogemm/log.h"
#include "autogemm/tuning_session.h"
#include "tune_progress.h"

using namespace autogemm;

namespace {

struct Args {
  int device = 0;
  std::vector<std::string> shapes, families;
  std::string shapes_file, db, strategy = "model", json_out, math_mode;
  int budget = kDefaultBudget;
  unsigned seed = 1;
  bool force = false, from_record = false;
  double candidate_timeout = 0;
};

void add_options(CLI::App& app, Args& a) {
  app.add_option("--device,-d", a.device, "GPU ordinal")->check(CLI::NonNegativeNumber);
  app.add_option("--shape,-s", a.shapes, "shape to tune (repeatable)");
  auto* file = app.add_option("--shapes-file", a.shapes_file, "file with one shape per line ('#' comments)");
  app.add_flag("--from-record", a.from_record,
               "tune the shapes applications recorded on this GPU (AUTOGEMM_RECORD_UNTUNED=1) that have no "
               "tuned entry yet (with --force: every recorded shape), most called first")
      ->excludes(file);
  app.add_option("--db", a.db, "tuning cache file (default: $AUTOGEMM_CACHE, else $XDG_CACHE_HOME/autogemm/tuning.db, else ~/.cache/autogemm/tuning.db)");
  app.add_option("--family", a.families, "kernel family to tune (repeatable; default: every family that runs on the GPU)");
  app.add_option("--math-mode", a.math_mode,
                 "strict (FFMA families only) or fp32_accurate (also the FP32-accurate tensor-core families); "
                 "default $AUTOGEMM_MATH_MODE, else strict")
      ->check(CLI::IsMember({"strict", "fp32_accurate"}));
  app.add_option("--strategy", a.strategy, "model (default), sampled or exhaustive")
      ->check(CLI::IsMember({"model", "sampled", "exhaustive"}));
  app.add_option("--budget", a.budget, "candidates measured per shape and family (model, sampled)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--seed", a.seed, "seed for sampling and input data");
  app.add_flag("--force", a.force, "re-measure shapes that already have a winner");
  app.add_option("--json", a.json_out, "also write the results as JSON to this file");
  app.add_option("--candidate-timeout", a.candidate_timeout,
                 "seconds a candidate may run in the worker before it is killed and recorded as timeout "
                 "(default: 20 plus more for big shapes)")
      ->check(CLI::Range(0.1, 86400.0));
}

extern "C" void on_interrupt(int) {
  TuningSession::request_stop();
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the program at once
}

std::string families_text(const ShapeOutcome& o) {
  std::string s;
  for (const FamilyOutcome& f : o.families) {
    if (!s.empty()) s += ", ";
    s += f.family + ": " + to_string(f.state);
    if (f.state == FamilyOutcome::State::Tuned && !f.stored) s += " (stored winner as fast, kept)";
  }
  return s;
}

void print_table(const std::vector<std::pair<std::string, ShapeOutcome>>& rows) {
  std::printf("\n%-24s %10s %10s %7s %6s %6s %7s  %s\n", "shape", "GFLOP/s", "default", "speedup", "cands",
              "reused", "tune s", "best config");
  for (const auto& [shape, o] : rows) {
    if (!o.best) {
      std::printf("%-24s %s\n", shape.c_str(), families_text(o).c_str());
      continue;
    }
    std::printf("%-24s %10.1f %10.1f %6.2fx %6d %6d %7.1f  %s\n", shape.c_str(), o.best->gflops, o.default_gflops,
                o.default_gflops > 0 ? o.best->gflops / o.default_gflops : 0.0, o.measured, o.resumed,
                o.cost.wall_s, o.best->config.c_str());
  }
}

// One line per shape, after its winners are committed: "<shape>: best ..."
// when a winner was measured now, "[i/n] <shape>: already tuned ..." when
// every family was tuned before (tests and scripts read these lines).
void report_shape(const std::string& counter, const std::string& shape, const ShapeOutcome& o) {
  bool measured_winner = false, all_tuned_before = !o.families.empty();
  for (const FamilyOutcome& f : o.families) {
    measured_winner = measured_winner || f.state == FamilyOutcome::State::Tuned;
    all_tuned_before = all_tuned_before && f.state == FamilyOutcome::State::AlreadyTuned;
  }
  if (all_tuned_before)
    log().info("{}{}: already tuned ({:.1f} GFLOP/s, {}; --force re-tunes)", counter, shape, o.best->gflops,
               o.best->config);
  else if (measured_winner && o.best)
    log().info("{}: best {:.1f} GFLOP/s ({}), default {:.1f}, {:.1f} s; {}", shape, o.best->gflops, o.best->config,
               o.default_gflops, o.cost.wall_s, families_text(o));
  else
    log().info("{}: {}", shape, families_text(o));
}

nlohmann::json to_json(const std::string& shape, const ShapeOutcome& o) {
  nlohmann::json fam = nlohmann::json::array();
  for (const FamilyOutcome& f : o.families)
    fam.push_back({{"family", f.family}, {"state", to_string(f.state)}, {"stored", f.stored},
                   {"config", f.winner ? f.winner->config : ""}, {"gflops", f.winner ? f.winner->gflops : 0.0}});
  return {{"shape", shape}, {"config", o.best ? o.best->config : ""}, {"gflops", o.best ? o.best->gflops : 0.0},
          {"default_gflops", o.default_gflops}, {"median_ms", o.best ? o.best->median_ms : 0.0},
          {"spread_ms", o.best ? o.best->spread_ms : 0.0}, {"candidates", o.measured}, {"resumed", o.resumed},
          {"ruled_out", o.ruled_out},
          {"compile_s", o.cost.compile_s}, {"tune_s", o.cost.wall_s}, {"interrupted", o.interrupted},
          {"families", fam}};
}

/// Opens the cache read-write. A file that exists is checked before any GPU
/// work (and on machines without a GPU too); a missing one is created only
/// once a GPU was found, so `gemm_tune` without a GPU leaves nothing behind.
std::unique_ptr<TuningCache> open_cache(const std::string& path, bool gpu_checked) {
  struct stat st {};
  if (!gpu_checked && ::stat(path.c_str(), &st) != 0) return nullptr;
  return TuningCache::open(path, TuningCache::Mode::ReadWrite);
}

/// A problem to tune and how the output names it.
struct Job {
  std::string label;
  Problem problem;
};

/// The recorded shapes of `dev` without a tuned entry (all of them with
/// `force`), most called first.
std::vector<Job> recorded_jobs(const TuningCache& cache, const DeviceKey& dev, bool force) {
  const std::vector<WinnerRecord> winners = cache.load_winners(dev);
  std::vector<Job> jobs;
  for (const ShapeRequest& r : cache.load_requests(dev)) {
    const bool tuned = std::any_of(winners.begin(), winners.end(), [&](const WinnerRecord& w) { return w.shape == r.shape; });
    if (tuned && !force) continue;
    const Problem p = make_problem(r.shape);
    jobs.push_back({p.to_string(), p});
  }
  return jobs;
}

int tune_all(const Args& a, TuningCache& cache, const std::vector<ShapeSpec>& specs) {
  ScopedPrimaryContext ctx(a.device);
  const DeviceInfo dev = DeviceInfo::query(ctx.device(), a.device);
  log().info("device {}: {} ({}, {} SMs), cache {}", a.device, dev.name, dev.arch(), dev.sm_count, cache.path());
  std::vector<Job> jobs;
  if (a.from_record) {
    jobs = recorded_jobs(cache, dev.key(), a.force);
    log().info("{} recorded shape(s) to tune from {}", jobs.size(), cache.path());
  } else {
    for (const ShapeSpec& s : specs) jobs.push_back({s.to_string(), s.problem()});
  }
  SessionOptions opt;
  opt.force = a.force;
  opt.tune.families = a.families;
  opt.tune.math_mode = a.math_mode.empty() ? math_mode_from_environment() : *parse_math_mode(a.math_mode);
  opt.tune.strategy = *parse_strategy(a.strategy);
  opt.tune.budget = a.budget;
  opt.tune.seed = a.seed;
  opt.tune.candidate_timeout_s = a.candidate_timeout;  // 0: the tuner's default for the shape
  TuningSession session(cache, dev, opt);
  std::signal(SIGINT, on_interrupt);
  std::vector<std::pair<std::string, ShapeOutcome>> rows;
  nlohmann::json js = nlohmann::json::array();
  for (size_t i = 0; i < jobs.size() && !TuningSession::stop_requested(); ++i) {
    const std::string& shape = jobs[i].label;
    const std::string counter = "[" + std::to_string(i + 1) + "/" + std::to_string(jobs.size()) + "] ";
    TuneProgressPrinter bar(counter + shape, TuneProgressPrinter::stderr_is_terminal());
    bool started = false;
    ShapeOutcome o = session.tune(jobs[i].problem, [&](const TuneProgressEvent& e) {
      if (!started) log().info("{}tuning {}", counter, shape);  // only when something is measured
      started = true;
      bar.update(e);
    });
    bar.finish();
    report_shape(counter, shape, o);
    js.push_back(to_json(shape, o));
    rows.emplace_back(shape, std::move(o));
  }
  print_table(rows);
  if (!a.json_out.empty()) {
    std::ofstream f(a.json_out);
    f << js.dump(2) << "\n";
    if (!f) std::fprintf(stderr, "gemm_tune: could not write %s\n", a.json_out.c_str());
  }
  if (TuningSession::stop_requested()) {
    std::fprintf(stderr, "gemm_tune: interrupted; every measured candidate is stored, run again to continue\n");
    return 130;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "gemm_tune: tune FP32 GEMM kernels for this GPU and store the winners in the tuning cache.\n"
      "Shapes are MxNxK in row-major form with optional layout prefix and transposes, e.g.\n"
      "4096x4096x4096, 128x11008x4096:NT, col:1000x1000x1000:TN. Without --shape or\n"
      "--shapes-file the built-in public suite is tuned."};
  Args a;
  add_options(app, a);
  CLI11_PARSE(app, argc, argv);
  set_default_log_level(spdlog::level::info);
  std::vector<ShapeSpec> specs;
  try {
    if (a.from_record && !a.shapes.empty()) throw std::invalid_argument("--from-record tunes the record; leave out --shape");
    if (!a.from_record) specs = resolve_shapes(a.shapes, a.shapes_file);
    const MathMode mode = a.math_mode.empty() ? math_mode_from_environment() : *parse_math_mode(a.math_mode);
    for (const std::string& f : a.families) {
      const KernelFamily* fam = find_family(f);
      if (!fam) throw std::invalid_argument("unknown kernel family '" + f + "'");
      if (!admits(mode, fam->accuracy()))
        throw std::invalid_argument("the " + f + " family is only tuned with --math-mode fp32_accurate");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_tune: %s\n", e.what());
    return 2;
  }
  try {
    const std::string path = a.db.empty() ? TuningCache::default_path() : a.db;
    std::unique_ptr<TuningCache> cache;
    try {
      cache = open_cache(path, false);
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
      if (!cache) cache = open_cache(path, true);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gemm_tune: cannot use the tuning cache: %s\n", e.what());
      return 4;
    }
    return tune_all(a, *cache, specs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_tune: %s\n", e.what());
    return 1;
  }
}
