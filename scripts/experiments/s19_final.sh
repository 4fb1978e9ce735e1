#!/usr/bin/env bash
# Session 19's last GPU call (the tuner change only: another shape's winner
# no longer calibrates the model cutoff): the README's `gemm_tune --device 0`
# on a fresh cache and one gemm_bench from it (the device budget left no
# room for the second process or test_gpu_sgemm; the kernels are those of
# the call before). Files under $OUT: suite/{run.log, suite-tune.json,
# suite-bench.json}.
#   OUT=/tmp/o bash scripts/experiments/s19_final.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
S="$OUT/suite"
mkdir -p "$S"
{
  timeout 150 "$B"/tools/gemm_tune --device 0 --db "$S/tuning.db" --json "$S/suite-tune.json" 2>&1 | grep -v "^\[" | tail -n 3
  echo "suite gemm_tune rc=${PIPESTATUS[0]}"
  AUTOGEMM_CACHE="$S/tuning.db" timeout 60 "$B"/tools/gemm_bench --json "$S/suite-bench.json" 2>&1 | tail -n 3
} > "$S/run.log" 2>&1
rm -f "$S"/tuning.db*
tail -n 6 "$S/run.log"
python3 scripts/experiments/tune_table.py "$S/suite-tune.json" | head -n 1
python3 scripts/experiments/vs_exhaustive.py "$S/suite-bench.json" "$S/suite-tune.json"
