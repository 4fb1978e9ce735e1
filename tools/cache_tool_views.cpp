// autogemm_cache's views of one question each: `coverage` (what applications
// asked for against what is tuned) and `show` (everything about one shape).
#include <algorithm>
#include <iostream>
#include <set>

#include "autogemm/kernel_config.h"

#include "cache_tool_format.h"
#include "cache_tool_ops.h"

namespace autogemm::cache_tool {
namespace {

/// The fastest winner of any family for exactly `s`, if any.
const WinnerRecord* best_winner(const std::vector<WinnerRecord>& winners, const ShapeKey& s) {
  const WinnerRecord* best = nullptr;
  for (const WinnerRecord& w : winners)
    if (w.shape == s && (!best || w.median_ms < best->median_ms)) best = &w;
  return best;
}

/// What each key of the shown families' configs means: the config text is
/// the cache's permanent key, and its short names say little on their own.
json key_meanings(const std::set<std::string>& families) {
  json out = json::object();
  for (const std::string& name : families) {
    const KernelFamily* family = find_family(name);
    if (!family) continue;
    json keys = json::array();
    for (const ConfigKey& k : config_keys(*family))
      keys.push_back({{"key", k.key}, {"meaning", k.meaning}, {"values", k.values}});
    out[name] = keys;
  }
  return out;
}

void print_key_meanings(const json& meanings) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& [family, keys] : meanings.items())
    for (const json& k : keys)
      rows.push_back({family, k["key"].get<std::string>(), k["meaning"].get<std::string>(),
                      k["values"].get<std::string>()});
  if (rows.empty()) return;
  std::cout << "config keys:\n";
  print_table({"family", "key", "meaning", "values"}, rows);
}

std::string percent(int64_t part, int64_t whole) { return whole > 0 ? fixed(100.0 * part / whole, 1) + "%" : "-"; }

}  // namespace

int cmd_coverage(const std::string& db, const std::string& device, bool as_json) {
  auto cache = open_db(db, TuningCache::Mode::ReadOnly);
  json out = json::array();
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> summaries;
  for (const DeviceKey& d : cache->load_devices()) {
    if (!device.empty() && d.name.find(device) == std::string::npos) continue;
    const std::vector<WinnerRecord> winners = cache->load_winners(d);
    const std::vector<ShapeRequest> requests = cache->load_requests(d);
    int64_t calls = 0, calls_tuned = 0, shapes_tuned = 0;
    json shapes = json::array();
    for (const ShapeRequest& r : requests) {
      const WinnerRecord* w = best_winner(winners, r.shape);
      calls += r.calls;
      if (w) calls_tuned += r.calls, ++shapes_tuned;
      json j = request_json(r);
      j["tuned"] = w != nullptr;
      if (w) j["winner"] = winner_json(*w);
      shapes.push_back(std::move(j));
      rows.push_back({d.name, layout(r.shape), dims(r.shape), r.shape.aligned ? "yes" : "no", std::to_string(r.calls),
                      w ? w->family + " " + fixed(w->gflops, 1) + " GFLOP/s" : "no", utc(r.last_seen)});
    }
    const size_t tuned_not_asked = size_t(std::count_if(winners.begin(), winners.end(), [&](const WinnerRecord& w) {
      return std::none_of(requests.begin(), requests.end(), [&](const ShapeRequest& r) { return r.shape == w.shape; });
    }));
    out.push_back({{"device", device_json(d)}, {"shapes", shapes}, {"shapes_recorded", requests.size()},
                   {"shapes_tuned", shapes_tuned}, {"calls", calls}, {"calls_tuned", calls_tuned},
                   {"winners_not_recorded", tuned_not_asked}});
    if (!requests.empty())
      summaries.push_back(d.name + ": " + std::to_string(shapes_tuned) + " of " + std::to_string(requests.size()) +
                          " recorded shape(s) tuned, " + percent(calls_tuned, calls) + " of " + std::to_string(calls) +
                          " recorded call(s)" +
                          (shapes_tuned < int64_t(requests.size()) ? "; `gemm_tune --from-record` tunes the others" : ""));
  }
  if (as_json) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  print_table({"device", "layout", "MxNxK", "aligned", "calls", "tuned", "last seen"}, rows);
  if (summaries.empty())
    std::cout << "no recorded shapes (run the application with AUTOGEMM_RECORD_UNTUNED=1)\n";
  for (const std::string& s : summaries) std::cout << s << "\n";
  return 0;
}

