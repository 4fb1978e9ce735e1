#include "rows.h"

#include "autogemm/log.h"

#include <cmath>
#include <ctime>

namespace autogemm::detail {

const char* const kDeviceMatch =
    "d.name = ?1 AND d.cc_major = ?2 AND d.cc_minor = ?3 AND d.sm_count = ?4 AND "
    "d.driver_version = ?5 AND d.nvrtc_version = ?6";
const char* const kShapeMatch =
    "x.m = ?7 AND x.n = ?8 AND x.k = ?9 AND x.trans_a = ?10 AND x.trans_b = ?11 AND "
    "x.aligned = ?12 AND x.batch = ?30";

void bind_device(Stmt& s, const DeviceKey& d) {
  s.bind(1, d.name).bind(2, d.cc_major).bind(3, d.cc_minor).bind(4, d.sm_count);
  s.bind(5, d.driver_version).bind(6, d.nvrtc_version);
}

void bind_shape(Stmt& s, int first, const ShapeKey& x) {
  s.bind(first, x.m).bind(first + 1, x.n).bind(first + 2, x.k);
  s.bind(first + 3, x.trans_a).bind(first + 4, x.trans_b).bind(first + 5, x.aligned);
  s.bind(kBatchParam, x.batch);
}

int64_t device_id(Db& db, const DeviceKey& dev) {
  Stmt ins = db.prepare(
      "INSERT INTO devices (name, cc_major, cc_minor, sm_count, driver_version, "
      "nvrtc_version, first_seen) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO NOTHING");
  bind_device(ins, dev);
  ins.bind(7, static_cast<int64_t>(std::time(nullptr)));
  ins.run();
  Stmt sel = db.prepare((std::string("SELECT d.id FROM devices AS d WHERE ") + kDeviceMatch).c_str());
  bind_device(sel, dev);
  if (!sel.step()) db.refuse("the device row just written is missing.");
  return sel.column_int(0);
}

namespace {

bool finite_nonneg(double v) { return std::isfinite(v) && v >= 0; }

void refuse_value(const Db& db, const std::string& what) {
  db.refuse("refusing to store " + what + ".");
}

}  // namespace

void check_device(const Db& db, const DeviceKey& d) {
  if (d.name.empty()) refuse_value(db, "a device without a name");
  if (d.cc_major < 0 || d.cc_minor < 0 || d.sm_count < 0 || d.driver_version < 0 ||
      d.nvrtc_version < 0)
    refuse_value(db, "device '" + d.name + "' with a negative number in its key");
}

void check_shape(const Db& db, const ShapeKey& s) {
  if (s.m < 1 || s.n < 1 || s.k < 1)
    refuse_value(db, "shape " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                         std::to_string(s.k) + " (M, N and K must be positive)");
  if (s.batch < 1 || batch_bucket(s.batch) != s.batch)
    refuse_value(db, "batch " + std::to_string(s.batch) + " (a batch key is a bucket: 1..8, then powers of two)");
}

void check_key_text(const Db& db, const std::string& v, const char* what) {
  if (v.empty()) refuse_value(db, std::string("an empty ") + what);
}

void check_trial(const Db& db, const TrialRecord& t) {
  check_key_text(db, t.config, "config");
  if (!finite_nonneg(t.median_ms) || !finite_nonneg(t.spread_ms) || !finite_nonneg(t.gflops))
    refuse_value(db, "trial '" + t.config + "' with a negative or non-finite time or rate");
}

void check_winner(const Db& db, const WinnerRecord& w) {
  check_shape(db, w.shape);
  check_key_text(db, w.family, "family");
  check_key_text(db, w.config, "config");
  check_key_text(db, w.template_hash, "template hash");
  // The one place the store compares a config with its family: a winner filed
  // under the wrong family would shadow that family's real one. The rest of
  // the config stays uninterpreted.
  if (w.config != w.family && w.config.compare(0, w.family.size() + 1, w.family + " ") != 0)
    refuse_value(db, "winner '" + w.config + "' under family '" + w.family +
                         "': its config does not begin with that family's name");
  if (!(std::isfinite(w.median_ms) && w.median_ms > 0) || !finite_nonneg(w.spread_ms) ||
      !finite_nonneg(w.gflops) || w.tuned_at < 0)
    refuse_value(db, "winner '" + w.config + "' with a non-positive time or a bad number");
}

std::optional<int64_t> read_count(const Stmt& s, int col) {
  if (s.column_type(col) != SQLITE_INTEGER || s.column_int(col) < 0) return std::nullopt;
  return s.column_int(col);
}

std::optional<double> read_amount(const Stmt& s, int col) {
  int t = s.column_type(col);
  if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) return std::nullopt;
  double v = s.column_double(col);
  if (!finite_nonneg(v)) return std::nullopt;
  return v;
}

std::optional<std::string> read_key_text(const Stmt& s, int col) {
  if (s.column_type(col) != SQLITE_TEXT) return std::nullopt;
  std::string v = s.column_text(col);
  if (v.empty()) return std::nullopt;
  return v;
}

std::optional<ShapeKey> read_shape(const Stmt& s, int col, int batch_col) {
  std::optional<int64_t> v[6];
  for (int i = 0; i < 6; ++i) {
    v[i] = read_count(s, col + i);
    if (!v[i] || (i < 3 && *v[i] < 1) || (i >= 3 && *v[i] > 1)) return std::nullopt;
  }
  ShapeKey shape;
  shape.m = *v[0];
  shape.n = *v[1];
  shape.k = *v[2];
  shape.trans_a = *v[3] == 1;
  shape.trans_b = *v[4] == 1;
  shape.aligned = *v[5] == 1;
  // Only the buckets batch_bucket() makes: anything else names no call.
  const std::optional<int64_t> batch = read_count(s, batch_col);
  if (!batch || *batch < 1 || batch_bucket(*batch) != *batch) return std::nullopt;
  shape.batch = *batch;
  return shape;
}

SkippedRows::~SkippedRows() {
  if (count_ > 0)
    autogemm::log().warn("tuning cache {}: skipped {} invalid row(s) of table {}", db_.path(), count_,
                 table_);
}

}  // namespace autogemm::detail
