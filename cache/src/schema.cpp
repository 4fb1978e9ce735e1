#include "schema.h"

#include "autogemm/log.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "autogemm/tuning_cache.h"
#include "sqlite_handle.h"

namespace autogemm::detail {
namespace {

// ---------------------------------------------------------------------------
// Migrations. Append-only: a released step is never edited; a schema change is
// a new function at the end of kMigrations. Step i brings the file from
// version i to version i + 1. All steps run inside one transaction that also
// sets application_id and user_version.
//
// The stored shape is autogemm's canonical row-major form (C = op(A) op(B));
// trans_a, trans_b and aligned are 0/1; times are unix seconds (UTC).
// ---------------------------------------------------------------------------

// Version 1: the store itself.
void create_tables(Db& db) {
  db.exec(R"sql(
CREATE TABLE devices (
  id             INTEGER PRIMARY KEY,
  name           TEXT    NOT NULL,
  cc_major       INTEGER NOT NULL,
  cc_minor       INTEGER NOT NULL,
  sm_count       INTEGER NOT NULL,
  driver_version INTEGER NOT NULL,
  nvrtc_version  INTEGER NOT NULL,
  first_seen     INTEGER NOT NULL,
  UNIQUE (name, cc_major, cc_minor, sm_count, driver_version, nvrtc_version)
);
CREATE TABLE trials (
  device_id     INTEGER NOT NULL REFERENCES devices(id),
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL,
  trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL, aligned INTEGER NOT NULL,
  template_hash TEXT    NOT NULL,
  config        TEXT    NOT NULL,
  status        TEXT    NOT NULL,
  median_ms     REAL    NOT NULL,
  spread_ms     REAL    NOT NULL,
  gflops        REAL    NOT NULL,
  detail        TEXT    NOT NULL DEFAULT '',
  recorded_at   INTEGER NOT NULL,
  PRIMARY KEY (device_id, m, n, k, trans_a, trans_b, aligned, template_hash, config)
);
CREATE TABLE winners (
  device_id     INTEGER NOT NULL REFERENCES devices(id),
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL,
  trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL, aligned INTEGER NOT NULL,
  config        TEXT    NOT NULL,
  template_hash TEXT    NOT NULL,
  median_ms     REAL    NOT NULL,
  spread_ms     REAL    NOT NULL,
  gflops        REAL    NOT NULL,
  tuned_at      INTEGER NOT NULL,
  PRIMARY KEY (device_id, m, n, k, trans_a, trans_b, aligned)
);
CREATE TABLE cubins (
  template_hash TEXT    NOT NULL,
  config        TEXT    NOT NULL,
  arch          TEXT    NOT NULL,
  nvrtc_version INTEGER NOT NULL,
  cubin         BLOB    NOT NULL,
  created_at    INTEGER NOT NULL,
  PRIMARY KEY (template_hash, config, arch, nvrtc_version)
);
)sql",
          "creating the version 1 tables");
}

// Version 2: tuning cost per run, and views in plain words for `sqlite3`.
void add_runs_and_views(Db& db) {
  db.exec(R"sql(
CREATE TABLE tuning_runs (
  id            INTEGER PRIMARY KEY,
  device_id     INTEGER NOT NULL REFERENCES devices(id),
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL,
  trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL, aligned INTEGER NOT NULL,
  template_hash TEXT    NOT NULL,
  winner_config TEXT    NOT NULL,
  winner_stored INTEGER NOT NULL,
  candidates    INTEGER NOT NULL,
  compile_s     REAL    NOT NULL,
  wall_s        REAL    NOT NULL,
  strategy      TEXT    NOT NULL,
  finished_at   INTEGER NOT NULL
);
CREATE VIEW best_configs AS
SELECT d.name AS device,
       'sm_' || d.cc_major || d.cc_minor AS arch,
       'row-major ' || CASE WHEN w.trans_a THEN 'T' ELSE 'N' END
                    || CASE WHEN w.trans_b THEN 'T' ELSE 'N' END AS layout,
       w.m AS m, w.n AS n, w.k AS k,
       CASE WHEN w.aligned THEN 'yes' ELSE 'no' END AS aligned,
       w.config AS config,
       round(w.gflops, 1) AS gflops,
       round(w.median_ms, 4) AS median_ms,
       datetime(w.tuned_at, 'unixepoch') AS tuned
FROM winners AS w JOIN devices AS d ON d.id = w.device_id
ORDER BY d.name, w.m, w.n, w.k, w.trans_a, w.trans_b, w.aligned;
CREATE VIEW trial_summary AS
SELECT d.name AS device,
       'sm_' || d.cc_major || d.cc_minor AS arch,
       'row-major ' || CASE WHEN t.trans_a THEN 'T' ELSE 'N' END
                    || CASE WHEN t.trans_b THEN 'T' ELSE 'N' END AS layout,
       t.m AS m, t.n AS n, t.k AS k,
       CASE WHEN t.aligned THEN 'yes' ELSE 'no' END AS aligned,
       count(*) AS trials,
       sum(t.status = 'ok') AS ok,
       sum(t.status <> 'ok') AS failed,
       sum(t.status = 'compile_failed') AS compile_failed,
       sum(t.status = 'limits_exceeded') AS limits_exceeded,
       sum(t.status = 'wrong_result') AS wrong_result,
       sum(t.status = 'timeout') AS timeout,
       sum(t.status = 'crashed') AS crashed,
       round(max(CASE WHEN t.status = 'ok' THEN t.gflops END), 1) AS best_gflops,
       datetime(max(t.recorded_at), 'unixepoch') AS last_trial
FROM trials AS t JOIN devices AS d ON d.id = t.device_id
GROUP BY t.device_id, t.m, t.n, t.k, t.trans_a, t.trans_b, t.aligned
ORDER BY d.name, t.m, t.n, t.k, t.trans_a, t.trans_b, t.aligned;
CREATE VIEW tuning_history AS
SELECT d.name AS device,
       'row-major ' || CASE WHEN r.trans_a THEN 'T' ELSE 'N' END
                    || CASE WHEN r.trans_b THEN 'T' ELSE 'N' END AS layout,
       r.m AS m, r.n AS n, r.k AS k,
       r.strategy AS strategy, r.candidates AS candidates,
       round(r.compile_s, 2) AS compile_s, round(r.wall_s, 2) AS wall_s,
       r.winner_config AS winner,
       CASE WHEN r.winner_stored THEN 'yes' ELSE 'no' END AS stored,
       datetime(r.finished_at, 'unixepoch') AS finished
FROM tuning_runs AS r JOIN devices AS d ON d.id = r.device_id
ORDER BY r.finished_at, r.id;
)sql",
          "creating the version 2 tuning_runs table and views");
}

