#!/usr/bin/env bash
# gpu_check.sh — the one GPU run: every GPU test binary, a tuning smoke run,
# the example dispatching from the tuned cache, the benchmark; logs and JSON
# to $OUT and a short summary table last (binaries, tests passed / failed /
# skipped, wall time). Run from the repo root on a GPU machine with a build
# folder made on the development machine (see README, "GPU machine").
#
#   OUT=/tmp/out scripts/gpu_check.sh [build-dir]        (full check, public suite)
#   TUNE_SHAPES="4096x4096x4096 16x4096x4096" TUNE_ARGS="--strategy exhaustive" ...
#   SKIP_TESTS=1 / SKIP_TUNE=1 / SKIP_BENCH=1 leave those parts out (SKIP_TUNE also the example);
#   TESTS='test_gpu_kernels test_gpu_worker' runs only those binaries.
#   SANITIZER=1 adds scripts/compute_sanitizer.sh (memcheck, racecheck,
#   initcheck over the default kernels; logs $OUT/sanitizer-*.log, ~3 min).
#
# The GPU tests (every $B/tests/test_gpu_*; the goal is at most 8 minutes
# on one H200 with 16 CPUs, issue 29) run as jobs side by side, at most
# GPU_JOBS (10) at once, each bounded by TEST_TIMEOUT seconds (420), each
# logged to $OUT/gpu_tests/<job>.log (all of them also in gpu_tests.log):
#   - test_gpu_kernels in KERNEL_SHARDS (8) gtest shards (GTEST_TOTAL_SHARDS):
#     its time is NVRTC builds, serially over 240 s;
#   - TUNE_TESTS, one after another in one job: they run gemm_tune or the
#     tuner, whose compile pool takes every CPU, and two of them at once
#     would only queue for the CPUs;
#   - every other binary, one job each;
#   - then ALONE_TESTS, one at a time with nothing else on the GPU: they
#     compare kernel times (within 5 %) or give a candidate a 3 s deadline,
#     which kernels of other processes sharing the GPU would upset.
# An entry "binary:FILTER" runs that binary with --gtest_filter=FILTER.
set -u -o pipefail
B=${1:-build}
OUT=${OUT:-$PWD/gpu-out}
# The tools and some test binaries load libautogemm.so from the build folder.
if [ -d "$B/lib" ]; then export LD_LIBRARY_PATH="$(cd "$B/lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi
mkdir -p "$OUT"
DB="$OUT/tuning.db"
summary=()
TUNE_TESTS=${TUNE_TESTS:-"test_gpu_tune_dispatch test_gpu_online test_gpu_concurrency test_gpu_tune_crash:-*Exhaustive*"}
ALONE_TESTS=${ALONE_TESTS:-"test_gpu_worker test_gpu_tune_crash:*Exhaustive*"}

if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
else
  echo "no nvidia-smi on this machine (GPU tests will skip)" | tee "$OUT/gpu.txt"
fi

