#!/usr/bin/env python3
"""Independent references for the stdlib (stdlib/*.parm), written from the
meanings in docs/stdlib.md with index arithmetic, not bit matrices. Both
modes read a manifest with one case a line (python3 starts slowly, and
tests/sections/55-stdlib.sh has about a hundred cases):

  stdlib_ref.py prep MANIFEST    lines KIND ORDER ROW SEED FILE: rewrite FILE
      to meet a precondition in each row of ROW lines: KIND halves (both
      halves sorted), interleaved (even and odd positions sorted) or bitonic
      (rising then falling, rotated by a random amount); ORDER asc or desc
  stdlib_ref.py check MANIFEST   lines INPUT OUTPUT FUNC ARGS...: print, a
      line per case, "ok" when OUTPUT is FUNC applied to INPUT, else what is
      wrong

Sorting functions (ARGS: ORDER ROW): OUTPUT must hold each row of ROW lines
sorted by its first field in ORDER and be a permutation of INPUT row by row.
bpm_vcol ORDER: one V-shaped column of comparators in ORDER.
With indices (ARGS: ORDER ROW K): sort_idx, OUTPUT must be the values of the
first K of each row's stable sort in ORDER (equal keys in index order), row
after row, then their indices within the row (K = ROW: the whole sort; less:
a top-k).
Permutations (ARGS as in parm, a list written 1,2,3): OUTPUT[target(i)] must
be INPUT[i]. Values are compared as text, so use integer element types."""
import random
import sys


class Mismatch(Exception):
    pass


def lines(path):
    with open(path) as f:
        return [l.strip() for l in f.read().split("\n") if l.strip()]


def key(line):
    return int(line.split()[0])


def sorted_in(rows, order):
    return sorted(rows, key=key, reverse=order == "desc")


# ---- preconditions

def prep_row(kind, order, row, rng):
    h = len(row) // 2
    shuffled = row[:]
    rng.shuffle(shuffled)
    if kind == "halves":
        return sorted_in(shuffled[:h], order) + sorted_in(shuffled[h:], order)
    if kind == "interleaved":
        evens, odds = sorted_in(shuffled[:h], order), sorted_in(shuffled[h:], order)
        return [x for pair in zip(evens, odds) for x in pair] if h else row
    if kind == "bitonic":
        seq = sorted_in(shuffled[:h], order) + sorted_in(shuffled[h:], order)[::-1]
        k = rng.randrange(len(seq))
        return seq[k:] + seq[:k]
    sys.exit("stdlib_ref: unknown precondition " + kind)


def prep(kind, order, row, seed, inp):
    rng = random.Random(seed)
    out = []
    for s in range(0, len(inp), row):
        out += prep_row(kind, order, inp[s:s + row], rng)
    return out


# ---- sorting

def check_sort(inp, out, order, row):
    if len(out) != len(inp):
        raise Mismatch("expected %d lines, got %d" % (len(inp), len(out)))
    for s in range(0, len(inp), row):
        got, want = out[s:s + row], inp[s:s + row]
        keys = [key(l) for l in got]
        pairs = list(zip(keys, keys[1:]))
        if not all(a <= b if order == "asc" else a >= b for a, b in pairs):
            raise Mismatch("the row at %d is not sorted %s" % (s, order))
        if sorted(got) != sorted(want):
            raise Mismatch("the row at %d is not a permutation of the input" % s)


