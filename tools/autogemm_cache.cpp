// autogemm_cache: inspect, export and import the tuning cache.
//
//   autogemm_cache path
//   autogemm_cache winners [--db P] [--json]
//   autogemm_cache trials  [--db P] --shape [col:]MxNxK[:NN|NT|TN|TT] [--json]
//   autogemm_cache export  [--db P] --out F.json
//   autogemm_cache import  [--db P] --in F.json
//
// Thin: parses arguments, calls autogemm::TuningCache, prints. Import merges:
// winners by the record_winner rule, trials upserted, devices recreated.
// Compiled kernels (cubins) are not exported: they are rebuilt on demand.
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

namespace {

using autogemm::CacheError;
using autogemm::DeviceKey;
using autogemm::ShapeKey;
using autogemm::TrialRow;
using autogemm::TuningCache;
using autogemm::WinnerRecord;
using nlohmann::json;

constexpr const char* kFormat = "autogemm-tuning-cache";
// Version 1 files written before rows carried a family have none: a config
// begins with its family's name, so the family is read from there. Writing
// the field needs no new version: older readers ignore it.
constexpr int kFormatVersion = 1;

// --- JSON: the export format ------------------------------------------------

void put_shape(json& j, const ShapeKey& s) {
  j["m"] = s.m;
  j["n"] = s.n;
  j["k"] = s.k;
  j["trans_a"] = s.trans_a;
  j["trans_b"] = s.trans_b;
  j["aligned"] = s.aligned;
}

ShapeKey get_shape(const json& j) {
  ShapeKey s;
  s.m = j.at("m").get<int64_t>();
  s.n = j.at("n").get<int64_t>();
  s.k = j.at("k").get<int64_t>();
  s.trans_a = j.at("trans_a").get<bool>();
  s.trans_b = j.at("trans_b").get<bool>();
  s.aligned = j.at("aligned").get<bool>();
  return s;
}

json device_json(const DeviceKey& d) {
  return {{"name", d.name},
          {"cc_major", d.cc_major},
          {"cc_minor", d.cc_minor},
          {"sm_count", d.sm_count},
          {"driver_version", d.driver_version},
          {"nvrtc_version", d.nvrtc_version}};
}

DeviceKey get_device(const json& j) {
  return {j.at("name").get<std::string>(),   j.at("cc_major").get<int>(),
          j.at("cc_minor").get<int>(),       j.at("sm_count").get<int>(),
          j.at("driver_version").get<int>(), j.at("nvrtc_version").get<int>()};
}

/// The "family" field, or for exports that predate it the first word of the config.
std::string get_family(const json& j) {
  if (j.contains("family")) return j.at("family").get<std::string>();
  const std::string config = j.at("config").get<std::string>();
  return config.substr(0, config.find(' '));
}

json winner_json(const WinnerRecord& w) {
  json j = {{"family", w.family},       {"config", w.config},
            {"template_hash", w.template_hash},
            {"median_ms", w.median_ms}, {"spread_ms", w.spread_ms},
            {"gflops", w.gflops},       {"tuned_at", w.tuned_at}};
  put_shape(j, w.shape);
  return j;
}

WinnerRecord get_winner(const json& j) {
  WinnerRecord w;
  w.shape = get_shape(j);
  w.family = get_family(j);
  w.config = j.at("config").get<std::string>();
  w.template_hash = j.at("template_hash").get<std::string>();
  w.median_ms = j.at("median_ms").get<double>();
  w.spread_ms = j.at("spread_ms").get<double>();
  w.gflops = j.at("gflops").get<double>();
  w.tuned_at = j.at("tuned_at").get<int64_t>();
  return w;
}

json trial_json(const TrialRow& r) {
  json j = {{"family", r.family},
            {"template_hash", r.template_hash},
            {"config", r.trial.config},
            {"status", autogemm::to_string(r.trial.status)},
            {"median_ms", r.trial.median_ms},
            {"spread_ms", r.trial.spread_ms},
            {"gflops", r.trial.gflops},
            {"detail", r.trial.detail},
            {"recorded_at", r.recorded_at}};
  put_shape(j, r.shape);
  return j;
}

TrialRow get_trial(const json& j) {
  const std::string status = j.at("status").get<std::string>();
  auto parsed = autogemm::parse_trial_status(status);
  if (!parsed) throw std::runtime_error("unknown trial status '" + status + "'");
  TrialRow r;
  r.shape = get_shape(j);
  r.family = get_family(j);
  r.template_hash = j.at("template_hash").get<std::string>();
  r.trial.config = j.at("config").get<std::string>();
  r.trial.status = *parsed;
  r.trial.median_ms = j.at("median_ms").get<double>();
  r.trial.spread_ms = j.at("spread_ms").get<double>();
  r.trial.gflops = j.at("gflops").get<double>();
  r.trial.detail = j.value("detail", std::string());
  r.recorded_at = j.at("recorded_at").get<int64_t>();
  return r;
}

// --- text output ------------------------------------------------------------

std::string layout(const ShapeKey& s) {
  return std::string(s.trans_a ? "T" : "N") + (s.trans_b ? "T" : "N");
}

std::string dims(const ShapeKey& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

std::string utc(int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  char buf[32] = "?";
  if (gmtime_r(&tt, &tm)) std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

void print_table(const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      out += cells[c];
      if (c + 1 < cells.size()) out += std::string(width[c] - cells[c].size() + 2, ' ');
    }
    std::cout << out << "\n";
  };
  line(header);
  for (const auto& r : rows) line(r);
}

// --- subcommands ------------------------------------------------------------

std::unique_ptr<TuningCache> open_db(const std::string& db, TuningCache::Mode mode) {
  return TuningCache::open(db.empty() ? TuningCache::default_path() : db, mode);
}

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

/// The canonical shape (what the cache stores) of a shape as the tools take it.
ShapeKey parse_shape_arg(const std::string& text) {
  autogemm::ShapeSpec spec;
  std::string why;
  if (!autogemm::parse_shape(text, &spec, &why)) throw CLI::ValidationError("--shape", why);
  return spec.problem().key();
}

/// Same problem in canonical form; the alignment class is not part of a
/// shape's text, so trials of both classes match.
bool same_problem(const ShapeKey& a, const ShapeKey& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k && a.trans_a == b.trans_a && a.trans_b == b.trans_b;
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
  };
  std::vector<Batch> batches;
  for (const json& dj : doc.at("devices")) {
    Batch b{get_device(dj), {}, {}};
    for (const json& w : dj.at("winners")) b.winners.push_back(get_winner(w));
    for (const json& t : dj.at("trials")) b.trials.push_back(get_trial(t));
    batches.push_back(std::move(b));
  }
  auto cache = open_db(db, TuningCache::Mode::ReadWrite);
  autogemm::MergeStats total;
  for (const Batch& b : batches) {
    autogemm::MergeStats s = cache->merge(b.device, b.winners, b.trials);
    total.winners_stored += s.winners_stored;
    total.winners_kept += s.winners_kept;
    total.trials += s.trials;
  }
  std::cout << "imported " << batches.size() << " device(s) into " << cache->path() << ": "
            << total.winners_stored << " winner(s) stored, " << total.winners_kept
            << " kept the faster existing one, " << total.trials << " trial(s) merged\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  autogemm::set_default_log_level(spdlog::level::info);  // the store's notes, on stderr
  CLI::App app{"Inspect, export and import the autogemm tuning cache."};
  app.require_subcommand(1);
  std::string db, shape, file;
  bool as_json = false;
  const std::string db_help = "cache file (default: the path `autogemm_cache path` prints)";

