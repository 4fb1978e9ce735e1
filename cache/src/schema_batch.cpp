// Schema version 5: strided batches. See schema.cpp for the migration rules
// (append-only, one transaction); this step lives apart only for length.
#include "schema.h"

#include "sqlite_handle.h"

namespace autogemm::detail {

// Every shape key gains `batch`: the bucket of a strided batch's count
// (ShapeKey::batch), 1 for a plain call and for every row written before.
// SQLite cannot change a primary key, so the three keyed tables are rebuilt
// with batch in their keys; tuning_runs only gains the column. The views go
// first (renaming a rebuilt table fails on a view naming the dropped one)
// and come back showing the batch.
void add_batch_columns(Db& db) {
  db.exec(R"sql(
DROP VIEW best_configs;
DROP VIEW trial_summary;
DROP VIEW tuning_history;
DROP VIEW shape_coverage;
CREATE TABLE trials_v5 (
  device_id     INTEGER NOT NULL REFERENCES devices(id),
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL,
  trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL, aligned INTEGER NOT NULL,
  batch         INTEGER NOT NULL DEFAULT 1,
  template_hash TEXT    NOT NULL,
  config        TEXT    NOT NULL,
  status        TEXT    NOT NULL,
  median_ms     REAL    NOT NULL,
  spread_ms     REAL    NOT NULL,
  gflops        REAL    NOT NULL,
  detail        TEXT    NOT NULL DEFAULT '',
  recorded_at   INTEGER NOT NULL,
  family        TEXT    NOT NULL DEFAULT '',
  PRIMARY KEY (device_id, m, n, k, trans_a, trans_b, aligned, batch, template_hash, config)
);
INSERT INTO trials_v5 (device_id, m, n, k, trans_a, trans_b, aligned, batch, template_hash, config,
                       status, median_ms, spread_ms, gflops, detail, recorded_at, family)
  SELECT device_id, m, n, k, trans_a, trans_b, aligned, 1, template_hash, config,
         status, median_ms, spread_ms, gflops, detail, recorded_at, family FROM trials;
DROP TABLE trials;
ALTER TABLE trials_v5 RENAME TO trials;
CREATE TABLE winners_v5 (
  device_id     INTEGER NOT NULL REFERENCES devices(id),
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL,
  trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL, aligned INTEGER NOT NULL,
  batch         INTEGER NOT NULL DEFAULT 1,
  family        TEXT    NOT NULL,
  config        TEXT    NOT NULL,
  template_hash TEXT    NOT NULL,
  median_ms     REAL    NOT NULL,
  spread_ms     REAL    NOT NULL,
  gflops        REAL    NOT NULL,
  tuned_at      INTEGER NOT NULL,
  PRIMARY KEY (device_id, m, n, k, trans_a, trans_b, aligned, batch, family)
);
INSERT INTO winners_v5 (device_id, m, n, k, trans_a, trans_b, aligned, batch, family, config,
                        template_hash, median_ms, spread_ms, gflops, tuned_at)
  SELECT device_id, m, n, k, trans_a, trans_b, aligned, 1, family, config,
         template_hash, median_ms, spread_ms, gflops, tuned_at FROM winners;
DROP TABLE winners;
ALTER TABLE winners_v5 RENAME TO winners;
CREATE TABLE requested_shapes_v5 (
  device_id       INTEGER NOT NULL REFERENCES devices(id),
  m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL,
  trans_a INTEGER NOT NULL, trans_b INTEGER NOT NULL, aligned INTEGER NOT NULL,
  batch           INTEGER NOT NULL DEFAULT 1,
  calls           INTEGER NOT NULL,
  tuned_when_seen INTEGER NOT NULL,
  first_seen      INTEGER NOT NULL,
  last_seen       INTEGER NOT NULL,
  PRIMARY KEY (device_id, m, n, k, trans_a, trans_b, aligned, batch)
);
INSERT INTO requested_shapes_v5 (device_id, m, n, k, trans_a, trans_b, aligned, batch, calls,
                                 tuned_when_seen, first_seen, last_seen)
  SELECT device_id, m, n, k, trans_a, trans_b, aligned, 1, calls, tuned_when_seen, first_seen, last_seen
  FROM requested_shapes;
DROP TABLE requested_shapes;
ALTER TABLE requested_shapes_v5 RENAME TO requested_shapes;
ALTER TABLE tuning_runs ADD COLUMN batch INTEGER NOT NULL DEFAULT 1;
)sql",
          "rebuilding the tables with the version 5 batch column");
  db.exec(R"sql(
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
       datetime(w.tuned_at, 'unixepoch') AS tuned
FROM winners AS w JOIN devices AS d ON d.id = w.device_id
ORDER BY d.name, w.m, w.n, w.k, w.batch, w.trans_a, w.trans_b, w.aligned, w.family;
CREATE VIEW trial_summary AS
SELECT d.name AS device,
       'sm_' || d.cc_major || d.cc_minor AS arch,
       'row-major ' || CASE WHEN t.trans_a THEN 'T' ELSE 'N' END
                    || CASE WHEN t.trans_b THEN 'T' ELSE 'N' END AS layout,
       t.m AS m, t.n AS n, t.k AS k, t.batch AS batch,
       CASE WHEN t.aligned THEN 'yes' ELSE 'no' END AS aligned,
       t.family AS family,
       count(*) AS trials,
       sum(t.status = 'ok') AS ok,
       sum(t.status <> 'ok') AS failed,
       sum(t.status = 'compile_failed') AS compile_failed,
       sum(t.status = 'limits_exceeded') AS limits_exceeded,
       sum(t.status = 'wrong_result') AS wrong_result,
       sum(t.status = 'timeout') AS timeout,
       sum(t.status = 'crashed') AS crashed,
       round(max(CASE WHEN t.status = 'ok' THEN t.gflops END), 1) AS best_gflops,
       datetime(max(t.recorded_at), 'unixepoch') AS last_trial
FROM trials AS t JOIN devices AS d ON d.id = t.device_id
GROUP BY t.device_id, t.m, t.n, t.k, t.trans_a, t.trans_b, t.aligned, t.batch, t.family
ORDER BY d.name, t.m, t.n, t.k, t.batch, t.trans_a, t.trans_b, t.aligned, t.family;
CREATE VIEW tuning_history AS
SELECT d.name AS device,
       'row-major ' || CASE WHEN r.trans_a THEN 'T' ELSE 'N' END
                    || CASE WHEN r.trans_b THEN 'T' ELSE 'N' END AS layout,
       r.m AS m, r.n AS n, r.k AS k, r.batch AS batch,
       r.family AS family,
       r.strategy AS strategy, r.candidates AS candidates,
       round(r.compile_s, 2) AS compile_s, round(r.wall_s, 2) AS wall_s,
       r.winner_config AS winner,
       CASE WHEN r.winner_stored THEN 'yes' ELSE 'no' END AS stored,
       datetime(r.finished_at, 'unixepoch') AS finished
FROM tuning_runs AS r JOIN devices AS d ON d.id = r.device_id
ORDER BY r.finished_at, r.id;
CREATE VIEW shape_coverage AS
SELECT d.name AS device,
       'row-major ' || CASE WHEN r.trans_a THEN 'T' ELSE 'N' END
                    || CASE WHEN r.trans_b THEN 'T' ELSE 'N' END AS layout,
       r.m AS m, r.n AS n, r.k AS k, r.batch AS batch,
       CASE WHEN r.aligned THEN 'yes' ELSE 'no' END AS aligned,
       r.calls AS calls,
       CASE WHEN EXISTS (SELECT 1 FROM winners AS w WHERE w.device_id = r.device_id
                         AND w.m = r.m AND w.n = r.n AND w.k = r.k AND w.trans_a = r.trans_a
                         AND w.trans_b = r.trans_b AND w.aligned = r.aligned AND w.batch = r.batch)
            THEN 'yes' ELSE 'no' END AS tuned,
       datetime(r.first_seen, 'unixepoch') AS first_seen,
       datetime(r.last_seen, 'unixepoch') AS last_seen
FROM requested_shapes AS r JOIN devices AS d ON d.id = r.device_id
ORDER BY d.name, r.calls DESC, r.m, r.n, r.k, r.batch;
)sql",
          "creating the version 5 views");
}

}  // namespace autogemm::detail
