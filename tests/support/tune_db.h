// What a gemm_tune run left in a tuning cache file, for the crash-safety and
// concurrency tests of gemm_tune: winners (per kernel family, and the one
// dispatch would run) and trial counts per shape (as gemm_tune's shape
// text), and PRAGMA integrity_check. Opens the file
// read-write (as gemm_tune does, so a file left by a killed process is
// recovered here exactly as the next gemm_tune would recover it).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "autogemm/kernel_families.h"
#include "autogemm/kernel_template.h"
#include "autogemm/problem.h"
#include "autogemm/tuning_cache.h"
#include "autogemm/shape_spec.h"

namespace autogemm::testing {

struct TuneDbState {
  bool opened = false;
  std::string open_error;                 ///< CacheError text when !opened
  std::string integrity;                  ///< "ok" when sound
  int devices = 0;                        ///< devices with rows
  /// shape text -> config of the fastest winner over the families (current
  /// templates only): what dispatch runs for exactly that shape.
  std::map<std::string, std::string> winners;
  /// shape text -> family name -> config (current template of that family).
  std::map<std::string, std::map<std::string, std::string>> family_winners;
  std::map<std::string, size_t> trials;         ///< shape text -> stored trials (all families)
};

/// The canonical ShapeSpec text of a --shape argument ("256x256x256" -> "256x256x256:NN").
inline std::string canonical_shape(const std::string& text) {
  ShapeSpec s;
  std::string why;
  if (!parse_shape(text, &s, &why)) return "<bad shape " + text + ": " + why + ">";
  return s.to_string();
}

inline TuneDbState read_tune_db(const std::string& db, const std::vector<std::string>& shapes) {
  TuneDbState st;
  std::unique_ptr<TuningCache> cache;
  try {
    cache = TuningCache::open(db, TuningCache::Mode::ReadWrite);
  } catch (const std::exception& e) {
    st.open_error = e.what();
    return st;
  }
  st.opened = true;
  st.integrity = cache->integrity_check();
  const std::vector<DeviceKey> devs = cache->load_devices();
  st.devices = int(devs.size());
  std::map<std::string, double> fastest_ms;  // shape text -> median of st.winners' entry
  for (const DeviceKey& d : devs) {
    for (const std::string& text : shapes) {
      ShapeSpec s;
      std::string why;
      if (!parse_shape(text, &s, &why)) continue;
      const ShapeKey key = s.problem().key();
      const std::string name = s.to_string();
      for (const KernelFamily* f : all_families()) {
        const auto w = cache->find_winner(d, key, f->name(), f->source().hash());
        if (!w) continue;
        st.family_winners[name][f->name()] = w->config;
        const auto best = fastest_ms.find(name);
        if (best == fastest_ms.end() || w->median_ms < best->second) {
          fastest_ms[name] = w->median_ms;
          st.winners[name] = w->config;
        }
      }
      st.trials[name] += cache->load_trials(d, key).size();
    }
  }
  return st;
}

}  // namespace autogemm::testing