// The family of a stored config: its first word (all of it if it has no space).
std::string first_word(const char* column) {
  const std::string c = column;
  return "CASE WHEN instr(" + c + ", ' ') > 0 THEN substr(" + c + ", 1, instr(" + c +
         ", ' ') - 1) ELSE " + c + " END";
}

// Version 3, tables: a family per row, so winners of different kernel families
// for one shape coexist. SQLite cannot change a primary key, so winners is
// rebuilt; the others gain a column. Views go first: with them in place,
// renaming the rebuilt table fails on the view that names the dropped one.
void add_family_columns(Db& db) {
  db.exec(R"sql(
DROP VIEW best_configs;
DROP VIEW trial_summary;
DROP VIEW tuning_history;
CREATE TABLE winners_v3 (
  device_id     INTEGER NOT NULL REFERENCES devices(id),
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL,
  trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL, aligned INTEGER NOT NULL,
  family        TEXT    NOT NULL,
  config        TEXT    NOT NULL,
  template_hash TEXT    NOT NULL,
  median_ms     REAL    NOT NULL,
  spread_ms     REAL    NOT NULL,
  gflops        REAL    NOT NULL,
  tuned_at      INTEGER NOT NULL,
  PRIMARY KEY (device_id, m, n, k, trans_a, trans_b, aligned, family)
);
ALTER TABLE trials ADD COLUMN family TEXT NOT NULL DEFAULT '';
ALTER TABLE tuning_runs ADD COLUMN family TEXT NOT NULL DEFAULT '';
)sql",
          "adding the version 3 family columns");
  // Every v2 row is of the family its config names; the old key is part of
  // the new one, so no two copied winners collide.
  db.exec(("INSERT INTO winners_v3 (device_id, m, n, k, trans_a, trans_b, aligned, family, "
           "config, template_hash, median_ms, spread_ms, gflops, tuned_at) "
           "SELECT device_id, m, n, k, trans_a, trans_b, aligned, " + first_word("config") +
           ", config, template_hash, median_ms, spread_ms, gflops, tuned_at FROM winners;"
           "DROP TABLE winners;"
           "ALTER TABLE winners_v3 RENAME TO winners;"
           "UPDATE trials SET family = " + first_word("config") + ";"
           "UPDATE tuning_runs SET family = " + first_word("winner_config") + ";")
              .c_str(),
          "copying the rows into the version 3 tables");
}

