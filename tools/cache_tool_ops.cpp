#include "cache_tool_ops.h"

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>
#include <tuple>

#include "autogemm/kernel_families.h"
#include "autogemm/kernel_template.h"
#include "autogemm/nvrtc_compiler.h"
#include "cache_tool_format.h"

namespace autogemm::cache_tool {
namespace {

bool device_matches(const DeviceKey& d, const std::string& part) {
  return part.empty() || d.name.find(part) != std::string::npos;
}

bool shape_matches(const ShapeKey& s, const std::optional<ShapeKey>& want) { return !want || same_problem(s, *want); }

void print_json_or_table(bool as_json, const json& out, const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows) {
  if (as_json)
    std::cout << out.dump(2) << "\n";
  else
    print_table(header, rows);
}

/// Every field of a device key, as one string (the key of a diff row).
std::string device_id(const DeviceKey& d) {
  return d.name + "|" + std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor) + "|" +
         std::to_string(d.sm_count) + "|" + std::to_string(d.driver_version) + "|" + std::to_string(d.nvrtc_version);
}

int64_t file_bytes(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? int64_t(st.st_size) : -1;
}

}  // namespace

int cmd_list(const std::string& db, const ListFilter& f, bool as_json) {
  const std::optional<ShapeKey> want = f.shape.empty() ? std::nullopt : std::optional(parse_shape_arg(f.shape));
  if (!f.status.empty() && !parse_trial_status(f.status))
    throw CLI::ValidationError("--status", "unknown trial status '" + f.status + "'");
  auto cache = open_db(db, TuningCache::Mode::ReadOnly);
  json out = json::array();
  std::vector<std::vector<std::string>> rows;
  for (const DeviceKey& d : cache->load_devices()) {
    if (!device_matches(d, f.device)) continue;
    if (!f.trials) {
      for (const WinnerRecord& w : cache->load_winners(d)) {
        if (!shape_matches(w.shape, want) || (!f.family.empty() && w.family != f.family)) continue;
        json j = winner_json(w);
        j["device"] = device_json(d);
        out.push_back(std::move(j));
        rows.push_back({d.name, layout(w.shape), dims(w.shape), w.shape.aligned ? "yes" : "no", w.family, w.config,
                        fixed(w.gflops, 1), to_string(w.timing), utc(w.tuned_at)});
      }
      continue;
    }
    for (const TrialRow& r : cache->load_all_trials(d)) {
      if (!shape_matches(r.shape, want) || (!f.family.empty() && r.family != f.family)) continue;
      if (!f.status.empty() && to_string(r.trial.status) != f.status) continue;
      json j = trial_json(r);
      j["device"] = device_json(d);
      out.push_back(std::move(j));
      const bool ok = r.trial.status == TrialStatus::Ok;
      rows.push_back({d.name, layout(r.shape), dims(r.shape), r.family, r.trial.config, to_string(r.trial.status),
                      ok ? fixed(r.trial.gflops, 1) : "", utc(r.recorded_at)});
    }
  }
  if (f.trials)
    print_json_or_table(as_json, out, {"device", "layout", "MxNxK", "family", "config", "status", "GFLOP/s", "when"},
                        rows);
  else
    print_json_or_table(as_json, out,
                        {"device", "layout", "MxNxK", "aligned", "family", "config", "GFLOP/s", "timing", "when"}, rows);
  return 0;
}

int cmd_merge(const std::string& db, const std::string& from, bool trust_cubins, bool as_json) {
  auto other = TuningCache::open(from, TuningCache::Mode::ReadOnly);
  auto cache = open_db(db, TuningCache::Mode::ReadWrite);
  if (cache->path() == other->path()) throw std::runtime_error("merging " + from + " into itself");
  MergeStats total;
  size_t devices = 0, requests = 0;
  for (const DeviceKey& d : other->load_devices()) {
    const MergeStats s = cache->merge(d, other->load_winners(d), other->load_all_trials(d));
    const std::vector<ShapeRequest> recorded = other->load_requests(d);  // call counts add up
    cache->record_requests(d, recorded);
    requests += recorded.size();
    total.winners_stored += s.winners_stored;
    total.winners_kept += s.winners_kept;
    total.trials += s.trials;
    ++devices;
  }
  const std::vector<StoredCubin> cubins = other->load_all_cubins();
  if (trust_cubins)
    for (const StoredCubin& c : cubins) cache->store_cubin(c.key, c.cubin);
  const size_t taken = trust_cubins ? cubins.size() : 0;
  json out = {{"into", cache->path()},        {"from", other->path()},
              {"devices", devices},           {"winners_stored", total.winners_stored},
              {"winners_kept", total.winners_kept}, {"trials", total.trials},
              {"recorded_shapes", requests},
              {"cubins_taken", taken},        {"cubins_left", cubins.size() - taken}};
  if (as_json) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << "merged " << devices << " device(s) of " << other->path() << " into " << cache->path() << ": "
            << total.winners_stored << " winner(s) stored, " << total.winners_kept
            << " kept the faster existing one, " << total.trials << " trial(s) merged, " << requests
            << " recorded shape(s) added, " << taken << " cubin(s) taken";
  if (!trust_cubins && !cubins.empty())
    std::cout << " (" << cubins.size() << " left behind: another machine's kernels run only with --trust-cubins; "
              << "the merged configs compile here on first use)";
  std::cout << "\n";
  return 0;
}

