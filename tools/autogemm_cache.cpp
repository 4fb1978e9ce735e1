// autogemm_cache: inspect, export and import the tuning cache.
//
//   autogemm_cache path
//   autogemm_cache list    [--db P] [--trials] [--device D] [--shape S] [--family F] [--status S] [--json]
//   autogemm_cache winners [--db P] [--json]
//   autogemm_cache trials  [--db P] --shape [col:]MxNxK[:NN|NT|TN|TT][@BATCH] [--json]
//   autogemm_cache export  [--db P] --out F.json
//   autogemm_cache import  [--db P] --in F.json
//   autogemm_cache merge   [--db P] --from OTHER.db [--trust-cubins] [--json]
//   autogemm_cache diff    A.db B.db [--json]
//   autogemm_cache prune   [--db P] [--dry-run] [--json]
//   autogemm_cache vacuum  [--db P] [--json]
//   autogemm_cache show    [--db P] --shape S [--device D] [--json]
//   autogemm_cache coverage [--db P] [--device D] [--json]
//
// Thin: parses arguments, calls autogemm::TuningCache, prints. Import and
// merge: winners by the record_winner rule, trials upserted, devices
// recreated. Compiled kernels (cubins) are not exported (they are rebuilt on
// demand); merge takes another cache's only with --trust-cubins.
//
// Shapes are written as for gemm_tune and gemm_bench (autogemm::parse_shape:
// one grammar for every tool) and matched in autogemm's canonical form, the
// form the cache stores.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <ctime>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "autogemm/log.h"
#include "autogemm/problem.h"
#include "autogemm/tuning_cache.h"
#include "autogemm/shape_spec.h"
#include "cache_tool_format.h"
#include "cache_tool_ops.h"

