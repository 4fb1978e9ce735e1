#!/usr/bin/env bash
# reliability_ci.sh — the reliability stages of CI (docs/RELIABILITY-fuzz-sanitizers.md):
#   1. sanitizer build (ASan + UBSan, g++, -O1 -g) in build-asan, then every
#      ctest test there (CPU tests run, GPU tests skip without a GPU);
#   2. libFuzzer build (clang) in build-fuzz, then each fuzz target for a
#      bounded time, starting from its seed corpus in tests/fuzz/corpus/.
# Exits non-zero if any stage fails; prints a summary with the time of each.
#
# Needs (Debian): clang-14 libclang-rt-14-dev, besides what scripts/setup.sh installs.
# Knobs (environment):
#   FUZZ_SECONDS=25            time per fuzz target (-max_total_time)
#   JOBS=$(nproc)              build and ctest parallelism
#   ASAN_BUILD_DIR=build-asan  FUZZ_BUILD_DIR=build-fuzz
#   CXX_SAN=g++ CC_SAN=gcc     compilers of the sanitizer build
#   CLANG=clang-14 CLANGXX=clang++-14   compilers of the fuzz build
#   CTEST_EXCLUDE=<regex>      tests left out of the sanitizer run (ctest -E); by default
#                              the compile-every-config NVRTC suite (DefaultSpace.*,
#                              label nvrtc) and the NVRTC sweeps of test_kernel_templates
#                              (spill and clean-build checks, the families' sample
#                              builds): tens of minutes here, nearly all of it inside
#                              NVRTC, which is not instrumented, and their host paths
#                              run under the sanitizers in the smaller NVRTC tests.
#                              "" runs them too.
#   CTEST_LABEL_EXCLUDE=nvrtc  labels left out of it (ctest -LE); "" for none
#   FUZZ_TMPDIR=/dev/shm       where the fuzz targets write their temporary files
#   SKIP_SANITIZE=1 / SKIP_FUZZ=1       run only the other stage
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
FUZZ_SECONDS=${FUZZ_SECONDS:-25}
JOBS=${JOBS:-$(nproc)}
ASAN_DIR=${ASAN_BUILD_DIR:-build-asan}
FUZZ_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
CXX_SAN=${CXX_SAN:-g++}
CC_SAN=${CC_SAN:-gcc}
CLANG=${CLANG:-clang-14}
CLANGXX=${CLANGXX:-clang++-14}
CTEST_EXCLUDE=${CTEST_EXCLUDE-'^DefaultSpace\.|BuildWithoutSpills|BuildCleanly|FamilyCompile\.DefaultsAndSpaceSamples|AcrossTransposesVectorWidthsAndSplitK'}
CTEST_LABEL_EXCLUDE=${CTEST_LABEL_EXCLUDE-nvrtc}
FUZZ_TARGETS=(kernel_config parse_shape shapes_file cache_file worker_message)
# Scratch files of the fuzz targets (cache and shapes files): memory-backed
# where possible, about twice the executions per second of a disk.
if [ -z "${FUZZ_TMPDIR:-}" ]; then
  FUZZ_TMPDIR=/tmp
  [ -d /dev/shm ] && [ -w /dev/shm ] && FUZZ_TMPDIR=/dev/shm
fi

# Sanitizer run-time options (build time too: gtest discovery runs the tests).
# LeakSanitizer stays on; tests/fuzz/lsan.supp lists the only accepted leaks
# (inside closed-source NVRTC). Every UBSan report is fatal.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/tests/fuzz/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
CUDA_ARGS=()
[ -d /usr/local/cuda ] && CUDA_ARGS=(-DCUDAToolkit_ROOT=/usr/local/cuda)

