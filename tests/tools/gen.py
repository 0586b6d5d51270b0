#!/usr/bin/env python3
"""Random input for a parm entry: gen.py TYPE COUNT SEED.

TYPE is a primitive (i32, u32, f32, ...) or a comma-separated tuple of them
(u32,i32). Values cover negatives and duplicates; floats are finite."""
import random
import sys

RANGES = {
    "i8": (-2**7, 2**7 - 1), "i16": (-2**15, 2**15 - 1), "i32": (-2**31, 2**31 - 1),
    "i64": (-2**63, 2**63 - 1), "u8": (0, 2**8 - 1), "u16": (0, 2**16 - 1),
    "u32": (0, 2**32 - 1), "u64": (0, 2**64 - 1),
}

def value(rng, prim):
    if prim == "bool":
        return rng.choice(["true", "false"])
    if prim in ("f32", "f64"):
        return repr(rng.choice([rng.uniform(-1e6, 1e6), float(rng.randint(-50, 50))]))
    lo, hi = RANGES[prim]
    # a narrow range half the time so that duplicate keys occur
    if rng.random() < 0.5:
        lo, hi = max(lo, -20), min(hi, 20)
    return str(rng.randint(lo, hi))

def main():
    fields, count, seed = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        out.append(" ".join(value(rng, f) for f in fields))
    sys.stdout.write("\n".join(out) + "\n")

main()
