#!/usr/bin/env bash
# compute_sanitizer.sh — runs the kernels autogemm launches by default under
# NVIDIA compute-sanitizer: memcheck, racecheck and initcheck (issue 4, item 8).
#
#   OUT=/tmp/out scripts/compute_sanitizer.sh [build-dir]
#
# The program is <build>/tests/lib/sanitizer_cases (tests/lib/sanitizer_cases.cpp):
# through the C API, the built-in default tiled configs (small and large class,
# aligned and unaligned, all transposes, row- and column-major), the generic
# kernel and split-K (both reduction modes), each on a small problem, checked
# against a host FP64 product; beta = 0 with C never initialized, so initcheck
# also proves C is not read. Logs: $OUT/sanitizer-<tool>.log. One summary line
# per tool; exit status 0 only if every tool reports 0 errors and the program
# passed under each. About a minute per tool on an H200 (NVRTC compiles
# included). SANITIZER_TOOLS="memcheck" picks tools; SANITIZER_ARGS adds options.
set -u -o pipefail
B=${1:-build}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
# $COMPUTE_SANITIZER, else PATH, else the toolkit's usual places.
CS=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || true)}
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer \
         /usr/local/cuda-*/bin/compute-sanitizer; do
  [ -n "$CS" ] && break
  [ -x "$c" ] && CS=$c
done
if [ -z "$CS" ] || [ ! -x "$CS" ]; then
  echo "compute_sanitizer.sh: compute-sanitizer not found (\$COMPUTE_SANITIZER, PATH, /usr/local/cuda*/bin);" \
       "it comes with the CUDA toolkit (package cuda-sanitizer-13-0) or the pip wheel nvidia-cuda-sanitizer-api" >&2
  exit 2
fi
PROG="$B/tests/lib/sanitizer_cases"
if [ ! -x "$PROG" ]; then
  echo "compute_sanitizer.sh: $PROG not found (build the target sanitizer_cases)" >&2
  exit 2
fi
"$CS" --version | tail -n 1 > "$OUT/sanitizer-version.txt"

status=0
: > "$OUT/sanitizer-summary.txt"
for tool in ${SANITIZER_TOOLS:-memcheck racecheck initcheck}; do
  log="$OUT/sanitizer-$tool.log"
  extra=()
  case "$tool" in
    memcheck) extra=(--leak-check full) ;;
  esac
  start=$(date +%s)
  # shellcheck disable=SC2086
  AUTOGEMM_LOG_LEVEL=warn "$CS" --tool "$tool" "${extra[@]}" --error-exitcode 99 --print-limit 200 \
      ${SANITIZER_ARGS:-} "$PROG" > "$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  # memcheck/initcheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
  summ=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$log" | tail -n 1 | sed 's/^=* *//')
  prog=$(grep -E "^sanitizer_cases: " "$log" | tail -n 1)
  line=$(printf '%-10s rc=%-3s %4ss  %s | %s' "$tool" "$rc" "$secs" "${summ:-no summary line}" "${prog:-no program result}")
  echo "$line" | tee -a "$OUT/sanitizer-summary.txt"
  if [ "$rc" != 0 ] || ! echo "$summ" | grep -qE "SUMMARY: 0 (errors|hazards)"; then status=1; fi
  if [ "$tool" = racecheck ] && ! echo "$summ" | grep -q "(0 errors, 0 warnings)"; then status=1; fi
done
exit $status
