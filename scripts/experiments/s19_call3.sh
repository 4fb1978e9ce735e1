#!/usr/bin/env bash
# Session 19, third call (the ring with rotated sums, its split loop, the
# dead register loop skipped, and un=4 rings in the space): the whole
# test_gpu_kernels in 8 parallel gtest shards, then the gemv shapes tuned
# on a fresh cache (model, every family) and benchmarked, then exhaustive
# gemv over the 16- and 8-row suite shapes (the new yardsticks).
#   OUT=/tmp/o bash scripts/experiments/s19_call3.sh gbuild
B=${1:-gbuild}
t0=$(date +%s)
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i LD_LIBRARY_PATH=$PWD/$B/lib timeout 300 "$B"/tests/test_gpu_kernels \
    --gtest_brief=1 > /tmp/shard$i.log 2>&1 &
done
wait
for i in 0 1 2 3 4 5 6 7; do echo "== shard $i"; cat /tmp/shard$i.log; done > "$OUT/tests.log"
echo "test_gpu_kernels 8 shards: $(( $(date +%s) - t0 )) s"
grep -hE "^\[  PASSED|^\[  FAILED|Failure|tests ran" /tmp/shard*.log | sort | uniq -c | head -12
mkdir -p "$OUT/x"
TESTS=" " SKIP_SUITE=1 EXTRA="16x4096x4096 16x11008x4096 16x4096x11008 8x4096x4096 16x8192x8192 4096x16x4096:TN" \
  EXH_FAMILY=gemv EXH_SHAPES="16x4096x4096 16x11008x4096 8x4096x4096" EXH_TIMEOUT=${EXH_TIMEOUT:-300} OUT=$OUT/x \
  bash scripts/experiments/tuning_time_and_yardsticks.sh "$B" 2>&1 | tail -40
