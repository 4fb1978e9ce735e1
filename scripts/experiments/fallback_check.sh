#!/usr/bin/env bash
# One GPU call: how good dispatch is before a shape is tuned. Tunes a set
# of shapes, benchmarks other shapes that dispatch from those winners (the
# fallback), tunes those too and benchmarks them again; fallback/tuned per
# shape in the last table. TUNED_FROM=<tuned-bench.json of an earlier run>
# skips tuning the new shapes (the policy under test does not change what
# tuning finds) and compares against that file.
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
TRAIN="4096x4096x4096 1024x1024x1024 2048x2048x2048 512x512x512 128x4096x4096 1x4096x4096 16x4096x4096 4096x4096x128"
NEW="3072x3072x3072 1536x1536x1536 768x768x768 256x4096x4096 1x8192x8192 16x8192x4096 4096x4096x256 1000x1000x1000"
args() { for s in $1; do printf -- '--shape %s ' "$s"; done; }
{
timeout 150 $B/tools/gemm_tune --device 0 --db $OUT/t.db $(args "$TRAIN") --json $OUT/train-tune.json 2>&1 | grep -v "^\[" | tail -n 10
AUTOGEMM_CACHE=$OUT/t.db timeout 80 $B/tools/gemm_bench $(args "$NEW") --json $OUT/fallback-bench.json 2>&1 | tail -n 11
if [ -n "${TUNED_FROM:-}" ]; then
  cp "$TUNED_FROM" $OUT/tuned-bench.json
else
  timeout 150 $B/tools/gemm_tune --device 0 --db $OUT/t.db $(args "$NEW") --json $OUT/new-tune.json 2>&1 | grep -v "^\[" | tail -n 10
  AUTOGEMM_CACHE=$OUT/t.db timeout 80 $B/tools/gemm_bench $(args "$NEW") --json $OUT/tuned-bench.json 2>&1 | tail -n 11
fi
} > $OUT/run.log 2>&1
rm -f $OUT/t.db*
{
python3 - "$OUT" <<'PY'
import json, math, sys
o = sys.argv[1]
f = {r["shape"]: r for r in json.load(open(o + "/fallback-bench.json"))["shapes"]}
t = {r["shape"]: r for r in json.load(open(o + "/tuned-bench.json"))["shapes"]}
rs = []
for s in f:
    r = f[s]["autogemm_tflops"] / t[s]["autogemm_tflops"]; rs.append(r)
    print("%-20s fallback %7.2f  tuned %7.2f  %.3f  %s" % (s, f[s]["autogemm_tflops"], t[s]["autogemm_tflops"], r, f[s]["config"]))
print("geomean fallback/tuned %.3f, min %.3f" % (math.exp(sum(map(math.log, rs)) / len(rs)), min(rs)))
PY
} | tee $OUT/summary.txt
cat $OUT/run.log
