// TuningCache: the persistent SQLite store of tuning results.
//
// This is the only component of autogemm that speaks SQL. Everything it stores
// is keyed by plain values (DeviceKey, ShapeKey, config strings), so the cache
// knows nothing about CUDA or about the kernel templates: it never interprets a
// config string, it only stores and returns it. Callers parse what they read
// back (KernelConfig::parse) before it reaches NVRTC or a launch.
//
// Families: winners are kept per (device, shape, family); a config begins with
// its family's name ("tiled ..."), and stale means another hash of that family.
//
// A cache carries code: the cubins it stores run in every process that
// dispatches from it. cubins_trusted() says whether a file may supply them
// (owned by this user or root and writable by no one else, with its
// directory); the library loads stored cubins only from such a file and
// otherwise compiles the stored configs itself.
//
// Concurrency: several processes may hold the same file open. Writers use
// short `BEGIN IMMEDIATE` transactions and a busy timeout, so a concurrent
// writer waits instead of failing. A file that is corrupt, foreign (another
// application_id) or newer than this build (higher user_version) is refused
// with CacheError and is never modified, deleted or overwritten.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "autogemm/tuning_keys.h"

namespace autogemm {

/// Thrown for every cache failure; what() is one sentence a user can act on.
class CacheError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The best configuration of one kernel family for one (device, shape).
struct WinnerRecord {
  ShapeKey shape;
  std::string family;          ///< e.g. "tiled"; `config` must begin with it
  std::string config;
  std::string template_hash;   ///< content hash of the template the config belongs to
  double median_ms = 0;
  double spread_ms = 0;
  double gflops = 0;
  int64_t tuned_at = 0;        ///< unix seconds
  TimingRegime timing = TimingRegime::Rotate;  ///< how median_ms was measured
};

/// Key of a compiled kernel binary.
struct CubinKey {
  std::string template_hash;
  std::string config;
  std::string arch;            ///< e.g. "sm_90", "sm_90a"
  int nvrtc_version = 0;
};

/// One stored trial with everything that keys it besides the device
/// (inspection, export and import).
struct TrialRow {
  ShapeKey shape;
  std::string family;
  std::string template_hash;
  TrialRecord trial;
  int64_t recorded_at = 0;     ///< unix seconds; 0 on input means "now"
};

/// A compiled kernel with its key (TuningCache::load_all_cubins).
struct StoredCubin {
  CubinKey key;
  std::vector<char> cubin;
};

/// What TuningCache::prune removes: rows of a kernel template that is no
/// longer its family's (another hash, or a family this build does not have),
/// and cubins of such templates or of another NVRTC.
struct PruneRule {
  std::map<std::string, std::string> current_hashes;  ///< family -> this build's template hash
  int nvrtc_version = 0;                               ///< this machine's NVRTC; 0: keep every NVRTC's cubins
};

/// Rows TuningCache::prune removed (or, in a dry run, would remove).
struct PruneStats {
  size_t winners = 0, trials = 0, tuning_runs = 0, cubins = 0;
};

/// What TuningCache::merge did.
struct MergeStats {
  size_t winners_stored = 0;   ///< winners that replaced or added an entry
  size_t winners_kept = 0;     ///< incoming winners that lost to the stored one
  size_t trials = 0;           ///< trial rows inserted or replaced
};

/// A shape an application asked the library for on one device (recorded
/// only when recording is on: AUTOGEMM_RECORD_UNTUNED, autogemm_record_shapes).
struct ShapeRequest {
  ShapeKey shape;
  int64_t calls = 0;             ///< calls seen, summed over every recording process
  bool tuned_when_seen = false;  ///< the last recording process had an exact tuned entry
  int64_t first_seen = 0;        ///< unix seconds; 0 on input means now
  int64_t last_seen = 0;
};

/// Thread-safe: calls on one object are serialized on an internal mutex. An
/// object must not be used in a child process after fork() (calls throw
/// CacheError there; destroying it there leaves the parent's state alone):
/// open a new one in the child.
class TuningCache {
 public:
  enum class Mode { ReadOnly, ReadWrite };

  /// Opens (and in ReadWrite mode creates, with 0600 permissions in a 0700
  /// directory, and migrates) the store at `path`. Throws CacheError if the
  /// file is not an autogemm cache, is corrupt, is newer than this build, or
  /// cannot be opened in the requested mode.
  ///
  /// ReadWrite: a missing or empty (0-byte) file becomes a new cache; an older
  /// schema is migrated in one transaction. ReadOnly never creates the file
  /// and never writes it; it refuses a missing or empty file and an older
  /// schema (which only a ReadWrite open can migrate). SQLite may still create
  /// its -wal/-shm side files next to a WAL-mode file while it reads it.
  /// The checks (header, PRAGMA quick_check) read the whole file once.
  static std::unique_ptr<TuningCache> open(const std::string& path, Mode mode);

  /// `$AUTOGEMM_CACHE` if set and non-empty, else `$XDG_CACHE_HOME/autogemm/tuning.db`
  /// (if XDG_CACHE_HOME is an absolute path), else `~/.cache/autogemm/tuning.db`.
  /// Only computes the path; throws CacheError if there is no home directory.
  static std::string default_path();

  /// Schema version this build writes.
  static int schema_version();

