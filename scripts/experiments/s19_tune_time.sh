#!/usr/bin/env bash
# Session 19: where a shape's tuning time goes. The CPUs of the GPU machine,
# then single shapes tuned alone on fresh caches (the README's tuning, one
# shape at a time): 4096^3:NT with every strict family and with warptiled
# alone, and 128x11008x4096; each run's trials exported (recorded_at gives a
# one-second timeline of the measurements).
#   OUT=/tmp/o bash scripts/experiments/s19_tune_time.sh gbuild
B=${1:-gbuild}
export LD_LIBRARY_PATH=$PWD/$B/lib
{ nproc; lscpu | grep -E "^(CPU\(s\)|Thread|Core|Socket|Model name)"; } | tee "$OUT/cpus.txt"
tune() {  # tag shape [options...]
  local tag=$1 s=$2; shift 2
  local t0=$(date +%s.%N)
  timeout 60 "$B"/tools/gemm_tune --device 0 --db /tmp/$tag.db --shape "$s" "$@" --json "$OUT/$tag-tune.json" 2>&1 | grep -v "^\[" | tail -n 1
  echo "$tag: process $(python3 -c "import time; print(round(time.time() - $t0, 2))") s"
  "$B"/tools/autogemm_cache export --db /tmp/$tag.db --out /tmp/$tag-trials.json > /dev/null 2>&1
  python3 - /tmp/$tag-trials.json "$t0" <<'PY'
import json, sys, collections
t = json.load(open(sys.argv[1]))["devices"][0]["trials"]
t0 = int(float(sys.argv[2]))
c = collections.Counter(x["recorded_at"] - t0 for x in t)
print("  trials per second from the process start:", " ".join(f"{s}:{n}" for s, n in sorted(c.items())))
PY
}
{
tune nt 4096x4096x4096:NT
tune nt-warptiled 4096x4096x4096:NT --family warptiled
tune nt-again 4096x4096x4096:NT
tune m128 128x11008x4096
} 2>&1 | tee "$OUT/run.log"
python3 scripts/experiments/tune_table.py "$OUT"/*-tune.json
