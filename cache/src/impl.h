// TuningCache's private state, shared by the cache's source files.
#pragma once

#include <unistd.h>

#include <mutex>
#include <string>

#include "autogemm/tuning_cache.h"
#include "sqlite_handle.h"

namespace autogemm {

struct TuningCache::Impl {
  Impl(const std::string& path, int flags) : db(path, flags), pid(getpid()) {}

  /// Serializes calls and refuses use in a child process after fork().
  std::unique_lock<std::mutex> enter() {
    if (getpid() != pid)
      db.refuse("this connection was opened by another process (used after fork()); "
                "open a new TuningCache in the child.");
    return std::unique_lock<std::mutex>(mu);
  }

  detail::Db db;
  pid_t pid;
  std::mutex mu;
};

}  // namespace autogemm
