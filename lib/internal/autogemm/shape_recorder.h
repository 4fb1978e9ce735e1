// ShapeRecorder: which shapes an application asks autogemm for, so that
// `gemm_tune --from-record` can tune exactly those (opt-in:
// AUTOGEMM_RECORD_UNTUNED=1 or autogemm_record_shapes).
//
// The hot path only adds one to an atomic counter the plan of the shape
// holds; no lock, no SQL. Counts reach the tuning cache (table
// requested_shapes) from a background thread every few seconds, at
// autogemm_flush_recorded_shapes, when the cache file is switched, and at
// exit, so a program that never calls autogemm again still leaves its record.
// A failed write is logged once and retried with the next flush: counts are
// never dropped while the process lives.
//
// fork(): the child keeps the counters but not the parent's unwritten counts
// (the parent writes those) and starts its own writer when it records; the
// fork waits for a write in flight, so no lock is copied held.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>

#include "autogemm/tuning_keys.h"

namespace autogemm {

class ShapeRecorder {
 public:
  /// The calls of one (device, shape); its address is stable for the life of
  /// the recorder, so a plan may keep it.
  struct Usage {
    DeviceKey device;
    ShapeKey shape;
    std::atomic<int64_t> calls{0};
    std::atomic<bool> tuned{false};  ///< its plan is an exact tuned entry
    int64_t written = 0;             ///< calls already in the cache (under the mutex)
    int64_t first_seen = 0;          ///< unix seconds
  };

  /// `interval_s`: seconds between background writes.
  explicit ShapeRecorder(double interval_s = 5.0);
  /// Stops the writer and writes what is left (best effort, never throws).
  ~ShapeRecorder();
  ShapeRecorder(const ShapeRecorder&) = delete;
  ShapeRecorder& operator=(const ShapeRecorder&) = delete;

  /// On or off; off keeps what was counted (it is still written).
  void set_enabled(bool on) { enabled_.store(on, std::memory_order_relaxed); }
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }

  /// The cache file counts go to from now on. Counts not yet written go to
  /// the previous file first (best effort).
  void set_path(const std::string& path);

  /// The counter of (device, shape), made on first sight (takes the mutex;
  /// for the first call of a shape, not the hot path). Starts the writer.
  Usage* track(const DeviceKey& device, const ShapeKey& shape, bool tuned);

  /// Writes every count not yet in the cache now, creating the cache file if
  /// it is missing. Throws CacheError (nothing is lost: the counts stay
  /// pending). No-op when nothing is new.
  void flush();

  /// Whether `text` (an environment value) turns recording on: "1", "on",
  /// "yes", "true"; `recognized` false for anything but those, "0", "off",
  /// "no", "false" and "".
  static bool parse_switch(const char* text, bool* recognized);

 private:
  friend struct RecorderForkHooks;
  /// Starts this process's writer thread unless it runs; returns once the
  /// thread runs writer_loop (`lock` holds mu_ and is released meanwhile).
  void start_writer_locked(std::unique_lock<std::mutex>& lock);
  void writer_loop();
  void stop_writer();
  void after_fork_in_child();

  using Key = std::tuple<std::string, int, int, int, int, int, int64_t, int64_t, int64_t, bool, bool, bool, int64_t>;
  static Key key_of(const DeviceKey& d, const ShapeKey& s);

  const double interval_s_;
  std::atomic<bool> enabled_{false};
  std::mutex flush_mu_;                 ///< one write at a time; taken before mu_
  std::mutex mu_;                       ///< the fields below
  std::condition_variable wake_;
  std::string path_;
  std::deque<Usage> usages_;            ///< deque: addresses never move
  std::map<Key, Usage*> index_;
  std::unique_ptr<std::thread> writer_;
  long writer_pid_ = 0;                 ///< the process the writer runs in
  bool stopping_ = false;
  bool writer_running_ = false;         ///< the writer has entered writer_loop
  std::string last_failure_;            ///< logged once until it changes
};

}  // namespace autogemm
