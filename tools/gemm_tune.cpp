// gemm_tune: tunes a set of shapes on one GPU and stores the winners.
//
//   gemm_tune --device 0                      the public suite, default cache
//   gemm_tune --shape 4096x4096x4096:NT --shape col:1000x1000x1000 --db my.db
//   gemm_tune --from-record                   what the applications ran untuned
//   gemm_tune --device all                    every GPU of the host at once
//   mpirun -np 4 gemm_tune --db t.{rank}.db   shapes shared out over the ranks
//   mpirun -np 2 gemm_tune --device local ... each rank on its node-local GPU
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

#include <thread>

#include "autogemm/cpu_affinity.h"
#include "autogemm/cuda_driver.h"
#include "autogemm/fleet.h"
#include "autogemm/kernel_families.h"
#include "autogemm/log.h"
#include "autogemm/tuning_session.h"
#include "autogemm/shape_spec.h"
#include "tune_plan.h"
#include "tune_progress.h"

using namespace autogemm;

namespace {

struct Args {
  std::string device = "0";
  std::vector<std::string> shapes, families;
  std::string shapes_file, db, strategy = "model", json_out, math_mode, suite, timing = "rotate";
  int budget = kDefaultBudget;
  unsigned seed = 1;
  bool force = false, from_record = false, plan = false, unaligned = false, keep_affinity = false;
  double candidate_timeout = 0;
};

void add_options(CLI::App& app, Args& a) {
  app.add_option("--device,-d", a.device,
                 "GPU ordinal, a list (0,1) or all: each GPU tunes in its own thread and worker, GPUs of one "
                 "model sharing the shapes; or local: under mpirun or srun, the GPU of this rank's node-local rank "
                 "(modulo the visible GPUs) (default 0)");
  app.add_flag("--keep-affinity", a.keep_affinity,
               "keep the CPU binding a launcher gave this rank even when it is narrower than the rank's share of "
               "the host (by default gemm_tune widens it for its compile pool; also AUTOGEMM_KEEP_AFFINITY=1)");
  app.add_flag("--plan", a.plan,
               "print which shapes this process (this rank, under mpirun or srun) would tune into which cache "
               "file, and exit without touching a GPU");
  app.add_option("--shape,-s", a.shapes, "shape to tune (repeatable)");
  auto* file = app.add_option("--shapes-file", a.shapes_file, "file with one shape per line ('#' comments)");
  auto* suite = app.add_option("--suite", a.suite,
                               "a built-in suite: public (the default without --shape/--shapes-file), batched "
                               "(strided batches, MxNxK@COUNT), large (4096^3..16384^3, NN/NT/TN), ksweep "
                               "(1024x1024xK, K 256..65536), classes (96 seeded shapes over every class) or "
                               "classes:SEED (another draw of the same classes)")
                    ->check(CLI::Validator([](std::string& v) { return autogemm::suite_name_error(v); }, "SUITE"));
  app.add_flag("--unaligned", a.unaligned,
               "tune the shapes' unaligned class: the kernels a call gets when a pointer, leading dimension or "
               "batch stride is not a multiple of 4 floats (default: the aligned class)");
  app.add_flag("--from-record", a.from_record,
               "tune the shapes applications recorded on this GPU (AUTOGEMM_RECORD_UNTUNED=1) that have no "
               "tuned entry yet (with --force: every recorded shape), most called first")
      ->excludes(file)
      ->excludes(suite);
  app.add_option("--db", a.db, "tuning cache file (default: $AUTOGEMM_CACHE, else $XDG_CACHE_HOME/autogemm/tuning.db, else ~/.cache/autogemm/tuning.db)");
  app.add_option("--family", a.families, "kernel family to tune (repeatable; default: every family that runs on the GPU)");
  app.add_option("--math-mode", a.math_mode,
                 "strict (FFMA families only) or fp32_accurate (also the FP32-accurate tensor-core families); "
                 "default $AUTOGEMM_MATH_MODE, else strict")
      ->check(CLI::IsMember({"strict", "fp32_accurate"}));
  app.add_option("--strategy", a.strategy,
                 "model (default: the family models' cheapest, then up to 6 configs next to each of the two "
                 "fastest), sampled or exhaustive")
      ->check(CLI::IsMember({"model", "sampled", "exhaustive"}));
  app.add_option("--budget", a.budget, "candidates measured per shape and family (model, sampled; a model tuning measures none but the default past 7 s of a shape)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--seed", a.seed, "seed for sampling and input data");
  app.add_option("--timing", a.timing,
                 "how candidates are timed: rotate (default: back to back over copies of the operands exceeding L2, "
                 "as a program streaming through data sees them) or warm (the same operands call after call, in L2, "
                 "as most applications' repeated calls); the cache records it, and a winner timed the other way is "
                 "re-tuned")
      ->check(CLI::IsMember({"rotate", "warm"}));
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
          {"timing", o.best ? to_string(o.best->timing) : ""},
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

SessionOptions session_options(const Args& a) {
  SessionOptions opt;
  opt.force = a.force;
  opt.tune.families = a.families;
  opt.tune.math_mode = a.math_mode.empty() ? math_mode_from_environment() : *parse_math_mode(a.math_mode);
  opt.tune.strategy = *parse_strategy(a.strategy);
  opt.tune.budget = a.budget;
  opt.tune.seed = a.seed;
  opt.tune.timing = *parse_timing_regime(a.timing);
  opt.tune.candidate_timeout_s = a.candidate_timeout;  // 0: the tuner's default for the shape
  return opt;
}

struct TunedRow {
  int device = 0;
  std::string shape;
  ShapeOutcome outcome;
};

void print_table(const std::vector<TunedRow>& rows, bool with_device) {
  std::printf("\n%s%-24s %10s %10s %7s %6s %6s %7s  %s\n", with_device ? "gpu " : "", "shape", "GFLOP/s", "default",
              "speedup", "cands", "reused", "tune s", "best config");
  for (const TunedRow& r : rows) {
    const ShapeOutcome& o = r.outcome;
    const std::string gpu = with_device ? std::to_string(r.device) + std::string(4 - std::min<size_t>(3, std::to_string(r.device).size()), ' ') : "";
    if (!o.best) {
      std::printf("%s%-24s %s\n", gpu.c_str(), r.shape.c_str(), families_text(o).c_str());
      continue;
    }
    std::printf("%s%-24s %10.1f %10.1f %6.2fx %6d %6d %7.1f  %s\n", gpu.c_str(), r.shape.c_str(), o.best->gflops,
                o.default_gflops, o.default_gflops > 0 ? o.best->gflops / o.default_gflops : 0.0, o.measured,
                o.resumed, o.cost.wall_s, o.best->config.c_str());
  }
}

/// Tunes one GPU's jobs in the calling thread; `several`: other GPUs tune
/// beside it (lines name the GPU, no live progress line).
std::vector<TunedRow> tune_device(const Args& a, TuningCache& cache, const DeviceWork& w, bool several) {
  ScopedPrimaryContext ctx(w.ordinal);
  const std::string gpu = several ? "gpu " + std::to_string(w.ordinal) + ": " : "";
  TuningSession session(cache, w.device, session_options(a));
  std::vector<TunedRow> rows;
  for (size_t i = 0; i < w.jobs.size() && !TuningSession::stop_requested(); ++i) {
    const std::string& shape = w.jobs[i].label;
    const std::string counter = gpu + "[" + std::to_string(i + 1) + "/" + std::to_string(w.jobs.size()) + "] ";
    TuneProgressPrinter bar(counter + shape, !several && TuneProgressPrinter::stderr_is_terminal());
    bool started = false;
    ShapeOutcome o = session.tune(w.jobs[i].problem, [&](const TuneProgressEvent& e) {
      if (!started) log().info("{}tuning {}", counter, shape);  // only when something is measured
      started = true;
      bar.update(e);
    });
    bar.finish();
    report_shape(counter, gpu + shape, o);
    rows.push_back({w.ordinal, shape, std::move(o)});
  }
  return rows;
}

/// Every GPU's work at once, one thread (and so one worker) per GPU; the
/// first failure is rethrown once all have stopped.
std::vector<TunedRow> tune_devices(const Args& a, TuningCache& cache, const std::vector<DeviceWork>& work) {
  if (work.size() == 1) return tune_device(a, cache, work[0], false);
  std::vector<std::vector<TunedRow>> rows(work.size());
  std::vector<std::exception_ptr> errors(work.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < work.size(); ++i)
    threads.emplace_back([&, i] {
      try {
        rows[i] = tune_device(a, cache, work[i], true);
      } catch (...) {
        errors[i] = std::current_exception();
        TuningSession::request_stop();  // the others stop after their candidate in flight
      }
    });
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  std::vector<TunedRow> all;
  for (auto& r : rows) all.insert(all.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  return all;
}

/// The GPUs named by --device, each with its identity.
std::vector<DeviceInfo> query_devices(const std::string& text, const LocalRank& local) {
  int count = 0;
  AUTOGEMM_CU(cuDeviceGetCount(&count));
  std::string list = text;
  if (text == "local") {
    list = std::to_string(local_device(local, count));
    log().info("--device local: local rank {} (${}) -> GPU {} of {}", local.rank, local.source, list, count);
  }
  std::vector<DeviceInfo> out;
  for (int ordinal : parse_device_list(list, count)) {
    ScopedPrimaryContext ctx(ordinal);
    out.push_back(DeviceInfo::query(ctx.device(), ordinal));
  }
  return out;
}

int tune_all(const Args& a, TuningCache& cache, const std::vector<ShapeSpec>& specs, const LaunchRank& rank,
             const LocalRank& local) {
  const std::vector<DeviceInfo> devices = query_devices(a.device, local);
  for (const DeviceInfo& d : devices)
    log().info("device {}: {} ({}, {} SMs), cache {}", d.ordinal, d.name, d.arch(), d.sm_count, cache.path());
  const std::vector<TuneJob> listed = spec_jobs(specs, a.unaligned);
  const std::vector<DeviceWork> work = plan_devices(devices, rank, [&](const DeviceKey& key) {
    if (!a.from_record) return listed;
    std::vector<TuneJob> jobs = recorded_jobs(cache, key, a.force, session_options(a).tune);
    log().info("{} recorded shape(s) of {} to tune from {}", jobs.size(), key.name, cache.path());
    return jobs;
  });
  std::signal(SIGINT, on_interrupt);
  const std::vector<TunedRow> rows = tune_devices(a, cache, work);
  print_table(rows, work.size() > 1);
  if (!a.json_out.empty()) {
    nlohmann::json js = nlohmann::json::array();
    for (const TunedRow& r : rows) {
      js.push_back(to_json(r.shape, r.outcome));
      js.back()["device"] = r.device;
      js.back()["rank"] = rank.rank;
    }
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

/// The shapes to tune (none with --from-record: they come from the cache),
/// with the other arguments checked before any GPU work; throws
/// std::invalid_argument or std::runtime_error with the reason.
std::vector<ShapeSpec> checked_shapes(const Args& a) {
  if (a.from_record && !a.shapes.empty()) throw std::invalid_argument("--from-record tunes the record; leave out --shape");
  if (a.from_record && a.plan) throw std::invalid_argument("--plan lists given shapes; the record is read once a GPU is known");
  const MathMode mode = a.math_mode.empty() ? math_mode_from_environment() : *parse_math_mode(a.math_mode);
  for (const std::string& f : a.families) {
    const KernelFamily* fam = find_family(f);
    if (!fam) throw std::invalid_argument("unknown kernel family '" + f + "'");
    if (!admits(mode, fam->accuracy()))
      throw std::invalid_argument("the " + f + " family is only tuned with --math-mode fp32_accurate");
  }
  return a.from_record ? std::vector<ShapeSpec>{} : resolve_shapes(a.shapes, a.shapes_file, a.suite);
}

/// --plan: this rank's share and its cache file, its GPU(s) and the CPUs of
/// its compile pool (what a real run would do to its binding), one line
/// each (no GPU, the binding untouched).
int print_plan(const Args& a, const std::vector<ShapeSpec>& specs, const LaunchRank& rank, const std::string& path,
               const std::string& gpus) {
  const std::vector<TuneJob> share = rank_share(spec_jobs(specs, a.unaligned), rank);
  std::printf("rank %d of %d (%s): %zu of %zu shape(s) into %s\n", rank.rank, rank.size,
              rank.source.empty() ? "no launcher" : ("$" + rank.source).c_str(), share.size(), specs.size(),
              path.c_str());
  std::printf("rank %d gpu: %s\n", rank.rank, gpus.c_str());
  const std::vector<int> cpus = affinity_cpus();
  const AffinityPlan fit = affinity_plan_of_this_process(a.keep_affinity);
  if (fit.message.empty())
    std::printf("rank %d cpus: compile pool of %zu CPU(s) (%s)\n", rank.rank, cpus.size(), cpu_list_text(cpus).c_str());
  else
    std::printf("rank %d cpus: %s\n", rank.rank, fit.message.c_str());
  for (const TuneJob& j : share) std::printf("rank %d: %s\n", rank.rank, j.label.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "gemm_tune: tune FP32 GEMM kernels for this GPU and store the winners in the tuning cache.\n"
      "Shapes are MxNxK in row-major form with optional layout prefix and transposes, e.g.\n"
      "4096x4096x4096, 128x11008x4096:NT, col:1000x1000x1000:TN, and a strided batch\n"
      "with @COUNT, e.g. 64x64x64@4096. Without --shape, --shapes-file or --suite the\n"
      "built-in public suite is tuned."};
  Args a;
  add_options(app, a);
  CLI11_PARSE(app, argc, argv);
  set_default_log_level(spdlog::level::info);
  std::vector<ShapeSpec> specs;
  LaunchRank rank;
  LocalRank local;
  std::string path, gpus;
  try {
    specs = checked_shapes(a);
    rank = launch_rank_from_environment();
    local = local_rank_from_environment();
    path = rank_cache_path(a.db.empty() ? TuningCache::default_path() : a.db, rank);
    gpus = plan_device_text(a.device, local, visible_gpu_count_from_environment());  // refuses what a run would
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_tune: %s\n", e.what());
    return 2;
  }
  if (a.plan) return print_plan(a, specs, rank, path, gpus);
  fit_affinity_to_launch(a.keep_affinity);  // before any thread: they and the worker inherit it
  try {
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
    return tune_all(a, *cache, specs, rank, local);
  } catch (const std::invalid_argument& e) {  // --device names no GPU of this machine
    std::fprintf(stderr, "gemm_tune: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_tune: %s\n", e.what());
    return 1;
  }
}
