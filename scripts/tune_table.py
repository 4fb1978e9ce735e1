#!/usr/bin/env python3
"""Short table of gemm_tune JSON files: per file the total and longest
tuning time, the shapes over 10 s, candidates measured and ruled out; then
one line per shape.

    python3 scripts/tune_table.py suite-tune.json [more.json ...]

A file that is missing or unreadable is reported on its line; the others print.
"""
import json
import sys

USAGE = ("usage: python3 scripts/tune_table.py TUNE.json ...  (gemm_tune --json: tuning time, candidates and "
         "winner per shape, with each file's totals)")
help_asked = sys.argv[1:2] in (["-h"], ["--help"])
if help_asked or not (len(sys.argv) >= 2 and not sys.argv[1].startswith("-")):
    print(USAGE, file=sys.stdout if help_asked else sys.stderr)
    sys.exit(0 if help_asked else 2)

for f in sys.argv[1:]:
    try:
        rows = json.load(open(f))
    except Exception as e:  # a missing file is reported, the others still print
        print(f, e)
        continue
    slow = [r for r in rows if r["tune_s"] > 10]
    print(f"{f.split('/')[-1]}: {len(rows)} shapes, {sum(r['tune_s'] for r in rows):.0f} s "
          f"(max {max(r['tune_s'] for r in rows):.1f}), over 10 s: "
          + ", ".join(f"{r['shape']} {r['tune_s']:.1f}" for r in slow)
          + f"; ruled out {sum(r.get('ruled_out', 0) for r in rows)}, measured {sum(r['candidates'] for r in rows)}")
    for r in rows:
        print(f"  {r['shape']:22s} {r['tune_s']:5.1f} s {r['gflops'] / 1e3:7.2f} TFLOP/s  {r['candidates']:4d} measured "
              f"{r.get('ruled_out', 0):3d} out  {r['config']}")
