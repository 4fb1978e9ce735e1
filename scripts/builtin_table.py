#!/usr/bin/env python3
"""Rows of the built-in winner table (kernel_templates/src/builtin_winners.cpp)
from gemm_tune --json files: one row per canonical shape, the fastest winner
over the files (a later file's row of the same shape replaces an earlier one
only if faster). Prints C++ initialisers to paste between the table's braces.

    python3 scripts/builtin_table.py A-tune.json B-tune.json ...
"""
import json
import os
import re
import sys

USAGE = ("usage: python3 scripts/builtin_table.py TUNE.json ...  (the rows of the built-in winner table, "
         "kernel_templates/src/builtin_winners.cpp, from gemm_tune --json files: the fastest per shape)")

SHAPE = re.compile(r"(\d+)x(\d+)x(\d+)[: ]([NT])([NT])(?:@(\d+))?")


def row(entry):
    m = SHAPE.match(entry["shape"])
    if not m:
        raise SystemExit("unparsed shape " + entry["shape"])
    M, N, K = (int(x) for x in m.groups()[:3])
    ta, tb, batch = m.group(4) == "T", m.group(5) == "T", int(m.group(6) or 1)
    # The key holds the batch bucket (batch_bucket): the count up to 8, then
    # the power of two at or above it.
    while batch > 8 and batch & (batch - 1):
        batch += batch & -batch
    # Aligned class: every leading dimension a multiple of 4 floats.
    aligned = (M if ta else K) % 4 == 0 and (K if tb else N) % 4 == 0 and N % 4 == 0
    if "vec=4" in entry["config"] and not aligned:
        raise SystemExit("vec=4 winner for the unaligned shape " + entry["shape"])
    return (M, N, K, ta, tb, aligned, batch), entry["median_ms"], entry["config"]


help_asked = sys.argv[1:2] in (["-h"], ["--help"])
if help_asked or not (len(sys.argv) >= 2 and all(os.path.isfile(p) for p in sys.argv[1:])):
    print(USAGE, file=sys.stdout if help_asked else sys.stderr)
    sys.exit(0 if help_asked else 2)
best = {}
for path in sys.argv[1:]:
    for e in json.load(open(path)):
        if e.get("interrupted") or not e.get("config"):
            continue
        key, ms, cfg = row(e)
        if key not in best or ms < best[key][0]:
            best[key] = (ms, cfg)
for (M, N, K, ta, tb, al, b), (ms, cfg) in sorted(best.items(), key=lambda kv: (kv[0][6], kv[0][0], kv[0][1], kv[0][2])):
    print('    {%d, %d, %d, %d, %d, %d, %d, %.6g, "%s"},' % (M, N, K, ta, tb, al, b, ms, cfg))
