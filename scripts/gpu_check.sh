#!/usr/bin/env bash
# gpu_check.sh — the one GPU run: GPU tests, a tuning smoke run, the example
# dispatching from the tuned cache, the benchmark; logs and JSON to $OUT and
# a short summary table last. Run from the repo root on a GPU machine with a
# build folder made on the development machine (see README, "GPU machine").
#
#   OUT=/tmp/out scripts/gpu_check.sh [build-dir]        (full check, public suite)
#   TUNE_SHAPES="4096x4096x4096 16x4096x4096" TUNE_ARGS="--strategy exhaustive" ...
#   SKIP_TESTS=1 / SKIP_BENCH=1 leave those parts out; TEST_TIMEOUT (s, 600) bounds each GPU test binary;
#   TESTS='test_gpu_kernels test_gpu_worker' runs only those binaries.
#   SANITIZER=1 adds scripts/compute_sanitizer.sh (memcheck, racecheck,
#   initcheck over the default kernels; logs $OUT/sanitizer-*.log, ~3 min).
set -u -o pipefail
B=${1:-build}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
DB="$OUT/tuning.db"
summary=()

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  : > "$OUT/gpu_tests.log"
  for t in "$B"/tests/test_gpu_*; do
    case "$t" in *.cmake) continue ;; esac
    name=$(basename "$t")
    if [ -n "${TESTS:-}" ] && [[ " $TESTS " != *" $name "* ]]; then continue; fi
    # A hung test must not eat the whole run: TEST_TIMEOUT seconds per binary.
    timeout "${TEST_TIMEOUT:-600}" "$t" --gtest_brief=1 2>&1 | tee -a "$OUT/gpu_tests.log"
    rc=${PIPESTATUS[0]}
    summary+=("$(printf '%-28s %s' "$name" "$([ "$rc" = 0 ] && echo PASS || echo "FAIL (rc=$rc)")")")
  done
fi

# TUNE_SHAPES: shapes to tune and benchmark; "suite" (the default) is the
# built-in public suite of gemm_tune and gemm_bench.
shapes=${TUNE_SHAPES:-suite}
args=()
if [ "$shapes" = suite ]; then shapes="4096x4096x4096"; else for s in $shapes; do args+=(--shape "$s"); done; fi
# shellcheck disable=SC2086
"$B"/tools/gemm_tune --device 0 --db "$DB" "${args[@]}" ${TUNE_ARGS:-} --json "$OUT/tune.json" 2>&1 | tee "$OUT/tune.log" | tail -n 40
summary+=("$(printf '%-28s rc=%s' gemm_tune "${PIPESTATUS[0]}")")

first=$(echo "$shapes" | awk '{print $1}' | sed 's/:.*//; s/x/ /g')
AUTOGEMM_LOG_LEVEL=info AUTOGEMM_CACHE="$DB" "$B"/tools/sgemm_example $first 2>&1 | tee "$OUT/example.log"
summary+=("$(printf '%-28s %s' sgemm_example "$(grep -o 'nvrtc_compiles=[0-9]*.*' "$OUT/example.log")")")

if [ -x "$B/tools/gemm_bench" ] && [ "${SKIP_BENCH:-0}" != 1 ]; then
  # shellcheck disable=SC2086
  AUTOGEMM_CACHE="$DB" "$B"/tools/gemm_bench "${args[@]}" ${BENCH_ARGS:-} --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log" | tail -n 45
fi

if [ "${SANITIZER:-0}" = 1 ]; then
  OUT="$OUT" "$(dirname "$0")"/compute_sanitizer.sh "$B" 2>&1 | tee "$OUT/sanitizer.log"
  rc=${PIPESTATUS[0]}
  summary+=("$(printf '%-28s %s' compute-sanitizer "$([ "$rc" = 0 ] && echo "PASS (0 errors)" || echo "FAIL (rc=$rc)")")")
  while IFS= read -r l; do summary+=("  $l"); done < <(cat "$OUT/sanitizer-summary.txt" 2>/dev/null)
fi

echo
echo "== summary =="
printf '%s\n' "${summary[@]}"
# (no test log under SKIP_TESTS=1: nothing to count, and not a failure)
[ -f "$OUT/gpu_tests.log" ] && grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$OUT/gpu_tests.log" | sort | uniq -c
# The exit status says whether anything above failed.
printf '%s\n' "${summary[@]}" | grep -q "FAIL\|rc=[1-9]" && exit 1
exit 0