// Version 3, views: as in version 2, with the family shown (and counted apart).
void add_family_views(Db& db) {
  db.exec(R"sql(
CREATE VIEW best_configs AS
SELECT d.name AS device,
       'sm_' || d.cc_major || d.cc_minor AS arch,
       'row-major ' || CASE WHEN w.trans_a THEN 'T' ELSE 'N' END
                    || CASE WHEN w.trans_b THEN 'T' ELSE 'N' END AS layout,
       w.m AS m, w.n AS n, w.k AS k,
       CASE WHEN w.aligned THEN 'yes' ELSE 'no' END AS aligned,
       w.family AS family,
       w.config AS config,
       round(w.gflops, 1) AS gflops,
       round(w.median_ms, 4) AS median_ms,
       datetime(w.tuned_at, 'unixepoch') AS tuned
FROM winners AS w JOIN devices AS d ON d.id = w.device_id
ORDER BY d.name, w.m, w.n, w.k, w.trans_a, w.trans_b, w.aligned, w.family;
CREATE VIEW trial_summary AS
SELECT d.name AS device,
       'sm_' || d.cc_major || d.cc_minor AS arch,
       'row-major ' || CASE WHEN t.trans_a THEN 'T' ELSE 'N' END
                    || CASE WHEN t.trans_b THEN 'T' ELSE 'N' END AS layout,
       t.m AS m, t.n AS n, t.k AS k,
       CASE WHEN t.aligned THEN 'yes' ELSE 'no' END AS aligned,
       t.family AS family,
       count(*) AS trials,
       sum(t.status = 'ok') AS ok,
       sum(t.status <> 'ok') AS failed,
       sum(t.status = 'compile_failed') AS compile_failed,
       sum(t.status = 'limits_exceeded') AS limits_exceeded,
       sum(t.status = 'wrong_result') AS wrong_result,
       sum(t.status = 'timeout') AS timeout,
       sum(t.status = 'crashed') AS crashed,
       round(max(CASE WHEN t.status = 'ok' THEN t.gflops END), 1) AS best_gflops,
       datetime(max(t.recorded_at), 'unixepoch') AS last_trial
FROM trials AS t JOIN devices AS d ON d.id = t.device_id
GROUP BY t.device_id, t.m, t.n, t.k, t.trans_a, t.trans_b, t.aligned, t.family
ORDER BY d.name, t.m, t.n, t.k, t.trans_a, t.trans_b, t.aligned, t.family;
CREATE VIEW tuning_history AS
SELECT d.name AS device,
       'row-major ' || CASE WHEN r.trans_a THEN 'T' ELSE 'N' END
                    || CASE WHEN r.trans_b THEN 'T' ELSE 'N' END AS layout,
       r.m AS m, r.n AS n, r.k AS k,
       r.family AS family,
       r.strategy AS strategy, r.candidates AS candidates,
       round(r.compile_s, 2) AS compile_s, round(r.wall_s, 2) AS wall_s,
       r.winner_config AS winner,
       CASE WHEN r.winner_stored THEN 'yes' ELSE 'no' END AS stored,
       datetime(r.finished_at, 'unixepoch') AS finished
FROM tuning_runs AS r JOIN devices AS d ON d.id = r.device_id
ORDER BY r.finished_at, r.id;
)sql",
          "creating the version 3 views");
}

void add_families(Db& db) {
  add_family_columns(db);
  add_family_views(db);
}

