// What a gemm_tune run left in a tuning cache file, for the crash-safety and
// concurrency tests of gemm_tune: winners and trial counts per shape (as
// gemm_tune's shape text), and PRAGMA integrity_check. Opens the file
// read-write (as gemm_tune does, so a file left by a killed process is
// recovered here exactly as the next gemm_tune would recover it).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "autogemm/kernel_template.h"
#include "autogemm/problem.h"
#include "autogemm/tuning_cache.h"

namespace autogemm::testing {

struct TuneDbState {
  bool opened = false;
  std::string open_error;                 ///< CacheError text when !opened
  std::string integrity;                  ///< "ok" when sound
  int devices = 0;                        ///< devices with rows
  std::map<std::string, std::string> winners;   ///< shape text -> config (current tiled template)
  std::map<std::string, size_t> trials;         ///< shape text -> stored trials
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
  const std::string& hash = KernelTemplate::for_kind(KernelKind::Tiled).hash();
  for (const DeviceKey& d : devs) {
    for (const std::string& text : shapes) {
      ShapeSpec s;
      std::string why;
      if (!parse_shape(text, &s, &why)) continue;
      const ShapeKey key = s.problem().key();
      if (auto w = cache->find_winner(d, key, hash)) st.winners[s.to_string()] = w->config;
      st.trials[s.to_string()] += cache->load_trials(d, key).size();
    }
  }
  return st;
}

}  // namespace autogemm::testing