  /// Whether the compiled kernels stored in the cache at `path` may be loaded
  /// into this process: the file (symlinks followed) and its directory must be
  /// owned by this user or root and writable by neither group nor others,
  /// the rule OpenSSH applies to private keys; anyone else who could write
  /// either could put code there. False with the reason in `why` (which
  /// check, which path) otherwise. Reads file metadata only.
  static bool cubins_trusted(const std::string& path, std::string* why = nullptr);

  ~TuningCache();
  TuningCache(const TuningCache&) = delete;
  TuningCache& operator=(const TuningCache&) = delete;

  const std::string& path() const;

  /// Records trials of (device, shape) of one family's template, in one short
  /// transaction (cheap enough to call once per measured candidate, so that
  /// an interrupted tuning loses nothing). Existing rows for the same
  /// (device, shape, template_hash, config) are replaced.
  void record_trials(const DeviceKey& dev, const ShapeKey& shape, const std::string& family,
                     const std::string& template_hash,
                     const std::vector<TrialRecord>& trials);

  /// Stores `w` as the winner of its family for (dev, w.shape) unless a winner
  /// of that family with the same template hash is already stored and `w` is
  /// not faster than it by more than max(its spread, w's spread): within
  /// measurement noise the incumbent stays, so repeated tuning does not flip
  /// winners. A stored winner of the family with another template hash (stale)
  /// or timed in the other regime (w.timing) is always replaced; winners of
  /// other families are never touched. Returns
  /// true if `w` was stored. `w.tuned_at` 0 means now. Refuses a `w` whose
  /// config does not begin with `w.family`. The tuning cost is recorded either
  /// way (table tuning_runs). One transaction. Trials are never deleted.
  bool record_winner(const DeviceKey& dev, const WinnerRecord& w, const TuningCost& cost);

  /// All winners stored for `dev` (all families and template hashes; callers
  /// drop stale ones).
  std::vector<WinnerRecord> load_winners(const DeviceKey& dev) const;

  /// The winner of `family` for exactly (dev, shape) with the given template
  /// hash, if any.
  std::optional<WinnerRecord> find_winner(const DeviceKey& dev, const ShapeKey& shape,
                                          const std::string& family,
                                          const std::string& template_hash) const;

  /// Configs that failed (any status but Ok) for (dev, shape, hash): never retried.
  std::vector<std::string> failed_configs(const DeviceKey& dev, const ShapeKey& shape,
                                          const std::string& template_hash) const;

  /// All trials stored for (dev, shape), any template hash.
  std::vector<TrialRecord> load_trials(const DeviceKey& dev, const ShapeKey& shape) const;

  /// Every trial (any status) stored for (dev, shape) with this template hash:
  /// what an interrupted tuning already measured, so it can resume.
  std::vector<TrialRecord> load_trials(const DeviceKey& dev, const ShapeKey& shape,
                                       const std::string& template_hash) const;

  void store_cubin(const CubinKey& key, const std::vector<char>& cubin);
  std::optional<std::vector<char>> load_cubin(const CubinKey& key) const;

  /// Adds recorded requests for `dev` in one transaction: calls are summed
  /// with what is stored, first_seen keeps the earlier and last_seen (with
  /// tuned_when_seen) the later time. Throws CacheError on a bad value
  /// (non-positive dimension, negative count) and stores nothing.
  void record_requests(const DeviceKey& dev, const std::vector<ShapeRequest>& requests);

  /// Every recorded request of `dev`, most calls first.
  std::vector<ShapeRequest> load_requests(const DeviceKey& dev) const;

  // --- inspection, export and import (tools/autogemm_cache) ---------------

  /// Every device that has rows in the store.
  std::vector<DeviceKey> load_devices() const;

  /// Runs `PRAGMA integrity_check` over the whole file (every page, index and
  /// constraint; slower than the quick_check done by open()). Returns "ok"
  /// when the file is sound, else SQLite's findings, one per line. Reads only.
  std::string integrity_check() const;

  /// Every trial stored for `dev`, with shape, family, template hash and time.
  std::vector<TrialRow> load_all_trials(const DeviceKey& dev) const;

  /// Merges rows from elsewhere (an export) in one transaction: each winner
  /// by the record_winner rule within its family (no tuning cost recorded),
  /// each trial upserted with its family and recorded_at. Invalid input
  /// (including an empty family) throws CacheError and merges nothing.
  MergeStats merge(const DeviceKey& dev, const std::vector<WinnerRecord>& winners,
                   const std::vector<TrialRow>& trials);

  /// Every stored cubin that is not empty (merging caches with
  /// autogemm_cache merge --trust-cubins).
  std::vector<StoredCubin> load_all_cubins() const;

  /// Deletes what `rule` calls stale, in one transaction; `dry_run` only
  /// counts (and works on a ReadOnly cache). Rows of devices with another
  /// driver or NVRTC are kept: they may be another machine's. Throws CacheError.
  PruneStats prune(const PruneRule& rule, bool dry_run);

  /// Rebuilds the file without its free pages (SQLite VACUUM). Needs a
  /// ReadWrite cache and room for a temporary copy; throws CacheError.
  void vacuum();

 private:
  struct Impl;
  explicit TuningCache(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace autogemm
