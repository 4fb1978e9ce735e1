// TuningCache reads and writes. Writes are short BEGIN IMMEDIATE transactions;
// values read back are validated and bad rows skipped with a warning.
#include "autogemm/log.h"

#include <algorithm>
#include <cmath>
#include <ctime>

#include "autogemm/tuning_cache.h"
#include "impl.h"
#include "rows.h"

namespace autogemm {

using detail::Db;
using detail::SkippedRows;
using detail::Stmt;
using detail::Transaction;

namespace {

constexpr size_t kMaxDetail = 16384;  // a compile log excerpt, not the whole log

int64_t now() { return static_cast<int64_t>(std::time(nullptr)); }

const char* const kShapeCols = "x.m, x.n, x.k, x.trans_a, x.trans_b, x.aligned";

// "SELECT <cols> FROM <table> AS x JOIN devices AS d ... WHERE <device> [AND <shape>] <tail>"
std::string select_for_device(const std::string& cols, const char* table, bool by_shape,
                              const std::string& tail) {
  return "SELECT " + cols + " FROM " + table +
         " AS x JOIN devices AS d ON d.id = x.device_id WHERE " + detail::kDeviceMatch +
         (by_shape ? std::string(" AND ") + detail::kShapeMatch : std::string()) + " " + tail;
}

void check_trial_rows(const Db& db, const std::vector<TrialRow>& rows) {
  for (const TrialRow& r : rows) {
    detail::check_shape(db, r.shape);
    detail::check_key_text(db, r.family, "family");
    detail::check_key_text(db, r.template_hash, "template hash");
    detail::check_trial(db, r.trial);
    if (r.recorded_at < 0) db.refuse("refusing to store a trial recorded before 1970.");
  }
}

class TrialWriter {
 public:
  TrialWriter(Db& db, int64_t dev_id)
      : s_(db.prepare(
            "INSERT INTO trials (device_id, m, n, k, trans_a, trans_b, aligned, template_hash, "
            "config, status, median_ms, spread_ms, gflops, detail, recorded_at, family, batch, timing) "
            "VALUES (?1, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?30, ?31) "
            "ON CONFLICT (device_id, m, n, k, trans_a, trans_b, aligned, batch, template_hash, config) "
            "DO UPDATE SET family = excluded.family, status = excluded.status, "
            "median_ms = excluded.median_ms, spread_ms = excluded.spread_ms, "
            "gflops = excluded.gflops, detail = excluded.detail, "
            "recorded_at = excluded.recorded_at, timing = excluded.timing")),
        dev_id_(dev_id) {}

  void write(const ShapeKey& shape, const std::string& family, const std::string& hash,
             const TrialRecord& t, int64_t at) {
    s_.reset();
    s_.bind(1, dev_id_);
    detail::bind_shape(s_, 7, shape);
    s_.bind(13, hash).bind(14, t.config).bind(15, std::string(to_string(t.status)));
    s_.bind(16, t.median_ms).bind(17, t.spread_ms).bind(18, t.gflops);
    s_.bind(19, t.detail.substr(0, kMaxDetail)).bind(20, at > 0 ? at : now()).bind(21, family);
    s_.bind(31, std::string(to_string(t.timing)));
    s_.run();
  }

