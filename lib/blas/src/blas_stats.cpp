#include "blas_stats.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "autogemm/log.h"

namespace autogemm::blas {
namespace {

struct Counters {
  std::atomic<unsigned long long> routed{0}, by_next{0}, by_host{0}, scaled{0}, quick{0}, bad{0};
  std::atomic<unsigned long long> fell_back[int(Why::Count)]{};
  std::atomic<bool> logged[int(Why::Count)]{};
  std::mutex origin_mu;
  std::string next_origin;
};

Counters& counters() {
  // Never destroyed: other threads may still call sgemm_ during exit.
  static Counters* c = new Counters();
  return *c;
}

/// "2 no GPU, 1 CUDA error": the reasons that occurred.
std::string reasons(const BlasCounts& c) {
  std::string text;
  for (int w = 0; w < int(Why::Count); ++w) {
    if (!c.fell_back[w]) continue;
    if (!text.empty()) text += ", ";
    text += std::to_string(c.fell_back[w]) + " " + why_name(Why(w));
  }
  return text;
}

/// The exit report: one line, only when sgemm_ was called at all.
void report() {
  const BlasCounts c = blas_counts();
  unsigned long long fell = 0;
  for (unsigned long long f : c.fell_back) fell += f;
  if (c.routed + fell + c.scaled_on_host + c.quick_returns + c.bad_arguments == 0) return;
  std::string origin;
  {
    std::lock_guard<std::mutex> lock(counters().origin_mu);
    origin = counters().next_origin;
  }
  log().info(
      "BLAS drop-in: sgemm_: {} routed to autogemm, {} fell back{}{} ({} by the next sgemm_{}, {} by the host loop), "
      "{} only scaled C on the host, {} quick returns, {} bad arguments",
      c.routed, fell, fell ? ": " : "", reasons(c), c.by_next_sgemm, origin.empty() ? "" : " in " + origin,
      c.by_host_loop, c.scaled_on_host, c.quick_returns, c.bad_arguments);
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

/// Counts one; never throws (a logger that cannot be made costs the report,
/// not the call).
void add(std::atomic<unsigned long long>& n) noexcept {
  n.fetch_add(1, std::memory_order_relaxed);
  try {
    report_at_exit();
  } catch (...) {
  }
}

}  // namespace

void count_routed() noexcept { add(counters().routed); }
void count_scaled_on_host() noexcept { add(counters().scaled); }
void count_quick_return() noexcept { add(counters().quick); }
void count_bad_argument() noexcept { add(counters().bad); }

void count_fallback(Why why, const char* what, Ran ran) {
  Counters& c = counters();
  add(c.fell_back[int(why)]);
  add(ran == Ran::NextSgemm ? c.by_next : c.by_host);
  // Turned off on purpose needs no warning; any other reason is said once.
  if (why != Why::Off && !c.logged[int(why)].exchange(true))
    log().warn("BLAS drop-in: autogemm could not run an sgemm_ call ({}), {} ran it: {}", why_name(why),
               ran == Ran::NextSgemm ? "the next sgemm_" : "the host loop", what);
}

BlasCounts blas_counts() {
  Counters& c = counters();
  BlasCounts out;
  out.routed = c.routed.load();
  for (int w = 0; w < int(Why::Count); ++w) out.fell_back[w] = c.fell_back[w].load();
  out.by_next_sgemm = c.by_next.load();
  out.by_host_loop = c.by_host.load();
  out.scaled_on_host = c.scaled.load();
  out.quick_returns = c.quick.load();
  out.bad_arguments = c.bad.load();
  return out;
}

const char* why_name(Why why) {
  switch (why) {
    case Why::Off: return "off (AUTOGEMM_BLAS_OFF)";
    case Why::NoGpu: return "no GPU";
    case Why::Cuda: return "CUDA error";
    case Why::Autogemm: return "autogemm status";
    case Why::Count: break;
  }
  return "unknown";
}

bool routing_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("AUTOGEMM_BLAS_OFF");
    return !v || *v == '\0' || std::strcmp(v, "0") == 0;
  }();
  return on;
}

void set_next_sgemm_origin(const std::string& path) {
  std::lock_guard<std::mutex> lock(counters().origin_mu);
  counters().next_origin = path;
}

}  // namespace autogemm::blas
