#include "sqlite_handle.h"

#include "autogemm/log.h"

#include <cstring>
#include <memory>
#include <utility>

#include "autogemm/tuning_cache.h"

namespace autogemm::detail {
namespace {

// The start of a statement, for error messages.
std::string sql_excerpt(const char* sql) {
  std::string s(sql ? sql : "");
  for (char& c : s)
    if (c == '\n') c = ' ';
  return s.size() > 60 ? "\"" + s.substr(0, 57) + "...\"" : "\"" + s + "\"";
}

}  // namespace

Db::Db(const std::string& path, int flags) : path_(path) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_EXRESCODE, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw CacheError("tuning cache " + path + ": opening the database failed: " + msg);
  }
}

Db::~Db() {
  if (db_ && sqlite3_close_v2(db_) != SQLITE_OK)
    autogemm::log().warn("tuning cache {}: closing the database failed: {}", path_, sqlite3_errmsg(db_));
}

void Db::exec(const char* sql, const char* action) {
  if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(action);
}

Stmt Db::prepare(const char* sql) const { return Stmt(*this, sql); }

int64_t Db::query_int(const char* sql, const char* action) const {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_, sql, -1, &raw, nullptr) != SQLITE_OK) fail(action);
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> s(raw, sqlite3_finalize);
  int rc = sqlite3_step(raw);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) fail(action);  // before finalize resets the error
  if (rc != SQLITE_ROW || sqlite3_column_type(raw, 0) != SQLITE_INTEGER)
    refuse(std::string(action) + " returned no integer.");
  return sqlite3_column_int64(raw, 0);
}

std::string Db::query_text(const char* sql) const {
  Stmt s(*this, sql);
  return s.step() ? s.column_text(0) : std::string();
}

void Db::fail(const std::string& action) const {
  std::string msg = db_ ? sqlite3_errmsg(db_) : "no connection";
  const int code = db_ ? (sqlite3_extended_errcode(db_) & 0xff) : SQLITE_MISUSE;
  // SQLite's "disk I/O error" says nothing of the cause: add the system's word
  // for it (e.g. "No space left on device").
  if (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN)
    if (const int err = sqlite3_system_errno(db_)) msg += std::string(" (") + std::strerror(err) + ")";
  if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
    refuse("is corrupt or not a database (" + msg + ", while " + action +
           "); refusing to use it. Move it away, or point AUTOGEMM_CACHE at another file.");
  if (code == SQLITE_BUSY)
    refuse(action + " failed: " + msg +
           " (another connection held it past the busy timeout; AUTOGEMM_CACHE_BUSY_MS sets it).");
  refuse(action + " failed: " + msg + ".");
}

void Db::refuse(const std::string& why) const {
  throw CacheError("tuning cache " + path_ + ": " + why);
}

Stmt::Stmt(const Db& db, const char* sql) : db_(&db) {
  if (sqlite3_prepare_v2(db.get(), sql, -1, &s_, nullptr) != SQLITE_OK)
    db.fail("preparing " + sql_excerpt(sql));
}

Stmt::~Stmt() { sqlite3_finalize(s_); }

Stmt::Stmt(Stmt&& o) noexcept : db_(o.db_), s_(std::exchange(o.s_, nullptr)) {}

void Stmt::check_bind(int rc, int i) {
  if (rc != SQLITE_OK)
    db_->fail("binding parameter " + std::to_string(i) + " of " + sql_excerpt(sqlite3_sql(s_)));
}

Stmt& Stmt::bind(int i, int64_t v) {
  check_bind(sqlite3_bind_int64(s_, i, v), i);
  return *this;
}

Stmt& Stmt::bind(int i, double v) {
  check_bind(sqlite3_bind_double(s_, i, v), i);
  return *this;
}

Stmt& Stmt::bind(int i, const std::string& v) {
  check_bind(sqlite3_bind_text64(s_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8), i);
  return *this;
}

Stmt& Stmt::bind_blob(int i, const std::vector<char>& v) {
  // A zero-length blob must still be a BLOB, not NULL: pass a non-null pointer.
  static const char empty = 0;
  check_bind(sqlite3_bind_blob64(s_, i, v.empty() ? &empty : v.data(), v.size(),
                                 SQLITE_TRANSIENT),
             i);
  return *this;
}

bool Stmt::step() {
  int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail("running " + sql_excerpt(sqlite3_sql(s_)));
}

void Stmt::run() {
  while (step()) {
  }
}

void Stmt::reset() {
  sqlite3_reset(s_);
  sqlite3_clear_bindings(s_);
}

std::string Stmt::column_text(int c) const {
  auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
  return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(s_, c))) : std::string();
}

std::vector<char> Stmt::column_blob(int c) const {
  auto* p = static_cast<const char*>(sqlite3_column_blob(s_, c));
  return p ? std::vector<char>(p, p + sqlite3_column_bytes(s_, c)) : std::vector<char>();
}

Transaction::Transaction(Db& db) : db_(db) {
  db_.exec("BEGIN IMMEDIATE", "starting a write transaction");
  open_ = true;
}

void Transaction::commit() {
  db_.exec("COMMIT", "committing a transaction");
  open_ = false;
}

Transaction::~Transaction() {
  if (open_ && sqlite3_get_autocommit(db_.get()) == 0 &&
      sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr) != SQLITE_OK)
    autogemm::log().warn("tuning cache {}: rolling back a transaction failed: {}", db_.path(),
                 sqlite3_errmsg(db_.get()));
}

}  // namespace autogemm::detail