 private:
  Stmt s_;
  int64_t dev_id_;
};

// The record_winner rule. Returns true if `w` was stored. Only the winner of
// w's own family is compared and replaced: other families' winners stay.
bool merge_winner(Db& db, int64_t dev_id, const WinnerRecord& w) {
  Stmt cur = db.prepare(("SELECT x.template_hash, x.median_ms, x.spread_ms, x.timing FROM winners AS x "
                         "WHERE x.device_id = ?1 AND " +
                         std::string(detail::kShapeMatch) + " AND x.family = ?13")
                            .c_str());
  cur.bind(1, dev_id);
  detail::bind_shape(cur, 7, w.shape);
  cur.bind(13, w.family);
  if (cur.step()) {
    auto hash = detail::read_key_text(cur, 0);
    auto median = detail::read_amount(cur, 1);
    auto spread = detail::read_amount(cur, 2);
    // An unreadable incumbent is replaced; so is a stale one (other template)
    // and one timed in the other regime (its time is not comparable).
    const bool same_regime = cur.column_type(3) == SQLITE_TEXT && cur.column_text(3) == to_string(w.timing);
    if (hash && *hash == w.template_hash && same_regime && median && *median > 0 && spread) {
      double noise = std::max(*spread, w.spread_ms);
      if (!(w.median_ms < *median - noise)) return false;
    }
  }
  Stmt put = db.prepare(
      "INSERT INTO winners (device_id, m, n, k, trans_a, trans_b, aligned, config, "
      "template_hash, median_ms, spread_ms, gflops, tuned_at, family, batch, timing) "
      "VALUES (?1, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?30, ?31) "
      "ON CONFLICT (device_id, m, n, k, trans_a, trans_b, aligned, batch, family) DO UPDATE SET "
      "config = excluded.config, template_hash = excluded.template_hash, "
      "median_ms = excluded.median_ms, spread_ms = excluded.spread_ms, "
      "gflops = excluded.gflops, tuned_at = excluded.tuned_at, timing = excluded.timing");
  put.bind(1, dev_id);
  detail::bind_shape(put, 7, w.shape);
  put.bind(13, w.config).bind(14, w.template_hash).bind(15, w.median_ms);
  put.bind(16, w.spread_ms).bind(17, w.gflops).bind(18, w.tuned_at > 0 ? w.tuned_at : now());
  put.bind(19, w.family).bind(31, std::string(to_string(w.timing)));
  put.run();
  return true;
}

// "AND x.<column> = ?13 " when `value` is given (bind it with bind_filter), else "".
std::string filter(const char* column, const std::string* value) {
  return value ? std::string("AND x.") + column + " = ?13 " : std::string();
}

void bind_filter(Stmt& s, const std::string* value) {
  if (value) s.bind(13, *value);
}

std::optional<TimingRegime> read_timing(const Stmt& s, int col) {
  return s.column_type(col) == SQLITE_TEXT ? parse_timing_regime(s.column_text(col)) : std::nullopt;
}

// Winners of `dev`, of one shape and one family where given.
std::vector<WinnerRecord> select_winners(Db& db, const DeviceKey& dev, const ShapeKey* only,
                                         const std::string* only_family) {
  Stmt s = db.prepare(
      select_for_device(std::string(kShapeCols) +
                            ", x.family, x.config, x.template_hash, x.median_ms, "
                            "x.spread_ms, x.gflops, x.tuned_at, x.batch, x.timing",
                        "winners", only != nullptr,
                        filter("family", only_family) +
                            "ORDER BY x.m, x.n, x.k, x.batch, x.trans_a, x.trans_b, x.aligned, x.family")
          .c_str());
  detail::bind_device(s, dev);
  if (only) detail::bind_shape(s, 7, *only);
  bind_filter(s, only_family);
  std::vector<WinnerRecord> out;
  SkippedRows skipped(db, "winners");
  while (s.step()) {
    auto shape = detail::read_shape(s, 0, 13);
    auto family = detail::read_key_text(s, 6);
    auto config = detail::read_key_text(s, 7);
    auto hash = detail::read_key_text(s, 8);
    auto median = detail::read_amount(s, 9);
    auto spread = detail::read_amount(s, 10);
    auto gflops = detail::read_amount(s, 11);
    auto tuned = detail::read_count(s, 12);
    auto timing = read_timing(s, 14);
    if (!shape || !family || !config || !hash || !median || *median <= 0 || !spread ||
        !gflops || !tuned || !timing) {
      skipped.add();
      continue;
    }
    out.push_back({*shape, *family, *config, *hash, *median, *spread, *gflops, *tuned, *timing});
  }
  return out;
}

// Trials of `dev`, of one shape and one template hash where given.
std::vector<TrialRow> select_trials(Db& db, const DeviceKey& dev, const ShapeKey* only,
                                    const std::string* only_hash) {
  Stmt s = db.prepare(
      select_for_device(std::string(kShapeCols) +
                            ", x.family, x.template_hash, x.config, x.status, x.median_ms, "
                            "x.spread_ms, x.gflops, x.detail, x.recorded_at, x.batch, x.timing",
                        "trials", only != nullptr,
                        filter("template_hash", only_hash) +
                            "ORDER BY x.m, x.n, x.k, x.batch, x.trans_a, x.trans_b, x.aligned, "
                            "x.template_hash, x.config")
          .c_str());
  detail::bind_device(s, dev);
  if (only) detail::bind_shape(s, 7, *only);
  bind_filter(s, only_hash);
  std::vector<TrialRow> out;
  SkippedRows skipped(db, "trials");
  while (s.step()) {
    auto shape = detail::read_shape(s, 0, 15);
    auto family = detail::read_key_text(s, 6);
    auto hash = detail::read_key_text(s, 7);
    auto config = detail::read_key_text(s, 8);
    auto status_text = detail::read_key_text(s, 9);
    auto status = status_text ? parse_trial_status(*status_text) : std::nullopt;
    auto median = detail::read_amount(s, 10);
    auto spread = detail::read_amount(s, 11);
    auto gflops = detail::read_amount(s, 12);
    auto at = detail::read_count(s, 14);
    auto timing = read_timing(s, 16);
    if (!shape || !family || !hash || !config || !status || !median || !spread || !gflops ||
        !at || !timing) {
      skipped.add();
      continue;
    }
    std::string why = s.column_type(13) == SQLITE_TEXT ? s.column_text(13) : std::string();
    out.push_back({*shape, *family, *hash, {*config, *status, *median, *spread, *gflops, why, *timing}, *at});
  }
  return out;
}

}  // namespace

void TuningCache::record_trials(const DeviceKey& dev, const ShapeKey& shape,
                                const std::string& family, const std::string& template_hash,
                                const std::vector<TrialRecord>& trials) {
  auto lock = impl_->enter();
  Db& db = impl_->db;
  detail::check_device(db, dev);
  detail::check_shape(db, shape);
  detail::check_key_text(db, family, "family");
  detail::check_key_text(db, template_hash, "template hash");
  for (const TrialRecord& t : trials) detail::check_trial(db, t);
  Transaction tx(db);
  TrialWriter writer(db, detail::device_id(db, dev));
  for (const TrialRecord& t : trials) writer.write(shape, family, template_hash, t, 0);
  tx.commit();
}

bool TuningCache::record_winner(const DeviceKey& dev, const WinnerRecord& w,
                                const TuningCost& cost) {
  auto lock = impl_->enter();
  Db& db = impl_->db;
  detail::check_device(db, dev);
  detail::check_winner(db, w);
  if (cost.candidates < 0 || !std::isfinite(cost.compile_s) || cost.compile_s < 0 ||
      !std::isfinite(cost.wall_s) || cost.wall_s < 0)
    db.refuse("refusing to store a tuning cost with a negative or non-finite number.");
  Transaction tx(db);
  const int64_t dev_id = detail::device_id(db, dev);
  const bool stored = merge_winner(db, dev_id, w);
  Stmt run = db.prepare(
      "INSERT INTO tuning_runs (device_id, m, n, k, trans_a, trans_b, aligned, template_hash, "
      "winner_config, winner_stored, candidates, compile_s, wall_s, strategy, finished_at, "
      "family, batch, timing) VALUES (?1, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
      "?20, ?21, ?30, ?31)");
  run.bind(1, dev_id);
  detail::bind_shape(run, 7, w.shape);
  run.bind(13, w.template_hash).bind(14, w.config).bind(15, stored).bind(16, cost.candidates);
  run.bind(17, cost.compile_s).bind(18, cost.wall_s).bind(19, cost.strategy).bind(20, now());
  run.bind(21, w.family).bind(31, std::string(to_string(w.timing)));
  run.run();
  tx.commit();
  autogemm::log().debug("tuning cache {}: {} winner {} for {}x{}x{} {}", db.path(), w.family,
                        w.config, w.shape.m, w.shape.n, w.shape.k,
                        stored ? "stored" : "kept the incumbent");
  return stored;
}

std::vector<WinnerRecord> TuningCache::load_winners(const DeviceKey& dev) const {
  auto lock = impl_->enter();
  return select_winners(impl_->db, dev, nullptr, nullptr);
}

std::optional<WinnerRecord> TuningCache::find_winner(const DeviceKey& dev, const ShapeKey& shape,
                                                     const std::string& family,
                                                     const std::string& template_hash) const {
  auto lock = impl_->enter();
  for (WinnerRecord& w : select_winners(impl_->db, dev, &shape, &family))
    if (w.template_hash == template_hash) return std::move(w);
  return std::nullopt;
}

std::vector<std::string> TuningCache::failed_configs(const DeviceKey& dev, const ShapeKey& shape,
                                                     const std::string& template_hash) const {
  auto lock = impl_->enter();
  Db& db = impl_->db;
  // Any status but 'ok' counts, including one this build does not know.
  Stmt s = db.prepare(select_for_device("DISTINCT x.config", "trials", true,
                                        "AND x.template_hash = ?13 AND x.status IS NOT 'ok' "
                                        "ORDER BY x.config")
                          .c_str());
  detail::bind_device(s, dev);
  detail::bind_shape(s, 7, shape);
  s.bind(13, template_hash);
  std::vector<std::string> out;
  SkippedRows skipped(db, "trials");
  while (s.step()) {
    if (auto config = detail::read_key_text(s, 0))
      out.push_back(*config);
    else
      skipped.add();
  }
  return out;
}

std::vector<TrialRecord> TuningCache::load_trials(const DeviceKey& dev,
                                                  const ShapeKey& shape) const {
  auto lock = impl_->enter();
  std::vector<TrialRecord> out;
  for (TrialRow& r : select_trials(impl_->db, dev, &shape, nullptr))
    out.push_back(std::move(r.trial));
  return out;
}

std::vector<TrialRecord> TuningCache::load_trials(const DeviceKey& dev, const ShapeKey& shape,
                                                  const std::string& template_hash) const {
  auto lock = impl_->enter();
  std::vector<TrialRecord> out;
  for (TrialRow& r : select_trials(impl_->db, dev, &shape, &template_hash))
    out.push_back(std::move(r.trial));
  return out;
}

std::vector<TrialRow> TuningCache::load_all_trials(const DeviceKey& dev) const {
  auto lock = impl_->enter();
  return select_trials(impl_->db, dev, nullptr, nullptr);
}

MergeStats TuningCache::merge(const DeviceKey& dev, const std::vector<WinnerRecord>& winners,
                              const std::vector<TrialRow>& trials) {
  auto lock = impl_->enter();
  Db& db = impl_->db;
  detail::check_device(db, dev);
  for (const WinnerRecord& w : winners) detail::check_winner(db, w);
  check_trial_rows(db, trials);
  MergeStats stats;
  Transaction tx(db);
  const int64_t dev_id = detail::device_id(db, dev);
  TrialWriter writer(db, dev_id);
  for (const TrialRow& r : trials)
    writer.write(r.shape, r.family, r.template_hash, r.trial, r.recorded_at);
  stats.trials = trials.size();
  for (const WinnerRecord& w : winners)
    ++(merge_winner(db, dev_id, w) ? stats.winners_stored : stats.winners_kept);
  tx.commit();
  return stats;
}

void TuningCache::store_cubin(const CubinKey& key, const std::vector<char>& cubin) {
  auto lock = impl_->enter();
  Db& db = impl_->db;
  detail::check_key_text(db, key.template_hash, "template hash");
  detail::check_key_text(db, key.config, "config");
  detail::check_key_text(db, key.arch, "architecture");
  if (key.nvrtc_version < 0 || cubin.empty())
    db.refuse("refusing to store an empty cubin or one with a negative NVRTC version.");
  Transaction tx(db);
  Stmt s = db.prepare(
      "INSERT INTO cubins (template_hash, config, arch, nvrtc_version, cubin, created_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (template_hash, config, arch, nvrtc_version) "
      "DO UPDATE SET cubin = excluded.cubin, created_at = excluded.created_at");
  s.bind(1, key.template_hash).bind(2, key.config).bind(3, key.arch).bind(4, key.nvrtc_version);
  s.bind_blob(5, cubin).bind(6, now());
  s.run();
  tx.commit();
}

std::optional<std::vector<char>> TuningCache::load_cubin(const CubinKey& key) const {
  auto lock = impl_->enter();
  Db& db = impl_->db;
  Stmt s = db.prepare(
      "SELECT cubin FROM cubins WHERE template_hash = ?1 AND config = ?2 AND arch = ?3 AND "
      "nvrtc_version = ?4");
  s.bind(1, key.template_hash).bind(2, key.config).bind(3, key.arch).bind(4, key.nvrtc_version);
  if (!s.step()) return std::nullopt;
  std::vector<char> cubin = s.column_type(0) == SQLITE_BLOB ? s.column_blob(0) : std::vector<char>();
  if (cubin.empty()) {
    SkippedRows(db, "cubins").add();
    return std::nullopt;
  }
  return cubin;
}

}  // namespace autogemm
