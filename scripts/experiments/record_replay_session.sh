#!/usr/bin/env bash
# One GPU call for issue 11: the GPU tests not yet run on the H200 (the
# dispatch record, the cubin trust rule), then a user's session, each command
# printed with its real output: a small program run with recording on, the
# cache's coverage, gemm_tune --from-record, coverage again, the program from
# the tuned cache, a second cache merged in, gemm_bench of the recorded shapes.
# Files under $OUT: session.txt gpu_tests.log tune.json other-tune.json
# bench.json cache-export.json
#   OUT=/tmp/o bash scripts/experiments/record_replay_session.sh gbuild
B=${1:-gbuild}
OUT=${OUT:-$PWD/gpu-out}
export LD_LIBRARY_PATH=$PWD/$B/lib
T=$B/tools
W=$(mktemp -d)
export AUTOGEMM_CACHE=$W/tuning.db
# say <command...>: prints the command, then runs it with its output (stdout and stderr).
say() { echo "\$ $*"; timeout 90 "$@" 2>&1 | grep -v "^\[ NVRTC\|ptxas"; echo; }
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  timeout 60 "$B/tests/test_gpu_sgemm" --gtest_filter='*Records*:*Dispatch*:*SplitK*' --gtest_brief=1 2>&1 | tail -n 20
  echo "test_gpu_sgemm rc=${PIPESTATUS[0]}"
  timeout 90 "$B/tests/test_gpu_tune_dispatch" --gtest_brief=1 2>&1 | tail -n 20
  echo "test_gpu_tune_dispatch rc=${PIPESTATUS[0]}"
} > "$OUT/gpu_tests.log" 2>&1
{
  echo "# AUTOGEMM_CACHE=$AUTOGEMM_CACHE (a fresh cache)"
  say env AUTOGEMM_RECORD_UNTUNED=1 "$T/sgemm_example" 1000 1000 1000
  say env AUTOGEMM_RECORD_UNTUNED=1 "$T/sgemm_example" 64 4096 1024
  say env AUTOGEMM_RECORD_UNTUNED=1 "$T/sgemm_example" 1000 1000 1000
  say "$T/autogemm_cache" coverage
  say "$T/gemm_tune" --device 0 --from-record --json "$OUT/tune.json"
  say "$T/autogemm_cache" coverage
  say "$T/sgemm_example" 1000 1000 1000
  say "$T/gemm_tune" --device 0 --db "$W/other.db" --shape 512x512x512 --json "$OUT/other-tune.json"
  say "$T/autogemm_cache" merge --from "$W/other.db"
  say "$T/autogemm_cache" list
  say sqlite3 -box "$AUTOGEMM_CACHE" "select layout, m, n, k, aligned, calls, tuned from shape_coverage"
  say "$T/gemm_bench" --shape 1000x1000x1000 --shape 64x4096x1024 --shape 512x512x512 --overhead-calls 0 \
    --json "$OUT/bench.json"
  "$T/autogemm_cache" export --out "$OUT/cache-export.json" > /dev/null 2>&1
} > "$OUT/session.txt" 2>&1
rm -rf "$W"
