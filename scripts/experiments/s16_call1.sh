#!/usr/bin/env bash
# Session 16, first GPU call: gemv with per-thread cp.async rings (st) and
# the every-thread group fold. The gemv kernel tests, then the short-row
# shapes tuned on a fresh cache (all families, the model) with gemm_bench,
# then exhaustive gemv on 16x4096x4096 (the yardstick of tests/tuner/data).
# At most 8 files under $OUT: tests.log, suite/{run.log, extra-tune.json,
# extra-bench.json, exh-tune.json, exh-trials.json.gz}.
#   OUT=/tmp/o bash scripts/experiments/s16_call1.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
mkdir -p "$OUT/suite"
timeout 150 "$B"/tests/test_gpu_kernels --gtest_brief=1 --gtest_filter='*Gemv*:*gemv*' > "$OUT/tests.log" 2>&1
echo "test_gpu_kernels gemv rc=$?"; grep -E "PASSED|FAILED|Failure" "$OUT/tests.log" | head -8
TESTS=" " SKIP_SUITE=1 EXTRA_TIMEOUT=120 OUT="$OUT/suite" \
  EXTRA="16x4096x4096 16x11008x4096 16x4096x11008 8x4096x4096 4x4096x4096 12x4096x4096 4096x16x4096:TN 1x4096x4096" \
  EXH_FAMILY=gemv EXH_SHAPES="16x4096x4096" EXH_TIMEOUT=${EXH_TIMEOUT:-190} \
  bash scripts/experiments/tuning_time_and_yardsticks.sh "$B" | tail -n 40
