#include "cache_tool_format.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <ctime>
#include <iostream>

#include "autogemm/problem.h"
#include "autogemm/shape_spec.h"

namespace autogemm::cache_tool {

const char* const kFormat = "autogemm-tuning-cache";
// Version 1 files written before rows carried a family have none: a config
// begins with its family's name, so the family is read from there. Writing
// the field needs no new version: older readers ignore it.

// --- JSON: the export format ------------------------------------------------

void put_shape(json& j, const ShapeKey& s) {
  j["m"] = s.m;
  j["n"] = s.n;
  j["k"] = s.k;
  j["trans_a"] = s.trans_a;
  j["trans_b"] = s.trans_b;
  j["aligned"] = s.aligned;
  j["batch"] = s.batch;
}

ShapeKey get_shape(const json& j) {
  ShapeKey s;
  s.m = j.at("m").get<int64_t>();
  s.n = j.at("n").get<int64_t>();
  s.k = j.at("k").get<int64_t>();
  s.trans_a = j.at("trans_a").get<bool>();
  s.trans_b = j.at("trans_b").get<bool>();
  s.aligned = j.at("aligned").get<bool>();
  s.batch = j.value("batch", int64_t(1));  // files exported before strided batches have none
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

namespace {

/// The "family" field, or for exports that predate it the first word of the config.
std::string get_family(const json& j) {
  if (j.contains("family")) return j.at("family").get<std::string>();
  const std::string config = j.at("config").get<std::string>();
  return config.substr(0, config.find(' '));
}

// "timing" ("rotate" or "warm"); an export written before it existed was timed rotating.
autogemm::TimingRegime get_timing(const json& j) {
  const std::string t = j.value("timing", std::string("rotate"));
  auto parsed = autogemm::parse_timing_regime(t);
  if (!parsed) throw std::runtime_error("unknown timing regime '" + t + "' (rotate or warm)");
  return *parsed;
}

}  // namespace

json winner_json(const WinnerRecord& w) {
  json j = {{"family", w.family},       {"config", w.config},
            {"template_hash", w.template_hash},
            {"median_ms", w.median_ms}, {"spread_ms", w.spread_ms},
            {"gflops", w.gflops},       {"tuned_at", w.tuned_at},
            {"timing", autogemm::to_string(w.timing)}};
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
  w.timing = get_timing(j);
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
            {"recorded_at", r.recorded_at},
            {"timing", autogemm::to_string(r.trial.timing)}};
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
  r.trial.timing = get_timing(j);
  return r;
}

json request_json(const ShapeRequest& r) {
  json j = {{"calls", r.calls}, {"tuned_when_seen", r.tuned_when_seen}, {"first_seen", r.first_seen},
            {"last_seen", r.last_seen}};
  put_shape(j, r.shape);
  return j;
}

ShapeRequest get_request(const json& j) {
  ShapeRequest r;
  r.shape = get_shape(j);
  r.calls = j.at("calls").get<int64_t>();
  r.tuned_when_seen = j.at("tuned_when_seen").get<bool>();
  r.first_seen = j.at("first_seen").get<int64_t>();
  r.last_seen = j.at("last_seen").get<int64_t>();
  return r;
}

// --- text output ------------------------------------------------------------

std::string layout(const ShapeKey& s) {
  return std::string(s.trans_a ? "T" : "N") + (s.trans_b ? "T" : "N");
}

std::string dims(const ShapeKey& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
         (s.batch > 1 ? "@" + std::to_string(s.batch) : std::string());
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

/// The canonical shape (what the cache stores) of a shape as the tools take it.
ShapeKey parse_shape_arg(const std::string& text, const char* option) {
  autogemm::ShapeSpec spec;
  std::string why;
  if (!autogemm::parse_shape(text, &spec, &why)) throw CLI::ValidationError(option, why);
  return spec.problem().key();
}

/// Same problem in canonical form; the alignment class is not part of a
/// shape's text, so trials of both classes match.
bool same_problem(const ShapeKey& a, const ShapeKey& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k && a.trans_a == b.trans_a && a.trans_b == b.trans_b;
}

std::unique_ptr<TuningCache> open_db(const std::string& db, TuningCache::Mode mode) {
  return TuningCache::open(db.empty() ? TuningCache::default_path() : db, mode);
}

}  // namespace autogemm::cache_tool
