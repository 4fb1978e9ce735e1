#!/usr/bin/env bash
# One GPU call: tuning time of the public suite on a fresh cache (the model
# cutoff, rotating timing in the worker), gemm_bench from that cache, then
# EXTRA shapes tuned into the same cache and benchmarked, then exhaustive runs
# of one family over a few shapes into a separate cache (the yardsticks of
# tests/tuner/data), exported. Files under $OUT (at most 8): run.log
#   suite-tune.json suite-bench.json extra-tune.json extra-bench.json
#   exh-tune.json exh-trials.json.gz
#   OUT=/tmp/o EXH_FAMILY=warptiled EXH_SHAPES="4096x4096x4096 ..." \
#     bash scripts/experiments/tuning_time_and_yardsticks.sh gbuild
B=${1:-gbuild}
OUT=${OUT:-$PWD/gpu-out}
export LD_LIBRARY_PATH=$PWD/$B/lib
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
for t in ${TESTS:-test_gpu_benchmark test_gpu_worker}; do
  timeout 200 "$B/tests/$t" --gtest_brief=1 2>&1 | grep -v "^\[ NVRTC\|ptxas" | tail -n 30; echo "$t rc=${PIPESTATUS[0]}"
done
if [ "${SKIP_SUITE:-0}" != 1 ]; then
  timeout "${SUITE_TIMEOUT:-240}" "$B"/tools/gemm_tune --device 0 --db "$OUT/tuning.db" --json "$OUT/suite-tune.json" 2>&1 |
    grep -v "^\[" | tail -n 5
  echo "suite gemm_tune rc=${PIPESTATUS[0]}"
  AUTOGEMM_CACHE="$OUT/tuning.db" timeout 150 "$B"/tools/gemm_bench --json "$OUT/suite-bench.json" 2>&1 | tail -n 4
fi
extra=(); for s in ${EXTRA:-}; do extra+=(--shape "$s"); done
if [ ${#extra[@]} -gt 0 ]; then
  timeout "${EXTRA_TIMEOUT:-100}" "$B"/tools/gemm_tune --device 0 --db "$OUT/tuning.db" "${extra[@]}" --json "$OUT/extra-tune.json" 2>&1 |
    grep -v "^\[" | tail -n 3
  AUTOGEMM_CACHE="$OUT/tuning.db" timeout "${EXTRA_TIMEOUT:-60}" "$B"/tools/gemm_bench "${extra[@]}" --overhead-calls 0 \
    --json "$OUT/extra-bench.json" 2>&1 | tail -n 2
fi
exh=(); for s in ${EXH_SHAPES:-}; do exh+=(--shape "$s"); done
if [ ${#exh[@]} -gt 0 ]; then
  timeout "${EXH_TIMEOUT:-200}" "$B"/tools/gemm_tune --device 0 --db "$OUT/exh.db" --family "${EXH_FAMILY:-warptiled}" \
    --strategy exhaustive "${exh[@]}" --json "$OUT/exh-tune.json" 2>&1 | grep -v "^\[" | tail -n 5
  echo "exhaustive gemm_tune rc=${PIPESTATUS[0]}"
  "$B"/tools/autogemm_cache export --db "$OUT/exh.db" --out "$OUT/exh-trials.json" 2>&1 | tail -n 1
  gzip -f "$OUT/exh-trials.json"
fi
} > "$OUT/run.log" 2>&1
rm -f "$OUT"/tuning.db* "$OUT"/exh.db*
cat "$OUT/run.log"
python3 scripts/experiments/tune_table.py "$OUT"/suite-tune.json "$OUT"/extra-tune.json "$OUT"/exh-tune.json
for f in suite-bench extra-bench; do
  [ -f "$OUT/$f.json" ] && python3 scripts/experiments/bench_table.py "$OUT/$f.json"
done
