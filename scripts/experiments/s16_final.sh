#!/usr/bin/env bash
# Session 16's closing GPU call: test_gpu_sgemm, the gemv and split-K kernel
# tests; then the README's `gemm_tune --device 0` on a fresh cache (the
# public suite) with gemm_bench, and more short-row shapes (2 to 12 rows,
# N short, a larger matrix) tuned into the same cache and benchmarked.
# At most 8 files under $OUT: tests/gpu-tests.log,
# suite/{run.log,suite-tune.json,suite-bench.json,extra-tune.json,extra-bench.json}.
#   OUT=/tmp/o bash scripts/experiments/s16_final.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
mkdir -p "$OUT/tests" "$OUT/suite"
{
  timeout 120 "$B"/tests/test_gpu_sgemm --gtest_brief=1; echo "test_gpu_sgemm rc=$?"
  timeout 150 "$B"/tests/test_gpu_kernels --gtest_brief=1 --gtest_filter='*Gemv*:*gemv*:GpuKernels.SplitK*'
  echo "test_gpu_kernels rc=$?"
} > "$OUT/tests/gpu-tests.log" 2>&1
grep -E "PASSED|FAILED|rc=" "$OUT/tests/gpu-tests.log"
TESTS=" " SUITE_TIMEOUT=230 EXTRA_TIMEOUT=120 OUT="$OUT/suite" \
  EXTRA="2x4096x4096 4x4096x4096 8x4096x4096 12x4096x4096 16x8192x8192 4096x8x4096:TN 4096x16x4096:TN" \
  bash scripts/experiments/tuning_time_and_yardsticks.sh "$B" | tail -n 60
