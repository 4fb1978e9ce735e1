#!/usr/bin/env bash
# Session 13: the two suite shapes whose warptiled picks the stage term of
# NOTES step 79 changes, tuned on a fresh cache (one gemm_tune, so the first
# shape pays every compile) and benchmarked. Files: run.log, tune.json, bench.json.
#   OUT=/tmp/o bash scripts/experiments/s13_model_check.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
{
timeout 120 "$B"/tools/gemm_tune --device 0 --db "$OUT/t.db" --shape 4096x4096x128 --shape 8192x8192x256 \
  --json "$OUT/tune.json" 2>&1 | grep -v "^\[" | tail -n 4
AUTOGEMM_CACHE="$OUT/t.db" timeout 60 "$B"/tools/gemm_bench --shape 4096x4096x128 --shape 8192x8192x256 \
  --json "$OUT/bench.json" 2>&1 | tail -n 6
} > "$OUT/run.log" 2>&1
rm -f "$OUT"/t.db*
cat "$OUT/run.log"; python3 scripts/experiments/tune_table.py "$OUT/tune.json"
