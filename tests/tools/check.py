#!/usr/bin/env python3
"""Independent references for the examples: check.py MODE [ARGS] INPUT OUTPUT.

MODE sort: OUTPUT is INPUT sorted ascending (numerically, per line's first field
for tuples: kvsort compares keys only, and the multiset of records is kept).
MODE rows R: OUTPUT is INPUT with each of the rows of length R sorted.
MODE perm FORMULA N: OUTPUT[f(i)] = INPUT[i] for the permutation named by
FORMULA (bitrev, reverse, transpose:R:C) on 2^N elements."""
import struct
import sys

def lines(path):
    with open(path) as f:
        return [l.split() for l in f.read().split("\n") if l.strip()]

def num(s):
    """A number as the program computes it: floats rounded to f32 when they fit."""
    if s in ("true", "false"):
        return s == "true"
    if not any(c in s for c in ".eEn"):
        return int(s)
    v = float(s)
    try:
        return struct.unpack("f", struct.pack("f", v))[0]
    except OverflowError:
        return v

def record(row):
    return tuple(num(x) for x in row)

def fail(msg):
    print("check:", msg)
    sys.exit(1)

def check_sorted(inp, out):
    if len(out) != len(inp):
        fail("expected %d lines, got %d" % (len(inp), len(out)))
    keys = [num(r[0]) for r in out]
    if any(keys[i] > keys[i + 1] for i in range(len(keys) - 1)):
        fail("output is not sorted")
    if sorted(map(record, inp)) != sorted(map(record, out)):
        fail("output is not a permutation of the input")

def bitrev(i, n):
    return int(format(i, "0%db" % n)[::-1], 2) if n else 0

def perm_target(kind, n, i):
    if kind == "bitrev":
        return bitrev(i, n)
    if kind == "reverse":
        return (2**n - 1) ^ i
    _, r, c = kind.split(":")
    r, c = int(r), int(c)
    row, col = i >> c, i & (2**c - 1)
    return (col << r) | row

def main():
    mode, args = sys.argv[1], sys.argv[2:-2]
    inp, out = lines(sys.argv[-2]), lines(sys.argv[-1])
    if mode == "sort":
        check_sorted(inp, out)
    elif mode == "rows":
        r = int(args[0])
        for start in range(0, max(len(inp), len(out)), r):
            check_sorted(inp[start:start + r], out[start:start + r])
    elif mode == "perm":
        kind, n = args[0], int(args[1])
        expect = [None] * len(inp)
        for i, row in enumerate(inp):
            expect[perm_target(kind, n, i)] = record(row)
        if expect != [record(r) for r in out]:
            fail("permutation %s differs" % kind)
    else:
        fail("unknown mode " + mode)

main()
