// TuningCache: opening, configuring and closing the connection; status names.
// The reads and writes are in records.cpp.
#include "autogemm/tuning_cache.h"

#include "autogemm/log.h"

#include <cerrno>
#include <cstdlib>

#include "files.h"
#include "impl.h"
#include "schema.h"

namespace autogemm {
namespace {

constexpr int kDefaultBusyMs = 10000;

int busy_timeout_ms() {
  const char* v = std::getenv("AUTOGEMM_CACHE_BUSY_MS");
  if (!v || !*v) return kDefaultBusyMs;
  char* end = nullptr;
  errno = 0;
  long ms = std::strtol(v, &end, 10);
  if (errno != 0 || *end != '\0' || ms < 0 || ms > 3600 * 1000) {
    autogemm::log().warn("AUTOGEMM_CACHE_BUSY_MS='{}' is not a number of milliseconds (0 to 3600000); "
                 "using {}",
                 v, kDefaultBusyMs);
    return kDefaultBusyMs;
  }
  return static_cast<int>(ms);
}

// Settings of this connection only; none of them writes to the file.
void configure(detail::Db& db, bool writable) {
  sqlite3_busy_timeout(db.get(), busy_timeout_ms());
  sqlite3_db_config(db.get(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  db.exec("PRAGMA foreign_keys = ON", "enabling foreign keys");
  db.exec("PRAGMA synchronous = NORMAL", "setting synchronous = NORMAL");
  if (!writable) db.exec("PRAGMA query_only = ON", "making the connection query-only");
}

// WAL lets readers and one writer work concurrently. Where it cannot be set
// (no shared memory, a busy file) the rollback journal still works: warn only.
void enable_wal(detail::Db& db) {
  std::string mode;
  try {
    mode = db.query_text("PRAGMA journal_mode = WAL");
  } catch (const CacheError& e) {
    // A full disk or an I/O error is no reason to try another journal: report it.
    const int err = sqlite3_system_errno(db.get());
    if (err == ENOSPC || err == EDQUOT || err == EFBIG || err == EIO) throw;
    mode = e.what();
  }
  if (mode != "wal")
    autogemm::log().warn("tuning cache {}: could not switch to WAL journal mode ({}); using the "
                 "rollback journal",
                 db.path(), mode);
}

}  // namespace

std::unique_ptr<TuningCache> TuningCache::open(const std::string& path, Mode mode) {
  if (path.empty()) throw CacheError("tuning cache: the path is empty.");
  const bool writable = mode == Mode::ReadWrite;
  if (writable)
    detail::create_cache_file(path);
  else if (!detail::path_exists(path))
    throw CacheError("tuning cache " + path +
                     ": does not exist (opened read-only, so it is not created).");

  detail::check_header(path, writable);
  detail::check_directory(path, writable);
  const int flags =
      (writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX;
  auto impl = std::make_unique<Impl>(path, flags);
  detail::Db& db = impl->db;
  if (writable && sqlite3_db_readonly(db.get(), "main") == 1)
    db.refuse("cannot be opened for writing (check its permissions); open it read-only.");
  configure(db, writable);
  const int version = detail::check_file(db, writable);
  if (writable) {
    enable_wal(db);
    if (version < detail::current_schema_version()) detail::migrate(db);
  }
  return std::unique_ptr<TuningCache>(new TuningCache(std::move(impl)));
}

std::string TuningCache::default_path() { return detail::default_cache_path(); }

int TuningCache::schema_version() { return detail::current_schema_version(); }

bool TuningCache::cubins_trusted(const std::string& path, std::string* why) {
  return detail::private_to_user(path, why);
}

TuningCache::TuningCache(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TuningCache::~TuningCache() {
  if (impl_ && getpid() != impl_->pid) impl_->db.leak();  // the parent's, after fork()
}

const std::string& TuningCache::path() const { return impl_->db.path(); }

}  // namespace autogemm
