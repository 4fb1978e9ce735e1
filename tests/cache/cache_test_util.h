// Helpers shared by the cache tests: temporary directories, file bytes,
// sample keys and raw SQL on a file (to craft old, foreign or odd rows).
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "autogemm/tuning_cache.h"

namespace autogemm::test {

/// mkdtemp under /tmp, removed recursively at the end of the test.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/autogemm_cache_test_XXXXXX";
    const char* p = mkdtemp(tmpl);
    if (!p) throw std::runtime_error("mkdtemp failed");
    path_ = p;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

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
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string msg = err ? err : "";
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

inline DeviceKey h200() { return {"NVIDIA H200", 9, 0, 132, 13000, 13000}; }

inline ShapeKey shape(int64_t m, int64_t n, int64_t k, bool ta = false, bool tb = false,
                      bool aligned = true) {
  ShapeKey s;
  s.m = m;
  s.n = n;
  s.k = k;
  s.trans_a = ta;
  s.trans_b = tb;
  s.aligned = aligned;
  return s;
}

inline WinnerRecord winner(const ShapeKey& s, const std::string& config, double ms,
                           double spread, const std::string& hash = "hash1") {
  WinnerRecord w;
  w.shape = s;
  w.config = config;
  w.template_hash = hash;
  w.median_ms = ms;
  w.spread_ms = spread;
  w.gflops = 2.0 * s.m * s.n * s.k / (ms * 1e6);
  return w;
}

inline TuningCost cost() { return {12, 3.5, 20.25, "exhaustive"}; }

inline std::unique_ptr<TuningCache> open_rw(const std::string& path) {
  return TuningCache::open(path, TuningCache::Mode::ReadWrite);
}

}  // namespace autogemm::test