int cmd_show(const std::string& db, const std::string& shape_text, const std::string& device, bool as_json) {
  const ShapeKey want = parse_shape_arg(shape_text);
  auto cache = open_db(db, TuningCache::Mode::ReadOnly);
  json out = json::array();
  bool any = false;
  for (const DeviceKey& d : cache->load_devices()) {
    if (!device.empty() && d.name.find(device) == std::string::npos) continue;
    json entry = {{"device", device_json(d)}, {"winners", json::array()}, {"trials", json::array()},
                  {"requests", json::array()}};
    std::vector<std::vector<std::string>> winner_rows, trial_rows;
    std::set<std::string> families;
    for (const WinnerRecord& w : cache->load_winners(d)) {
      if (!same_problem(w.shape, want)) continue;
      entry["winners"].push_back(winner_json(w));
      families.insert(w.family);
      winner_rows.push_back({w.shape.aligned ? "yes" : "no", w.family, w.config, fixed(w.median_ms, 4),
                             fixed(w.spread_ms, 4), fixed(w.gflops, 1), to_string(w.timing),
                             w.template_hash.substr(0, 12), utc(w.tuned_at)});
    }
    std::vector<TrialRow> trials;
    for (const TrialRow& r : cache->load_all_trials(d))
      if (same_problem(r.shape, want)) trials.push_back(r);
    // Fastest verified first, then the failures by status.
    std::stable_sort(trials.begin(), trials.end(), [](const TrialRow& a, const TrialRow& b) {
      const bool ok_a = a.trial.status == TrialStatus::Ok, ok_b = b.trial.status == TrialStatus::Ok;
      if (ok_a != ok_b) return ok_a;
      return ok_a ? a.trial.median_ms < b.trial.median_ms : int(a.trial.status) < int(b.trial.status);
    });
    for (const TrialRow& r : trials) {
      entry["trials"].push_back(trial_json(r));
      families.insert(r.family);
      const bool ok = r.trial.status == TrialStatus::Ok;
      trial_rows.push_back({r.shape.aligned ? "yes" : "no", r.family, r.trial.config, to_string(r.trial.status),
                            ok ? fixed(r.trial.median_ms, 4) : "", ok ? fixed(r.trial.gflops, 1) : "",
                            r.trial.detail.substr(0, r.trial.detail.find('\n')).substr(0, 50)});
    }
    int64_t calls = 0;
    for (const ShapeRequest& r : cache->load_requests(d))
      if (same_problem(r.shape, want)) entry["requests"].push_back(request_json(r)), calls += r.calls;
    if (entry["winners"].empty() && entry["trials"].empty() && entry["requests"].empty()) continue;
    any = true;
    entry["config_keys"] = key_meanings(families);
    out.push_back(entry);
    if (as_json) continue;
    std::cout << d.name << " (sm_" << d.cc_major << d.cc_minor << ", driver " << d.driver_version << ", NVRTC "
              << d.nvrtc_version << "), " << layout(want) << " " << dims(want) << ": " << entry["winners"].size()
              << " winner(s), " << trials.size() << " trial(s), " << calls << " recorded call(s)\n";
    if (!winner_rows.empty())
      print_table({"aligned", "family", "winner", "ms", "spread", "GFLOP/s", "timing", "template", "tuned"},
                  winner_rows);
    if (!trial_rows.empty())
      print_table({"aligned", "family", "config", "status", "ms", "GFLOP/s", "detail"}, trial_rows);
    print_key_meanings(entry["config_keys"]);
  }
  if (as_json)
    std::cout << out.dump(2) << "\n";
  else if (!any)
    std::cout << "nothing stored for " << shape_text << "\n";
  return 0;
}

}  // namespace autogemm::cache_tool
