#!/usr/bin/env bash
# Session 13's closing GPU call: test_gpu_sgemm, then the README's
# `gemm_tune --device 0` on a fresh cache (the public suite) with gemm_bench,
# then the unaligned pairs and 16-row shapes tuned into the same cache and
# benchmarked. At most 8 files under $OUT: tests/gpu-tests.log,
# suite/{run.log,suite-tune.json,suite-bench.json,extra-tune.json,extra-bench.json}.
#   OUT=/tmp/o bash scripts/experiments/s13_final.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
mkdir -p "$OUT/tests" "$OUT/suite"
( timeout 120 "$B"/tests/test_gpu_sgemm --gtest_brief=1; echo "test_gpu_sgemm rc=$?" ) > "$OUT/tests/gpu-tests.log" 2>&1
grep -E "PASSED|FAILED|rc=" "$OUT/tests/gpu-tests.log"
TESTS=" " SUITE_TIMEOUT=230 OUT="$OUT/suite" \
  EXTRA="4096x4096x1024 4095x4097x1023 1024x1024x2048:TT 1025x1023x2049:TT 3000x3000x1536:NT 3001x2999x1537:NT" \
  bash scripts/experiments/tuning_time_and_yardsticks.sh "$B" | tail -n 50
