#!/usr/bin/env bash
# sblat3_check.sh — netlib's Level 3 BLAS tester (sblat3) on libautogemm_blas:
# compiles sblat3.f with gfortran against the reference BLAS (-lblas) with
# the drop-in ahead of it, writes an input file of its own (SGEMM only: the
# other routines' flags F; sizes 0 1 2 3 5 9 35 63 129, alpha and beta 0, 1,
# 0.7; error exits tested), and runs it twice: linked ahead of -lblas, and
# through LD_PRELOAD of a binary that links -lblas alone. Reports each run
# from the summary file ("SGEMM PASSED THE COMPUTATIONAL TESTS", "SGEMM
# PASSED THE TESTS OF ERROR-EXITS") and the drop-in's exit line (calls
# routed to autogemm, fallen back and why). Exit status 0 when every run
# passes.
#
# The tester's NMAX (65) is raised to 129 in the work copy, for the 129.
# When the system's libblas lacks a routine this sblat3.f calls (a tester
# newer than the BLAS, e.g. SGEMMTR) and a source tree was given, the tree's
# own BLAS/SRC is compiled into the work folder and used instead.
#   bash scripts/sblat3_check.sh [--math-mode fp32_accurate] [--require-routed] LAPACK_DIR|sblat3.f BUILD_DIR
# Files in BUILD_DIR/sblat3 (WORK=DIR to change): sblat3.in, <run>.out (summary), <run>.log (stderr).
HELP='usage: bash scripts/sblat3_check.sh [--math-mode strict|fp32_accurate] [--require-routed] LAPACK_DIR|sblat3.f BUILD_DIR  (netlib sblat3 SGEMM tests on libautogemm_blas, linked ahead of -lblas and by LD_PRELOAD)'
set -u -o pipefail
MODE="" REQUIRE_ROUTED=0
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) echo "$HELP"; exit 0 ;;
    --math-mode) MODE=${2:-}; shift 2 ;;
    --math-mode=*) MODE=${1#*=}; shift ;;
    --require-routed) REQUIRE_ROUTED=1; shift ;;
    -*) echo "$HELP" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 2 ]; then echo "$HELP" >&2; exit 2; fi
case "$MODE" in ""|strict|fp32_accurate) ;; *) echo "sblat3_check: --math-mode is strict or fp32_accurate" >&2; exit 2 ;; esac
SRC=$1
B=$(cd "$2" && pwd) || exit 2
TREE=""
if [ -d "$SRC" ]; then TREE=$(cd "$SRC" && pwd); SRC=$TREE/BLAS/TESTING/sblat3.f; fi
[ -f "$SRC" ] || { echo "sblat3_check: no sblat3.f at $SRC" >&2; exit 2; }
LIB=$B/lib/libautogemm_blas.so
[ -f "$LIB" ] || { echo "sblat3_check: $LIB not built (cmake --build $B --target autogemm_blas)" >&2; exit 2; }
command -v gfortran > /dev/null || { echo "sblat3_check: gfortran not found" >&2; exit 2; }
W=${WORK:-$B/sblat3}
mkdir -p "$W"

# The tester, with room for N = 129.
sed 's/( *NMAX *= *65 *)/( NMAX = 129 )/' "$SRC" > "$W/sblat3.f"
grep -q "NMAX = 129" "$W/sblat3.f" || { echo "sblat3_check: NMAX = 65 not found in $SRC" >&2; exit 2; }

# The input: the routine names this tester knows, in the width its format reads.
width=$(sed -n 's/.*9988 *FORMAT( *A\([0-9]*\) *, *L2 *).*/\1/p' "$W/sblat3.f")
names=$(awk '/DATA +SNAMES/{f=1} f{print} f&&/\/ *$/{exit}' "$W/sblat3.f" | grep -o "'S[A-Z0-9]*" | tr -d "'")
{
  echo "'sblat3.out'      NAME OF SUMMARY OUTPUT FILE"
  echo "6                 UNIT NUMBER OF SUMMARY FILE"
  echo "'SBLAT3.SNAP'     NAME OF SNAPSHOT OUTPUT FILE"
  echo "-1                UNIT NUMBER OF SNAPSHOT FILE (NOT USED IF .LT. 0)"
  echo "F        LOGICAL FLAG, T TO REWIND SNAPSHOT FILE AFTER EACH RECORD."
  echo "F        LOGICAL FLAG, T TO STOP ON FAILURES."
  echo "T        LOGICAL FLAG, T TO TEST ERROR EXITS."
  echo "16.0     THRESHOLD VALUE OF TEST RATIO"
  echo "9                 NUMBER OF VALUES OF N"
  echo "0 1 2 3 5 9 35 63 129  VALUES OF N"
  echo "3                 NUMBER OF VALUES OF ALPHA"
  echo "0.0 1.0 0.7       VALUES OF ALPHA"
  echo "3                 NUMBER OF VALUES OF BETA"
  echo "0.0 1.0 0.7       VALUES OF BETA"
  for n in $names; do
    flag=F; [ "$n" = SGEMM ] && flag=T
    printf "%-${width:-6}s %s\n" "$n" "$flag"
  done
} > "$W/sblat3.in"

