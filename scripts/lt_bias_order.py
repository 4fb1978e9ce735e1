#!/usr/bin/env python3
"""lt_bias_order.py: times the drop-in's two ways of adding an Lt bias, through autogemm_sgemm.

Usage: lt_bias_order.py LIBAUTOGEMM_SO [TOKENSxOUTxIN ...]   (default 256x3072x768 4096x4096x1024)

For each nn.Linear-like shape (column-major TN product OUT x TOKENS x IN, as
PyTorch issues it) it prints host and GPU time per call of: the product
alone, at beta 0 and 1; the product, then the bias as a K = 1 update (the drop-in's order);
the bias first, then the product at beta = 1. Needs a GPU and PyTorch (for
memory and events only). docs/DECISIONS.md, "The Lt bias epilogue is a
rank-1 update after the product", quotes it.
"""
import ctypes
import sys
import time

if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
    print(__doc__.strip().splitlines()[2])
    sys.exit(0 if len(sys.argv) >= 2 else 2)

import torch

torch.backends.cuda.matmul.allow_tf32 = False
lib = ctypes.CDLL(sys.argv[1])
COL, NT, TR = 102, 111, 112  # autogemm.h: AUTOGEMM_COL_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_TRANS
lib.autogemm_last_error.restype = ctypes.c_char_p
i, f, p = ctypes.c_int, ctypes.c_float, ctypes.c_void_p
lib.autogemm_sgemm.argtypes = [i, i, i, i, i, i, f, p, i, p, i, f, p, i, p]


def sgemm(ta, m, n, k, a, lda, b, ldb, beta, c):
    stream = torch.cuda.current_stream().cuda_stream
    st = lib.autogemm_sgemm(COL, ta, NT, m, n, k, 1.0, a.data_ptr(), lda, b.data_ptr(), ldb, beta, c.data_ptr(), m,
                            stream)
    if st != 0:
        raise RuntimeError(lib.autogemm_last_error().decode())


def timed(label, fn, reps=50):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.perf_counter()
    s.record()
    for _ in range(reps):
        fn()
    t1 = time.perf_counter()
    e.record()
    e.synchronize()
    print(f"{label:52s} host {1e3 * (t1 - t0) / reps:.4f} ms/call, gpu {s.elapsed_time(e) / reps:.4f} ms/call",
          flush=True)


for shape in sys.argv[2:] or ["256x3072x768", "4096x4096x1024"]:
    tok, fout, fin = (int(v) for v in shape.split("x"))
    w, x = torch.randn(fout, fin, device="cuda"), torch.randn(tok, fin, device="cuda")
    d, bias, ones = torch.randn(tok, fout, device="cuda"), torch.randn(fout, device="cuda"), torch.ones(tok, device="cuda")
    product = lambda beta: sgemm(TR, fout, tok, fin, w, fin, x, fin, beta, d)
    update = lambda beta: sgemm(NT, fout, tok, 1, bias, fout, ones, 1, beta, d)
    timed(f"{shape} product", lambda: product(0.0))
    timed(f"{shape} product at beta 1", lambda: product(1.0))
    timed(f"{shape} product, then bias (beta 1)", lambda: (product(0.0), update(1.0)))
    timed(f"{shape} bias, then product (beta 1)", lambda: (update(0.0), product(1.0)))
