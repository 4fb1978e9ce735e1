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

/// Refuses (CacheError, one sentence) a cache whose directory this process
/// cannot write where SQLite would need to create its side files there:
/// read-write, unless both <path>-wal and <path>-shm exist (SQLite creates a
/// -journal, or -wal and -shm, beside the file); read-only, only a WAL-mode file
/// whose <path>-shm does not exist (SQLite needs one to read it). Without this,
/// SQLite fails later with a misleading "attempt to write a readonly database".
void check_directory(const std::string& path, bool writable);

/// TuningCache::cubins_trusted: `path` (symlinks followed) and the directory
/// holding it are owned by this user or root and writable by no one else.
bool private_to_user(const std::string& path, std::string* why);

}  // namespace autogemm::detail
