"""torch_mm_loop.py — times torch.mm of one shape in batches of back-to-back
calls on the same operands (CUDA events), printing ms a call and TFLOP/s per
batch: a plain PyTorch client to run under autogemm_run (the cuBLAS drop-in)
and scripts/clocks_under_load.sh.
  python3 scripts/torch_mm_loop.py [M N K] [--batches 5] [--calls 40]
Needs PyTorch with CUDA and a GPU."""
import argparse

import torch


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("shape", nargs="*", type=int, default=[8192, 8192, 8192], help="M N K (8192 8192 8192)")
    ap.add_argument("--batches", type=int, default=5)
    ap.add_argument("--calls", type=int, default=40)
    args = ap.parse_args()
    if len(args.shape) != 3:
        ap.error("the shape is three numbers: M N K")
    m, n, k = args.shape
    a = torch.randn(m, k, device="cuda")
    b = torch.randn(k, n, device="cuda")
    c = torch.empty(m, n, device="cuda")
    for _ in range(3):
        torch.mm(a, b, out=c)
    torch.cuda.synchronize()
    for r in range(args.batches):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(args.calls):
            torch.mm(a, b, out=c)
        end.record()
        torch.cuda.synchronize()
        ms = start.elapsed_time(end) / args.calls
        print(f"batch {r}: {ms:.3f} ms a call, {2 * m * n * k / (ms * 1e9):.1f} TFLOP/s", flush=True)


if __name__ == "__main__":
    main()
