// Binding keys to statements, validating values on the way in, and reading
// them back with validation (a bad row is skipped, never trusted).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "autogemm/tuning_cache.h"
#include "sqlite_handle.h"

namespace autogemm::detail {

/// WHERE fragment matching devices AS d against parameters ?1..?6 (bind_device).
extern const char* const kDeviceMatch;
/// Matching a table's shape columns (alias x) against parameters ?7..?12
/// and ?30, the batch (bind_shape(s, 7, ..)).
extern const char* const kShapeMatch;
/// The parameter of a shape's batch column: far above every statement's
/// other parameters, so the columns added with it renumbered nothing.
constexpr int kBatchParam = 30;

void bind_device(Stmt& s, const DeviceKey& d);               // ?1..?6
void bind_shape(Stmt& s, int first, const ShapeKey& shape);  // ?first..?first+5, ?30

/// The id of `dev` in table devices, inserting it first if it is new. Call
/// inside a write transaction.
int64_t device_id(Db& db, const DeviceKey& dev);

// Input checks: throw CacheError naming the bad value; nothing is written.
void check_device(const Db& db, const DeviceKey& d);
void check_shape(const Db& db, const ShapeKey& s);
void check_key_text(const Db& db, const std::string& v, const char* what);
void check_trial(const Db& db, const TrialRecord& t);
void check_winner(const Db& db, const WinnerRecord& w);

// Readers: nullopt when the stored value has the wrong type or is out of range.
std::optional<int64_t> read_count(const Stmt& s, int col);   // INTEGER >= 0
std::optional<double> read_amount(const Stmt& s, int col);   // finite number >= 0
std::optional<std::string> read_key_text(const Stmt& s, int col);  // non-empty TEXT
/// m n k trans_a trans_b aligned from `col` on, and batch at `batch_col`.
std::optional<ShapeKey> read_shape(const Stmt& s, int col, int batch_col);

/// Counts rows skipped while reading one table and logs one warning at the end.
class SkippedRows {
 public:
  SkippedRows(const Db& db, const char* table) : db_(db), table_(table) {}
  ~SkippedRows();
  SkippedRows(const SkippedRows&) = delete;
  SkippedRows& operator=(const SkippedRows&) = delete;
  void add() { ++count_; }

 private:
  const Db& db_;
  const char* table_;
  size_t count_ = 0;
};

}  // namespace autogemm::detail
