// Schema version 6: the timing regime of every measurement. See schema.cpp for
// the migration rules (append-only, one transaction); this step lives apart
// only for length.
#include "schema.h"

#include "sqlite_handle.h"

namespace autogemm::detail {

// trials, winners and tuning_runs gain `timing`: 'rotate' (operands cycled
// through copies exceeding L2, every row written before) or 'warm' (the same
// operands call after call). It is not part of any key: a shape has one
// winner per family, and re-tuning it in the other regime replaces it. The
// two views that show winners and tuning runs come back showing it.
void add_timing_columns(Db& db) {
  db.exec(R"sql(
DROP VIEW best_configs;
DROP VIEW tuning_history;
ALTER TABLE trials ADD COLUMN timing TEXT NOT NULL DEFAULT 'rotate';
ALTER TABLE winners ADD COLUMN timing TEXT NOT NULL DEFAULT 'rotate';
ALTER TABLE tuning_runs ADD COLUMN timing TEXT NOT NULL DEFAULT 'rotate';
CREATE VIEW best_configs AS
SELECT d.name AS device,
       'sm_' || d.cc_major || d.cc_minor AS arch,
       'row-major ' || CASE WHEN w.trans_a THEN 'T' ELSE 'N' END
                    || CASE WHEN w.trans_b THEN 'T' ELSE 'N' END AS layout,
       w.m AS m, w.n AS n, w.k AS k, w.batch AS batch,
       CASE WHEN w.aligned THEN 'yes' ELSE 'no' END AS aligned,
       w.family AS family,
       w.config AS config,
       round(w.gflops, 1) AS gflops,
       round(w.median_ms, 4) AS median_ms,
       w.timing AS timing,
       datetime(w.tuned_at, 'unixepoch') AS tuned
FROM winners AS w JOIN devices AS d ON d.id = w.device_id
ORDER BY d.name, w.m, w.n, w.k, w.batch, w.trans_a, w.trans_b, w.aligned, w.family;
CREATE VIEW tuning_history AS
SELECT d.name AS device,
       'row-major ' || CASE WHEN r.trans_a THEN 'T' ELSE 'N' END
                    || CASE WHEN r.trans_b THEN 'T' ELSE 'N' END AS layout,
       r.m AS m, r.n AS n, r.k AS k, r.batch AS batch,
       r.family AS family,
       r.strategy AS strategy, r.timing AS timing, r.candidates AS candidates,
       round(r.compile_s, 2) AS compile_s, round(r.wall_s, 2) AS wall_s,
       r.winner_config AS winner,
       CASE WHEN r.winner_stored THEN 'yes' ELSE 'no' END AS stored,
       datetime(r.finished_at, 'unixepoch') AS finished
FROM tuning_runs AS r JOIN devices AS d ON d.id = r.device_id
ORDER BY r.finished_at, r.id;
)sql",
          "adding the version 6 timing columns and views");
}

}  // namespace autogemm::detail
