#!/usr/bin/env bash
# tf32x3wg_check.sh — one GPU call for the wgmma 3xTF32 family: its GPU tests,
# an exhaustive tuning of the given shapes in math mode fp32_accurate, and
# gemm_bench --fp32-accurate on them. Logs and JSON under $OUT.
#   OUT=/tmp/o SHAPES="4096x4096x4096" FAMILIES="tf32x3wg" bash scripts/experiments/tf32x3wg_check.sh gbuild
set -u -o pipefail
B=${1:-build}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/$B/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader | tee "$OUT/gpu.txt"
if [ -n "${GTEST_FILTERS:-}" ]; then
  for spec in $GTEST_FILTERS; do   # binary:filter
    bin=${spec%%:*}; filt=${spec#*:}
    timeout "${TEST_TIMEOUT:-240}" "$B/tests/$bin" --gtest_filter="$filt" --gtest_brief=1 2>&1 | tail -n 60 | tee -a "$OUT/tests.log"
    echo "$bin $filt rc=${PIPESTATUS[0]}" | tee -a "$OUT/tests.log"
  done
fi
args=(); for s in ${SHAPES:-4096x4096x4096}; do args+=(--shape "$s"); done
fams=(); for f in ${FAMILIES:-tf32x3wg}; do fams+=(--family "$f"); done
if [ "${SKIP_TUNE:-0}" != 1 ]; then
  # shellcheck disable=SC2086
  timeout "${TUNE_TIMEOUT:-300}" "$B"/tools/gemm_tune --device 0 --db "$OUT/tuning.db" --math-mode fp32_accurate "${fams[@]}" \
    "${args[@]}" ${TUNE_ARGS:---strategy exhaustive} --json "$OUT/tune.json" > "$OUT/tune.log" 2>&1
  echo "gemm_tune rc=$?"; tail -n 30 "$OUT/tune.log"
fi
# shellcheck disable=SC2086
AUTOGEMM_CACHE="$OUT/tuning.db" timeout 200 "$B"/tools/gemm_bench "${args[@]}" --fp32-accurate ${BENCH_ARGS:-} \
  --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log" | tail -n 40
