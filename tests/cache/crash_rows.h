// The rows crash_writer writes and test_cache_crash expects back.
#pragma once

#include <string>
#include <vector>

#include "autogemm/tuning_cache.h"

namespace crash_rows {

constexpr const char* kFamily = "tiled";
constexpr const char* kHash = "crash-test-hash";
constexpr int kTrials = 20;

inline autogemm::DeviceKey device() { return {"Crash Test GPU", 9, 0, 132, 13000, 13000}; }

inline autogemm::ShapeKey shape(long i) { return {i + 1, 64, 32, false, false, true}; }

inline std::vector<autogemm::TrialRecord> trials(long i) {
  std::vector<autogemm::TrialRecord> t;
  for (int j = 0; j < kTrials; ++j)
    t.push_back({"tiled cfg_" + std::to_string(i) + "_" + std::to_string(j),
                 autogemm::TrialStatus::Ok, 1.0 + j, 0.01, 100.0 + j,
                 std::string(200, char('a' + j))});
  return t;
}

inline autogemm::WinnerRecord winner(long i) {
  autogemm::WinnerRecord w;
  w.shape = shape(i);
  w.family = kFamily;
  w.config = "tiled cfg_" + std::to_string(i) + "_0";
  w.template_hash = kHash;
  w.median_ms = 1.0;
  w.spread_ms = 0.01;
  w.gflops = 100.0;
  w.tuned_at = 1700000000 + i;
  return w;
}

inline autogemm::CubinKey cubin_key(long i) {
  return {kHash, "tiled cfg_" + std::to_string(i) + "_0", "sm_90", 13000};
}

inline std::vector<char> cubin(long i) {
  std::vector<char> b(16 * 1024);
  for (size_t j = 0; j < b.size(); ++j) b[j] = char((j * 131 + size_t(i) * 7) & 0xff);
  return b;
}

}  // namespace crash_rows
