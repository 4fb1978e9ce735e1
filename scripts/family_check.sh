#!/usr/bin/env bash
# family_check.sh — one GPU call for a strict kernel family under development:
# its GPU tests, a tuning of the given shapes restricted to the given families
# (exhaustive unless TUNE_ARGS says otherwise), gemm_bench on them from that
# cache, every trial exported, and the SASS of each shape's winner (plus any
# PROBES) with the opcode mix of its main loop. Everything under $OUT, in few
# files (the device tool brings back only a handful):
#   gpu.txt tests.log tune.log tune.json bench.log bench.json trials.json sass.tar.gz
#   OUT=/tmp/o FAMILIES="warptiled" SHAPES="4096x4096x4096 1024x1024x1024" \
#     GTEST_FILTERS="test_gpu_kernels:*GpuFamilies*warptiled*" bash scripts/family_check.sh gbuild
#   PROBES="<config text>@<shape>;..." adds configs to time and disassemble;
#   SASS_WINNERS=0 leaves the winners out (only PROBES); SKIP_TUNE=1 and
#   SKIP_BENCH=1 leave those steps out.
#   An fp32_accurate family (tf32x3wg): TUNE_ARGS="--math-mode fp32_accurate
#   --strategy exhaustive" BENCH_ARGS=--fp32-accurate.
set -u -o pipefail
HELP='usage: OUT=DIR FAMILIES="f ..." SHAPES="s ..." [GTEST_FILTERS= PROBES= TUNE_ARGS= BENCH_ARGS=] bash scripts/family_check.sh BUILD_DIR  (a kernel family under development on the GPU: its tests, tuning, bench, the SASS loop mix of each winner)'
case "${1:-}" in -h|--help) echo "$HELP"; exit 0 ;; esac
if ! { [ $# -eq 1 ] && [ -d "$1/tools" ]; }; then echo "$HELP" >&2; exit 2; fi
B=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$B/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader | tee "$OUT/gpu.txt"
for spec in ${GTEST_FILTERS:-}; do   # binary:filter
  bin=${spec%%:*}; filt=${spec#*:}
  timeout "${TEST_TIMEOUT:-240}" "$B/tests/$bin" --gtest_filter="$filt" --gtest_brief=1 2>&1 | tail -n 60 | tee -a "$OUT/tests.log"
  echo "$bin $filt rc=${PIPESTATUS[0]}" | tee -a "$OUT/tests.log"
done
args=(); for s in ${SHAPES:-4096x4096x4096}; do args+=(--shape "$s"); done
fams=(); for f in ${FAMILIES:-warptiled}; do fams+=(--family "$f"); done
if [ "${SKIP_TUNE:-0}" != 1 ]; then
  # shellcheck disable=SC2086
  timeout "${TUNE_TIMEOUT:-400}" "$B"/tools/gemm_tune --device 0 --db "$OUT/tuning.db" "${fams[@]}" \
    "${args[@]}" ${TUNE_ARGS:---strategy exhaustive} --json "$OUT/tune.json" > "$OUT/tune.log" 2>&1
  echo "gemm_tune rc=$?"; grep -v "^\[" "$OUT/tune.log" | tail -n 40
  "$B"/tools/autogemm_cache export --db "$OUT/tuning.db" --out "$OUT/trials.json" 2>&1 | tail -n 3
fi
if [ "${SKIP_BENCH:-0}" != 1 ]; then
  # shellcheck disable=SC2086
  AUTOGEMM_CACHE="$OUT/tuning.db" timeout 300 "$B"/tools/gemm_bench "${args[@]}" ${BENCH_ARGS:-} \
    --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log" | tail -n 40
fi
# SASS: each shape's winner (from tune.json) and the PROBES, timed by
# kernel_probe (which writes the cubin) and disassembled.
mkdir -p "$OUT/sass"
{
  [ -f "$OUT/tune.json" ] && [ "${SASS_WINNERS:-1}" = 1 ] && python3 -c '
import json, sys
for r in json.load(open(sys.argv[1])):
    if r.get("config"): print(r["config"] + "@" + r["shape"])' "$OUT/tune.json"
  tr ';' '\n' <<< "${PROBES:-}"
} | grep -v '^$' | nl -nln -w1 | while read -r i line; do
  cfg=${line%@*}; shape=${line##*@}; d="$OUT/sass/$i"; mkdir -p "$d"
  echo "== $i $cfg @ $shape" >> "$OUT/sass/probe.log"
  timeout 60 "$B"/tools/kernel_probe --config "$cfg" --shape "$shape" --cubin-dir "$d" >> "$OUT/sass/probe.log" 2>&1
  [ -f "$d/variant0.cubin" ] && cuobjdump -sass "$d/variant0.cubin" > "$d/winner.sass" 2>&1
  echo "$cfg @ $shape" > "$d/what.txt"; rm -f "$d/variant0.cubin"
done
sass=("$OUT"/sass/*/winner.sass)
if [ -f "${sass[0]}" ]; then
  python3 "$HERE/sass_loop_mix.py" "${sass[@]}" 2>&1 | tee "$OUT/sass/mix.txt" | tail -n 40
else
  echo "no SASS: no winner or probe disassembled (see sass/probe.log)" | tee "$OUT/sass/mix.txt"
fi
tar -czf "$OUT/sass.tar.gz" -C "$OUT" sass && rm -rf "$OUT/sass"
rm -f "$OUT"/tuning.db*
