#!/usr/bin/env bash
# suite_yardsticks.sh — one GPU call: exhaustive runs (every config of one
# family's search space) over groups of shapes, each group into its own
# cache, exported as trials
# (the yardsticks of tests/tuner/data, through trials_to_csv.py). A group
# that runs out of time keeps what it measured: its cache comes back too,
# and a later call resumes it (carry it as RESUME_DIR/exh-FAMILY.db).
#   OUT=/tmp/o EXH_GROUPS="warptiled:8192x8192x8192,5000x5000x5000 gemv:1x4096x11008" \
#     TIMEOUTS="300 60" bash scripts/suite_yardsticks.sh gbuild
# Files under $OUT: run.log, exh-FAMILY-tune.json, exh-FAMILY-trials.json.gz,
# exh-FAMILY.db.gz (at most 8 files: three groups). Then the CSV:
#   python3 scripts/trials_to_csv.py exh-FAMILY-trials.json.gz "header" > tests/tuner/data/...
HELP='usage: OUT=DIR EXH_GROUPS="family:shape,shape ..." [TIMEOUTS="s ..." RESUME_DIR=DIR] bash scripts/suite_yardsticks.sh BUILD_DIR  (exhaustive tuning per family, exported as trials: the yardsticks of tests/tuner/data)'
case "${1:-}" in -h|--help) echo "$HELP"; exit 0 ;; esac
if ! { [ $# -eq 1 ] && [ -d "$1/tools" ] && [ -n "${EXH_GROUPS:-}" ]; }; then echo "$HELP" >&2; exit 2; fi
B=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$B/lib
read -r -a timeouts <<< "${TIMEOUTS:-200}"
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
i=0
for g in $EXH_GROUPS; do
  fam=${g%%:*}; t=${timeouts[$i]:-${timeouts[-1]}}; i=$((i + 1))
  shapes=(); IFS=, read -r -a list <<< "${g#*:}"; for s in "${list[@]}"; do shapes+=(--shape "$s"); done
  db="$OUT/exh-$fam.db"
  [ -n "${RESUME_DIR:-}" ] && [ -f "$RESUME_DIR/exh-$fam.db" ] && cp "$RESUME_DIR/exh-$fam.db" "$db"
  start=$SECONDS
  timeout --signal=INT "$t" "$B"/tools/gemm_tune --device 0 --db "$db" --family "$fam" --strategy exhaustive \
    "${shapes[@]}" --json "$OUT/exh-$fam-tune.json" 2>&1 | grep -v "^\[" | tail -n 4
  echo "$fam: gemm_tune rc=${PIPESTATUS[0]} in $((SECONDS - start)) s"
  "$B"/tools/autogemm_cache export --db "$db" --out "$OUT/exh-$fam-trials.json" 2>&1 | tail -n 1
  gzip -f "$OUT/exh-$fam-trials.json"
  python3 -c "import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute('PRAGMA wal_checkpoint(TRUNCATE)')" "$db"
  gzip -f "$db"
done
} > "$OUT/run.log" 2>&1
cat "$OUT/run.log"
for f in "$OUT"/exh-*-tune.json; do [ -f "$f" ] && python3 "$HERE/tune_table.py" "$f"; done
