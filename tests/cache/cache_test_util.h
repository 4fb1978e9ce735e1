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
#include "sqlite_files.h"

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

using testing::raw_query;
using testing::raw_sql;
using testing::read_bytes;
using testing::write_bytes;

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

/// A winner of the family its config names (the config's first word).
inline WinnerRecord winner(const ShapeKey& s, const std::string& config, double ms,
                           double spread, const std::string& hash = "hash1") {
  WinnerRecord w;
  w.shape = s;
  w.family = config.substr(0, config.find(' '));
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