  auto* path_cmd = app.add_subcommand("path", "print the default cache location");
  auto* winners_cmd = app.add_subcommand("winners", "list the best config per device and shape");
  winners_cmd->add_option("--db", db, db_help);
  winners_cmd->add_flag("--json", as_json, "print JSON instead of a table");
  auto* trials_cmd = app.add_subcommand("trials", "list every trial of one shape");
  trials_cmd->add_option("--db", db, db_help);
  trials_cmd
      ->add_option("--shape", shape,
                   "shape as gemm_tune takes it: [col:]MxNxK[:NN|NT|TN|TT], e.g. 4096x4096x4096:NT")
      ->required();
  trials_cmd->add_flag("--json", as_json, "print JSON instead of a table");
  auto* export_cmd = app.add_subcommand("export", "write winners and trials to a JSON file");
  export_cmd->add_option("--db", db, db_help);
  export_cmd->add_option("--out", file, "JSON file to write")->required();
  auto* import_cmd = app.add_subcommand("import", "merge a JSON export into a cache");
  import_cmd->add_option("--db", db, db_help);
  import_cmd->add_option("--in", file, "JSON file to read")->required()->check(CLI::ExistingFile);

  CLI11_PARSE(app, argc, argv);
  try {
    if (*path_cmd) {
      std::cout << TuningCache::default_path() << "\n";
      return 0;
    }
    if (*winners_cmd) return cmd_winners(db, as_json);
    if (*trials_cmd) return cmd_trials(db, shape, as_json);
    if (*export_cmd) return cmd_export(db, file);
    if (*import_cmd) return cmd_import(db, file);
  } catch (const CLI::Error& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "autogemm_cache: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
