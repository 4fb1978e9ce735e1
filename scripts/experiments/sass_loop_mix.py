#!/usr/bin/env python3
"""sass_loop_mix.py: the opcode mix of a kernel's main loop, from `cuobjdump -sass`.

The main loop is taken to be the backward branch that encloses the most
FFMA/HGMMA instructions; the script prints, per file, its length, FFMA share
and the most frequent other opcodes (what the loop spends issue slots on)."""
import collections
import re
import sys

LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")


def parse(path):
    ins = []
    for line in open(path, errors="replace"):
        m = LINE.search(line)
        if m:
            ins.append((int(m.group(1), 16), m.group(3), m.group(4)))
    return ins


def main_loop(ins):
    best = None
    addr_index = {a: i for i, (a, _, _) in enumerate(ins)}
    for i, (a, op, rest) in enumerate(ins):
        if not op.startswith("BRA"):
            continue
        t = re.search(r"0x([0-9a-f]+)", rest)
        if not t:
            continue
        target = int(t.group(1), 16)
        if target >= a or target not in addr_index:
            continue
        body = ins[addr_index[target]:i + 1]
        math = sum(1 for _, o, _ in body if o.startswith(("FFMA", "HGMMA")))
        if best is None or math > best[0]:
            best = (math, body)
    return best


for path in sys.argv[1:]:
    ins = parse(path)
    loop = main_loop(ins)
    if not loop:
        print(f"{path}: no loop found ({len(ins)} instructions)")
        continue
    body = loop[1]
    ops = collections.Counter(o.split(".")[0] for _, o, _ in body)
    ffma = ops.get("FFMA", 0)
    print(f"{path}: main loop {len(body)} instructions, FFMA {ffma} ({100.0 * ffma / len(body):.1f}%), "
          f"kernel {len(ins)} instructions")
    print("   " + ", ".join(f"{o} {n}" for o, n in ops.most_common(14)))
