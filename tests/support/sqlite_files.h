// Plain-SQLite helpers for tests that craft cache files by hand (old,
// foreign, damaged): file bytes, raw SQL and queries on a path, and schema
// version 1 exactly as released. Shared by tests/cache, tests/lib and
// tests/tools; the tests keep their own copy of version 1 so a change to the
// migration code cannot silently change what "version 1" means.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace autogemm::testing {

inline std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// Runs SQL on `path` with a plain sqlite3 connection (creating the file).
inline void raw_sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  const std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << msg;
}

/// First column of every row of `sql`, as text ("NULL" for NULL).
inline std::vector<std::string> raw_query(const std::string& path, const std::string& sql) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  while (s && sqlite3_step(s) == SQLITE_ROW) {
    auto* t = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    out.push_back(t ? t : "NULL");
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

/// Schema version 1 as released: identity pragmas and tables, no rows.
inline const std::string kVersion1Tables = R"sql(
PRAGMA application_id = 1095189837;
PRAGMA user_version = 1;
CREATE TABLE devices (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, cc_major INTEGER NOT NULL,
  cc_minor INTEGER NOT NULL, sm_count INTEGER NOT NULL, driver_version INTEGER NOT NULL,
  nvrtc_version INTEGER NOT NULL, first_seen INTEGER NOT NULL,
  UNIQUE (name, cc_major, cc_minor, sm_count, driver_version, nvrtc_version));
CREATE TABLE trials (
  device_id INTEGER NOT NULL REFERENCES devices(id),
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL,
  trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL, aligned INTEGER NOT NULL,
  template_hash TEXT NOT NULL, config TEXT NOT NULL, status TEXT NOT NULL,
  median_ms REAL NOT NULL, spread_ms REAL NOT NULL, gflops REAL NOT NULL,
  detail TEXT NOT NULL DEFAULT '', recorded_at INTEGER NOT NULL,
  PRIMARY KEY (device_id, m, n, k, trans_a, trans_b, aligned, template_hash, config));
CREATE TABLE winners (
  device_id INTEGER NOT NULL REFERENCES devices(id),
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL,
  trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL, aligned INTEGER NOT NULL,
  config TEXT NOT NULL, template_hash TEXT NOT NULL, median_ms REAL NOT NULL,
  spread_ms REAL NOT NULL, gflops REAL NOT NULL, tuned_at INTEGER NOT NULL,
  PRIMARY KEY (device_id, m, n, k, trans_a, trans_b, aligned));
CREATE TABLE cubins (
  template_hash TEXT NOT NULL, config TEXT NOT NULL, arch TEXT NOT NULL,
  nvrtc_version INTEGER NOT NULL, cubin BLOB NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY (template_hash, config, arch, nvrtc_version));
)sql";

}  // namespace autogemm::testing
