#!/usr/bin/env bash
# accuracy_table.sh — one GPU call: tunes the ksweep suite (1024x1024xK, K
# 256..65536) in math mode fp32_accurate into $OUT/accuracy.db, benches it
# with --fp32-accurate at input exponent spreads 2^±4, 2^±16 and 2^±30
# (products stay inside FP32's range), and prints the table of
# scripts/accuracy_table.py (also $OUT/accuracy.md). Raw JSON: $OUT/spread*.json.
#   OUT=/tmp/o bash scripts/accuracy_table.sh gbuild
set -euo pipefail
HELP="usage: OUT=DIR bash scripts/accuracy_table.sh BUILD_DIR  (GPU: fp32_accurate vs cuBLAS SGEMM and TF32 errors against FP64, K 256..65536, spreads 2^±4/16/30)"
case "${1:-}" in -h|--help) echo "$HELP"; exit 0 ;; esac
if ! { [ $# -eq 1 ] && [ -x "$1/tools/gemm_bench" ]; }; then echo "$HELP" >&2; exit 2; fi
B=$1
OUT=${OUT:?set OUT to a folder for the results}
# gemm_bench loads libautogemm.so from the build folder.
if [ -d "$B/lib" ]; then export LD_LIBRARY_PATH="$(cd "$B/lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi
mkdir -p "$OUT"
"$B"/tools/gemm_tune --device 0 --db "$OUT/accuracy.db" --math-mode fp32_accurate --suite ksweep \
  > "$OUT/tune.log" 2>&1
files=()
for e in 4 16 30; do
  "$B"/tools/gemm_bench --device 0 --db "$OUT/accuracy.db" --fp32-accurate --suite ksweep --exponent-spread "$e" \
    --overhead-calls 0 --json "$OUT/spread$e.json" > "$OUT/bench-spread$e.log" 2>&1 || true
  files+=("$OUT/spread$e.json")
done
python3 "$(dirname "$0")/accuracy_table.py" "${files[@]}" | tee "$OUT/accuracy.md"