# The reference BLAS: the system's, else the tree's own.
BLAS=(-lblas)
link() { gfortran -O2 -o "$W/$1" "$W/sblat3.f" "${@:2}" > "$W/$1.build.log" 2>&1; }
if ! link sblat3_blas "${BLAS[@]}"; then
  [ -n "$TREE" ] || { cat "$W/sblat3_blas.build.log" >&2; echo "sblat3_check: cannot link sblat3 against -lblas" >&2; exit 1; }
  echo "sblat3_check: the system's libblas lacks routines of this sblat3.f; building $TREE/BLAS/SRC"
  mkdir -p "$W/refblas"
  # shellcheck disable=SC2016  # $1, $2 are the inner shell's
  printf '%s\0' "$TREE"/BLAS/SRC/s*.f "$TREE"/BLAS/SRC/lsame.f "$TREE"/BLAS/SRC/xerbla.f |
    xargs -0 -P "${JOBS:-2}" -I{} sh -c 'gfortran -O2 -fPIC -c "$1" -o "$2/$(basename "$1" .f).o"' _ {} "$W/refblas" || exit 1
  gfortran -shared -o "$W/refblas/libblas.so" "$W"/refblas/*.o || exit 1
  # shellcheck disable=SC2054  # -Wl,-rpath,DIR is one argument
  BLAS=(-L"$W/refblas" -Wl,-rpath,"$W/refblas" -lblas)
  link sblat3_blas "${BLAS[@]}" || { cat "$W/sblat3_blas.build.log" >&2; exit 1; }
fi
# Linked ahead of the BLAS: sgemm_ resolves to the drop-in, its fallback is the BLAS's.
link sblat3_ahead -L"$B/lib" -Wl,-rpath,"$B/lib" -lautogemm_blas "${BLAS[@]}" || { cat "$W/sblat3_ahead.build.log" >&2; exit 1; }

# run <name> <env...>: runs one binary in the work folder; prints its verdict.
failed=0
run() {
  local name=$1 bin=$2; shift 2
  rm -f "$W/sblat3.out"
  (cd "$W" && env AUTOGEMM_LOG_LEVEL=info ${MODE:+AUTOGEMM_MATH_MODE=$MODE} "$@" "./$bin" < sblat3.in > "$name.stdout" 2> "$name.log")
  local rc=$?
  mv -f "$W/sblat3.out" "$W/$name.out" 2>/dev/null
  local out=$W/$name.out comp=no errx=no verdict=PASS
  grep -q "SGEMM *PASSED THE COMPUTATIONAL TESTS" "$out" 2>/dev/null && comp=yes
  grep -q "SGEMM *PASSED THE TESTS OF ERROR-EXITS" "$out" 2>/dev/null && errx=yes
  local line; line=$(grep -o "BLAS drop-in: sgemm_: .*" "$W/$name.log" | tail -n 1)
  if [ $rc -ne 0 ] || [ $comp != yes ] || [ $errx != yes ] || grep -q "\*\*\*\*\*\*\*" "$out" 2>/dev/null; then verdict=FAIL; fi
  local routed=""
  if [ $REQUIRE_ROUTED = 1 ]; then
    routed="; every call routed: yes"
    echo "$line" | grep -q "[1-9][0-9]* routed to autogemm, 0 fell back" || { routed="; every call routed: no"; verdict=FAIL; }
  fi
  [ $verdict = PASS ] || failed=1
  echo "$name: $verdict (exit $rc; computational tests passed: $comp; error exits passed: $errx$routed)"
  grep -h "SGEMM.*\(CALLS\|ERROR-EXITS\|FAIL\)\|\*\*\*\*\*\*\*" "$out" 2>/dev/null | head -n 8 | sed 's/^/  /'
  echo "  ${line:-no exit line from the drop-in in $W/$name.log}"
}
echo "sblat3: $SRC; BLAS ${BLAS[*]}; math mode ${MODE:-the default (strict)}; files in $W"
run ahead sblat3_ahead
run preload sblat3_blas LD_PRELOAD="$LIB"
exit $failed
