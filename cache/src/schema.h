// The cache file's identity (application_id), schema versions and migrations.
#pragma once

#include <cstdint>
#include <string>

namespace autogemm::detail {

class Db;

/// PRAGMA application_id of every autogemm cache: 'AGEM'.
constexpr int32_t kApplicationId = 0x4147454D;

/// The schema version this build writes (PRAGMA user_version).
int current_schema_version();

/// Checks the raw 100-byte SQLite header of `path` before SQLite opens it, so
/// that a file that is not SQLite, belongs to another program or is newer than
/// this build is refused without SQLite touching it (not even side files).
/// An empty (0-byte) file passes when `writable`. Throws CacheError.
void check_header(const std::string& path, bool writable);

/// Checks that the open file is an autogemm cache this build can use, or (when
/// `writable`) an empty database, and that it is not corrupt (PRAGMA
/// quick_check). Only reads. Throws CacheError otherwise. A read-only open of
/// an empty or older file is refused: it cannot be migrated. Returns the
/// file's schema version (0: empty).
int check_file(const Db& db, bool writable);

/// Migration step 4 -> 5 (schema_batch.cpp): the batch column of every key.
void add_batch_columns(Db& db);
/// Migration step 5 -> 6 (schema_timing.cpp): the timing regime of measurements.
void add_timing_columns(Db& db);

/// Brings an empty or older file to the current version: all steps, and the
/// application_id and user_version, in one BEGIN IMMEDIATE transaction that is
/// rolled back if any step fails. Re-checks the file under the write lock, so
/// concurrent openers migrate once. No-op on a current file.
void migrate(Db& db);

}  // namespace autogemm::detail