summary=()
failed=0
# stage <name> <command...>: runs, times and records one stage.
stage() {
  local name=$1; shift
  echo "=== reliability: $name"
  local t0=$SECONDS rc=0
  "$@" || rc=$?
  local dt=$((SECONDS - t0))
  if [ $rc -eq 0 ]; then
    summary+=("$(printf '  %-28s ok      %5ds' "$name" "$dt")")
  else
    summary+=("$(printf '  %-28s FAILED  %5ds  (exit %d)' "$name" "$dt" "$rc")")
    failed=1
  fi
  return $rc
}

sanitize_configure() {
  cmake -S . -B "$ASAN_DIR" -DAUTOGEMM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$CC_SAN" -DCMAKE_CXX_COMPILER="$CXX_SAN" \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g" "-DCMAKE_C_FLAGS_RELEASE=-O1 -g" "${CUDA_ARGS[@]}"
}
sanitize_test() {
  local args=(--test-dir "$ASAN_DIR" --output-on-failure -j "$JOBS" --timeout 900)
  [ -n "$CTEST_EXCLUDE" ] && args+=(-E "$CTEST_EXCLUDE")
  [ -n "$CTEST_LABEL_EXCLUDE" ] && args+=(-LE "$CTEST_LABEL_EXCLUDE")
  ctest "${args[@]}"
}

fuzz_configure() {
  cmake -S . -B "$FUZZ_DIR" -DAUTOGEMM_FUZZ=ON -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$CLANG" -DCMAKE_CXX_COMPILER="$CLANGXX" \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g" "-DCMAKE_C_FLAGS_RELEASE=-O1 -g" "${CUDA_ARGS[@]}"
}
# fuzz_run <target>: new inputs go to a scratch corpus in the build tree (the
# committed seeds are only read); a crash leaves its input in $FUZZ_DIR/fuzz-artifacts/.
fuzz_run() {
  local t=$1
  local work="$FUZZ_DIR/fuzz-corpus/$t" art="$FUZZ_DIR/fuzz-artifacts"
  mkdir -p "$work" "$art"
  TMPDIR="$FUZZ_TMPDIR" "$FUZZ_DIR/tests/fuzz/fuzz_$t" -max_total_time="$FUZZ_SECONDS" -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$art/$t-" \
    "$work" "tests/fuzz/corpus/$t" > "$FUZZ_DIR/fuzz-$t.log" 2>&1
  local rc=$?
  grep -E '^(stat::number_of_executed_units|stat::new_units_added|#[0-9]+ +DONE)' "$FUZZ_DIR/fuzz-$t.log" | tail -3
  if [ $rc -ne 0 ]; then
    tail -60 "$FUZZ_DIR/fuzz-$t.log"
    echo "fuzz_$t failed; reproduce with: $FUZZ_DIR/tests/fuzz/fuzz_$t $art/$t-<crash file>"
  fi
  return $rc
}

if [ -z "${SKIP_SANITIZE:-}" ]; then
  if stage "asan+ubsan configure" sanitize_configure &&
     stage "asan+ubsan build" cmake --build "$ASAN_DIR" -j "$JOBS"; then
    stage "asan+ubsan ctest" sanitize_test
  fi
fi

if [ -z "${SKIP_FUZZ:-}" ]; then
  if ! command -v "$CLANGXX" >/dev/null; then
    echo "reliability: $CLANGXX not found (install clang-14 libclang-rt-14-dev)" >&2
    summary+=("$(printf '  %-28s FAILED  (no %s)' "fuzz build" "$CLANGXX")")
    failed=1
  elif stage "fuzz configure" fuzz_configure &&
       stage "fuzz build" cmake --build "$FUZZ_DIR" -j "$JOBS" --target fuzzers; then
    for t in "${FUZZ_TARGETS[@]}"; do
      stage "fuzz_$t (${FUZZ_SECONDS}s)" fuzz_run "$t"
    done
  fi
fi

echo "=== reliability summary"
printf '%s\n' "${summary[@]}"
if [ $failed -ne 0 ]; then
  echo "reliability: FAILED"
  exit 1
fi
echo "reliability: all stages passed"
