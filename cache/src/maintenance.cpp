// TuningCache: whole-file operations of the cache tool (all cubins for a
// merge, the devices, the integrity check, pruning stale rows, VACUUM). The per-row reads and writes are in
// records.cpp.
#include "autogemm/tuning_cache.h"

#include <climits>
#include <optional>
#include <tuple>

#include "impl.h"
#include "rows.h"

namespace autogemm {

using detail::Db;
using detail::SkippedRows;
using detail::Stmt;

std::string TuningCache::integrity_check() const {
  auto lock = impl_->enter();
  Stmt s = impl_->db.prepare("PRAGMA integrity_check");
  std::string out;
  while (s.step()) {
    if (!out.empty()) out += "\n";
    out += s.column_text(0);
  }
  return out;
}

std::vector<DeviceKey> TuningCache::load_devices() const {
  auto lock = impl_->enter();
  Db& db = impl_->db;
  Stmt s = db.prepare(
      "SELECT name, cc_major, cc_minor, sm_count, driver_version, nvrtc_version FROM devices "
      "ORDER BY id");
  std::vector<DeviceKey> out;
  SkippedRows skipped(db, "devices");
  while (s.step()) {
    auto name = detail::read_key_text(s, 0);
    std::optional<int64_t> v[5];
    bool ok = name.has_value();
    for (int i = 0; i < 5; ++i) {
      v[i] = detail::read_count(s, i + 1);
      ok = ok && v[i] && *v[i] <= INT_MAX;
    }
    if (!ok) {
      skipped.add();
      continue;
    }
    out.push_back({*name, static_cast<int>(*v[0]), static_cast<int>(*v[1]),
                   static_cast<int>(*v[2]), static_cast<int>(*v[3]), static_cast<int>(*v[4])});
  }
  return out;
}

std::vector<StoredCubin> TuningCache::load_all_cubins() const {
  auto lock = impl_->enter();
  Db& db = impl_->db;
  Stmt s = db.prepare("SELECT template_hash, config, arch, nvrtc_version, cubin FROM cubins "
                      "ORDER BY template_hash, config, arch, nvrtc_version");
  std::vector<StoredCubin> out;
  while (s.step()) {
    StoredCubin c;
    c.key = CubinKey{s.column_text(0), s.column_text(1), s.column_text(2), int(s.column_int(3))};
    if (s.column_type(4) == SQLITE_BLOB) c.cubin = s.column_blob(4);
    if (!c.cubin.empty()) out.push_back(std::move(c));  // an empty one is no kernel: left behind
  }
  return out;
}

namespace {

// Rows of `table` (with family and template_hash columns) that are stale
// under `rule`: counted, and deleted unless `dry_run`.
size_t prune_table(Db& db, const char* table, const PruneRule& rule, bool dry_run) {
  std::vector<std::string> families;
  {
    Stmt s = db.prepare((std::string("SELECT DISTINCT family FROM ") + table).c_str());
    while (s.step()) families.push_back(s.column_text(0));
  }
  size_t n = 0;
  for (const std::string& f : families) {
    const auto it = rule.current_hashes.find(f);
    // A family this build does not have: every row of it is stale.
    const std::string where = std::string(" FROM ") + table + " WHERE family = ?1" +
                              (it == rule.current_hashes.end() ? "" : " AND template_hash <> ?2");
    Stmt count = db.prepare(("SELECT count(*)" + where).c_str());
    count.bind(1, f);
    if (it != rule.current_hashes.end()) count.bind(2, it->second);
    if (count.step()) n += size_t(count.column_int(0));
    if (dry_run) continue;
    Stmt del = db.prepare(("DELETE" + where).c_str());
    del.bind(1, f);
    if (it != rule.current_hashes.end()) del.bind(2, it->second);
    del.run();
  }
  return n;
}

}  // namespace

PruneStats TuningCache::prune(const PruneRule& rule, bool dry_run) {
  auto lock = impl_->enter();
  Db& db = impl_->db;
  std::optional<detail::Transaction> tx;  // a dry run only reads (a ReadOnly cache is fine)
  if (!dry_run) tx.emplace(db);
  PruneStats st;
  st.winners = prune_table(db, "winners", rule, dry_run);
  st.trials = prune_table(db, "trials", rule, dry_run);
  st.tuning_runs = prune_table(db, "tuning_runs", rule, dry_run);
  // Cubins carry no family: stale when no family of this build has their hash.
  std::vector<std::tuple<std::string, std::string, std::string, int64_t>> stale;
  {
    Stmt s = db.prepare("SELECT template_hash, config, arch, nvrtc_version FROM cubins");
    while (s.step()) {
      const std::string hash = s.column_text(0);
      bool current = false;
      for (const auto& [family, h] : rule.current_hashes) current = current || h == hash;
      const bool other_nvrtc = rule.nvrtc_version != 0 && s.column_int(3) != rule.nvrtc_version;
      if (!current || other_nvrtc) stale.emplace_back(hash, s.column_text(1), s.column_text(2), s.column_int(3));
    }
  }
  st.cubins = stale.size();
  if (!dry_run)
    for (const auto& [hash, config, arch, nvrtc] : stale) {
      Stmt del = db.prepare(
          "DELETE FROM cubins WHERE template_hash = ?1 AND config = ?2 AND arch = ?3 AND nvrtc_version = ?4");
      del.bind(1, hash).bind(2, config).bind(3, arch).bind(4, nvrtc);
      del.run();
    }
  if (tx) tx->commit();
  return st;
}

void TuningCache::vacuum() {
  auto lock = impl_->enter();
  impl_->db.exec("VACUUM", "compacting the file (VACUUM)");
}

}  // namespace autogemm
