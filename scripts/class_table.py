#!/usr/bin/env python3
"""Per-class table of a gemm_bench --suite classes (or classes:SEED) JSON run:
for each class of issue 33 (short or long K, NN/NT/TN/TT, aligned or not,
row- or column-major, the smaller of M and N in 1-16, 17-64, 65-256 or
more) the number of shapes, the geometric mean of autogemm/cuBLAS and the
worst shape, rotating and (where the run has it) warm; then the whole
run's means and how many shapes are below 0.95 and 0.90. Markdown.

    python3 scripts/class_table.py bench.json
"""
import json
import math
import os
import re
import sys

USAGE = ("usage: python3 scripts/class_table.py BENCH.json  (gemm_bench JSON of a class sweep: per class the "
         "geometric mean and worst shape against cuBLAS, rotating and warm, as a Markdown table)")


def classes(shape):
    col = shape.startswith("col:")
    m = re.match(r"(\d+)x(\d+)x(\d+)(?::([NT]{2}))?", shape[4:] if col else shape)
    if not m:
        raise SystemExit("unparsed shape " + shape)
    M, N, K = (int(x) for x in m.groups()[:3])
    small = min(M, N)
    size = "1-16" if small <= 16 else "17-64" if small <= 64 else "65-256" if small <= 256 else ">256"
    aligned = M % 4 == 0 and N % 4 == 0 and K % 4 == 0
    return ["K<=1024" if K <= 1024 else "K>1024", m.group(4) or "NN", "aligned" if aligned else "unaligned",
            "col" if col else "row", "minMN " + size]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main(args):
    if args[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if len(args) != 1 or not os.path.isfile(args[0]):
        print(USAGE, file=sys.stderr)
        return 2
    shapes = json.load(open(args[0]))["shapes"]
    warm = all(r.get("warm_ratio") for r in shapes)
    keys = ["ratio"] + (["warm_ratio"] if warm else [])
    by_class = {}
    for r in shapes:
        for c in classes(r["shape"]):
            by_class.setdefault(c, []).append(r)
    head = "| class | shapes | geomean rotate | worst rotate |" + (" geomean warm | worst warm |" if warm else "")
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    for c in sorted(by_class):
        rs = by_class[c]
        cells = [c, str(len(rs))]
        for k in keys:
            worst = min(rs, key=lambda r: r[k])
            cells += ["%.3f" % geomean([r[k] for r in rs]), "%.3f %s" % (worst[k], worst["shape"])]
        print("| " + " | ".join(cells) + " |")
    for k in keys:
        xs = [r[k] for r in shapes]
        print("\n%s: geomean %.3f over %d shapes; below 0.95: %d; below 0.90: %d" %
              ("rotate" if k == "ratio" else "warm", geomean(xs), len(xs), sum(x < 0.95 for x in xs),
               sum(x < 0.90 for x in xs)))
    return 0


sys.exit(main(sys.argv[1:]))
