#!/usr/bin/env python3
"""trials_to_csv.py — the yardstick file tests/tuner/data/*.csv from an
exhaustive run's trials (autogemm_cache export): for each shape and family,
the measured configs within 10% of that family's best on the shape (a
config outside cannot reach 97% of it), in ModelQuality's columns
m,n,k,trans_a,trans_b,aligned,gflops,config.

  python3 scripts/trials_to_csv.py trials.json[.gz] "header line" > tests/tuner/data/h200_exhaustive_gemv.csv
"""
import gzip
import json
import os
import sys
from collections import defaultdict

USAGE = ("usage: python3 scripts/trials_to_csv.py TRIALS.json[.gz] \"HEADER\"  (an exhaustive run's trials, "
         "autogemm_cache export, as a yardstick CSV of tests/tuner/data on stdout)")
help_asked = sys.argv[1:2] in (["-h"], ["--help"])
if help_asked or not (len(sys.argv) == 3 and os.path.isfile(sys.argv[1])):
    print(USAGE, file=sys.stdout if help_asked else sys.stderr)
    sys.exit(0 if help_asked else 2)

with (gzip.open if sys.argv[1].endswith(".gz") else open)(sys.argv[1], "rt") as f:
    trials = json.load(f)["devices"][0]["trials"]
best = defaultdict(float)
ok = [t for t in trials if t["status"] == "ok" and t["gflops"]]
key = lambda t: (t["m"], t["n"], t["k"], int(t["trans_a"]), int(t["trans_b"]), int(t["aligned"]), t["family"])
for t in ok:
    best[key(t)] = max(best[key(t)], t["gflops"])
print("# " + sys.argv[2])
print("# Every config of the family's search space was measured; kept here: those within 10% of")
print("# each shape's best for that family. Columns:")
print("# m,n,k,trans_a,trans_b,aligned,gflops,config")
for t in sorted(ok, key=lambda t: (key(t), -t["gflops"])):
    if t["gflops"] >= 0.9 * best[key(t)]:
        k = key(t)
        print("%d,%d,%d,%d,%d,%d,%.1f,%s" % (k[0], k[1], k[2], k[3], k[4], k[5], t["gflops"], t["config"]))
