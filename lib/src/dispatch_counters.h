#pragma once

#include <atomic>

#include "autogemm/autogemm.h"

namespace autogemm {

/// Process-wide counters behind autogemm_get_stats.
struct DispatchCounters {
  std::atomic<unsigned long long> calls{0}, exact{0}, nearest{0}, fallback{0}, compiles{0},
      cubins{0}, fp32_accurate{0};
  void snapshot(autogemm_stats* out) const {
    out->calls = calls.load();
    out->exact_hits = exact.load();
    out->nearest_hits = nearest.load();
    out->default_hits = fallback.load();
    out->nvrtc_compiles = compiles.load();
    out->cubins_loaded = cubins.load();
    out->fp32_accurate_calls = fp32_accurate.load();
  }
};

}  // namespace autogemm
