#!/usr/bin/env bash
# Session 12's second GPU call: the gemv kernel tests, the README's tuning
# of the public suite on a fresh cache with gemm_bench, then exhaustive gemv
# runs in what is left of ${BUDGET:-560} s.
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
mkdir -p "$OUT/tests" "$OUT/suite" "$OUT/exh"
timeout 120 "$B"/tests/test_gpu_kernels --gtest_filter='*Gemv*' --gtest_brief=1 > "$OUT/tests/gemv-tests.log" 2>&1
echo "test_gpu_kernels *Gemv* rc=$?"; grep -E "PASSED|FAILED" "$OUT/tests/gemv-tests.log" | head -5
TESTS=" " SUITE_TIMEOUT=200 OUT="$OUT/suite" bash scripts/experiments/tuning_time_and_yardsticks.sh "$B" | tail -n 45
left=$(( ${BUDGET:-560} - SECONDS - 15 ))
echo "exhaustive gemv with ${left} s"
[ "$left" -gt 30 ] && OUT="$OUT/exh" EXH_GROUPS="${EXH:-gemv:1x4096x4096,16x4096x4096,8x4096x4096,1x4096x11008}" \
  TIMEOUTS="$left" bash scripts/experiments/suite_yardsticks.sh "$B" | tail -n 12
