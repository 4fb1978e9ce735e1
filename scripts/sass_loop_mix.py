#!/usr/bin/env python3
"""sass_loop_mix.py: the opcode mix of a kernel's main loop, from `cuobjdump -sass`.

The main loop is taken to be the backward branch that encloses the most
FFMA/HGMMA instructions; the script prints, per file, its length, FFMA share
and the most frequent other opcodes (what the loop spends issue slots on).
It also reads each instruction's control word (the second 64-bit word
cuobjdump prints under it; stall cycles in bits 41-44) to give the loop's
static issue cycles, and counts the FFMAs whose two register-file reads
(operands without .reuse) fall in the same register bank, for 2 and 4 banks
(register number modulo the bank count)."""
import collections
import os
import re
import sys

USAGE = ("usage: python3 scripts/sass_loop_mix.py KERNEL.sass ...  (the opcode mix, static issue cycles and "
         "register-bank pairs of each kernel's main loop, from cuobjdump -sass output)")

LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);(?:\s*/\* (0x[0-9a-f]+) \*/)?")
CONTROL = re.compile(r"^\s*/\* (0x[0-9a-f]+) \*/\s*$")


def parse(path):
    ins = []  # (address, opcode, operands, control word or 0)
    for line in open(path, errors="replace"):
        m = LINE.search(line)
        if m:
            ins.append([int(m.group(1), 16), m.group(3), m.group(4), 0])
            continue
        c = CONTROL.match(line)
        if c and ins and ins[-1][3] == 0:
            ins[-1][3] = int(c.group(1), 16)
    return ins


def main_loop(ins):
    best = None
    addr_index = {ins[i][0]: i for i in range(len(ins))}
    for i, (a, op, rest, _) in enumerate(ins):
        if not op.startswith("BRA"):
            continue
        t = re.search(r"0x([0-9a-f]+)", rest)
        if not t:
            continue
        target = int(t.group(1), 16)
        if target >= a or target not in addr_index:
            continue
        body = ins[addr_index[target]:i + 1]
        math = sum(1 for _, o, _, _ in body if o.startswith(("FFMA", "HGMMA")))
        if best is None or math > best[0]:
            best = (math, body)
    return best


def same_bank_ffma(body, banks):
    n = 0
    for _, op, rest, _ in body:
        if not op.startswith("FFMA"):
            continue
        srcs = [o.strip() for o in rest.split(",")[1:]]
        regs = [int(re.match(r"R(\d+)", o).group(1)) % banks for o in srcs
                if re.match(r"R\d+", o) and not o.endswith(".reuse")]
        n += len(regs) != len(set(regs))
    return n


help_asked = sys.argv[1:2] in (["-h"], ["--help"])
if help_asked or not (len(sys.argv) >= 2 and all(os.path.isfile(p) for p in sys.argv[1:])):
    print(USAGE, file=sys.stdout if help_asked else sys.stderr)
    sys.exit(0 if help_asked else 2)
for path in sys.argv[1:]:
    ins = parse(path)
    loop = main_loop(ins)
    if not loop:
        print(f"{path}: no loop found ({len(ins)} instructions)")
        continue
    body = loop[1]
    ops = collections.Counter(o.split(".")[0] for _, o, _, _ in body)
    ffma = ops.get("FFMA", 0)
    stall = sum((c >> 41) & 15 for _, _, _, c in body)
    print(f"{path}: main loop {len(body)} instructions, FFMA {ffma} ({100.0 * ffma / len(body):.1f}%), "
          f"kernel {len(ins)} instructions; static issue {stall} cycles; FFMA with two reads in one bank: "
          f"{same_bank_ffma(body, 2)} (2 banks), {same_bank_ffma(body, 4)} (4 banks)")
    print("   " + ", ".join(f"{o} {n}" for o, n in ops.most_common(14)))