// Version 4: the shapes applications asked the library for (recorded only
// when AUTOGEMM_RECORD_UNTUNED or autogemm_record_shapes turns it on), and a
// view setting them against what is tuned. `tuned_when_seen` is 1 when the
// last process that recorded the shape had an exact tuned entry for it.
void add_requested_shapes(Db& db) {
  db.exec(R"sql(
CREATE TABLE requested_shapes (
  device_id       INTEGER NOT NULL REFERENCES devices(id),
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL,
  trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL, aligned INTEGER NOT NULL,
  calls           INTEGER NOT NULL,
  tuned_when_seen INTEGER NOT NULL,
  first_seen      INTEGER NOT NULL,
  last_seen       INTEGER NOT NULL,
  PRIMARY KEY (device_id, m, n, k, trans_a, trans_b, aligned)
);
CREATE VIEW shape_coverage AS
SELECT d.name AS device,
       'row-major ' || CASE WHEN r.trans_a THEN 'T' ELSE 'N' END
                    || CASE WHEN r.trans_b THEN 'T' ELSE 'N' END AS layout,
       r.m AS m, r.n AS n, r.k AS k,
       CASE WHEN r.aligned THEN 'yes' ELSE 'no' END AS aligned,
       r.calls AS calls,
       CASE WHEN EXISTS (SELECT 1 FROM winners AS w WHERE w.device_id = r.device_id
                         AND w.m = r.m AND w.n = r.n AND w.k = r.k AND w.trans_a = r.trans_a
                         AND w.trans_b = r.trans_b AND w.aligned = r.aligned)
            THEN 'yes' ELSE 'no' END AS tuned,
       datetime(r.first_seen, 'unixepoch') AS first_seen,
       datetime(r.last_seen, 'unixepoch') AS last_seen
FROM requested_shapes AS r JOIN devices AS d ON d.id = r.device_id
ORDER BY d.name, r.calls DESC, r.m, r.n, r.k;
)sql",
          "creating the version 4 requested_shapes table and shape_coverage view");
}

struct Migration {
  const char* summary;
  void (*apply)(Db&);
};

const Migration kMigrations[] = {
    {"tables devices, trials, winners, cubins", create_tables},                // 0 -> 1
    {"table tuning_runs, views best_configs, trial_summary, tuning_history",  // 1 -> 2
     add_runs_and_views},
    {"a family per winner (new key), trial and tuning run; views show it",   // 2 -> 3
     add_families},
    {"table requested_shapes (what applications asked for), view shape_coverage",  // 3 -> 4
     add_requested_shapes},
    {"a batch bucket in every shape key (strided-batched calls); views show it",  // 4 -> 5
     add_batch_columns},
    {"a timing regime (rotate or warm) per trial, winner and tuning run; views show it",  // 5 -> 6
     add_timing_columns},
};

constexpr int kCurrentVersion = static_cast<int>(sizeof kMigrations / sizeof kMigrations[0]);

struct FileState {
  int64_t application_id = 0;
  int64_t version = 0;
  int64_t objects = 0;  // tables, indexes, views, triggers
  bool empty() const { return application_id == 0 && version == 0 && objects == 0; }
};

const char* const kMoveAway =
    " Move it away, or point AUTOGEMM_CACHE at another file.";

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw CacheError("tuning cache " + path + ": " + why);
}

// Identity checks that hold for the raw file header as well as for SQLite's
// view of the file (the header of a WAL-mode file may lag behind, but an
// application_id never changes from foreign to ours and versions only grow).
void check_identity(const std::string& path, int64_t application_id, int64_t version) {
  if (application_id != kApplicationId && application_id != 0) {
    char id[16];
    std::snprintf(id, sizeof id, "0x%08llx",
                  static_cast<unsigned long long>(static_cast<uint32_t>(application_id)));
    refuse(path, "is an SQLite database of another program (application_id " + std::string(id) +
                     "), not an autogemm tuning cache; refusing to use it." + kMoveAway);
  }
  if (application_id == kApplicationId && version > kCurrentVersion)
    refuse(path, "was written by a newer autogemm (schema version " + std::to_string(version) +
                     ", this build knows up to " + std::to_string(kCurrentVersion) +
                     "); refusing to modify it. Use a newer autogemm with it, or another "
                     "cache file.");
}

