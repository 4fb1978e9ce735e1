#!/usr/bin/env bash
# Session 18's closing GPU call (the gemv model's overlap term refitted to
# the yardsticks recorded with dependent launches): test_gpu_sgemm, then
# the README's `gemm_tune --device 0` on a fresh cache (the public suite)
# and gemm_bench twice from that cache (two processes: gemm_bench varies
# 2-4% between them, NOTES 93), and the tuned-against-exhaustive table.
# Files under $OUT: tests.log, suite/{run.log, suite-tune.json,
# suite-bench.json, suite-bench2.json}.
#   OUT=/tmp/o bash scripts/experiments/s18_final.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
mkdir -p "$OUT/suite"
timeout 150 "$B"/tests/test_gpu_sgemm --gtest_brief=1 > "$OUT/tests.log" 2>&1; echo "test_gpu_sgemm rc=$?" >> "$OUT/tests.log"
grep -E "PASSED|FAILED|rc=" "$OUT/tests.log"
grep -q "FAILED" "$OUT/tests.log" && exit 1
S="$OUT/suite"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  timeout 230 "$B"/tools/gemm_tune --device 0 --db "$S/tuning.db" --json "$S/suite-tune.json" 2>&1 | grep -v "^\[" | tail -n 3
  echo "suite gemm_tune rc=${PIPESTATUS[0]}"
  for f in suite-bench suite-bench2; do
    AUTOGEMM_CACHE="$S/tuning.db" timeout 150 "$B"/tools/gemm_bench --json "$S/$f.json" 2>&1 | tail -n 3
  done
} > "$S/run.log" 2>&1
rm -f "$S"/tuning.db*
tail -n 10 "$S/run.log"
python3 scripts/experiments/tune_table.py "$S/suite-tune.json" | tail -n 3
python3 scripts/experiments/vs_exhaustive.py "$S/suite-bench.json" "$S/suite-tune.json"
python3 scripts/experiments/bench_table.py "$S/suite-bench.json" "$S/suite-bench2.json" | tail -n 8
