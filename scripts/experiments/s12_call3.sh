B=gbuild; export LD_LIBRARY_PATH=$PWD/$B/lib
mkdir -p "$OUT/tests" "$OUT/suite" "$OUT/exh"
( timeout 100 $B/tests/test_gpu_kernels --gtest_filter='*Gemv*' --gtest_brief=1; echo "rc=$?"; timeout 120 $B/tests/test_gpu_sgemm --gtest_brief=1; echo "rc=$?" ) > "$OUT/tests/gpu-tests.log" 2>&1
grep -E "PASSED|FAILED|rc=" "$OUT/tests/gpu-tests.log"
TESTS=" " SUITE_TIMEOUT=200 EXTRA="4096x1x4096:TN 1x8192x8192 1x16384x4096 2x8192x8192" OUT="$OUT/suite" bash scripts/experiments/tuning_time_and_yardsticks.sh $B | tail -n 50
left=$(( 540 - SECONDS ))
echo "exhaustive gemv with ${left} s"
[ "$left" -gt 30 ] && OUT="$OUT/exh" EXH_GROUPS="gemv:4096x1x4096:TN,1x11008x4096,1x4097x4095" TIMEOUTS="$left" bash scripts/experiments/suite_yardsticks.sh $B | tail -n 8
