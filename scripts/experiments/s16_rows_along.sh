#!/usr/bin/env bash
# Session 16: rings that also stage vectors contiguous along the rows (M
# short with A^T, N short with B row-major). The gemv kernel tests (every
# layout, rings included), then those layouts' short shapes and the NN
# 16x4096x4096 tuned on a fresh cache (every family) and benchmarked.
# Files under $OUT: tests.log, run.log, tune.json, bench.json.
#   OUT=/tmp/o bash scripts/experiments/s16_rows_along.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
timeout 150 "$B"/tests/test_gpu_kernels --gtest_brief=1 --gtest_filter='*Gemv*:*gemv*' > "$OUT/tests.log" 2>&1
echo "test_gpu_kernels gemv rc=$?"; grep -E "PASSED|FAILED|Failure" "$OUT/tests.log" | head -8
S=(--shape 4096x16x4096:TN --shape 4096x8x4096:TN --shape 16x4096x4096:TN --shape 8x4096x4096:TN
   --shape 16x4096x4096)
{
timeout 100 "$B"/tools/gemm_tune --device 0 --db "$OUT/t.db" "${S[@]}" --json "$OUT/tune.json" 2>&1 | grep -v "^\[" | tail -n 7
timeout 60 "$B"/tools/gemm_bench --db "$OUT/t.db" "${S[@]}" --overhead-calls 0 --json "$OUT/bench.json" 2>&1 | tail -n 8
} > "$OUT/run.log" 2>&1
rm -f "$OUT"/t.db*
cat "$OUT/run.log"
python3 scripts/experiments/bench_table.py "$OUT/bench.json"
