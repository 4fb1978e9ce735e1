#!/usr/bin/env python3
"""Tuned against exhaustive, per shape, as a markdown table.

    python3 scripts/vs_exhaustive.py BENCH.json TUNE.json [CSV ...]

BENCH.json: gemm_bench --json (TFLOP/s of the dispatched winner, ratio to
cuBLAS). TUNE.json: gemm_tune --json (tuning seconds per shape). CSV: the
exhaustive yardsticks (default: every tests/tuner/data/h200_exhaustive*.csv);
the best row of any family for the same m, n, k and transposes is the
exhaustive best.
"""
import csv
import glob
import json
import os
import sys

USAGE = ("usage: python3 scripts/vs_exhaustive.py BENCH.json TUNE.json [CSV ...]  (gemm_bench and gemm_tune --json "
         "against the exhaustive yardsticks, default tests/tuner/data/h200_exhaustive*.csv: a markdown table)")
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "tuner", "data")


def yardsticks(paths):
    best = {}
    for path in paths:
        with open(path) as f:
            for row in csv.reader(line for line in f if not line.startswith('#')):
                if len(row) < 8:
                    continue
                key = tuple(int(v) for v in row[:5])
                gflops, family = float(row[6]), row[7].split()[0]
                if gflops > best.get(key, (0, ''))[0]:
                    best[key] = (gflops, family)
    return best


def key_of(shape):
    dims, layout = (shape.split()[0].split(':') + ['NN'])[:2]
    m, n, k = (int(v) for v in dims.split('x'))
    return (m, n, k, int(layout[0] == 'T'), int(layout[1] == 'T'))


def main(argv):
    help_asked = argv[1:2] in (["-h"], ["--help"])
    if help_asked or not (len(argv) >= 3 and all(os.path.isfile(p) for p in argv[1:])):
        print(USAGE, file=sys.stdout if help_asked else sys.stderr)
        sys.exit(0 if help_asked else 2)
    bench = json.load(open(argv[1]))['shapes']
    tune = {key_of(t['shape']): t['tune_s'] for t in json.load(open(argv[2]))}
    best = yardsticks(argv[3:] or sorted(glob.glob(os.path.join(DATA, 'h200_exhaustive*.csv'))))
    print('| shape | tuned TF/s | of cuBLAS | exhaustive TF/s | family | tuned/exhaustive | tune s |')
    print('| --- | --- | --- | --- | --- | --- | --- |')
    for b in bench:
        k = key_of(b['shape'])
        g, fam = best.get(k, (0, ''))
        tuned = b['autogemm_tflops']
        exh = f'{g / 1000:.2f}' if g else '—'
        share = f'{tuned * 1000 / g:.3f}' if g else '—'
        t = f"{tune[k]:.1f}" if k in tune else '—'
        print(f"| {b['shape']} | {tuned:.2f} | {b['ratio']:.3f} | {exh} | {fam or '—'} | {share} | {t} |")


if __name__ == '__main__':
    main(sys.argv)
