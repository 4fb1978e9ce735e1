#!/usr/bin/env bash
# Session 16, third GPU call: gemv rings with the vectors staged (one warp
# barrier a batch). The gemv kernel tests, then exhaustive gemv on
# 16x4096x4096 and 8x4096x4096 (the yardsticks of tests/tuner/data: the
# space now holds the rings for 4 rows or more).
# Files under $OUT: tests.log, suite/{run.log, exh-tune.json, exh-trials.json.gz}.
#   OUT=/tmp/o bash scripts/experiments/s16_call3.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
mkdir -p "$OUT/suite"
timeout 150 "$B"/tests/test_gpu_kernels --gtest_brief=1 --gtest_filter='*Gemv*:*gemv*' > "$OUT/tests.log" 2>&1
echo "test_gpu_kernels gemv rc=$?"; grep -E "PASSED|FAILED|Failure" "$OUT/tests.log" | head -8
TESTS=" " SKIP_SUITE=1 OUT="$OUT/suite" EXH_FAMILY=gemv EXH_SHAPES="16x4096x4096 8x4096x4096" \
  EXH_TIMEOUT=${EXH_TIMEOUT:-330} bash scripts/experiments/tuning_time_and_yardsticks.sh "$B" | tail -n 12