int cmd_diff(const std::string& a_path, const std::string& b_path, bool as_json) {
  auto a = TuningCache::open(a_path, TuningCache::Mode::ReadOnly);
  auto b = TuningCache::open(b_path, TuningCache::Mode::ReadOnly);
  using Key = std::tuple<std::string, int64_t, int64_t, int64_t, bool, bool, bool, std::string>;
  struct Pair {
    DeviceKey device;
    std::optional<WinnerRecord> a, b;
  };
  std::map<Key, Pair> pairs;
  auto collect = [&](TuningCache& c, bool is_a) {
    for (const DeviceKey& d : c.load_devices())
      for (const WinnerRecord& w : c.load_winners(d)) {
        const ShapeKey& s = w.shape;
        Pair& p = pairs[Key{device_id(d), s.m, s.n, s.k, s.trans_a, s.trans_b, s.aligned, w.family}];
        p.device = d;
        (is_a ? p.a : p.b) = w;
      }
  };
  collect(*a, true);
  collect(*b, false);
  json out = json::array();
  std::vector<std::vector<std::string>> rows;
  std::map<std::string, int> counts;
  for (const auto& [key, p] : pairs) {
    std::string change = !p.a ? "added" : !p.b ? "removed" : "same";
    if (p.a && p.b) {
      const double noise = std::max(p.a->spread_ms, p.b->spread_ms);
      if (p.b->median_ms < p.a->median_ms - noise) change = "faster";
      if (p.b->median_ms > p.a->median_ms + noise) change = "slower";
    }
    ++counts[change];
    const WinnerRecord& w = p.b ? *p.b : *p.a;
    json j = {{"change", change}, {"device", device_json(p.device)}, {"family", w.family}};
    put_shape(j, w.shape);
    if (p.a) j["a"] = winner_json(*p.a);
    if (p.b) j["b"] = winner_json(*p.b);
    out.push_back(std::move(j));
    rows.push_back({change, p.device.name, layout(w.shape), dims(w.shape), w.family, p.a ? fixed(p.a->gflops, 1) : "",
                    p.b ? fixed(p.b->gflops, 1) : "", p.b ? p.b->config : p.a->config});
  }
  print_json_or_table(as_json, out, {"change", "device", "layout", "MxNxK", "family", "GFLOP/s a", "GFLOP/s b", "config"},
                      rows);
  if (!as_json) {
    std::cout << "\n";
    for (const char* c : {"added", "removed", "faster", "slower", "same"}) std::cout << c << " " << counts[c] << "  ";
    std::cout << "\n";
  }
  return 0;
}

int cmd_prune(const std::string& db, bool dry_run, bool as_json) {
  PruneRule rule;
  for (const KernelFamily* f : all_families()) rule.current_hashes[f->name()] = f->source().hash();
  std::string nvrtc_note;
  try {
    rule.nvrtc_version = Compiler::version();
  } catch (const std::exception& e) {
    nvrtc_note = std::string("; NVRTC not found (") + e.what() + "), so cubins of every NVRTC were kept";
  }
  auto cache = open_db(db, dry_run ? TuningCache::Mode::ReadOnly : TuningCache::Mode::ReadWrite);
  const PruneStats st = cache->prune(rule, dry_run);
  if (as_json) {
    std::cout << json{{"path", cache->path()}, {"dry_run", dry_run}, {"winners", st.winners}, {"trials", st.trials},
                      {"tuning_runs", st.tuning_runs}, {"cubins", st.cubins}, {"nvrtc_version", rule.nvrtc_version}}
                     .dump(2)
              << "\n";
    return 0;
  }
  std::cout << (dry_run ? "would remove from " : "removed from ") << cache->path() << ": " << st.winners
            << " winner(s), " << st.trials << " trial(s), " << st.tuning_runs << " tuning run(s) of kernel templates "
            << "this build does not have, and " << st.cubins << " cubin(s) of those or of another NVRTC"
            << nvrtc_note << (dry_run ? " (run without --dry-run to remove them)" : "") << "\n";
  return 0;
}

int cmd_vacuum(const std::string& db, bool as_json) {
  auto cache = open_db(db, TuningCache::Mode::ReadWrite);
  const int64_t before = file_bytes(cache->path());
  cache->vacuum();
  const int64_t after = file_bytes(cache->path());
  if (as_json)
    std::cout << json{{"path", cache->path()}, {"bytes_before", before}, {"bytes_after", after}}.dump(2) << "\n";
  else
    std::cout << "vacuumed " << cache->path() << ": " << before << " -> " << after << " bytes\n";
  return 0;
}

}  // namespace autogemm::cache_tool
