// CompileMemo: the NVRTC builds of this process, kept for the next shape.
// Tuning several shapes in one run measures many configs again (the model's
// favourites and the history winners recur from shape to shape: two thirds
// of the public suite's candidates were built for an earlier shape), and
// NVRTC is most of what a candidate costs. A build is a pure function of
// its key (template content, target, config text), so a kept one is the
// same bytes a new compile would give. Bounded by bytes, oldest out first.
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "autogemm/kernel_config.h"
#include "autogemm/nvrtc_compiler.h"

namespace autogemm {

class CompileMemo {
 public:
  explicit CompileMemo(size_t max_bytes) : max_bytes_(max_bytes) {}

  /// The process-wide memo the tuner uses (48 MiB of cubins and logs).
  static CompileMemo& process();

  /// Everything that decides the cubin of `c` built for `arch`.
  static std::string key(const KernelConfig& c, const std::string& arch);

  /// The kept build (its `seconds` is 0: no time was spent now), if any.
  std::optional<CompileResult> find(const std::string& key);
  /// Whether a build is kept under `key` (find() without the copy).
  bool contains(const std::string& key) const;
  /// Keeps `r` under `key`, dropping the oldest builds past the bound; a
  /// build larger than the bound is not kept. Thread-safe, as find().
  void put(const std::string& key, const CompileResult& r);

  size_t bytes() const;
  size_t size() const;

 private:
  struct Entry {
    std::string key;
    CompileResult result;
  };
  static size_t cost(const Entry& e) { return e.key.size() + e.result.cubin.size() + e.result.log.size(); }

  const size_t max_bytes_;
  mutable std::mutex mu_;
  std::list<Entry> order_;  ///< most recently used first
  std::map<std::string, std::list<Entry>::iterator> index_;
  size_t bytes_ = 0;
};

}  // namespace autogemm
