// RAII wrappers over the SQLite C API, private to the cache component.
//
// Every SQLite failure becomes an autogemm::CacheError whose message names the
// database file, what was being done and sqlite3_errmsg(). Nothing here knows
// about the schema.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

namespace autogemm::detail {

class Stmt;

/// One connection (sqlite3*), closed on destruction.
class Db {
 public:
  /// Opens `path` with sqlite3_open_v2 `flags` (never SQLITE_OPEN_CREATE here:
  /// the caller creates files itself, with the right permissions).
  Db(const std::string& path, int flags);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }

  /// Runs one or more statements that return no rows we need.
  void exec(const char* sql, const char* action);
  Stmt prepare(const char* sql) const;
  /// Runs a statement (e.g. a PRAGMA) whose first row's first column is an integer.
  int64_t query_int(const char* sql, const char* action) const;
  /// Same for a text result; "" if there is no row.
  std::string query_text(const char* sql) const;

  /// Throws CacheError: "<action> in the tuning cache <path> failed: <errmsg>."
  [[noreturn]] void fail(const std::string& action) const;
  /// Throws CacheError with the message about this file, without an SQLite error.
  [[noreturn]] void refuse(const std::string& why) const;

  /// Leaves the connection open on destruction (used after fork(): a child
  /// must not touch the parent's SQLite state).
  void leak() { db_ = nullptr; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

/// One prepared statement, finalized on destruction. Bind indexes are 1-based,
/// column indexes 0-based, as in SQLite.
class Stmt {
 public:
  Stmt(const Db& db, const char* sql);
  ~Stmt();
  Stmt(Stmt&& o) noexcept;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& operator=(Stmt&&) = delete;

  Stmt& bind(int i, int64_t v);
  Stmt& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Stmt& bind(int i, bool v) { return bind(i, static_cast<int64_t>(v ? 1 : 0)); }
  Stmt& bind(int i, double v);
  Stmt& bind(int i, const std::string& v);
  Stmt& bind_blob(int i, const std::vector<char>& v);

  /// Advances; true if a row is available, false when done.
  bool step();
  /// Steps a statement that must not return rows (INSERT/UPDATE).
  void run();
  void reset();

  int column_type(int c) const { return sqlite3_column_type(s_, c); }
  int64_t column_int(int c) const { return sqlite3_column_int64(s_, c); }
  double column_double(int c) const { return sqlite3_column_double(s_, c); }
  std::string column_text(int c) const;
  std::vector<char> column_blob(int c) const;

 private:
  void check_bind(int rc, int i);
  const Db* db_;
  sqlite3_stmt* s_ = nullptr;
};

/// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless commit()ed.
/// IMMEDIATE takes the write lock up front, so the busy timeout applies and a
/// concurrent writer waits instead of failing with SQLITE_BUSY later.
class Transaction {
 public:
  explicit Transaction(Db& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Db& db_;
  bool open_ = false;
};

}  // namespace autogemm::detail
