#include "shim_stats.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "autogemm/autogemm_cublas.h"
#include "autogemm/log.h"

namespace autogemm::cublas {

static_assert(int(Entry::Count) == AUTOGEMM_CUBLAS_ENTRIES, "autogemm_cublas.h lists every entry point");
static_assert(int(Reason::Count) == AUTOGEMM_CUBLAS_REASONS, "autogemm_cublas.h counts every reason");

namespace {

struct Counters {
  std::atomic<unsigned long long> routed[AUTOGEMM_CUBLAS_ENTRIES]{};
  std::atomic<unsigned long long> passed[AUTOGEMM_CUBLAS_ENTRIES]{};
  std::atomic<unsigned long long> fallbacks[AUTOGEMM_CUBLAS_ENTRIES]{};
  std::atomic<unsigned long long> by_reason[AUTOGEMM_CUBLAS_REASONS]{};
  std::atomic<bool> fallback_logged{false};
};

Counters& counters() {
  // Never destroyed: calls may arrive from other threads during exit.
  static Counters* c = new Counters();
  return *c;
}

/// The exit report: one line per entry point that saw calls, one per reason.
void report() {
  autogemm_cublas_counts c;
  autogemm_cublas_get_counts(&c);
  unsigned long long total = 0;
  for (int i = 0; i < AUTOGEMM_CUBLAS_ENTRIES; ++i) total += c.routed[i] + c.passed[i] + c.fallbacks[i];
  if (total == 0) return;
  for (int i = 0; i < AUTOGEMM_CUBLAS_ENTRIES; ++i)
    if (c.routed[i] + c.passed[i] + c.fallbacks[i])
      log().info("cuBLAS drop-in: {}: {} routed to autogemm, {} passed to cuBLAS, {} fell back", entry_name(Entry(i)),
                 c.routed[i], c.passed[i], c.fallbacks[i]);
  for (int r = 1; r < AUTOGEMM_CUBLAS_REASONS; ++r)
    if (c.passed_by_reason[r]) log().info("cuBLAS drop-in: passed to cuBLAS, {}: {}", reason_name(Reason(r)), c.passed_by_reason[r]);
}

/// Registers the exit report with the first counted call, after the logger
/// exists, so that it runs before the logger is destroyed.
void report_at_exit() {
  static std::once_flag once;
  std::call_once(once, [] {
    log();
    std::atexit(report);
  });
}

}  // namespace

void count_routed(Entry e) {
  report_at_exit();
  counters().routed[int(e)].fetch_add(1, std::memory_order_relaxed);
}

void count_passed(Entry e, Reason why) {
  report_at_exit();
  counters().passed[int(e)].fetch_add(1, std::memory_order_relaxed);
  counters().by_reason[int(why)].fetch_add(1, std::memory_order_relaxed);
}

void count_fallback(Entry e, const char* what) {
  report_at_exit();
  counters().fallbacks[int(e)].fetch_add(1, std::memory_order_relaxed);
  // The first one says why; the count says how often.
  if (!counters().fallback_logged.exchange(true))
    log().warn("cuBLAS drop-in: autogemm could not run a {} call, cuBLAS ran it: {}", entry_name(e), what);
}

bool routing_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("AUTOGEMM_CUBLAS");
    return !(v && (std::strcmp(v, "0") == 0 || std::strcmp(v, "off") == 0));
  }();
  return on;
}

}  // namespace autogemm::cublas


extern "C" {

AUTOGEMM_API void autogemm_cublas_get_counts(autogemm_cublas_counts* out) {
  if (!out) return;
  std::memset(out, 0, sizeof *out);
  auto& c = autogemm::cublas::counters();
  for (int i = 0; i < AUTOGEMM_CUBLAS_ENTRIES; ++i) {
    out->routed[i] = c.routed[i].load();
    out->passed[i] = c.passed[i].load();
    out->fallbacks[i] = c.fallbacks[i].load();
  }
  for (int r = 0; r < AUTOGEMM_CUBLAS_REASONS; ++r) out->passed_by_reason[r] = c.by_reason[r].load();
}

AUTOGEMM_API const char* autogemm_cublas_entry_name(int i) {
  return autogemm::cublas::entry_name(autogemm::cublas::Entry(i));
}

AUTOGEMM_API const char* autogemm_cublas_reason_name(int i) {
  return autogemm::cublas::reason_name(autogemm::cublas::Reason(i));
}

}  // extern "C"
