// File-system side of the cache: where it lives and how it is created.
#pragma once

#include <string>

namespace autogemm::detail {

/// `$AUTOGEMM_CACHE` if set and non-empty, else `$XDG_CACHE_HOME/autogemm/tuning.db`
/// (when XDG_CACHE_HOME is an absolute path), else `$HOME/.cache/autogemm/tuning.db`
/// (HOME from the environment, else the password database). Throws CacheError if
/// none of these is available.
std::string default_cache_path();

/// True if something exists at `path` (stat succeeds).
bool path_exists(const std::string& path);

/// Creates the missing parent directories of `path` with mode 0700 and then the
/// file itself, empty, with mode 0600, if it does not exist. Existing
/// directories and files are left exactly as they are. Throws CacheError.
void create_cache_file(const std::string& path);

}  // namespace autogemm::detail
