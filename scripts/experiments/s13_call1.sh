#!/usr/bin/env bash
# Session 13's first GPU call: the tiled family's split-K tests (the cluster
# fold, rd=2, against the workspace folds, bit for bit), exhaustive tiled on
# the 16-row suite shapes (now with rd=2) into one cache, then gemm_bench
# of those shapes from that cache (TB/s against cuBLAS) with the dispatch
# overhead, and the remaining time on an exhaustive tiled 64x64x65536.
#   OUT=/tmp/o bash scripts/experiments/s13_call1.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
mkdir -p "$OUT/tests" "$OUT/exh16" "$OUT/bench" "$OUT/exh64"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 200 "$B"/tests/test_gpu_kernels \
  --gtest_filter='*SplitK*:*ClusterFold*:*AlphaZero*Tiled*:*TiledVariants*' --gtest_brief=1 > "$OUT/tests/tiled-tests.log" 2>&1
echo "test_gpu_kernels split-K rc=$?"; grep -E "PASSED|FAILED|Failure|differ" "$OUT/tests/tiled-tests.log" | head -12
OUT="$OUT/exh16" EXH_GROUPS="tiled:16x4096x4096,16x11008x4096,16x4096x11008" TIMEOUTS="${T16:-200}" \
  bash scripts/experiments/suite_yardsticks.sh "$B" | tail -n 8
gunzip -k "$OUT/exh16/exh-tiled.db.gz"
timeout 120 "$B"/tools/gemm_bench --device 0 --db "$OUT/exh16/exh-tiled.db" --shape 16x4096x4096 \
  --shape 16x11008x4096 --shape 16x4096x11008 --json "$OUT/bench/bench16.json" > "$OUT/bench/bench16.log" 2>&1
echo "gemm_bench rc=$?"; rm -f "$OUT/exh16/exh-tiled.db"
grep -v "^\[" "$OUT/bench/bench16.log" | tail -n 12
left=$(( ${BUDGET:-560} - SECONDS - 20 ))
echo "exhaustive tiled 64x64x65536 with ${left} s"
[ "$left" -gt 30 ] && OUT="$OUT/exh64" EXH_GROUPS="tiled:64x64x65536" TIMEOUTS="$left" \
  bash scripts/experiments/suite_yardsticks.sh "$B" | tail -n 6
