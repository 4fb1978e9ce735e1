#!/usr/bin/env python3
"""Accuracy table of gemm_bench --fp32-accurate JSON files, one per input
exponent spread: per K and spread the relative error (||out - ref|| /
||ref|| against FP64) and the element-wise error (max |out - ref| over the
FFMA bound, which grows with K) of cuBLAS SGEMM, autogemm fp32_accurate and
cuBLAS TF32 (the lossy reference), as a Markdown table.

    python3 scripts/accuracy_table.py spread4.json spread16.json spread30.json
"""
import json
import sys

USAGE = ("usage: python3 scripts/accuracy_table.py BENCH.json...  (gemm_bench --fp32-accurate "
         "--exponent-spread E --json; one file per spread: a Markdown table of errors against FP64)")


def rows_of(path):
    with open(path) as f:
        js = json.load(f)
    spread = js.get("exponent_spread", 0)
    for s in js["shapes"]:
        acc, tf32 = s.get("fp32_accurate"), s.get("cublas_tf32")
        if acc is None or tf32 is None:
            raise SystemExit(f"{path}: {s['shape']} has no fp32_accurate side (run gemm_bench --fp32-accurate)")
        yield spread, s["shape"], s, acc, tf32


def main(paths):
    if not paths or paths[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if paths else 2
    print("| shape | spread | SGEMM rel | SGEMM elem | fp32_accurate rel | fp32_accurate elem | TF32 rel | TF32 elem "
          "| fp32_accurate ≤ SGEMM |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    worse = 0
    for path in paths:
        for spread, shape, s, acc, tf32 in rows_of(path):
            ok = acc["rel_error"] <= s["cublas_rel_error"] and acc["worst_to_bound"] <= s["cublas_worst_to_bound"]
            worse += not ok
            print(f"| {shape} | 2^±{spread} | {s['cublas_rel_error']:.1e} | {s['cublas_worst_to_bound']:.3f} "
                  f"| {acc['rel_error']:.1e} | {acc['worst_to_bound']:.3f} | {tf32['rel_error']:.1e} "
                  f"| {tf32['worst_to_bound']:.1f} | {'yes' if ok else 'NO'} |")
    print(f"\nrows where fp32_accurate errs more than cuBLAS SGEMM (either measure): {worse}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
