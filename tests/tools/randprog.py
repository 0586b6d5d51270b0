#!/usr/bin/env python3
"""Random parm programs for differential testing of the middle end.

randprog.py DIR COUNT SEED writes DIR/prog_K.parm and DIR/in_K.txt for K in
0..COUNT-1: random nests of parm, two, col, coli, vcolumn, map, mapi and bmmc
(random masks, random invertible matrices with complements) over asymmetric
pair functions, some of which depend on their index, with an input of the
right length."""
import os
import random
import sys

PRELUDE = """\
add_sub [a, b] = [a + b, a - b]
cas [a, b] = if a <= b then [a, b] else [b, a]
mix [a, b] = [b * 3, a xor b]
"""
PAIR_FUNCS = ["add_sub", "cas", "mix", "(\\[a, b] -> [b, a + 1])"]
MAPS = ["(\\x -> x * 3 + 1)", "(\\x -> x xor 5)", "(min 7)", "(\\x -> if x < 0 then 0 - x else x)"]
INDEXED_PAIR_FUNCS = ["(\\i [a, b] -> [a + i32 i, b xor i32 (i * 3)])",
                      "(\\i [a, b] -> if i % 3 == 1 then [b, a] else [a, b - 1])"]
INDEXED_MAPS = ["(\\i x -> x + i32 i)", "(\\i x -> x xor i32 (i * 7 + 1))"]


def random_matrix(rng, n):
    """An invertible n x n matrix over F2: random row operations on I."""
    rows = [1 << i for i in range(n)]
    for _ in range(3 * n):
        i, j = rng.randrange(n), rng.randrange(n)
        if i != j:
            rows[i] ^= rows[j]
    rng.shuffle(rows)
    return rows


def stage(rng, n, depth, arg):
    """One combinator on an array of 2^n elements named by the text `arg`."""
    choices = ["bmmc", "map", "mapi"]
    if n >= 1:
        choices += ["col", "coli", "vcolumn", "two", "parm"] * 2
    kind = rng.choice(choices)
    if kind == "bmmc":
        rows = ", ".join(str(r) for r in random_matrix(rng, n)) if n else ""
        if n == 0:
            return "map (\\x -> x + 1) %s" % arg
        return "bmmc (mat [%s], %d) %s" % (rows, rng.randrange(2 ** n), arg)
    if kind == "map":
        return "map %s %s" % (rng.choice(MAPS), arg)
    if kind == "mapi":
        return "mapi %s %s" % (rng.choice(INDEXED_MAPS), arg)
    if kind == "col":
        return "col %d %s %s" % (rng.randrange(1, 2 ** n), rng.choice(PAIR_FUNCS), arg)
    if kind == "coli":
        return "coli %d %s %s" % (rng.randrange(1, 2 ** n), rng.choice(INDEXED_PAIR_FUNCS), arg)
    if kind == "vcolumn":
        return "vcolumn %s %s" % (rng.choice(PAIR_FUNCS), arg)
    inner = chain(rng, n - 1, depth + 1, "ys%d" % depth)
    if kind == "two":
        return "two (\\ys%d -> %s) %s" % (depth, inner, arg)
    return "parm %d (\\ys%d -> %s) %s" % (rng.randrange(1, 2 ** n), depth, inner, arg)


def chain(rng, n, depth, arg):
    """A composition of 1 to 3 stages (fewer when deeply nested)."""
    count = rng.randint(1, 3 if depth < 2 else 1)
    expr = arg
    for _ in range(count):
        expr = "(%s)" % stage(rng, n, depth, expr) if depth < 4 else expr
    return expr


def main():
    out_dir, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    for k in range(count):
        rng = random.Random(seed * 100003 + k)
        n = rng.randint(1, 6)
        body = chain(rng, n, 0, "xs")
        with open(os.path.join(out_dir, "prog_%d.parm" % k), "w") as f:
            f.write("-- random program %d (seed %d)\n%s\nentry main (xs : [2^%d]i32) = %s\n"
                    % (k, seed, PRELUDE, n, body))
        with open(os.path.join(out_dir, "in_%d.txt" % k), "w") as f:
            f.write(" ".join(str(rng.randint(-100, 100)) for _ in range(2 ** n)) + "\n")


main()
