#!/usr/bin/env bash
# clocks_under_load.sh — runs a command while nvidia-smi samples the GPU's SM
# clock, power draw and throttle reasons every 100 ms, then summarizes the
# samples taken under load (power above MIN_W, 300 W by default): SM clock
# min / median / max, power median / max, and how often each throttle reason
# was active (0x4: the software power cap). A figure measured at a power cap
# needs its clocks beside it. The samples stay in $OUT/clocks.csv when OUT is set.
#   [OUT=dir] [MIN_W=300] bash scripts/clocks_under_load.sh COMMAND [ARGS...]
# Needs nvidia-smi (a GPU machine).
set -u -o pipefail
HELP="usage: [OUT=dir] [MIN_W=300] bash scripts/clocks_under_load.sh COMMAND [ARGS...]  (GPU clocks and power under a command's load)"
case "${1:-}" in -h|--help|"") echo "$HELP"; [ $# -gt 0 ]; exit $? ;; esac
CSV=$(mktemp)
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv -lms 100 > "$CSV" 2>&1 &
SMI=$!
"$@"
RC=$?
kill "$SMI" 2>/dev/null
wait "$SMI" 2>/dev/null
python3 - "$CSV" "${MIN_W:-300}" <<'PY'
import csv, sys
from collections import Counter
rows = list(csv.reader(open(sys.argv[1])))[1:]
min_w = float(sys.argv[2])
load = []
for r in rows:
    try:
        clock, watts = int(r[1].split()[0]), float(r[2].split()[0])
    except (IndexError, ValueError):
        continue
    if watts > min_w:
        load.append((clock, watts, r[3].strip()))
if not load:
    print(f"clocks_under_load: no sample above {min_w:g} W ({len(rows)} samples)")
    sys.exit(0)
cs = sorted(x[0] for x in load)
ps = sorted(x[1] for x in load)
print(f"clocks_under_load: {len(load)} samples above {min_w:g} W; SM clock min {cs[0]}, median {cs[len(cs) // 2]},"
      f" max {cs[-1]} MHz; power median {ps[len(ps) // 2]:.0f} W, max {ps[-1]:.0f} W")
print("throttle reasons (count):", ", ".join(f"{k} {v}" for k, v in Counter(x[2] for x in load).most_common()))
PY
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT" && cp "$CSV" "$OUT/clocks.csv"; fi
rm -f "$CSV"
exit $RC
