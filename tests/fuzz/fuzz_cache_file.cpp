// Fuzz target: the tuning cache loader. The fuzz bytes become a cache file,
// opened with TuningCache::open read-only and then (from the same bytes
// again) read-write, and read back with every loader; read-write also writes.
//
// Invariants: nothing but CacheError escapes (a corrupt, foreign or newer
// file is refused, never a crash); every record a loader returns satisfies
// what the loader promises (the row checks in cache/src/rows.cpp): positive
// shapes, 0/1 flags, non-empty keys, finite non-negative numbers, a known
// trial status; a read-only open leaves the file byte-for-byte unchanged.
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "autogemm/tuning_cache.h"
#include "fuzz_util.h"

namespace {

using autogemm::CacheError;
using autogemm::TuningCache;

bool finite_nonneg(double v) { return std::isfinite(v) && v >= 0; }

void check_shape(const autogemm::ShapeKey& s) {
  FUZZ_CHECK(s.m >= 1 && s.n >= 1 && s.k >= 1,
             "loaded shape " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                 std::to_string(s.k));
}

void check_trial(const autogemm::TrialRecord& t) {
  FUZZ_CHECK(!t.config.empty(), "loaded trial without a config");
  FUZZ_CHECK(finite_nonneg(t.median_ms) && finite_nonneg(t.spread_ms) && finite_nonneg(t.gflops),
             "loaded trial '" + t.config + "' with a bad number");
  FUZZ_CHECK(autogemm::parse_trial_status(autogemm::to_string(t.status)) == t.status,
             "loaded trial '" + t.config + "' with an unknown status");
}

void check_winner(const autogemm::WinnerRecord& w) {
  check_shape(w.shape);
  FUZZ_CHECK(!w.config.empty() && !w.template_hash.empty(), "loaded winner without config/hash");
  FUZZ_CHECK(std::isfinite(w.median_ms) && w.median_ms > 0 && finite_nonneg(w.spread_ms) &&
                 finite_nonneg(w.gflops) && w.tuned_at >= 0,
             "loaded winner '" + w.config + "' with a bad number");
}

// Reads everything the tools and the dispatcher read. Bounded: a fuzzed file
// may hold many devices or rows.
void read_all(const TuningCache& c) {
  const auto devices = c.load_devices();
  size_t n_dev = 0;
  for (const autogemm::DeviceKey& d : devices) {
    FUZZ_CHECK(!d.name.empty() && d.cc_major >= 0 && d.cc_minor >= 0 && d.sm_count >= 0 &&
                   d.driver_version >= 0 && d.nvrtc_version >= 0,
               "loaded device '" + d.name + "' with a bad key");
    if (++n_dev > 4) break;
    const auto winners = c.load_winners(d);
    size_t n_w = 0;
    for (const auto& w : winners) {
      check_winner(w);
      if (++n_w > 4) continue;
      if (auto f = c.find_winner(d, w.shape, w.family, w.template_hash)) check_winner(*f);
      for (const auto& t : c.load_trials(d, w.shape)) check_trial(t);
      for (const auto& cfg : c.failed_configs(d, w.shape, w.template_hash))
        FUZZ_CHECK(!cfg.empty(), "empty failed config");
      (void)c.load_cubin({w.template_hash, w.config, "sm_90", d.nvrtc_version});
    }
    for (const auto& r : c.load_all_trials(d)) {
      check_shape(r.shape);
      FUZZ_CHECK(!r.template_hash.empty() && r.recorded_at >= 0, "loaded trial row with a bad key");
      check_trial(r.trial);
    }
  }
}

// The writes of a tuning run, on whatever the fuzzed file turned out to be.
void write_some(TuningCache& c) {
  const autogemm::DeviceKey dev{"NVIDIA H200", 9, 0, 132, 13000, 13000};
  const autogemm::ShapeKey shape{256, 256, 256, false, false, true};
  const std::string hash = "0123456789abcdef";
  const std::string cfg = "tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=4 sk=1 sw=4 ta=0 tb=0";
  c.record_trials(dev, shape, "tiled", hash, {{cfg, autogemm::TrialStatus::Ok, 0.5, 0.01, 67.1, ""}});
  c.record_trials(dev, shape, "generic", "fedcba9876543210",
                  {{"generic ta=0 tb=0", autogemm::TrialStatus::CompileFailed, 0, 0, 0, "log"}});
  c.record_winner(dev, {shape, "tiled", cfg, hash, 0.5, 0.01, 67.1, 0}, {2, 1.0, 2.0, "exhaustive"});
  c.store_cubin({hash, cfg, "sm_90", 13000}, std::vector<char>(64, '\x7f'));
  if (auto w = c.find_winner(dev, shape, "tiled", hash)) check_winner(*w);
  (void)c.load_cubin({hash, cfg, "sm_90", 13000});
  read_all(c);
}

void remove_files(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) unlink((path + suffix).c_str());
}

std::vector<char> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The cache warns (spdlog) about every refused file and skipped row; quiet
  // unless asked, so the fuzzer's own output stays readable.
  if (!std::getenv("AUTOGEMM_FUZZ_VERBOSE")) spdlog::set_level(spdlog::level::off);
  setenv("AUTOGEMM_CACHE_BUSY_MS", "0", 1);  // nobody else holds these files
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = autogemm_fuzz::scratch_dir() + "/cache.db";

  // Read-only: refused or read; the file must not change.
  remove_files(path);
  autogemm_fuzz::write_file(path, data, size);
  try {
    auto c = TuningCache::open(path, TuningCache::Mode::ReadOnly);
    read_all(*c);
  } catch (const CacheError&) {
  }
  const std::vector<char> after = slurp(path);
  FUZZ_CHECK(after.size() == size && std::equal(after.begin(), after.end(),
                                                reinterpret_cast<const char*>(data)),
             "a read-only open changed the file");

  // Read-write: refused, or migrated/used and written.
  remove_files(path);
  autogemm_fuzz::write_file(path, data, size);
  try {
    auto c = TuningCache::open(path, TuningCache::Mode::ReadWrite);
    read_all(*c);
    write_some(*c);
  } catch (const CacheError&) {
  }
  remove_files(path);
  return 0;
}
