#!/usr/bin/env python3
"""Short table of gemm_bench JSON files: per shape the ratio to cuBLAS, both
sides' TFLOP/s and the effective TB/s (A, B and C counted once per call), and
with two files (A B) the ratio of A's timing to B's for each side.

    python3 scripts/bench_table.py rotate.json [flush.json]
"""
import json
import os
import re
import sys

USAGE = ("usage: python3 scripts/bench_table.py BENCH.json [OTHER.json]  (gemm_bench --json per shape: ratio to "
         "cuBLAS, TFLOP/s, TB/s; with OTHER, the timings of the first over the second)")


def bytes_of(shape):
    m, n, k = (int(x) for x in re.match(r"(?:\w+:)?(\d+)x(\d+)x(\d+)", shape).groups())
    return 4 * (m * k + k * n + m * n), 2 * m * n * k


def rows(path):
    js = json.load(open(path))
    return js.get("timing", "flush"), {r["shape"]: r for r in js["shapes"]}


def main(paths):
    help_asked = sys.argv[1:2] in (["-h"], ["--help"])
    if help_asked or not (1 <= len(paths) <= 2 and all(os.path.isfile(p) for p in paths)):
        print(USAGE, file=sys.stdout if help_asked else sys.stderr)
        sys.exit(0 if help_asked else 2)
    timing, a = rows(paths[0])
    other = rows(paths[1]) if len(paths) > 1 else None
    head = f"{'shape':24s} {'ratio':>6s} {'ag TF/s':>8s} {'cb TF/s':>8s} {'ag TB/s':>8s} {'cb TB/s':>8s}"
    if other:
        head += f"  vs {other[0]}: {'ratio':>6s} {'ag x':>6s} {'cb x':>6s}"
    print(f"timing {timing}\n{head}")
    logs = []
    for shape, r in a.items():
        nbytes, flops = bytes_of(shape)
        ag_s, cb_s = flops / (r["autogemm_tflops"] * 1e12), flops / (r["cublas_tflops"] * 1e12)
        line = (f"{shape:24s} {r['ratio']:6.3f} {r['autogemm_tflops']:8.2f} {r['cublas_tflops']:8.2f} "
                f"{nbytes / ag_s / 1e12:8.2f} {nbytes / cb_s / 1e12:8.2f}")
        if other and shape in other[1]:
            o = other[1][shape]
            line += (f"  {'':>{len(other[0]) + 5}s}{o['ratio']:6.3f} {r['autogemm_tflops'] / o['autogemm_tflops']:6.2f} "
                     f"{r['cublas_tflops'] / o['cublas_tflops']:6.2f}")
        if not r.get("autogemm_verified", True):
            line += "  WRONG"
        logs.append(r["ratio"])
        print(line)
    if logs:
        import math
        print(f"geomean {math.exp(sum(math.log(x) for x in logs) / len(logs)):.3f} over {len(logs)}, "
              f"lowest {min(logs):.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