def check_vcol(inp, out, order):
    expect = inp[:]
    for i in range(len(inp) // 2):
        j = len(inp) - 1 - i
        a, b = key(inp[i]), key(inp[j])
        if not (a <= b if order == "asc" else a >= b):
            expect[i], expect[j] = inp[j], inp[i]
    if expect != out:
        raise Mismatch("bpm_vcol differs")


# ---- permutations: the index that element i of the input goes to

def rotl(x, k, n):
    k %= n
    return ((x << k) | (x >> (n - k))) & ((1 << n) - 1)


def gray(i):
    return i ^ (i >> 1)


def coords(k, ds):
    """k-index to coordinates, dimension 0 varying fastest."""
    out = []
    for d in ds:
        out.append(k % 2**d)
        k //= 2**d
    return out


def kindex(xs, ds):
    k, stride = 0, 1
    for x, d in zip(xs, ds):
        k += x * stride
        stride *= 2**d
    return k


def flip(k, ds, fs):
    xs = coords(k, ds)
    return kindex([2**d - 1 - x if i in fs else x for i, (x, d) in enumerate(zip(xs, ds))], ds)


def crinkle(k, ds, d, s):
    """The paper's equation (24): kc = total/m*((k/U)%m) + k%U + (k/(m*U))*U."""
    total, m, u = 2**sum(ds), 2**s, 2**sum(ds[:d])
    return total // m * ((k // u) % m) + k % u + (k // (m * u)) * u


def target_fn(func, args):
    def ints():
        return [int(a) for a in args]
    if func == "bitrev":
        n, = ints()
        return lambda i: int(format(i, "0%db" % n)[::-1], 2)
    if func == "reverse":
        n, = ints()
        return lambda i: 2**n - 1 - i
    if func == "transpose":
        r, c = ints()
        return lambda i: (i % 2**c) * 2**r + i // 2**c
    if func in ("bitrotl", "bitrotr"):
        n, k = ints()
        return lambda i: rotl(i, k if func == "bitrotl" else -k, n)
    if func in ("riffle", "unriffle"):
        n, = ints()
        h = 2**(n - 1)
        if func == "riffle":
            return lambda i: 2 * i if i < h else 2 * (i - h) + 1
        return lambda i: i // 2 + (h if i % 2 else 0)
    if func in ("gray", "ungray"):
        n, = ints()
        rank = {gray(j): j for j in range(2**n)}
        return (lambda i: rank[i]) if func == "gray" else gray
    ds = [int(x) for x in args[0].split(",")]
    if func == "flip":
        fs = [int(x) for x in args[1].split(",")]
        return lambda k: flip(k, ds, fs)
    d, s = int(args[1]), int(args[2])
    if func == "crinkle":
        return lambda k: crinkle(k, ds, d, s)
    if func == "uncrinkle":
        inverse = {crinkle(k, ds, d, s): k for k in range(2**sum(ds))}
        return lambda k: inverse[k]
    sys.exit("stdlib_ref: unknown function " + func)


SORTS = ("bitonic_sort", "bpm_sort", "merge_halves", "bitonic_merge", "bpm_merge")


def check_sort_idx(inp, out, order, row, k):
    """The first k of each row's stable sort: values, then indices."""
    values, indices = [], []
    for s in range(0, len(inp), row):
        keys = [key(l) for l in inp[s:s + row]]
        idx = sorted(range(row), key=lambda i: (-keys[i] if order == "desc" else keys[i], i))[:k]
        values += [inp[s + i] for i in idx]
        indices += [str(i) for i in idx]
    want = values + indices
    if out != want:
        bad = next(i for i in range(len(want)) if i >= len(out) or want[i] != out[i])
        raise Mismatch("sort_idx differs at output line %d (%d values, then their indices)" % (bad, len(values)))


def check(inp, out, func, args):
    if func == "sort_idx":
        check_sort_idx(inp, out, args[0], int(args[1]), int(args[2]))
        return
    if func in SORTS:
        check_sort(inp, out, args[0], int(args[1]))
        return
    if func == "bpm_vcol":
        check_vcol(inp, out, args[0])
        return
    target = target_fn(func, args)
    expect = [None] * len(inp)
    for i, line in enumerate(inp):
        expect[target(i)] = line
    if expect != out:
        bad = next(i for i in range(len(expect)) if i >= len(out) or expect[i] != out[i])
        raise Mismatch("%s differs at index %d" % (func, bad))


def main():
    mode, manifest = sys.argv[1], lines(sys.argv[2])
    for case in manifest:
        words = case.split()
        if mode == "prep":
            kind, order, row, seed, path = words
            text = prep(kind, order, int(row), int(seed), lines(path))
            with open(path, "w") as f:
                f.write("\n".join(text) + "\n")
            continue
        try:
            check(lines(words[0]), lines(words[1]), words[2], words[3:])
            print("ok")
        except Mismatch as e:
            print(e)


main()
