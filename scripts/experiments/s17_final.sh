#!/usr/bin/env bash
# Session 17's closing GPU call (every strict family's main kernel a
# programmatic dependent launch): test_gpu_sgemm and test_gpu_kernels'
# tiled, warptiled, split-K and gemv variants and every family's defaults
# and alpha = 0 (the call stops here if one fails; the whole
# test_gpu_kernels ran past 240 s); then the README's `gemm_tune --device 0`
# on a fresh cache (the public suite) with gemm_bench, and gemm_bench again
# from the same cache with the dependent launches off
# (AUTOGEMM_DEPENDENT_LAUNCH=0).
# Files under $OUT: tests.log, suite/{run.log, suite-tune.json,
# suite-bench.json, suite-bench-off.json}.
#   OUT=/tmp/o bash scripts/experiments/s17_final.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
mkdir -p "$OUT/suite"
{
  timeout 150 "$B"/tests/test_gpu_sgemm --gtest_brief=1; echo "test_gpu_sgemm rc=$?"
  timeout 150 "$B"/tests/test_gpu_kernels --gtest_brief=1 \
    --gtest_filter='GpuKernels.*:Registry/GpuFamilies.DefaultsAreCorrectOnOddShapes/*:Registry/GpuFamilies.AlphaZero*'
  echo "test_gpu_kernels rc=$?"
} > "$OUT/tests.log" 2>&1
grep -E "PASSED|FAILED|rc=" "$OUT/tests.log"
grep -q "FAILED" "$OUT/tests.log" && exit 1
S="$OUT/suite"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  timeout 230 "$B"/tools/gemm_tune --device 0 --db "$S/tuning.db" --json "$S/suite-tune.json" 2>&1 | grep -v "^\[" | tail -n 3
  echo "suite gemm_tune rc=${PIPESTATUS[0]}"
  AUTOGEMM_CACHE="$S/tuning.db" timeout 150 "$B"/tools/gemm_bench --json "$S/suite-bench.json" 2>&1 | tail -n 4
  AUTOGEMM_DEPENDENT_LAUNCH=0 AUTOGEMM_CACHE="$S/tuning.db" timeout 150 "$B"/tools/gemm_bench \
    --json "$S/suite-bench-off.json" 2>&1 | tail -n 2
} > "$S/run.log" 2>&1
rm -f "$S"/tuning.db*
tail -n 14 "$S/run.log"
python3 scripts/experiments/tune_table.py "$S/suite-tune.json"
python3 scripts/experiments/bench_table.py "$S/suite-bench.json" "$S/suite-bench-off.json"