// One statement, so one read transaction: the three values come from the same
// snapshot. Read separately, a process that creates the file in between would
// show us its tables next to the application_id read before it committed, and
// we would refuse a perfectly good cache as another program's database.
FileState read_state(const Db& db) {
  Stmt s = db.prepare(
      "SELECT a.application_id, v.user_version, (SELECT count(*) FROM sqlite_master) "
      "FROM pragma_application_id AS a, pragma_user_version AS v");
  if (!s.step()) db.refuse("returned no schema state; refusing to use it." + std::string(kMoveAway));
  FileState st;
  st.application_id = s.column_int(0);
  st.version = s.column_int(1);
  st.objects = s.column_int(2);
  return st;
}

// Refuses anything that is neither an empty database nor an autogemm cache
// this build understands. Reads only.
void validate(const Db& db, const FileState& st, bool writable) {
  if (st.empty()) {
    if (!writable) db.refuse("is an empty database, not an autogemm tuning cache yet.");
    return;
  }
  if (st.application_id == 0)
    db.refuse("is an SQLite database of another program (it has tables but no autogemm "
              "application_id); refusing to use it." + std::string(kMoveAway));
  check_identity(db.path(), st.application_id, st.version);
  if (st.version < 1)
    db.refuse("has autogemm's application_id but schema version " + std::to_string(st.version) +
              "; it is damaged, refusing to use it." + kMoveAway);
  if (st.version < kCurrentVersion && !writable)
    db.refuse("has schema version " + std::to_string(st.version) + ", older than this build's " +
              std::to_string(kCurrentVersion) +
              "; it cannot be migrated read-only. Open it read-write once (e.g. run gemm_tune).");
}

void quick_check(const Db& db) {
  Stmt s = db.prepare("PRAGMA quick_check(1)");
  std::string result = s.step() ? s.column_text(0) : std::string("no result");
  if (result != "ok")
    db.refuse("is corrupt (quick_check: " + result + "); refusing to use it." + kMoveAway);
}

}  // namespace

int current_schema_version() { return kCurrentVersion; }

void check_header(const std::string& path, bool writable) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) refuse(path, "is not a regular file.");
  unsigned char h[100];
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, "cannot be read.");
  in.read(reinterpret_cast<char*>(h), sizeof h);
  const auto n = static_cast<size_t>(in.gcount());
  if (n == 0) {
    if (!writable) refuse(path, "is an empty database, not an autogemm tuning cache yet.");
    return;
  }
  static const char kMagic[16] = "SQLite format 3";  // with its terminating NUL
  if (n < sizeof h || std::memcmp(h, kMagic, sizeof kMagic) != 0)
    refuse(path, std::string("is not a database (no SQLite header); refusing to use it.") +
                     kMoveAway);
  auto be32 = [&](size_t at) {
    return static_cast<int64_t>(static_cast<int32_t>(
        (uint32_t{h[at]} << 24) | (uint32_t{h[at + 1]} << 16) | (uint32_t{h[at + 2]} << 8) |
        uint32_t{h[at + 3]}));
  };
  check_identity(path, be32(68), be32(60));  // application_id, user_version
}

int check_file(const Db& db, bool writable) {
  FileState st = read_state(db);
  validate(db, st, writable);
  if (!st.empty()) quick_check(db);
  return static_cast<int>(st.version);
}

void migrate(Db& db) {
  Transaction tx(db);
  // Another process may have migrated while we waited for the write lock.
  FileState st = read_state(db);
  validate(db, st, true);
  const int64_t from = st.version;
  if (from == kCurrentVersion) return;  // ~Transaction ends the empty transaction
  for (int64_t v = from; v < kCurrentVersion; ++v) {
    autogemm::log().debug("tuning cache {}: migrating to schema version {}: {}", db.path(), v + 1,
                  kMigrations[v].summary);
    kMigrations[v].apply(db);
  }
  db.exec(("PRAGMA application_id = " + std::to_string(kApplicationId)).c_str(),
          "setting the application_id");
  db.exec(("PRAGMA user_version = " + std::to_string(kCurrentVersion)).c_str(),
          "setting the schema version");
  tx.commit();
  if (from == 0)
    autogemm::log().info("tuning cache {}: created (schema version {})", db.path(), kCurrentVersion);
  else
    autogemm::log().info("tuning cache {}: migrated from schema version {} to {}", db.path(), from,
                 kCurrentVersion);
}

}  // namespace autogemm::detail