namespace {

using namespace autogemm::cache_tool;
using autogemm::CacheError;
using autogemm::DeviceKey;
using autogemm::ShapeKey;
using autogemm::TrialRow;
using autogemm::TuningCache;
using autogemm::WinnerRecord;

// --- subcommands ------------------------------------------------------------

int cmd_winners(const std::string& db, bool as_json) {
  auto cache = open_db(db, TuningCache::Mode::ReadOnly);
  json out = json::array();
  std::vector<std::vector<std::string>> rows;
  for (const DeviceKey& d : cache->load_devices()) {
    for (const WinnerRecord& w : cache->load_winners(d)) {
      json j = winner_json(w);
      j["device"] = device_json(d);
      out.push_back(std::move(j));
      rows.push_back({d.name, layout(w.shape), dims(w.shape), w.shape.aligned ? "yes" : "no",
                      w.family, w.config, fixed(w.gflops, 1), utc(w.tuned_at)});
    }
  }
  if (as_json)
    std::cout << out.dump(2) << "\n";
  else
    print_table({"device", "layout", "MxNxK", "aligned", "family", "config", "GFLOP/s", "when"}, rows);
  return 0;
}

int cmd_trials(const std::string& db, const std::string& shape_text, bool as_json) {
  const ShapeKey want = parse_shape_arg(shape_text);
  auto cache = open_db(db, TuningCache::Mode::ReadOnly);
  json out = json::array();
  std::vector<std::vector<std::string>> rows;
  for (const DeviceKey& d : cache->load_devices()) {
    for (const TrialRow& r : cache->load_all_trials(d)) {
      if (!same_problem(r.shape, want)) continue;
      json j = trial_json(r);
      j["device"] = device_json(d);
      out.push_back(std::move(j));
      const bool ok = r.trial.status == autogemm::TrialStatus::Ok;
      std::string why = r.trial.detail.substr(0, r.trial.detail.find('\n')).substr(0, 60);
      rows.push_back({d.name, layout(r.shape), r.shape.aligned ? "yes" : "no", r.family,
                      r.template_hash.substr(0, 12), r.trial.config,
                      autogemm::to_string(r.trial.status), ok ? fixed(r.trial.median_ms, 4) : "",
                      ok ? fixed(r.trial.gflops, 1) : "", why});
    }
  }
  if (as_json)
    std::cout << out.dump(2) << "\n";
  else
    print_table({"device", "layout", "aligned", "family", "template", "config", "status", "ms",
                 "GFLOP/s", "detail"},
                rows);
  return 0;
}

int cmd_export(const std::string& db, const std::string& out_path) {
  auto cache = open_db(db, TuningCache::Mode::ReadOnly);
  json doc = {{"format", kFormat},
              {"format_version", kFormatVersion},
              {"schema_version", TuningCache::schema_version()},
              {"exported_at", static_cast<int64_t>(std::time(nullptr))},
              {"devices", json::array()}};
  size_t winners = 0, trials = 0;
  for (const DeviceKey& d : cache->load_devices()) {
    json dj = device_json(d);
    dj["winners"] = json::array();
    dj["trials"] = json::array();
    for (const WinnerRecord& w : cache->load_winners(d)) dj["winners"].push_back(winner_json(w));
    for (const TrialRow& r : cache->load_all_trials(d)) dj["trials"].push_back(trial_json(r));
    dj["requests"] = json::array();
    for (const autogemm::ShapeRequest& r : cache->load_requests(d)) dj["requests"].push_back(request_json(r));
    winners += dj["winners"].size();
    trials += dj["trials"].size();
    doc["devices"].push_back(std::move(dj));
  }
  std::ofstream out(out_path, std::ios::trunc);
  out << doc.dump(1) << "\n";
  out.close();
  if (!out) throw std::runtime_error("cannot write " + out_path);
  std::cout << "exported " << doc["devices"].size() << " device(s), " << winners
            << " winner(s), " << trials << " trial(s) to " << out_path << "\n";
  return 0;
}

int cmd_import(const std::string& db, const std::string& in_path) {
  std::ifstream in(in_path);
  if (!in) throw std::runtime_error("cannot read " + in_path);
  const json doc = json::parse(in);
  if (doc.value("format", std::string()) != kFormat)
    throw std::runtime_error(in_path + " is not an autogemm cache export");
  if (doc.at("format_version").get<int>() > kFormatVersion)
    throw std::runtime_error(in_path + " was exported by a newer autogemm (format version " +
                             std::to_string(doc.at("format_version").get<int>()) + ")");
  // Parse everything before writing anything.
  struct Batch {
    DeviceKey device;
    std::vector<WinnerRecord> winners;
    std::vector<TrialRow> trials;
    std::vector<autogemm::ShapeRequest> requests;
  };
  std::vector<Batch> batches;
  for (const json& dj : doc.at("devices")) {
    Batch b{get_device(dj), {}, {}, {}};
    for (const json& w : dj.at("winners")) b.winners.push_back(get_winner(w));
    for (const json& t : dj.at("trials")) b.trials.push_back(get_trial(t));
    if (dj.contains("requests"))  // exports before schema version 4 have none
      for (const json& r : dj.at("requests")) b.requests.push_back(get_request(r));
    batches.push_back(std::move(b));
  }
  auto cache = open_db(db, TuningCache::Mode::ReadWrite);
  autogemm::MergeStats total;
  for (const Batch& b : batches) {
    autogemm::MergeStats s = cache->merge(b.device, b.winners, b.trials);
    cache->record_requests(b.device, b.requests);
    total.winners_stored += s.winners_stored;
    total.winners_kept += s.winners_kept;
    total.trials += s.trials;
  }
  std::cout << "imported " << batches.size() << " device(s) into " << cache->path() << ": "
            << total.winners_stored << " winner(s) stored, " << total.winners_kept
            << " kept the faster existing one, " << total.trials << " trial(s) merged\n";
  return 0;
}

/// Every subcommand's options (one subcommand runs per invocation).
struct CacheArgs {
  std::string db, shape, file, other, diff_a, diff_b, device;
  bool as_json = false, trust_cubins = false, dry_run = false;
  ListFilter filter;
};

/// The subcommands; the one given on the command line is set.
struct CacheCommands {
  CLI::App *path = nullptr, *winners = nullptr, *trials = nullptr, *list = nullptr, *show = nullptr,
           *coverage = nullptr, *export_ = nullptr, *import = nullptr, *merge = nullptr, *diff = nullptr,
           *prune = nullptr, *vacuum = nullptr;
};

const char* const kDbHelp = "cache file (default: the path `autogemm_cache path` prints)";
const char* const kShapeHelp = "shape as gemm_tune takes it: [col:]MxNxK[:NN|NT|TN|TT][@BATCH]";

/// The read-only views: path, winners, trials, list, show, coverage.
void add_view_commands(CLI::App& app, CacheArgs& a, CacheCommands& c) {
  c.path = app.add_subcommand("path", "print the default cache location");
  c.winners = app.add_subcommand("winners", "list the best config per device and shape");
  c.winners->add_option("--db", a.db, kDbHelp);
  c.winners->add_flag("--json", a.as_json, "print JSON instead of a table");
  c.trials = app.add_subcommand("trials", "list every trial of one shape");
  c.trials->add_option("--db", a.db, kDbHelp);
  c.trials->add_option("--shape", a.shape, std::string(kShapeHelp) + ", e.g. 4096x4096x4096:NT")->required();
  c.trials->add_flag("--json", a.as_json, "print JSON instead of a table");
  c.list = app.add_subcommand("list", "list winners (or every trial with --trials), filtered");
  c.list->add_option("--db", a.db, kDbHelp);
  c.list->add_flag("--trials", a.filter.trials, "list trials instead of winners");
  c.list->add_option("--device", a.filter.device, "only devices whose name contains this");
  c.list->add_option("--shape", a.filter.shape, "only this shape, as gemm_tune takes it");
  c.list->add_option("--family", a.filter.family, "only this kernel family (tiled, warptiled, gemv, ...)");
  c.list->add_option("--status", a.filter.status, "trials only: ok, wrong_result, compile_failed, ...");
  c.list->add_flag("--json", a.as_json, "print JSON instead of a table");
  c.show = app.add_subcommand("show", "everything stored about one shape: winners, every trial, recorded calls");
  c.show->add_option("--db", a.db, kDbHelp);
  c.show->add_option("--shape", a.shape, kShapeHelp)->required();
  c.show->add_option("--device", a.device, "only devices whose name contains this");
  c.show->add_flag("--json", a.as_json, "print JSON instead of tables");
  c.coverage = app.add_subcommand(
      "coverage", "the shapes applications recorded (AUTOGEMM_RECORD_UNTUNED=1) against what is tuned");
  c.coverage->add_option("--db", a.db, kDbHelp);
  c.coverage->add_option("--device", a.device, "only devices whose name contains this");
  c.coverage->add_flag("--json", a.as_json, "print JSON instead of a table");
}

/// The commands that move or change rows: export, import, merge, diff, prune, vacuum.
void add_maintenance_commands(CLI::App& app, CacheArgs& a, CacheCommands& c) {
  c.export_ = app.add_subcommand("export", "write winners and trials to a JSON file");
  c.export_->add_option("--db", a.db, kDbHelp);
  c.export_->add_option("--out", a.file, "JSON file to write")->required();
  c.import = app.add_subcommand("import", "merge a JSON export into a cache");
  c.import->add_option("--db", a.db, kDbHelp);
  c.import->add_option("--in", a.file, "JSON file to read")->required()->check(CLI::ExistingFile);
  c.merge = app.add_subcommand("merge", "merge another cache file into this one (the faster winner stays)");
  c.merge->add_option("--db", a.db, kDbHelp);
  c.merge->add_option("--from", a.other, "cache file to merge in (read only)")->required()->check(CLI::ExistingFile);
  c.merge->add_flag("--trust-cubins", a.trust_cubins,
                    "also take its compiled kernels (code that will run in every process using this cache)");
  c.merge->add_flag("--json", a.as_json, "print JSON instead of a sentence");
  c.diff = app.add_subcommand("diff", "compare the winners of two caches");
  c.diff->add_option("a", a.diff_a, "first cache file")->required()->check(CLI::ExistingFile);
  c.diff->add_option("b", a.diff_b, "second cache file")->required()->check(CLI::ExistingFile);
  c.diff->add_flag("--json", a.as_json, "print JSON instead of a table");
  c.prune = app.add_subcommand(
      "prune", "remove rows of kernel templates this build does not have, and cubins of another NVRTC");
  c.prune->add_option("--db", a.db, kDbHelp);
  c.prune->add_flag("--dry-run", a.dry_run, "only count what would be removed");
  c.prune->add_flag("--json", a.as_json, "print JSON instead of a sentence");
  c.vacuum = app.add_subcommand("vacuum", "compact the cache file (SQLite VACUUM)");
  c.vacuum->add_option("--db", a.db, kDbHelp);
  c.vacuum->add_flag("--json", a.as_json, "print JSON instead of a sentence");
}

/// Runs the subcommand given (exactly one is: require_subcommand(1)).
int run_command(const CacheCommands& c, const CacheArgs& a) {
  if (*c.path) {
    std::cout << TuningCache::default_path() << "\n";
    return 0;
  }
  if (*c.winners) return cmd_winners(a.db, a.as_json);
  if (*c.trials) return cmd_trials(a.db, a.shape, a.as_json);
  if (*c.export_) return cmd_export(a.db, a.file);
  if (*c.import) return cmd_import(a.db, a.file);
  if (*c.list) return cmd_list(a.db, a.filter, a.as_json);
  if (*c.merge) return cmd_merge(a.db, a.other, a.trust_cubins, a.as_json);
  if (*c.diff) return cmd_diff(a.diff_a, a.diff_b, a.as_json);
  if (*c.prune) return cmd_prune(a.db, a.dry_run, a.as_json);
  if (*c.vacuum) return cmd_vacuum(a.db, a.as_json);
  if (*c.show) return cmd_show(a.db, a.shape, a.device, a.as_json);
  if (*c.coverage) return cmd_coverage(a.db, a.device, a.as_json);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  autogemm::set_default_log_level(spdlog::level::info);  // the store's notes, on stderr
  CLI::App app{"Inspect, export, import, merge and compare autogemm tuning caches."};
  app.require_subcommand(1);
  CacheArgs args;
  CacheCommands commands;
  add_view_commands(app, args, commands);
  add_maintenance_commands(app, args, commands);
  CLI11_PARSE(app, argc, argv);
  try {
    return run_command(commands, args);
  } catch (const CLI::Error& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "autogemm_cache: " << e.what() << "\n";
    return 1;
  }
}
