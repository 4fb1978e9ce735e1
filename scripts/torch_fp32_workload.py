#!/usr/bin/env python3
"""torch_fp32_workload.py: an ordinary PyTorch FP32 program (TF32 off) that times and checks its GEMMs.

Usage: torch_fp32_workload.py --json OUT.json [--steps 300] [--reps 20]

Runs matmuls of LLM and MLP shapes, bmm, nn.Linear with and without bias,
transposed views, a CUDA-graph replay and a training loop; each op is timed
with CUDA events (median of --reps after warm-up) and checked against the same
op in FP64. It knows nothing of autogemm: run it plain and under
`autogemm_run -- python3 torch_fp32_workload.py ...` and compare the JSON
files (scripts/torch_dropin_check.sh does). If the cuBLAS drop-in is loaded,
its counters are added to the JSON.
"""
import argparse
import ctypes
import json
import statistics

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")
DEV = "cuda"


def wide(*shape, seed):
    """Random FP32 values with a wide exponent range (2^-6 .. 2^6), both signs."""
    g = torch.Generator(device=DEV).manual_seed(seed)
    mant = torch.rand(*shape, generator=g, device=DEV) * 0.5 + 0.5
    exp = torch.randint(-6, 7, shape, generator=g, device=DEV).float()
    sign = torch.randint(0, 2, shape, generator=g, device=DEV).float() * 2 - 1
    return (mant * torch.exp2(exp) * sign).contiguous()


def timed(fn, reps):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


def rel_err(out, ref):
    return float((out.double() - ref).norm() / ref.norm())


def matmul_ops():
    """(name, m, n, k, batch, inputs, fn): fn works on FP32 and on FP64 copies."""
    ops = []
    def mm(name, m, n, k, ta=False, tb=False, seed=0):
        a = wide(k, m, seed=seed).t() if ta else wide(m, k, seed=seed)
        b = wide(n, k, seed=seed + 1).t() if tb else wide(k, n, seed=seed + 1)
        ops.append((name, m, n, k, 1, (a, b), lambda a, b: a @ b))
    mm("square 4096", 4096, 4096, 4096)
    mm("llm up 2048x11008x4096", 2048, 11008, 4096, tb=True)
    mm("llm down 2048x4096x11008", 2048, 4096, 11008, tb=True)
    mm("logits 2048x50257x768", 2048, 50257, 768, tb=True)
    mm("decode 16x4096x4096", 16, 4096, 4096, tb=True)
    mm("mlp 512x1024x1024", 512, 1024, 1024)
    mm("odd 777x1333x999", 777, 1333, 999)
    mm("a.t() @ b 1024x2048x512", 1024, 2048, 512, ta=True)
    mm("a @ b.t() 3000x2000x1000", 3000, 2000, 1000, tb=True)
    mm("a.t() @ b.t() 2048x2048x2048", 2048, 2048, 2048, ta=True, tb=True)
    for name, bsz, m, n, k in [("bmm attn scores 64x512x512x64", 64, 512, 512, 64),
                               ("bmm attn values 64x512x64x512", 64, 512, 64, 512),
                               ("bmm 8x2048x2048x2048", 8, 2048, 2048, 2048)]:
        a, b = wide(bsz, m, k, seed=m + bsz), wide(bsz, k, n, seed=n + k)
        ops.append((name, m, n, k, bsz, (a, b), lambda a, b: torch.bmm(a, b)))
    for bias in (True, False):
        for (tokens, fin, fout) in [(2048, 4096, 4096), (4096, 1024, 4096), (256, 768, 3072)]:
            lin = torch.nn.Linear(fin, fout, bias=bias, device=DEV)
            with torch.no_grad():
                lin.weight.copy_(wide(fout, fin, seed=fout) * 0.02)
                if bias:
                    lin.bias.copy_(wide(fout, seed=fin))
            x = wide(tokens, fin, seed=tokens)
            w, bvec = lin.weight.detach(), lin.bias.detach() if bias else None
            name = f"nn.Linear{' +bias' if bias else ''} {tokens}x{fout}x{fin}"
            ops.append((name, tokens, fout, fin, 1, (x, w) + ((bvec,) if bias else ()),
                        (lambda x, w, b: torch.nn.functional.linear(x, w, b)) if bias else
                        (lambda x, w: torch.nn.functional.linear(x, w))))
    return ops


def graph_op(reps):
    """An MLP forward captured into a CUDA graph and replayed."""
    l1 = torch.nn.Linear(1024, 4096, device=DEV)
    l2 = torch.nn.Linear(4096, 1024, device=DEV)
    x = wide(512, 1024, seed=77)
    f = lambda x: l2(torch.relu(l1(x)))
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(s):
        for _ in range(3):
            f(x)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(g):
        y = f(x)
    g.replay()
    torch.cuda.synchronize()
    with torch.no_grad():
        ref = torch.nn.functional.linear(torch.relu(torch.nn.functional.linear(
            x.double(), l1.weight.double(), l1.bias.double())), l2.weight.double(), l2.bias.double())
    return {"name": "cuda graph replay mlp 512x1024x4096", "ms": timed(g.replay, reps),
            "err": rel_err(y, ref), "m": 512, "n": 4096, "k": 1024, "batch": 1, "gflop": 2 * 2 * 512 * 1024 * 4096 / 1e9}


def train(steps):
    """A two-layer MLP trained with SGD on a fixed random regression task."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).to(DEV)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x, target = wide(1024, 1024, seed=5) * 0.05, wide(1024, 1024, seed=6) * 0.05
    losses = []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), target)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    end.record()
    end.synchronize()
    return {"losses": [float(v) for v in losses], "ms_per_step": start.elapsed_time(end) / max(1, steps)}


def dropin_counts():
    """The drop-in's counters, when it is loaded (LD_PRELOAD puts it in the global scope)."""
    try:
        lib = ctypes.CDLL(None)
        get = lib.autogemm_cublas_get_counts
    except (OSError, AttributeError):
        return None
    buf = (ctypes.c_ulonglong * (3 * 10 + 12))()
    get(buf)
    name = lib.autogemm_cublas_entry_name
    name.restype = ctypes.c_char_p
    reason = lib.autogemm_cublas_reason_name
    reason.restype = ctypes.c_char_p
    out = {"entries": {}, "passed_by_reason": {}}
    for i in range(10):
        if buf[i] or buf[10 + i] or buf[20 + i]:
            out["entries"][name(i).decode()] = {"routed": buf[i], "passed": buf[10 + i], "fallbacks": buf[20 + i]}
    for r in range(1, 12):
        if buf[30 + r]:
            out["passed_by_reason"][reason(r).decode()] = buf[30 + r]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", required=True)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    rows = []
    for name, m, n, k, batch, inputs, fn in matmul_ops():
        with torch.no_grad():
            out = fn(*inputs)
            ref = fn(*[t.double() for t in inputs])
            rows.append({"name": name, "m": m, "n": n, "k": k, "batch": batch, "gflop": 2.0 * m * n * k * batch / 1e9,
                         "ms": timed(lambda: fn(*inputs), args.reps), "err": rel_err(out, ref)})
        del out, ref
        torch.cuda.empty_cache()
    rows.append(graph_op(args.reps))
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "ops": rows,
              "train": train(args.steps), "dropin": dropin_counts()}
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