LOGS="$OUT/gpu_tests"
# Whether binary $1 is selected by $TESTS (all when unset).
selected() { [ -z "${TESTS:-}" ] || [[ " $TESTS " == *" $1 "* ]]; }
# One test job: gpu_job <label> <binary name> [gtest args...]; writes
# $LOGS/<label>.log and $LOGS/<label>.rc ("<exit status> <seconds>").
gpu_job() {
  local label=$1 bin=$B/tests/$2 t0=$SECONDS
  shift 2
  timeout "${TEST_TIMEOUT:-420}" "$bin" --gtest_brief=1 "$@" > "$LOGS/$label.log" 2>&1
  echo "$? $((SECONDS - t0))" > "$LOGS/$label.rc"
}
# Runs the entries of list $2 ("binary[:filter] ..."; binaries not built
# are left out, as the glob leaves them out), one after another, labelled
# <binary>$1[.<filter as a file name>].
run_list() {
  local e bin filter
  for e in $2; do
    bin=${e%%:*}
    if ! selected "$bin" || [ ! -x "$B/tests/$bin" ]; then continue; fi
    if [[ "$e" == *:* ]]; then
      filter=${e#*:}
      filter=${filter/#-/not-}
      gpu_job "$bin$1.${filter//[^A-Za-z0-9_.-]/}" "$bin" "--gtest_filter=${e#*:}"
    else
      gpu_job "$bin$1" "$bin"
    fi
  done
}
# Starts "$@" in the background once fewer than GPU_JOBS jobs run.
pool() {
  while [ "$(jobs -rp | wc -l)" -ge "${GPU_JOBS:-10}" ]; do wait -n; done
  "$@" &
}
# "<passed> <failed> <skipped>" of a gtest log (its closing summary lines).
counts() {
  local p f s
  p=$(grep -oE '^\[  PASSED  \] [0-9]+' "$1" | grep -oE '[0-9]+$' | tail -1)
  f=$(grep -oE '^\[  FAILED  \] [0-9]+ tests?' "$1" | grep -oE '^[^0-9]*[0-9]+' | grep -oE '[0-9]+$' | tail -1)
  s=$(grep -oE '^\[  SKIPPED \] [0-9]+ tests?' "$1" | grep -oE '^[^0-9]*[0-9]+' | grep -oE '[0-9]+$' | tail -1)
  echo "${p:-0} ${f:-0} ${s:-0}"
}

run_gpu_tests() {
  rm -rf "$LOGS" && mkdir -p "$LOGS"
  local t0=$SECONDS bins=() b name listed i
  for b in "$B"/tests/test_gpu_*; do
    case "$b" in *.cmake) continue ;; esac
    [ -x "$b" ] && selected "$(basename "$b")" && bins+=("$(basename "$b")")
  done
  pool run_list "" "$TUNE_TESTS"
  for name in "${bins[@]}"; do
    listed=" ${TUNE_TESTS//:/ } ${ALONE_TESTS//:/ } "
    [[ "$listed" == *" $name "* ]] && continue
    if [ "$name" = test_gpu_kernels ]; then
      for ((i = 0; i < ${KERNEL_SHARDS:-8}; i++)); do
        GTEST_TOTAL_SHARDS=${KERNEL_SHARDS:-8} GTEST_SHARD_INDEX=$i pool gpu_job "$name.shard$i" "$name"
      done
    else
      pool gpu_job "$name" "$name"
    fi
  done
  wait
  run_list "@alone" "$ALONE_TESTS"
  tests_report "${#bins[@]}" $((SECONDS - t0))
}

# One summary line per job, and the totals.
tests_report() {
  local rc log label st secs p f s res why tp=0 tf=0 ts=0 failed_jobs=0
  for rc in "$LOGS"/*.rc; do
    [ -e "$rc" ] || continue
    log=${rc%.rc}.log label=$(basename "${rc%.rc}")
    read -r st secs < "$rc"
    read -r p f s < <(counts "$log")
    tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
    res=PASS why=""
    [ "$st" = 0 ] && [ "$f" = 0 ] || res=FAIL why=" (exit $st)"
    [ "$st" = 124 ] && why=" (timeout after ${TEST_TIMEOUT:-420} s)"
    [ "$res" = FAIL ] && failed_jobs=$((failed_jobs + 1))
    summary+=("$(printf '%-44s %s %3d passed %2d failed %2d skipped %4d s%s' "$label" "$res" "$p" "$f" "$s" "$secs" "$why")")
    { echo "== $label (exit $st, $secs s)"; cat "$log"; } >> "$OUT/gpu_tests.log"
  done
  summary+=("$(printf 'gpu tests: %d binaries, %d passed, %d failed, %d skipped, %d failed job(s), %d s wall (GPU_JOBS=%s, KERNEL_SHARDS=%s)' \
    "$1" "$tp" "$tf" "$ts" "$failed_jobs" "$2" "${GPU_JOBS:-10}" "${KERNEL_SHARDS:-8}")")
}

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  : > "$OUT/gpu_tests.log"
  run_gpu_tests
fi

# TUNE_SHAPES: shapes to tune and benchmark; "suite" (the default) is the
# built-in public suite of gemm_tune and gemm_bench.
shapes=${TUNE_SHAPES:-suite}
args=()
if [ "$shapes" = suite ]; then shapes="4096x4096x4096"; else for s in $shapes; do args+=(--shape "$s"); done; fi
if [ "${SKIP_TUNE:-0}" != 1 ]; then
  # shellcheck disable=SC2086
  "$B"/tools/gemm_tune --device 0 --db "$DB" "${args[@]}" ${TUNE_ARGS:-} --json "$OUT/tune.json" 2>&1 | tee "$OUT/tune.log" | tail -n 40
  summary+=("$(printf '%-28s rc=%s' gemm_tune "${PIPESTATUS[0]}")")

  first=$(echo "$shapes" | awk '{print $1}' | sed 's/:.*//; s/x/ /g')
  # shellcheck disable=SC2086  # $first is "M N K", three arguments
  AUTOGEMM_LOG_LEVEL=info AUTOGEMM_CACHE="$DB" "$B"/tools/sgemm_example $first 2>&1 | tee "$OUT/example.log"
  summary+=("$(printf '%-28s %s' sgemm_example "$(grep -o 'nvrtc_compiles=[0-9]*.*' "$OUT/example.log")")")
fi

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
# The exit status says whether anything above failed.
printf '%s\n' "${summary[@]}" | grep -q "FAIL\|rc=[1-9]" && exit 1
exit 0
