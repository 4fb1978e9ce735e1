#!/usr/bin/env bash
# Session 16: is the 16x11008x4096 drop of the closing run (tuned gemv 24.30
# TFLOP/s, gemm_bench 22.62) real? The three 16-row suite shapes tuned over
# every family (the model) and over tiled alone, each cache benchmarked, the
# first twice, in one process each; 8192^3 benchmarked from the first cache
# twice (its 0.966 of cuBLAS in the closing run against 0.993 before).
#   OUT=/tmp/o bash scripts/experiments/s16_check.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
S=(--shape 16x4096x4096 --shape 16x11008x4096 --shape 16x4096x11008)
{
"$B"/tools/gemm_tune --device 0 --db "$OUT/all.db" "${S[@]}" --shape 8192x8192x8192 2>&1 | grep -v "^\[" | tail -n 6
"$B"/tools/gemm_tune --device 0 --db "$OUT/tiled.db" --family tiled "${S[@]}" 2>&1 | grep -v "^\[" | tail -n 5
for i in 1 2; do "$B"/tools/gemm_bench --db "$OUT/all.db" "${S[@]}" --shape 8192x8192x8192 --overhead-calls 0 2>&1 | tail -n 7; done
"$B"/tools/gemm_bench --db "$OUT/tiled.db" "${S[@]}" --overhead-calls 0 2>&1 | tail -n 5
} > "$OUT/check.log" 2>&1
rm -f "$OUT"/*.db*
cat "$OUT/check.log"
