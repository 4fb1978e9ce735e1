#include "autogemm/shape_recorder.h"

#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>
#include <vector>

#include "autogemm/log.h"
#include "autogemm/tuning_cache.h"

namespace autogemm {

namespace {

int64_t unix_now() { return static_cast<int64_t>(std::time(nullptr)); }

}  // namespace

// Every live recorder, for the fork handlers and the exit flush. A process
// has one (the dispatcher's); tests make more.
struct RecorderForkHooks {
  static std::mutex& registry_mu() {
    static auto* mu = new std::mutex();  // never destroyed: used from atexit
    return *mu;
  }
  static std::set<ShapeRecorder*>& registry() {
    static auto* set = new std::set<ShapeRecorder*>();
    return *set;
  }
  static void prepare() {
    registry_mu().lock();
    for (ShapeRecorder* r : registry()) {
      r->flush_mu_.lock();
      r->mu_.lock();
    }
  }
  static void parent() {
    for (ShapeRecorder* r : registry()) {
      r->mu_.unlock();
      r->flush_mu_.unlock();
    }
    registry_mu().unlock();
  }
  static void child() {
    for (ShapeRecorder* r : registry()) {
      r->after_fork_in_child();
      r->mu_.unlock();
      r->flush_mu_.unlock();
    }
    registry_mu().unlock();
  }
  // At exit the dispatcher's recorder (never destroyed) writes what is left.
  static void at_exit() {
    std::vector<ShapeRecorder*> live;
    {
      std::lock_guard<std::mutex> lock(registry_mu());
      live.assign(registry().begin(), registry().end());
    }
    for (ShapeRecorder* r : live) {
      r->stop_writer();
      try {
        r->flush();
      } catch (const std::exception& e) {
        log().warn("recorded shapes not written at exit: {}", e.what());
      }
    }
  }
  static void install() {
    static std::once_flag once;
    std::call_once(once, [] {
      // Handlers run in the reverse order of registration, static destructors
      // included: the logger (used while writing) must exist before ours.
      (void)log();
      pthread_atfork(&prepare, &parent, &child);
      std::atexit(&at_exit);
    });
  }
};

ShapeRecorder::ShapeRecorder(double interval_s) : interval_s_(interval_s) {
  RecorderForkHooks::install();
  std::lock_guard<std::mutex> lock(RecorderForkHooks::registry_mu());
  RecorderForkHooks::registry().insert(this);
}

ShapeRecorder::~ShapeRecorder() {
  {
    std::lock_guard<std::mutex> lock(RecorderForkHooks::registry_mu());
    RecorderForkHooks::registry().erase(this);
  }
  stop_writer();
  try {
    flush();
  } catch (const std::exception& e) {
    log().warn("recorded shapes not written: {}", e.what());
  }
}

bool ShapeRecorder::parse_switch(const char* text, bool* recognized) {
  const std::string v = text ? text : "";
  for (const char* on : {"1", "on", "yes", "true"})
    if (v == on) return *recognized = true;
  *recognized = v.empty() || v == "0" || v == "off" || v == "no" || v == "false";
  return false;
}

ShapeRecorder::Key ShapeRecorder::key_of(const DeviceKey& d, const ShapeKey& s) {
  return Key{d.name, d.cc_major, d.cc_minor, d.sm_count, d.driver_version, d.nvrtc_version,
             s.m, s.n, s.k, s.trans_a, s.trans_b, s.aligned, s.batch};
}

void ShapeRecorder::set_path(const std::string& path) {
  std::string previous;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (path == path_) return;
    previous = path_;
  }
  if (!previous.empty()) {
    try {
      flush();
    } catch (const std::exception& e) {
      log().warn("recorded shapes not written to {} before switching files: {}", previous, e.what());
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  path_ = path;
}

ShapeRecorder::Usage* ShapeRecorder::track(const DeviceKey& device, const ShapeKey& shape, bool tuned) {
  std::unique_lock<std::mutex> lock(mu_);
  const Key key = key_of(device, shape);
  Usage*& slot = index_[key];
  if (!slot) {
    Usage& u = usages_.emplace_back();
    u.device = device;
    u.shape = shape;
    u.first_seen = unix_now();
    slot = &u;
  }
  slot->tuned.store(tuned, std::memory_order_relaxed);
  start_writer_locked(lock);
  return slot;
}

void ShapeRecorder::flush() {
  std::lock_guard<std::mutex> one_writer(flush_mu_);
  std::string path;
  std::map<size_t, std::vector<ShapeRequest>> by_device;  // index of the first usage of a device
  std::vector<std::pair<Usage*, int64_t>> taken;
  std::vector<DeviceKey> devices;
  {
    std::lock_guard<std::mutex> lock(mu_);
    path = path_;
    const int64_t now = unix_now();
    for (Usage& u : usages_) {
      const int64_t calls = u.calls.load(std::memory_order_relaxed);
      if (calls <= u.written) continue;
      size_t d = 0;
      while (d < devices.size() && !(devices[d] == u.device)) ++d;
      if (d == devices.size()) devices.push_back(u.device);
      by_device[d].push_back({u.shape, calls - u.written, u.tuned.load(std::memory_order_relaxed),
                              u.first_seen, now});
      taken.emplace_back(&u, calls);
    }
  }
  if (taken.empty()) return;
  if (path.empty()) throw CacheError("recorded shapes: no tuning cache file chosen yet");
  // Outside mu_: a slow or busy file never holds up a call's first sight of a shape.
  std::unique_ptr<TuningCache> cache = TuningCache::open(path, TuningCache::Mode::ReadWrite);
  for (const auto& [d, requests] : by_device) cache->record_requests(devices[d], requests);
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [u, calls] : taken) u->written = calls;
  last_failure_.clear();
}

void ShapeRecorder::start_writer_locked(std::unique_lock<std::mutex>& lock) {
  if (writer_ && writer_pid_ == long(getpid())) return;
  stopping_ = false;
  writer_running_ = false;
  writer_pid_ = long(getpid());
  writer_ = std::make_unique<std::thread>([this] { writer_loop(); });
  // Back to the caller only once the thread runs our code: its start-up (the
  // C library's and a sanitizer's allocations, under their own locks) is
  // over, so a fork() right after this call cannot copy such a lock held.
  // The fork handlers cover the writer from here on.
  wake_.wait(lock, [this] { return writer_running_; });
}

void ShapeRecorder::writer_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  writer_running_ = true;
  wake_.notify_all();
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::duration<double>(interval_s_));
    if (stopping_) break;
    lock.unlock();
    try {
      flush();
    } catch (const std::exception& e) {
      lock.lock();
      if (last_failure_ != e.what()) {
        last_failure_ = e.what();
        log().warn("recorded shapes not written yet (retrying): {}", e.what());
      }
      continue;
    }
    lock.lock();
  }
}

void ShapeRecorder::stop_writer() {
  std::unique_ptr<std::thread> t;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!writer_ || writer_pid_ != long(getpid())) return;
    stopping_ = true;
    t = std::move(writer_);
  }
  wake_.notify_all();
  t->join();
}

void ShapeRecorder::after_fork_in_child() {
  // The writer thread stayed in the parent: its handle here names nothing
  // (destroying a joinable std::thread would end the program), so it is let go.
  (void)writer_.release();
  writer_pid_ = 0;
  for (Usage& u : usages_) u.written = u.calls.load(std::memory_order_relaxed);
}

}  // namespace autogemm
