#!/usr/bin/env bash
# builtin_winners_check.sh — one GPU call: the GPU tests the built-in
# winners touch, then how good dispatch is before tuning on shapes the
# built-in table (kernel_templates/builtin_winners/<arch>.tsv) does not hold
# (held out): gemm_bench on an empty cache
# (built-in winners), gemm_tune of the same shapes (its JSON also gives the
# plain built-in default's speed, default_gflops), gemm_bench again; last a
# table per shape: built-in choice, plain default, tuned, and the ratios.
# Files under $OUT: gpu_tests.log before-bench.json tune.json after-bench.json run.log summary.txt tuned.db
# NEW=... replaces the held-out shapes; TESTS=0 skips the GPU tests, TEST_LIST names them.
#   OUT=/tmp/o bash scripts/builtin_winners_check.sh gbuild
HELP='usage: OUT=DIR [NEW="shape ..." TESTS=0] bash scripts/builtin_winners_check.sh BUILD_DIR  (dispatch before tuning: built-in winners against tuned winners on shapes the built-in table does not hold)'
case "${1:-}" in -h|--help) echo "$HELP"; exit 0 ;; esac
if ! { [ $# -eq 1 ] && [ -d "$1/tools" ]; }; then echo "$HELP" >&2; exit 2; fi
B=$(cd "$1" && pwd)
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$B/lib
T=$B/tools
NEW=${NEW:-"768x768x768 1536x1536x1536 3072x3072x3072:TN 6144x6144x6144:NT 4096x4096x4096:TT 2047x2049x1025
256x4096x4096 96x4096x1024 64x11008x4096 32x4096x4096 2000x3000x500 333x4444x555 4096x4096x256
1x8192x8192 8x8192x8192 16x8192x4096 96x96x96@2048 32x32x64@8192 128x64x256@256 48x4096x4096@4"}
shapes=(); for s in $NEW; do shapes+=(--shape "$s"); done
W=$(mktemp -d)
[ "${TESTS:-1}" = 0 ] || {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
  for t in ${TEST_LIST:-test_gpu_sgemm test_gpu_large test_gpu_online test_gpu_tune_dispatch}; do
    timeout 150 "$B/tests/$t" --gtest_brief=1 2>&1 | grep -v "^\[ NVRTC\|ptxas" | tail -n 15
    echo "$t rc=${PIPESTATUS[0]}"
  done
} > "$OUT/gpu_tests.log" 2>&1
{
  timeout 120 "$T/gemm_bench" --db "$W/t.db" "${shapes[@]}" --overhead-calls 0 --json "$OUT/before-bench.json" 2>&1 | tail -n 25
  timeout 300 "$T/gemm_tune" --device 0 --db "$W/t.db" "${shapes[@]}" --json "$OUT/tune.json" 2>&1 | grep -v "^\[" | tail -n 25
  timeout 120 "$T/gemm_bench" --db "$W/t.db" "${shapes[@]}" --overhead-calls 0 --json "$OUT/after-bench.json" 2>&1 | tail -n 25
} > "$OUT/run.log" 2>&1
cp "$W/t.db" "$OUT/tuned.db" 2>/dev/null  # the tuned cache, to inspect with sqlite3 afterwards
rm -rf "$W"
python3 - "$OUT" <<'PY' | tee "$OUT/summary.txt"
import json, math, sys
o = sys.argv[1]
def rows(f):
    try: return {r["shape"]: r for r in json.load(open(o + "/" + f))["shapes"]}
    except Exception as e: print("no", f, e); return {}
b, a = rows("before-bench.json"), rows("after-bench.json")
try: t = {r["shape"]: r for r in json.load(open(o + "/tune.json"))}
except Exception: t = {}
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
rb, rd, rc = [], [], []
print("%-22s %8s %8s %8s %8s  %6s %6s  %s" % ("shape", "builtin", "default", "tuned", "cuBLAS", "b/tun", "d/tun", "built-in choice"))
for s in b:
    if s not in a: continue
    bt, at, cb = b[s]["autogemm_tflops"], a[s]["autogemm_tflops"], a[s]["cublas_tflops"]
    key = next((k for k in t if k.split(" ")[0] == s or k.startswith(s)), None)
    dt = t[key]["default_gflops"] / 1e3 if key else float("nan")
    rb.append(bt / at); rc.append(bt / cb)
    if key and dt > 0: rd.append(dt / at)
    print("%-22s %8.2f %8.2f %8.2f %8.2f  %6.3f %6.3f  %s" % (s, bt, dt, at, cb, bt / at, dt / at, b[s]["config"]))
print("geomean built-in/tuned %.3f (min %.3f); plain default/tuned %.3f; built-in/cuBLAS %.3f" % (g(rb), min(rb or [0]), g(rd), g(rc)))
PY
tail -n 3 "$OUT/gpu_tests.log"
