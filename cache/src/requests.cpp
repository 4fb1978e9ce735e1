// TuningCache: the shapes applications asked for (table requested_shapes),
// written by the library's recorder and read by gemm_tune --from-record and
// autogemm_cache coverage.
#include <ctime>

#include "autogemm/tuning_cache.h"
#include "impl.h"
#include "rows.h"

namespace autogemm {

using detail::Db;
using detail::Stmt;

namespace {

void check_request(const Db& db, const ShapeRequest& r) {
  detail::check_shape(db, r.shape);
  if (r.calls < 0 || r.first_seen < 0 || r.last_seen < 0)
    db.refuse("refusing to store a recorded shape with a negative call count or time.");
}

}  // namespace

void TuningCache::record_requests(const DeviceKey& dev, const std::vector<ShapeRequest>& requests) {
  auto lock = impl_->enter();
  Db& db = impl_->db;
  detail::check_device(db, dev);
  for (const ShapeRequest& r : requests) check_request(db, r);
  if (requests.empty()) return;
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  detail::Transaction tx(db);
  const int64_t dev_id = detail::device_id(db, dev);
  Stmt put = db.prepare(
      "INSERT INTO requested_shapes (device_id, m, n, k, trans_a, trans_b, aligned, calls, "
      "tuned_when_seen, first_seen, last_seen, batch) VALUES (?1, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?30) "
      "ON CONFLICT (device_id, m, n, k, trans_a, trans_b, aligned, batch) DO UPDATE SET "
      "calls = calls + excluded.calls, first_seen = min(first_seen, excluded.first_seen), "
      "tuned_when_seen = CASE WHEN excluded.last_seen >= last_seen THEN excluded.tuned_when_seen "
      "ELSE tuned_when_seen END, last_seen = max(last_seen, excluded.last_seen)");
  for (const ShapeRequest& r : requests) {
    put.reset();
    put.bind(1, dev_id);
    detail::bind_shape(put, 7, r.shape);
    put.bind(13, r.calls).bind(14, r.tuned_when_seen);
    put.bind(15, r.first_seen > 0 ? r.first_seen : now).bind(16, r.last_seen > 0 ? r.last_seen : now);
    put.run();
  }
  tx.commit();
}

std::vector<ShapeRequest> TuningCache::load_requests(const DeviceKey& dev) const {
  auto lock = impl_->enter();
  Db& db = impl_->db;
  Stmt s = db.prepare((std::string("SELECT x.m, x.n, x.k, x.trans_a, x.trans_b, x.aligned, x.calls, "
                                   "x.tuned_when_seen, x.first_seen, x.last_seen, x.batch FROM requested_shapes AS x "
                                   "JOIN devices AS d ON d.id = x.device_id WHERE ") +
                       detail::kDeviceMatch + " ORDER BY x.calls DESC, x.m, x.n, x.k, x.batch, x.trans_a, x.trans_b, x.aligned")
                          .c_str());
  detail::bind_device(s, dev);
  std::vector<ShapeRequest> out;
  detail::SkippedRows skipped(db, "requested_shapes");
  while (s.step()) {
    auto shape = detail::read_shape(s, 0, 10);
    auto calls = detail::read_count(s, 6);
    auto tuned = detail::read_count(s, 7);
    auto first = detail::read_count(s, 8);
    auto last = detail::read_count(s, 9);
    if (!shape || !calls || !tuned || *tuned > 1 || !first || !last) {
      skipped.add();
      continue;
    }
    out.push_back({*shape, *calls, *tuned == 1, *first, *last});
  }
  return out;
}

}  // namespace autogemm
