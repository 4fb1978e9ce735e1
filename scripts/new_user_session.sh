#!/usr/bin/env bash
# new_user_session.sh — one GPU call: what a new user sees (the README's "A
# session on the H200"), each command printed with its real output: the
# README's tuning command (the public suite into the default cache, which it
# deletes first: ~/.cache/autogemm), gemm_bench of the suite against cuBLAS,
# then a program built against the *installed* package (CMake and pkg-config
# builds, made on the development machine from $B/prefix: the GPU machine
# has no headers of SQLite, spdlog or CLI11) run with recording on,
# coverage, gemm_tune --from-record, the program again from the tuned cache,
# a second cache merged in, and the result inspected with sqlite3 and
# autogemm_cache.
# Expects $B/prefix (cmake --install), $B/examples (examples/ built against
# it) and $B/sgemm_example_pkgconfig.
# Files under $OUT: session.txt suite-tune.json suite-bench.json record-tune.json tuning.db
#   OUT=/tmp/o bash scripts/new_user_session.sh gbuild
HELP='usage: OUT=DIR bash scripts/new_user_session.sh BUILD_DIR  (the session of a new user, each command with its output, from BUILD_DIR/prefix and BUILD_DIR/examples; deletes ~/.cache/autogemm)'
case "${1:-}" in -h|--help) echo "$HELP"; exit 0 ;; esac
if ! { [ $# -eq 1 ] && [ -d "$1/prefix/bin" ]; }; then echo "$HELP" >&2; exit 2; fi
B=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
P=$B/prefix
export LD_LIBRARY_PATH=$P/lib
W=$(mktemp -d)
# sqlite3 where the machine has it; else Python's sqlite3 module (a carried
# sqlite3 binary refused the GPU machine's newer libsqlite3).
sqlite() {
  if command -v sqlite3 > /dev/null; then sqlite3 -box "$@"; else
    python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); cur = c.execute(sys.argv[2])
print(" | ".join(d[0] for d in cur.description))
for r in cur: print(" | ".join(map(str, r)))' "$@"; fi
}
# q <sql>: the query on the default cache, printed as a command first.
SQL_TOOL="sqlite3 -box"
command -v sqlite3 > /dev/null || SQL_TOOL="(python3's sqlite3 module)"
q() { echo "\$ $SQL_TOOL ~/.cache/autogemm/tuning.db \"$1\""; sqlite "$HOME/.cache/autogemm/tuning.db" "$1" 2>&1; echo; }
# say <command...>: prints the command, then runs it with its output (stdout and stderr).
say() { echo "\$ $*"; timeout "${LIMIT:-120}" "$@" 2>&1 | grep -v "^\[ NVRTC\|ptxas"; echo; }
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "# a fresh machine: no cache yet ($HOME/.cache/autogemm)"
  rm -rf "$HOME/.cache/autogemm"
  LIMIT=330 say "$P/bin/gemm_tune" --device 0 --json "$OUT/suite-tune.json"
  LIMIT=150 say "$P/bin/gemm_bench" --overhead-calls 0 --json "$OUT/suite-bench.json"
  say "$P/bin/autogemm_cache" path
  say env AUTOGEMM_RECORD_UNTUNED=1 "$B/examples/sgemm_example" 1200 1000 800
  say env AUTOGEMM_RECORD_UNTUNED=1 "$B/sgemm_example_pkgconfig" 96 4096 1024
  say env AUTOGEMM_RECORD_UNTUNED=1 "$B/examples/sgemm_example_static" 1200 1000 800
  say "$P/bin/autogemm_cache" coverage
  say "$P/bin/gemm_tune" --device 0 --from-record --json "$OUT/record-tune.json"
  say "$P/bin/autogemm_cache" coverage
  say "$B/examples/sgemm_example" 1200 1000 800
  say "$P/bin/gemm_tune" --device 0 --db "$W/other.db" --shape 640x640x640 --shape 96x4096x1024
  say "$P/bin/autogemm_cache" merge --from "$W/other.db"
  say "$P/bin/autogemm_cache" show --shape 96x4096x1024
  q "select layout, m, n, k, family, round(gflops) as gflops from best_configs where m in (96, 640, 1200) order by m"
  q "select * from shape_coverage"
  say "$P/bin/gemm_bench" --shape 1200x1000x800 --shape 96x4096x1024 --shape 640x640x640 --overhead-calls 0
} > "$OUT/session.txt" 2>&1
cp "$HOME/.cache/autogemm/tuning.db" "$OUT/tuning.db" 2>/dev/null
rm -rf "$W"
python3 "$HERE/bench_table.py" "$OUT/suite-bench.json" 2>/dev/null | tail -n 35 || true
grep -A4 "^\$ .*coverage" "$OUT/session.txt" | tail -n 12
