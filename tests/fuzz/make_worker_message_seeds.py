#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_worker_message (tests/fuzz/corpus/worker_message/).

Frames as tuner/include/autogemm/worker_protocol.h defines them: a 12-byte
header (u32 magic "AGWK", u16 version, u16 type, u32 payload size), then the
payload, little-endian. One valid frame of each type, plus a few broken ones
that exercise the rejections. Run from the repository root; the output is
committed, so this only needs re-running when the protocol changes.
"""
import os
import struct

OUT = "tests/fuzz/corpus/worker_message"
MAGIC, VERSION = 0x4B574741, 3
PROBLEM, CANDIDATE, READY, RESULT = 1, 2, 3, 4


def blob(b):
    return struct.pack("<I", len(b)) + b


def frame(kind, payload, version=VERSION, size=None):
    n = len(payload) if size is None else size
    return struct.pack("<IHHI", MAGIC, version, kind, n) + payload


problem = struct.pack("<qqqBBBqqqqqqqffIiB", 256, 512, 128, 0, 1, 1, 128, 128, 512, 1, 0, 0, 0, 1.0, 0.0, 1, 0, 0)
# 64x64x64 NN, 8 products packed tightly.
# Timed warm (the last byte).
batched = struct.pack("<qqqBBBqqqqqqqffIiB", 64, 64, 64, 0, 0, 1, 64, 64, 64, 8, 4096, 4096, 4096, 1.0, 0.5, 2, 0, 1)
config = b"tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=4 sk=1 sw=4 ta=0 tb=0"
candidate = blob(config) + blob(b"\x7fELF" + bytes(range(60))) + struct.pack("<d", float("inf"))
ready_ok = struct.pack("<B", 1) + blob(b"")
ready_fail = struct.pack("<B", 0) + blob(b"cuInit failed: CUDA_ERROR_NO_DEVICE")
result = (struct.pack("<Bddiii", 0, 1.25, 0.01, 17, 128, 0) + blob(b"timed once: far slower than the best")
          + struct.pack("<B", 0))
crashed = (struct.pack("<Bddiii", 5, 0.0, 0.0, 0, 96, 0)
           + blob(b"cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS") + struct.pack("<B", 1))

seeds = {
    "problem": frame(PROBLEM, problem),
    "problem_batched": frame(PROBLEM, batched),
    "candidate": frame(CANDIDATE, candidate),
    "ready_ok": frame(READY, ready_ok),
    "ready_fail": frame(READY, ready_fail),
    "result_ok": frame(RESULT, result),
    "result_crashed": frame(RESULT, crashed),
    "two_frames": frame(READY, ready_ok) + frame(RESULT, result),
    "bad_version": frame(READY, ready_ok, version=1),
    "truncated": frame(CANDIDATE, candidate)[:40],
    "huge_header": frame(RESULT, b"", size=0xFFFFFFFF),
    "status_out_of_range": frame(RESULT, b"\x09" + result[1:]),
}
os.makedirs(OUT, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
print(f"wrote {len(seeds)} seeds to {OUT}")
