#!/usr/bin/env python3
"""Random parm programs for differential testing.

    randprog.py [--backend] [--big] [--chain [--mid]] [--narrow] [--columns] [--sizes=LO:HI] DIR COUNT SEED

writes DIR/prog_K.parm and, unless --big, DIR/in_K.txt (an input of the
right length) for K in 0..COUNT-1. Program K depends only on the options,
SEED and K, so `randprog.py OPTIONS DIR K+1 SEED` regenerates it.

The programs combine what found the bugs of issue 11:
- every integer and float type, bool, and tuples of them (--narrow: only
  the 1- and 2-byte integers and tuples of them, at 2^9 to 2^12 elements,
  so that permutations move 16-byte vectors); the scalar
  operators and built-in functions (sqrt, sin, exp, log, tanh, atan2, pow,
  fma, abs, floor, ceil); maps that convert
  between them (narrowing and widening between phases), build tuples
  (`\\x -> (x, f32 x)`) and project them back;
- parm, two, col, coli, vcolumn, bmmc, map, mapi, and sorts of the stdlib
  (bitonic and balanced periodic merger, over rows) whose comparator looks at
  one field of a tuple; runs of masked coli, whose functions act where bits
  of the pair's index match and leave the other pairs alone (the pairs
  (x, x + 2^d) of Batcher's merge, or random masks and bits);
- values used more than once (a DAG, not a chain): let-bound arrays read by
  several later stages, zipped together or returned together, at the top
  level and inside bodies; reductions (scalar results, per-block
  `replicate (reduce ...)`, operators that read another reduction's
  result), scalar and several array parameters, tuple
  results, bodies that take a 4-element array apart;
- arrays of one element: entries of 2^0 and ranged entries from n = 0;
- functions of stages that read reductions of the entry's arrays (work
  that does not depend on the function's parameters);
- ranged entries (`entry main (n : 2..4) (xs : [2^n]u16)`), with masks,
  matrices and sort sizes written in terms of n;
- long chains (70 to 110 stages, most of them changing the element type),
  which need more than 64 kernels;
- reductions of rows (`reduceblocks`, `expand` back to the rows' length,
  combined with the rows' elements), and per-block reductions of blocks of
  any size, from a start that is an element of the block too, and scalar
  code on a reduction and an element of the block together;
- entries of any length: the array parameter with a pad (`max`, `min` or a
  literal, field by field for tuples), one- or two-dimensional (rows), and
  inputs of random lengths and shapes, 0 and the full size among them;
  some with a result row length (`: [k]`) and a result of rows half as long;
- arrays that change length or index (issue 26): the halves of a mask
  changed on their own and joined by it or another, shifts (past either
  end too, or by a distance read off `loglen`; a fill that is an element
  of the array too), an element at a static
  position (`xs ! k`) combined with every element;
- the work-efficient scans of the stdlib (issue 26): Blelloch's network
  (`coli` steps that test index bits) and scans of blocks of any size
  (reductions of rows, expanded, combined with each block's network), with
  a reduction's operator on any element type; and the one-pass scans
  (`scanblocks`, `exscanblocks`) of integers and bool with exact operators
  and any block size, at any depth;
- every construct of docs/language.md (issue 41, tests/tools/constructs.py):
  top-level equations (a function recursive on a count, chosen by integer
  patterns, on scalars; a constant that bounds a size range), local
  functions, operator sections, hexadecimal and binary integers, floats
  with exponents, `unzip` and a tuple pattern, wildcard and parenthesised
  patterns, parenthesised types.

--backend keeps to what the back ends compile today: BACKEND_REFUSES lists
the features left out. --chain keeps to what they compile for several GPUs
(--gpus): one chain of stages from one array of 2^5 to 2^8 elements to one
result (CHAIN_REFUSES), scalar parameters and ranged entries included;
with --mid, of 2^14 to 2^16 elements (exchanges between GPUs long enough
to be cut into pieces). --big makes sizes 2^16 to 2^34, for the compiler
only: no input is written, and no interpreter could run them. --columns
makes chains of column stages (col, coli, masked coli runs, vcolumn) on
2^12 to 2^16 i32, LOCAL kernels alone, which the CUDA emulation runs
(tests/emu, section 54-cuda-emu). --sizes=LO:HI makes sizes 2^LO to 2^HI
(the default: 2^1 to 2^6), so that blocks in functions of two and parm
are larger than a thread's registers more often."""
import os
import random
import re
import sys

# Optional features of the programs; without --backend, programs use them all.
FEATURES = (
    "dag",             # a value used more than once, zip of two arrays
    "several_arrays",  # more than one array parameter
    "scalar_params",   # scalar entry parameters
    "tuple_results",   # more than one result
    "reduce",          # reduce and replicate
    "take_apart",      # a whole array of 2 or 4 elements taken apart by a
                       # list pattern, next to other stages
    "wide_tuples",     # elements of more than 2 scalar fields
    "pad",             # an array parameter of any length (a pad, rows)
    "pad_graphs",      # an entry of any length that is not one chain of stages
    "segments",        # with a pad of rows, the rows' starts and lengths in the
                       # caller's array (docs/language.md 7.3)
    "row_cut",         # with those, a result row length (`: [k]`, docs/language.md
                       # 7.2) and a result of rows half as long that it cuts
    "retyping_bodies", # a two or parm whose function changes the element type
    "big_groups",      # a two or parm whose function zips a block of more
                       # than 8 elements (array code, lifted to whole arrays)
    "big_reductions",  # a two or parm whose function reduces a block of more
                       # than 8 elements of up to 3 fields, with an operator
                       # that reads another reduction of the block
                       # (two-reduce-blocks zips the elements with its total)
    "block_totals",    # a two or parm whose function reduces a block of any
                       # size with a plain operator, computes from the total
                       # and replicates it or reads it in a map (the
                       # optimiser's two-reduce-blocks)
    "row_reductions",  # reduceblocks of rows of any size, expanded back to
                       # the rows' length, alone or zipped with the rows
    "invariant_work",  # functions of stages (maps, columns, at any depth) that
                       # read reductions of the entry's arrays, of maps of them
                       # too: work that does not depend on the function's
                       # parameters, which the optimiser moves out
    "one_element",     # arrays of 2^0 elements (ranged entries from n = 0 too)
    "lengths",         # half, join, shift, xs ! k and loglen (docs/language.md,
                       # 6.4): an array split into halves that are changed and
                       # joined again, shifts with a fill, an element read at a
                       # static position and combined with every element, a
                       # mapi over an array zipped with its shifts by d and -d
                       # (the pairs of textbook networks, or not quite)
    "big_lengths",     # those in a two or parm's function on a block of more
                       # than 2^3 elements (array code lifted to whole arrays,
                       # an element of the block read at a position through
                       # halves: two-lift, two-reduce-blocks)
    "scans",           # exscan_blelloch, scan_blelloch, exscan_blocks and
                       # scan_blocks of stdlib/scan.parm at the entry's level,
                       # scanblocks and exscanblocks at any depth
    "equations",       # top-level equations: a function recursive on a count
                       # (integer patterns) applied to scalars, a constant
                       # that bounds a size range; local functions (`let f x =`)
    "unzip",           # an array of tuples taken apart by unzip and a tuple
                       # pattern, two of its fields zipped back
    "static_elements", # tuples compared whole (== and != field by field) and
                       # true or false as a bool field of a map's result
)
# The features that the back ends refuse today (issue 12): --backend leaves
# them out. Remove a name once the back ends accept it.
BACKEND_REFUSES = ()
CHAIN_REFUSES = BACKEND_REFUSES + ("dag", "several_arrays", "tuple_results", "reduce", "take_apart", "pad", "row_cut",
                                   "invariant_work", "one_element", "lengths", "block_totals", "row_reductions",
                                   "scans", "unzip")

INTS = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
NARROW_INTS = ["i8", "u8", "i16", "u16"]
FLOATS = ["f32", "f64"]
RANGES = {t: ((-2 ** (int(t[1:]) - 1), 2 ** (int(t[1:]) - 1) - 1) if t[0] == "i"
              else (0, 2 ** int(t[1:]) - 1)) for t in INTS}

# scalar functions of x, by kind of type; each is an expression of x's type
# (the built-in functions of docs/language.md 6.3 among them)
INT_OPS = ["%(x)s * 3 + 1", "%(x)s xor 5", "min %(x)s 7", "max %(x)s 3", "%(x)s >> 1",
           "%(x)s - (%(x)s << 2)", "%(x)s / 3", "%(x)s %% 5", "%(x)s & 63", "0 - %(x)s",
           "if %(x)s < 4 then %(x)s + 9 else %(x)s - 1", "abs (%(x)s - 5)", "%(x)s | 0b101",
           "if %(x)s != 3 then %(x)s else -%(x)s", "if %(x)s > 2 then %(x)s - 1 else %(x)s & 0x3f"]
FLOAT_OPS = ["%(x)s * 1.5 + 1.0", "%(x)s / 3.0", "%(x)s - 2.25", "min %(x)s 9.5",
             "if %(x)s < 0.0 then 0.0 - %(x)s else %(x)s", "sin %(x)s",
             "sqrt (%(x)s * %(x)s + 1.0)", "%(x)s * %(x)s - 2.0",
             "exp (%(x)s * 0.01) - tanh %(x)s", "log (abs %(x)s + 0.5) + floor %(x)s",
             "atan2 %(x)s (ceil (%(x)s * 0.5))", "pow (abs %(x)s) 0.75", "fma %(x)s 1.5 (0.0 - %(x)s)",
             "cos %(x)s * 2.5e-1", "-%(x)s * 1e1"]
BOOL_OPS = ["!%(x)s", "%(x)s xor true", "%(x)s == false", "%(x)s != true", "%(x)s | false"]
# scalar functions of a and b (two elements of a pair), operator sections
# (`(-) a b`, `(<) a b`) among them
COMPARE_SECTIONS = ["if (%s) %%(a)s %%(b)s then %%(a)s else %%(b)s" % op for op in ("<", "<=", ">", ">=", "==", "!=")]
INT_OPS2 = ["%(a)s + %(b)s", "%(a)s - %(b)s", "%(b)s * 3", "%(a)s xor %(b)s",
            "min %(a)s %(b)s", "max %(a)s %(b)s", "%(a)s", "%(b)s",
            "(-) %(a)s %(b)s", "(&) %(a)s %(b)s", "(|) %(a)s %(b)s", "(%%) %(a)s %(b)s", "(/) %(a)s %(b)s",
            "(<<) %(a)s %(b)s", "(>>) %(a)s 1"] + COMPARE_SECTIONS
FLOAT_OPS2 = ["%(a)s + %(b)s", "%(a)s * 0.5", "%(b)s - %(a)s", "max %(a)s %(b)s", "%(a)s",
              "atan2 %(a)s %(b)s", "fma %(a)s %(b)s %(a)s", "pow (abs %(a)s) (%(b)s * 0.01)",
              "(-) %(a)s %(b)s", "(/) %(b)s %(a)s"] + COMPARE_SECTIONS
BOOL_OPS2 = ["%(a)s && %(b)s", "%(a)s || %(b)s", "%(a)s xor %(b)s", "!%(a)s", "%(b)s",
             "(==) %(a)s %(b)s", "(!=) %(a)s %(b)s", "(|) %(a)s %(b)s", "(&) %(a)s %(b)s"]
# reductions: (operator, zero); float operators are lambdas, which the IR
# does not mark commutative, so that no stage may reorder them
INT_REDUCE = [("(+)", "0"), ("(xor)", "0"), ("min", "100"), ("max", "0"),
              ("(\\a b -> a - b)", "1")]
FLOAT_REDUCE = [("(\\a b -> a + b)", "0.0"), ("(\\a b -> max a b)", "0.5")]
BOOL_REDUCE = [("(&&)", "true"), ("(||)", "false"), ("(xor)", "false")]
# the exact operators of scanblocks and exscanblocks, with a start that is
# not always their identity
EXACT_SCAN = {"int": [("(+)", "0"), ("(+)", "3"), ("(xor)", "5"), ("min", "100"), ("max", "0"), ("(*)", "1")],
              "bool": [("(&&)", "true"), ("(||)", "false"), ("(xor)", "true")]}

PRELUDE_SORT = 'import "sort"\n'
PRELUDE_SCAN = 'import "scan"\n'


def kind(t):
    """'int', 'float', 'bool' or 'tuple'."""
    if isinstance(t, tuple):
        return "tuple"
    return "int" if t in INTS else "float" if t in FLOATS else "bool"


def type_text(t):
    if isinstance(t, tuple):
        return "(%s)" % ", ".join(type_text(u) for u in t)
    return t


def leaf_types(t):
    if isinstance(t, tuple):
        return [leaf for u in t for leaf in leaf_types(u)]
    return [t]


def build(t, exprs):
    """An element of type t from the expressions of its leaves, in order."""
    exprs = list(exprs)

    def walk(u):
        if isinstance(u, tuple):
            return "(%s)" % ", ".join(walk(v) for v in u)
        return exprs.pop(0)
    return walk(t)


def paren(e):
    return e if e.replace("_", "").isalnum() else "(%s)" % e


def convert(to, e, frm):
    return e if to == frm else "%s %s" % (to, paren(e))


class Size:
    """The log2 of an array's length: a constant, or the range variable minus
    an offset; lo is its smallest value."""

    def __init__(self, var, off, lo):
        self.var, self.off, self.lo = var, off, lo

    def minus(self, d):
        return Size(self.var, self.off + d, self.lo - d)

    def fixed(self):
        return self.var is None

    def text(self):
        if self.var is None:
            return str(self.lo)
        return self.var if self.off == 0 else "(%s - %d)" % (self.var, self.off)


class Gen:
    """The state of one program: its random source, the features it may use,
    fresh names, and whether it needs the stdlib."""

    def __init__(self, rng, features, big, narrow=False):
        self.rng, self.features, self.big, self.narrow = rng, features, big, narrow
        self.counter = 0
        self.uses_sort = False
        self.uses_scan = False
        self.scalars = []          # scalar parameters: (name, type)
        self.long = False          # a long chain (more than 64 kernels)
        self.long_steps = 0
        self.columns = False       # --columns: column stages on i32 alone
        self.top = []              # the entry's arrays bound before the stage: (name, type)
        self.decls = []            # top-level equations, before the entry
        self.helpers = {}          # scalar type: the name of its helper (helper())

    def has(self, feature):
        return feature in self.features

    def fresh(self, prefix):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    def chance(self, p):
        return self.rng.random() < p

    # ---- types

    def scalar_type(self):
        if self.narrow:   # --narrow: fields of 1 and 2 bytes, whose permutations move 16-byte vectors
            return self.rng.choice(NARROW_INTS)
        r = self.rng.random()
        if r < 0.7:
            return self.rng.choice(INTS)
        return self.rng.choice(FLOATS) if r < 0.93 else "bool"

    def element_type(self):
        if self.chance(0.2):
            return self.tuple_type()
        return self.scalar_type()

    def tuple_type(self):
        if not self.has("wide_tuples"):
            return (self.scalar_type(), self.scalar_type())
        if self.chance(0.15):
            return ((self.scalar_type(), self.scalar_type()), self.scalar_type())
        return tuple(self.scalar_type() for _ in range(self.rng.choice([2, 2, 3])))

    def pattern(self, t, prefix):
        """A pattern for an element of type t: (text, [(name, scalar type)])."""
        if isinstance(t, tuple):
            parts = [self.pattern(u, prefix) for u in t]
            return "(%s)" % ", ".join(p for p, _ in parts), [leaf for _, ls in parts for leaf in ls]
        name = self.fresh(prefix)
        return name, [(name, t)]

    # ---- scalar expressions

    def literal(self, t):
        """A literal of type t, in each of the forms of docs/language.md 1."""
        k = kind(t)
        if k == "float":
            return self.rng.choice(["0.5", "1.5", "2.25", "3.0", "0.75", "2.5e-1", "1e1"])
        if k == "bool":
            return self.rng.choice(["true", "false"])
        return self.int_literal(self.rng.randint(1, 9))

    def int_literal(self, v):
        """v decimal, hexadecimal or binary."""
        form = self.rng.random()
        return str(v) if form < 0.6 else hex(v) if form < 0.8 else bin(v)

    def op1(self, t, e):
        """A scalar function of e, of type t."""
        ops = {"int": INT_OPS, "float": FLOAT_OPS, "bool": BOOL_OPS}[kind(t)]
        return self.rng.choice(ops) % {"x": paren(e)}

    def op2(self, t, a, b):
        ops = {"int": INT_OPS2, "float": FLOAT_OPS2, "bool": BOOL_OPS2}[kind(t)]
        return self.rng.choice(ops) % {"a": paren(a), "b": paren(b)}

    def combine(self, t, e, other):
        """e and another expression of type t combined into one."""
        if kind(t) == "bool":
            return "%s xor %s" % (paren(e), paren(other))
        return "%s %s %s" % (paren(e), self.rng.choice(["+", "-"] if kind(t) == "float"
                                                        else ["+", "-", "xor"]), paren(other))

    def with_index(self, t, e, i):
        """e (of type t) changed by the run-time i64 index i."""
        if kind(t) == "bool":
            return "%s xor (%s %% 3 == 1)" % (paren(e), i)
        if self.chance(0.3):
            return "if %s %% 3 == 1 then %s else %s" % (i, self.op1(t, e), e)
        return self.combine(t, e, convert(t, i if self.chance(0.5) else "%s * 7 + 1" % i, "i64"))

    def leaf_from(self, u, leaves, i=None):
        """An expression of scalar type u from the leaves of an element."""
        if kind(u) == "bool" and self.has("static_elements") and self.chance(0.05):
            return self.rng.choice(["true", "false"])
        same = [n for n, v in leaves if v == u]
        name, v = (same[0], u) if same and self.chance(0.6) else self.rng.choice(leaves)
        e = convert(u, name, v)
        if self.chance(0.5):
            e = self.op1(u, e)
        if i is not None and self.chance(0.6):
            e = self.with_index(u, e, i)
        if self.scalars and self.chance(0.3):
            s, st = self.rng.choice(self.scalars)
            e = self.combine(u, e, convert(u, s, st))
        if self.has("invariant_work") and self.top and self.chance(0.1):
            e = self.combine(u, e, self.invariant_term(u))
        if self.has("equations") and self.chance(0.1):
            e = "%s %d %s" % (self.helper(u), self.rng.randint(0, 3), paren(e))
        elif self.has("equations") and self.chance(0.05):
            g, y = self.fresh("g"), self.fresh("y")
            e = "let %s %s = %s in %s (%s %s)" % (g, y, self.op1(u, y), g, g, paren(e))
        return e

    def helper(self, u):
        """The name of a top-level function of a static count and a scalar
        of type u, recursive on the count (integer patterns); defined once
        per type."""
        if u not in self.helpers:
            f = self.fresh("rep")
            self.helpers[u] = f
            self.decls += ["%s 0 x = x" % f, "%s k x = %s" % (f, self.op1(u, "%s (k - 1) x" % f))]
        return self.helpers[u]

    def invariant_term(self, u):
        """An expression of scalar type u that reduces one of the entry's
        arrays (a field of it, through a map sometimes): whole-array work
        that does not depend on the function it is read in."""
        name, t = self.rng.choice(self.top)
        pat, leaves = self.pattern(t, "z")
        leaf, v = self.rng.choice(leaves)
        arr = name
        if isinstance(t, tuple) or self.chance(0.4):
            arr = "(map (\\%s -> %s) %s)" % (pat, self.op1(v, leaf) if self.chance(0.5) else leaf, name)
        op, zero = self.reducer(v)
        return convert(u, "reduce %s %s %s" % (op, zero, arr), v)

    # ---- element functions

    def map_to(self, t_in, t_out, indexed):
        """`map F` or `mapi F` from elements of t_in to t_out."""
        if not indexed and t_in != t_out and kind(t_in) != "tuple" and kind(t_out) != "tuple" \
                and self.chance(0.5):
            return "map %s" % t_out
        pat, leaves = self.pattern(t_in, "x")
        if kind(t_in) != "tuple" and self.chance(0.1):
            pat = "(%s)" % pat
        i = self.fresh("ix") if indexed else None
        outs = leaf_types(t_out)
        exprs = [self.leaf_from(u, leaves, i) for u in outs]
        if t_in == t_out and i is None and all(e == n for e, (n, _) in zip(exprs, leaves)):
            exprs[0] = self.op1(outs[0], exprs[0])
        # an index that no leaf reads is the wildcard pattern
        unread = i and not any(re.search(r"\b%s\b" % i, e) for e in exprs)
        lam = "\\%s%s -> %s" % ("_ " if unread else "%s " % i if i else "", pat, build(t_out, exprs))
        return "%s (%s)" % ("mapi" if indexed else "map", lam)

    def next_type(self, t):
        """The element type after a map that may change it."""
        if kind(t) == "tuple":
            r = self.rng.random()
            if r < 0.4:
                return self.rng.choice(leaf_types(t))
            if r < 0.6:
                return self.scalar_type()
            if r < 0.8 and len(t) == 2:
                return (t[1], t[0])
            return self.element_type()
        r = self.rng.random()
        if r < 0.6:
            return self.scalar_type()
        if r < 0.8:
            return (t, self.scalar_type())
        if self.has("wide_tuples") and self.chance(0.3):
            return (t, self.scalar_type(), t)
        return (self.scalar_type(), t)

    def pair_fn(self, t, indexed, comparator=False):
        """A function from [a, b] to [a', b'] on elements of type t."""
        pa, la = self.pattern(t, "a")
        pb, lb = self.pattern(t, "b")
        i = self.fresh("ix") if indexed else None
        head = "\\%s[%s, %s] -> " % ("%s " % i if i else "", pa, pb)
        a = build(t, [n for n, _ in la])
        b = build(t, [n for n, _ in lb])
        r = self.rng.random()
        if comparator or r < 0.45:
            keys = [j for j, (_, u) in enumerate(la) if kind(u) != "bool"] or [0]
            j = self.rng.choice(keys)
            ka, kb, u = la[j][0], lb[j][0], la[j][1]
            if kind(u) == "bool":
                cond = "!%s || %s" % (ka, kb)
            else:
                cond = "%s %s %s" % (ka, self.rng.choice(["<=", ">=", "<"]), kb)
            if kind(t) == "tuple" and self.has("static_elements") and self.chance(0.15):
                cond = "(%s) %s (%s %s)" % (cond, self.rng.choice(["&&", "||"]), a,
                                            self.rng.choice(["==", "!="]) + " " + b)
            if i is not None:
                cond = "(%s) == (%s %% 4 < 2)" % (cond, i)
            return head + "if %s then [%s, %s] else [%s, %s]" % (cond, a, b, b, a)
        if r < 0.85:
            lo = [self.op2(u, x, y) for (x, u), (y, _) in zip(la, lb)]
            hi = [self.op2(u, y, x) for (x, u), (y, _) in zip(la, lb)]
            if i is not None:
                k = self.rng.randrange(len(hi))
                hi[k] = self.with_index(la[k][1], hi[k], i)
            if self.has("invariant_work") and self.top and self.chance(0.15):
                k = self.rng.randrange(len(lo))
                lo[k] = self.combine(la[k][1], lo[k], self.invariant_term(la[k][1]))
            return head + "[%s, %s]" % (build(t, lo), build(t, hi))
        bs = [n for n, _ in lb]
        k = self.rng.randrange(len(bs))
        bs[k] = self.op1(lb[k][1], bs[k]) if i is None else self.with_index(lb[k][1], bs[k], i)
        return head + "[%s, %s]" % (build(t, bs), a)

    def reducer(self, t):
        """(operator, zero) for reduce on elements of type t."""
        k = kind(t)
        if k == "tuple":
            pa, la = self.pattern(t, "a")
            pb, lb = self.pattern(t, "b")
            body = build(t, [self.op2(u, x, y) for (x, u), (y, _) in zip(la, lb)])
            zero = build(t, [self.literal(u) for u in leaf_types(t)])
            return "(\\%s %s -> %s)" % (pa, pb, body), zero
        return self.rng.choice({"int": INT_REDUCE, "float": FLOAT_REDUCE, "bool": BOOL_REDUCE}[k])

    def reduction(self, t, arr):
        """`reduce OP ZERO arr`; sometimes OP reads the result of another
        reduction of arr, bound by a let around it (issue 24: the
        interpreter freed such a value after the operator's first run)."""
        op, zero = self.reducer(t)
        if not self.chance(0.3):
            return "reduce %s %s %s" % (op, zero, arr)
        op0, zero0 = self.reducer(t)
        pc, lc = self.pattern(t, "c")
        pa, la = self.pattern(t, "a")
        pb, lb = self.pattern(t, "b")
        exprs = [self.combine(u, self.op2(u, x, y), z) for (x, u), (y, _), (z, _) in zip(la, lb, lc)]
        return "let %s = reduce %s %s %s in reduce (\\%s %s -> %s) %s %s" % (
            pc, op0, zero0, arr, pa, pb, build(t, exprs), zero, arr)

    # ---- static arguments

    def mask(self, s):
        """A mask 0 < m < 2^s, for every value of s."""
        if s.fixed():
            if self.chance(0.4):
                bit = self.rng.randrange(s.lo)
                return "(^) 2 %d" % bit if self.chance(0.2) else str(2 ** bit)
            return str(self.rng.randrange(1, 2 ** s.lo))
        choices = ["2^(%s - 1)" % s.text(), "2^%s - 1" % s.text(), "(^) 2 (%s - 1)" % s.text()]
        if s.lo >= 2:
            choices += [str(self.rng.randrange(1, 2 ** s.lo)),
                        "2^(%s - 1) + %d" % (s.text(), self.rng.randrange(1, 2 ** (s.lo - 1)))]
        return self.rng.choice(choices)

    def matrix(self, s):
        """An invertible s x s matrix over F2 with a complement, for every value of s."""
        n, r = s.text(), self.rng.random()
        if s.fixed() and r < 0.5:
            rows = [1 << i for i in range(s.lo)]
            for _ in range(3 * s.lo):
                i, j = self.rng.randrange(s.lo), self.rng.randrange(s.lo)
                if i != j:
                    rows[i] ^= rows[j]
            self.rng.shuffle(rows)
            m = "mat [%s]" % ", ".join(str(row) for row in rows)
        else:
            i = self.fresh("ix")
            m = self.rng.choice([
                "bitperm %s (\\%s -> (%s + %d) %% %s)" % (n, i, i, self.rng.randint(1, 3), n),
                "bitperm %s (\\%s -> %s - 1 - %s)" % (n, i, n, i),
                "matof %s (\\%s -> if %s == 0 then 2^%s - 1 else 2^%s)" % (n, i, i, n, i),
                "matof %s (\\%s -> if %s + 1 < %s then 3 * 2^%s else 2^%s)" % (n, i, i, n, i, i)])
        c = self.rng.choice(["0", "2^%s - 1" % n, str(self.rng.randrange(2 ** min(s.lo, 20)))])
        return "bmmc (%s, %s)" % (m, c) if c != "0" else "bmmc (%s)" % m

    # ---- array stages

    def stage(self, s, t, arg, depth, pool):
        """One array stage on arg (2^s elements of type t); pool holds the
        other arrays of that size in scope, (name, type). Returns (text, type)."""
        weights = {"map": 3, "convert": 3, "mapi": 1}
        if s.lo >= 1:
            weights.update({"col": 2, "coli": 1, "coli_run": 0.7, "vcolumn": 1, "bmmc": 1.5})
            if depth < 3 and not self.long:
                weights.update({"two": 1, "parm": 1})
            if depth < 2 and not self.long:
                weights["sort"] = 1
        if self.long and s.lo >= 1:
            # a map that changes the element type ends a kernel, and a
            # column between two of them keeps the optimiser from fusing them
            self.long_steps += 1
            if self.long_steps % 2 == 0 or self.chance(0.1):
                weights = {"convert": 1}
            else:
                weights = {"col": 2, "coli": 1, "coli_run": 1, "vcolumn": 1}
        if self.has("dag") and pool:
            weights["zip"] = 1.5
        # a per-block reduction is element code on its block: at most 2^3
        # elements of any type fit one thread's registers (maps in the body
        # may make elements of more than 8 bytes, which allow no more); on a
        # larger block its elements are zipped with the other reduction's
        # totals, so tuples of more than 3 fields would pass the back ends' 16
        if self.has("reduce") and s.lo >= 1 and not self.long and \
                ((self.has("big_reductions") and len(leaf_types(t)) <= 3) or (s.fixed() and s.lo <= 3)):
            weights["block_reduce"] = 0.5
            if self.has("dag"):
                weights["broadcast"] = 0.5
        if self.has("block_totals") and s.lo >= 1 and not self.long:
            weights["block_total"] = 0.4
        if self.has("row_reductions") and not self.long:
            weights["row_reduce"] = 0.6
        # in a function, half, join and shift are element code on the block
        if self.has("lengths") and not self.long and \
                (depth == 0 or self.has("big_lengths") or (s.fixed() and s.lo <= 3)):
            weights.update({"shift": 0.7, "index": 0.5})
            if s.lo >= 1:
                weights["halves"] = 1
                weights["stencil"] = 0.5
            if s.lo >= 1 and depth == 0:
                weights["kept_halves"] = 0.7
        # an inclusive scan of blocks carries three elements a position, and
        # the back end takes elements of at most 16 fields
        if self.has("scans") and depth == 0 and not self.long and len(leaf_types(t)) <= 2:
            weights["scan"] = 0.5
        # the one-pass scans take exact operators (integers and bool), at
        # any depth: element code on a small block, lifted on a large one
        if self.has("scans") and not self.long and kind(t) in ("int", "bool"):
            weights["exact_scan"] = 0.5
        if self.has("take_apart") and s.fixed() and s.lo in (1, 2):
            weights["take_apart"] = 2
        if self.has("unzip") and kind(t) == "tuple" and not self.long:
            weights["unzip"] = 1
        if depth > 0 and not self.has("retyping_bodies"):
            # the optimiser moves maps out of bodies, so any map that
            # changes the type inside one can make the body change it
            for name in ("convert", "sort", "unzip"):
                weights.pop(name, None)
        if depth > 0 and not self.has("big_groups") and not (s.fixed() and s.lo <= 3):
            # a zip of two values of a body keeps its whole block in element code
            weights.pop("zip", None)
            weights.pop("unzip", None)
        if self.columns:
            weights = {"col": 1, "coli": 1, "coli_run": 3, "vcolumn": 0.5}
            if s.lo >= 2 and depth == 0:
                weights["kept_halves"] = 0.5
        names = sorted(weights)
        what = self.rng.choices(names, [weights[n] for n in names])[0]
        return getattr(self, "stage_" + what)(s, t, arg, depth, pool)

    def stage_map(self, s, t, arg, depth, pool):
        return "%s %s" % (self.map_to(t, t, False), arg), t

    def stage_convert(self, s, t, arg, depth, pool):
        u = self.next_type(t)
        while self.long and u == t:
            u = self.next_type(t)
        return "%s %s" % (self.map_to(t, u, False), arg), u

    def stage_mapi(self, s, t, arg, depth, pool):
        keep = self.chance(0.6) or (depth > 0 and not self.has("retyping_bodies"))
        u = t if keep else self.next_type(t)
        return "%s %s" % (self.map_to(t, u, True), arg), u

    def stage_col(self, s, t, arg, depth, pool):
        return "col %s (%s) %s" % (paren(self.mask(s)), self.pair_fn(t, False), arg), t

    def stage_coli(self, s, t, arg, depth, pool):
        if self.chance(0.3):
            return self.directed_coli(s, t, arg), t
        return "coli %s (%s) %s" % (paren(self.mask(s)), self.pair_fn(t, True), arg), t

    def directed_coli(self, s, t, arg):
        """A column whose pairs come out swapped where a test of the index
        fails: the bitonic sort's direction (a bit of i), a parity of two
        bits, or a test that is no parity (two-swap-out)."""
        i, p, a, b = self.fresh("ix"), self.fresh("p"), self.fresh("a"), self.fresh("b")
        bits = max(s.lo, 1)
        test = self.rng.choice([
            "(%s / 2^%d) %% 2 == 0" % (i, self.rng.randrange(bits)),
            "((%s / 2^%d) + (%s / 2^%d)) %% 2 == 1" % (i, self.rng.randrange(bits), i, self.rng.randrange(bits)),
            "%s %% 3 == 0" % i])
        f = self.pair_fn(t, True)
        return "coli %s (\\%s %s -> if %s then (%s) %s %s else (let [%s, %s] = (%s) %s %s in [%s, %s])) %s" % (
            paren(self.mask(s)), i, p, test, f, i, p, a, b, f, i, p, b, a, arg)

    def stage_coli_run(self, s, t, arg, depth, pool):
        """A run of masked coli: each pair function acts where bits of the
        pair's index match and leaves the other pairs alone, so that the run
        compares pairs that are not xor pairs (Batcher's merge, odd-even
        transposition, pairs at a distance in index order)."""
        text = arg
        for _ in range(self.rng.randint(2, 4)):
            i, p = self.fresh("ix"), self.fresh("p")
            mask, guard = self.masked_column(s, i)
            text = "coli %s (\\%s %s -> if %s then (%s) %s %s else %s) %s" % (
                paren(mask), i, p, guard, self.pair_fn(t, True), i, p, p, paren(text))
        return text, t

    def masked_column(self, s, i):
        """(mask, guard on the index i) of one column of a masked run: the
        pairs (x, x + 2^d) of Batcher's merge whose lower index ends in j
        ones above bit d, or a random mask and index bits."""
        bits = s.lo
        if bits >= 2 and self.chance(0.5):
            d = self.rng.randrange(bits - 1)
            j = self.rng.randrange(2, bits - d + 1)
            ones = 2 ** (j - 1) - 1
            return "(2^%d - 1) * 2^%d" % (j, d), "(%s / 2^%d) & %d == %d" % (i, d, ones, ones)
        bits = min(s.lo, 6)
        known = self.rng.randrange(1, 2 ** bits)
        return self.mask(s), "%s & %d == %d" % (i, known, known & self.rng.randrange(2 ** bits))

    def stage_vcolumn(self, s, t, arg, depth, pool):
        return "vcolumn (%s) %s" % (self.pair_fn(t, False), arg), t

    def stage_bmmc(self, s, t, arg, depth, pool):
        return "%s %s" % (self.matrix(s), arg), t

    def stage_two(self, s, t, arg, depth, pool):
        y, body, u = self.body(s.minus(1), t, depth + 1)
        return "two (\\%s -> %s) %s" % (y, body, arg), u

    def stage_parm(self, s, t, arg, depth, pool):
        y, body, u = self.body(s.minus(1), t, depth + 1)
        return "parm %s (\\%s -> %s) %s" % (paren(self.mask(s)), y, body, arg), u

    def stage_sort(self, s, t, arg, depth, pool):
        """A sort of rows of 2^k elements, often of (t, u) records by one field."""
        self.uses_sort = True
        k = self.rng.randint(1, min(s.lo, 14 if self.big else 6))
        sort = self.rng.choice(["bitonic_sort", "bpm_sort"])
        if sort == "bpm_sort" and k == 1 and s.lo == 1 and not self.has("take_apart"):
            sort = "bitonic_sort"   # bpm_sort c 1 applies c to the whole array
        if kind(t) != "tuple" and self.chance(0.5):
            u = self.scalar_type()
            x = self.fresh("x")
            arg = "map (\\%s -> (%s, %s)) %s" % (x, x, convert(u, x, t), arg)
            rec = (t, u)
        else:
            rec = t
        text = "rows %s (%s (%s) %d) %s" % (s.minus(k).text(), sort, self.pair_fn(rec, False, True),
                                           k, paren(arg))
        if rec != t:
            return "%s (%s)" % (self.map_to(rec, t, False), text), t
        return text, t

    def stage_zip(self, s, t, arg, depth, pool):
        """Two arrays of the same size combined element by element."""
        other, u = self.rng.choice(pool)
        pa, la = self.pattern(t, "p")
        pb, lb = self.pattern(u, "q")
        outs = leaf_types(t)
        k = self.rng.randrange(len(outs))
        exprs = [n for n, _ in la]
        exprs[k] = self.combine(outs[k], exprs[k], self.leaf_from(outs[k], lb))
        return "map (\\(%s, %s) -> %s) (zip %s %s)" % (pa, pb, build(t, exprs), arg, other), t

    def stage_unzip(self, s, t, arg, depth, pool):
        """An array of tuples taken apart by unzip and a let of a tuple
        pattern; its first two fields zipped back the other way round."""
        names = [self.fresh("w") for _ in t]
        return "(let (%s) = unzip %s in zip %s %s)" % (", ".join(names), arg, names[1], names[0]), (t[1], t[0])

    def stage_block_reduce(self, s, t, arg, depth, pool):
        """Each block of a parm replaced by copies of its reduction."""
        y = self.fresh("y")
        return "parm %s (\\%s -> replicate %s %s) %s" % (
            paren(self.mask(s)), y, s.minus(1).text(), paren(self.reduction(t, y)), arg), t

    def stage_block_total(self, s, t, arg, depth, pool):
        """Each block of a parm replaced by copies of its plain reduction,
        or (in a DAG) its elements combined with it in a map."""
        y = self.fresh("y")
        op, zero = self.reducer(t)
        block = 2 ** (s.lo - 1)
        if len(leaf_types(t)) <= 2 and self.chance(0.25):
            zero = "(%s ! %d)" % (y, self.rng.randrange(block))     # a start the block computes (two-reduce-start)
        total, bound = "reduce %s %s %s" % (op, zero, y), ""
        if kind(t) != "tuple" and self.chance(0.4):
            # scalar code on the total, which it may read more than once:
            # the total bound once, as a user writes it (one reduction)
            r = self.fresh("r")
            bound = "let %s = %s in " % (r, total)
            total = self.op1(t, r)
            if self.chance(0.4):    # and on an element of the block too (two-sink-scalars)
                total = self.combine(t, total, "%s ! %d" % (y, self.rng.randrange(block)))
        if not self.has("dag") or self.chance(0.5):
            return "parm %s (\\%s -> %sreplicate %s (%s)) %s" % (paren(self.mask(s)), y, bound, s.minus(1).text(), total,
                                                              arg), t
        pa, la = self.pattern(t, "p")
        pb, lb = self.pattern(t, "q")
        exprs = [self.combine(u, x, z) for (x, u), (z, _) in zip(la, lb)]
        return "parm %s (\\%s -> %slet %s = %s in map (\\%s -> %s) %s) %s" % (
            paren(self.mask(s)), y, bound, pb, total, pa, build(t, exprs), y, arg), t

    def row_log(self, s):
        """A block size r <= s, for every value of s."""
        if s.fixed() or self.chance(0.5):
            return str(self.rng.randint(0, s.lo))
        return s.minus(self.rng.randint(0, s.lo)).text()

    def stage_row_reduce(self, s, t, arg, depth, pool):
        """Each row of 2^r reduced, expanded back to the rows, and (in a DAG)
        combined with the row's elements."""
        r = self.row_log(s)
        op, zero = self.reducer(t)
        rows = "expand %s (reduceblocks %s %s %s %s)" % (r, r, op, zero, arg)
        if not self.has("dag") or self.chance(0.4):
            return rows, t
        pa, la = self.pattern(t, "p")
        pb, lb = self.pattern(t, "q")
        exprs = [self.combine(u, x, z) for (x, u), (z, _) in zip(la, lb)]
        return "map (\\(%s, %s) -> %s) (zip %s (%s))" % (pa, pb, build(t, exprs), arg, rows), t

    def stage_broadcast(self, s, t, arg, depth, pool):
        """The reduction of an array combined with each of its elements."""
        pa, la = self.pattern(t, "p")
        pb, lb = self.pattern(t, "q")
        exprs = [self.combine(u, x, y) for (x, u), (y, _) in zip(la, lb)]
        return "map (\\(%s, %s) -> %s) (zip %s (replicate %s %s))" % (
            pa, pb, build(t, exprs), arg, s.text(), paren(self.reduction(t, arg))), t

    def stage_scan(self, s, t, arg, depth, pool):
        """A work-efficient scan of stdlib/scan.parm with a reduction's
        operator: Blelloch's network, or scans of blocks of 2^r (any r <= s,
        0 included, which is the network on the whole array)."""
        self.uses_scan = True
        op, zero = self.reducer(t)
        inclusive = self.chance(0.5)
        if self.chance(0.4):
            return "%s %s %s %s" % ("scan_blelloch" if inclusive else "exscan_blelloch", op, paren(zero), arg), t
        return "%s %s %s %s %s" % ("scan_blocks" if inclusive else "exscan_blocks", op, paren(zero),
                                   paren(self.row_log(s)), arg), t

    def stage_exact_scan(self, s, t, arg, depth, pool):
        """A one-pass scan (scanblocks, exscanblocks) of blocks of 2^r with
        an exact operator."""
        op, zero = self.rng.choice(EXACT_SCAN[kind(t)])
        name = "scanblocks" if self.chance(0.5) else "exscanblocks"
        return "%s %s %s %s %s" % (name, paren(self.row_log(s)), op, zero, arg), t

    def stage_halves(self, s, t, arg, depth, pool):
        """parm's split and stitch written out: the halves of one mask,
        changed on their own, joined by the same mask or another."""
        m = paren(self.mask(s))
        halves = ["half %s %d %s" % (m, b, arg) for b in (0, 1)]
        for b in (0, 1):
            r = self.rng.random()
            if r < 0.4:
                halves[b] = "%s (%s)" % (self.map_to(t, t, False), halves[b])
            elif r < 0.6:
                halves[b] = "%s (%s)" % (self.shift_of(s.minus(1), t, "(%s)" % halves[b]), halves[b])
        m2 = m if self.chance(0.5) else paren(self.mask(s))
        return "join %s (%s) (%s)" % (m2, halves[0], halves[1]), t

    def stage_kept_halves(self, s, t, arg, depth, pool):
        """Column stages on arg, one half of each kept (a half that only it
        reads goes on its stage's chain: the back ends fuse it into the
        chain's last write, Schedule.halves), sometimes a stage and a half
        more on that, joined back to arg's length."""
        halves = [self.kept_half(s, t, arg, depth, pool) for _ in range(2)]
        if s.lo >= 2 and self.chance(0.5):
            # two halves deep on each side: joined once more
            deeper = [self.kept_half(s.minus(1), t, paren(self.kept_half(s, t, arg, depth, pool)), depth, pool)
                      for _ in range(2)]
            halves[0] = "join %s (%s) (%s)" % (paren(self.mask(s.minus(1))), deeper[0], deeper[1])
        return "join %s (%s) (%s)" % (paren(self.mask(s)), halves[0], halves[1]), t

    def kept_half(self, s, t, arg, depth, pool):
        """`half M B` of a column stage (and a permutation) on arg, of 2^s;
        sometimes a column stage more on the half, which the chain runs on
        what the half keeps (Round.live_log, Step.kept_log)."""
        stage = self.rng.choice([self.stage_col, self.stage_coli, self.stage_vcolumn])
        text, _ = stage(s, t, arg, depth, pool)
        if self.chance(0.3):
            text = "%s (%s)" % (self.matrix(s), text)
        text = "half %s %d (%s)" % (paren(self.mask(s)), self.rng.randint(0, 1), text)
        if s.lo >= 2 and self.chance(0.4):
            after = self.rng.choice([self.stage_col, self.stage_coli, self.stage_vcolumn])
            text, _ = after(s.minus(1), t, paren(text), depth, pool)
        return text

    def shift_of(self, s, t, arg):
        """`shift D FILL`: D past either end sometimes, or read off arg's
        length (loglen)."""
        n = 2 ** s.lo
        choices = [str(self.rng.randint(-n - 1, n + 1)), "1", "-1"]
        if s.lo >= 1:
            choices.append("2^(loglen %s - 1)" % arg)
        fill = build(t, [self.literal(u) for u in leaf_types(t)])
        if len(leaf_types(t)) <= 4 and self.chance(0.3):    # an element of the array (shift-fill-map in a block)
            fill = "%s ! %s" % (arg, self.position(n))
        return "shift (%s) %s" % (self.rng.choice(choices), paren(fill))

    def position(self, n):
        """A static position below n, sometimes written with a sign as the
        right operand of '!' (`xs ! -(0 - 3)`, the grammar's operand)."""
        k = self.rng.randrange(n)
        return "-(0 - %d)" % k if self.chance(0.2) else "%d" % k

    def stage_shift(self, s, t, arg, depth, pool):
        return "%s %s" % (self.shift_of(s, t, arg), arg), t

    def stage_stencil(self, s, t, arg, depth, pool):
        """A map over the array zipped with its shifts by d and -d that
        combines the pairs (i, i + d) of a textbook network: Parberry's odd
        i with an odd d, Batcher's and the bitonic i with bit j clear and
        d = 2^j, odd-even transposition's d = 1. Some are not pairs (an even
        d with odd i, a bound left out so that the fill is read, elements
        changed outside the pairs), which the optimiser must leave alone
        (stencil-columns)."""
        z, i = self.fresh("z"), self.fresh("ix")
        n = str(2 ** s.lo) if s.fixed() else "2^(loglen %s)" % z
        family = self.rng.choice(["pairwise", "bit", "transposition"])
        if family == "pairwise":
            d = self.rng.choice([2 ** self.rng.randint(1, s.lo) - 1, self.rng.randrange(1, 2 ** s.lo)])
            lower, upper = "%s %% 2 == 1" % i, "(%s - %d) %% 2 == 1" % (i, d)
        elif family == "bit":
            j = self.rng.randrange(s.lo)
            d = 2 ** j
            lower, upper = "(%s / %d) %% 2 == 0" % (i, d), "(%s / %d) %% 2 == 1" % (i, d)
        else:
            d, r = 1, self.rng.randint(0, 1)
            lower, upper = "%s %% 2 == %d" % (i, r), "(%s - 1) %% 2 == %d" % (i, r)
        if self.chance(0.85):
            lower += " && %s + %d < %s" % (i, d, n)
        if self.chance(0.85):
            upper += " && %s >= %d" % (i, d)
        px, lx = self.pattern(t, "x")
        pu, lu = self.pattern(t, "above")
        pw, lw = self.pattern(t, "below")
        x, u, w = (build(t, [m for m, _ in ls]) for ls in (lx, lu, lw))
        keys = [k for k, (_, v) in enumerate(lx) if kind(v) != "bool"]
        if keys and self.chance(0.5):
            k = self.rng.choice(keys)
            lo = "if %s <= %s then %s else %s" % (lx[k][0], lu[k][0], x, u)
            hi = "if %s <= %s then %s else %s" % (lw[k][0], lx[k][0], x, w)
            if self.chance(0.5):    # the bitonic sort's direction, by another bit
                down = "(%s / 2^%d) %% 2 == 1" % (i, self.rng.randint(0, s.lo))
                lo = "if %s then (if %s <= %s then %s else %s) else (%s)" % (
                    down, lu[k][0], lx[k][0], x, u, lo)
                hi = "if %s then (if %s <= %s then %s else %s) else (%s)" % (
                    down, lx[k][0], lw[k][0], x, w, hi)
        else:
            los = [self.op2(v, a, b) for (a, v), (b, _) in zip(lx, lu)]
            his = [self.op2(v, b, a) for (a, v), (b, _) in zip(lx, lw)]
            if self.chance(0.4):    # the index read at both elements of a pair
                k = self.rng.randrange(len(los))
                los[k] = self.with_index(lx[k][1], los[k], i)
                his[k] = self.with_index(lx[k][1], his[k], i)
            lo, hi = build(t, los), build(t, his)
        alone = x if self.chance(0.9) else build(t, [self.op1(v, m) for m, v in lx])
        fill = build(t, [self.literal(v) for v in leaf_types(t)])
        if len(leaf_types(t)) <= 4 and self.chance(0.5):
            fill = "%s ! %s" % (z, self.position(2 ** s.lo))
        body = "if %s then %s else if %s then %s else %s" % (lower, lo, upper, hi, alone)
        return "(let %s = %s in mapi (\\%s ((%s, %s), %s) -> %s) (zip (zip %s (shift (0 - %d) (%s) %s)) (shift %d (%s) %s)))" % (
            z, arg, i, px, pu, pw, body, z, d, fill, z, d, fill, z), t

    def stage_index(self, s, t, arg, depth, pool):
        """The element at a static position combined with every element."""
        pa, la = self.pattern(t, "p")
        pb, lb = self.pattern(t, "q")
        exprs = [self.combine(u, x, y) for (x, u), (y, _) in zip(la, lb)]
        return "map (\\(%s, %s) -> %s) (zip %s (replicate %s (%s ! %s)))" % (
            pa, pb, build(t, exprs), arg, s.text(), arg, self.position(2 ** s.lo)), t

    def stage_take_apart(self, s, t, arg, depth, pool):
        """A function on a 2- or 4-element array written with a list pattern."""
        count = 2 ** s.lo
        pats, leaves = zip(*(self.pattern(t, "e") for _ in range(count)))
        elems = [build(t, [n for n, _ in ls]) for ls in leaves]
        order = list(range(count))
        self.rng.shuffle(order)
        out = [elems[j] for j in order]
        k = self.rng.randrange(count)
        out[k] = build(t, [self.op2(u, x, y) for (x, u), (y, _)
                           in zip(leaves[k], leaves[count - 1 - k])])
        return "(\\[%s] -> [%s]) %s" % (", ".join(pats), ", ".join(out), arg), t

    def chain(self, s, arrays, depth, length):
        """length stages from the first of arrays (name, type), each bound by
        let; a stage reads the one before it or, in a DAG, any array bound
        before it. Returns (lets, the arrays in scope, the last one's type)."""
        lets, avail = [], list(arrays)
        cur, cur_t = arrays[0]
        for _ in range(length):
            if depth == 0:
                self.top = list(avail)
            src, src_t = cur, cur_t
            if self.has("dag") and len(avail) > 1 and self.chance(0.3):
                src, src_t = self.rng.choice(avail)
            text, cur_t = self.stage(s, src_t, src, depth, [(n, u) for n, u in avail if n != src])
            cur = self.fresh("v")
            lets.append("let %s = %s in" % (cur, text))
            avail.append((cur, cur_t))
        return lets, avail, cur_t

    def body(self, s, t, depth):
        """The function of a two or parm: (parameter, body text, result type)."""
        y = self.fresh("y")
        lets, avail, u = self.chain(s, [(y, t)], depth, self.rng.randint(1, 3))
        return y, " ".join(lets + [avail[-1][0]]), u

    # ---- the entry

    def results(self, s, arrays):
        """The entry's result expression over the top-level arrays (name, type)."""
        parts = [arrays[-1][0]]
        if self.cut:        # the lower half of each row of one of them
            parts.append("half %s 0 %s" % (self.cut[0], self.rng.choice(arrays)[0]))
        if self.has("tuple_results"):
            for name, _ in self.rng.sample(arrays[:-1], min(len(arrays) - 1, self.rng.randint(0, 2))):
                parts.insert(self.rng.randrange(len(parts) + 1), name)
            if self.has("reduce") and self.chance(0.3):
                name, t = self.rng.choice(arrays)
                parts.append(paren(self.reduction(t, name)))
        return parts[0] if len(parts) == 1 else "(%s)" % ", ".join(parts)

    def program(self, sizes):
        """(source text without prelude, parameter list [(kind, type)], size range)."""
        lo, hi = sizes
        one = self.has("one_element") and not self.big and self.chance(0.08)
        ranged = self.chance(0.2) and not self.columns
        if ranged:
            lo = self.rng.randint(lo, hi)
            hi = min(sizes[1], lo + self.rng.randint(0, 2))
            lo = 0 if one else lo
            s = Size("n", 0, lo)
        else:
            lo = hi = 0 if one else self.rng.randint(lo, hi)
            s = Size(None, 0, lo)
        t = "i32" if self.columns else self.element_type()
        params = [("xs", "array", t)]
        # an entry of any length: the pad, and the row bits of a two-dimensional xs (-1: one)
        self.pad = self.pad_text(t) if self.has("pad") and self.chance(0.3) else None
        self.rows_log = self.rng.randint(1, lo - 1) if self.pad and not ranged and lo >= 2 and self.chance(0.4) else -1
        # rows placed by segments: starts and lengths, i32 or i64 each (docs/language.md 7.3)
        self.segments = self.rows_log >= 0 and self.has("segments") and self.chance(0.4)
        if self.segments:
            params += [(name, "segments", self.rng.choice(["i32", "i64"])) for name in ("st", "ln")]
        if self.pad and not self.has("pad_graphs"):
            self.features = [f for f in self.features
                             if f not in ("dag", "several_arrays", "tuple_results", "reduce", "take_apart",
                                          "invariant_work")]
        if self.has("several_arrays") and self.chance(0.3):
            params.append(("ys", "array", self.element_type()))
        if self.has("scalar_params") and self.chance(0.3):
            params.insert(self.rng.randrange(len(params) + 1), ("s", "scalar", self.scalar_type()))
            self.scalars = [(n, u) for n, k, u in params if k == "scalar"]
        self.long = self.chance(0.1) and not self.columns
        length = self.rng.randint(70, 110) if self.long else self.rng.randint(2, 8) if self.columns else \
            self.rng.randint(1, 5)
        arrays = [(n, u) for n, k, u in params if k == "array"]
        # a result row length: rows of xs's arrays half as long, cut to k (one row of 2^(n-1) when xs has one)
        cols_log = s.lo - self.rows_log if self.rows_log >= 0 else s.lo
        self.cut = None
        if self.pad and self.has("row_cut") and self.has("pad_graphs") and cols_log >= 1 and self.chance(0.4):
            half_mask = "(2 ^ %s)" % ("%d" % (cols_log - 1) if self.rows_log >= 0 else s.minus(1).text())
            self.cut = (half_mask, self.rng.randint(1, 1 << (cols_log - 1)))
        body, out = self.top_chain(s, arrays, length)
        top = str(hi)
        if ranged and self.has("equations") and self.chance(0.3):   # a bound that names a constant
            top = self.fresh("top")
            self.decls.append("%s = %d" % (top, hi))
        head = "entry main%s%s%s =" % (" (n : %d..%s)" % (lo, top) if ranged else "",
                                        "".join(" (%s : %s)" % (n, self.array_type(n, s, u) if k == "array" else
                                                                 "[2^%d]%s" % (self.rows_log, u) if k == "segments" else u)
                                                for n, k, u in params),
                                        " : [%d]" % self.cut[1] if self.cut else "")
        return "".join(d + "\n" for d in self.decls) + head + "\n" + body + "\n", params, (lo, hi)

    def array_type(self, name, s, t):
        elem = type_text(t)
        if kind(t) != "tuple" and self.chance(0.1):     # a type in parentheses
            elem = "(%s)" % elem
        if name != "xs" or not self.pad:
            return "[2^%s]%s" % (s.text(), elem)
        dims = "[2^%d][2^%d]" % (self.rows_log, s.lo - self.rows_log) if self.rows_log >= 0 else "[2^%s]" % s.text()
        return "%s%s pad %s%s" % (dims, elem, self.pad, ", segments st ln" if self.segments else "")

    def pad_text(self, t):
        """`max`, `min`, or a literal per field."""
        r = self.rng.random()
        if r < 0.5:
            return "max" if r < 0.3 else "min"
        text = build(t, [self.rng.choice(["max", "min", self.literal(u)]) for u in leaf_types(t)])
        return paren(text) if kind(t) != "tuple" else text

    def top_chain(self, s, arrays, length):
        """The entry's body: a let chain from the array parameters."""
        lets, avail, out = self.chain(s, arrays, 0, length)
        lines = lets + [self.results(s, avail[len(arrays):])]
        return "\n".join("  " + line for line in lines), out


def value(rng, t):
    """One input value of scalar type t: mostly small, sometimes extreme."""
    k = kind(t)
    if k == "bool":
        return rng.choice(["true", "false"])
    if k == "float":
        if rng.random() < 0.05:
            return rng.choice(["inf", "-inf", "-0", "1e30", "-3.4e38"])
        return "%g" % round(rng.uniform(-100, 100), rng.choice([0, 2]))
    lo, hi = RANGES[t]
    if rng.random() < 0.1:
        return str(rng.choice([lo, hi, 0, hi // 2 + 1]))
    return str(rng.randint(max(lo, -100), min(hi, 100)))


def first_size_taking(params, lo, xs_len, size):
    """The size that the interpreter picks for an input of a padded entry
    (docs/language.md, 8): the first, counting up from lo, whose other
    parameters and a whole number of xs elements (at most 2^n) take the
    number of values that size `size` with xs_len elements of xs has."""
    def others(n):
        return sum((2 ** n if k == "array" else 1) * len(leaf_types(t)) for name, k, t in params if name != "xs")
    xs_leaves = sum(len(leaf_types(t)) for name, k, t in params if name == "xs")
    total = others(size) + xs_len * xs_leaves
    for n in range(lo, size + 1):
        rest = total - others(n)
        if rest >= 0 and rest % xs_leaves == 0 and rest // xs_leaves <= 2 ** n:
            return n
    return size


def random_segments(rng, rows, cols):
    """Disjoint segments of up to cols elements each, in a random order with
    gaps of 0 to 2 elements: (starts, lengths, the caller's length n)."""
    lens = [rng.randint(0, cols) for _ in range(rows)]
    starts, at = [0] * rows, 0
    for r in rng.sample(range(rows), rows):
        at += rng.randint(0, 2)
        starts[r] = at
        at += lens[r]
    return starts, lens, at + rng.randint(0, 2)


def input_text(rng, params, size, pad, rows_log, lo):
    """Values for the parameters; with a pad, xs of a random length, or of
    random rows (the row length first, before every value), or of random
    segments. For a ranged entry the length is one that the interpreter
    reads as size `size`."""
    out = []
    if any(k == "segments" for _, k, _ in params):
        starts, lens, n = random_segments(rng, 2 ** rows_log, 2 ** (size - rows_log))
        for name, k, t in params:
            if k == "segments":
                out += [str(v) for v in (starts if name == "st" else lens)]
            else:
                out += [value(rng, u) for _ in range(n if name == "xs" else 2 ** size if k == "array" else 1)
                        for u in leaf_types(t)]
        return " ".join(out) + "\n"
    if pad and rows_log >= 0:
        row_len = rng.randint(1, 2 ** (size - rows_log))
        out.append(str(row_len))
    for name, k, t in params:
        count = 2 ** size if k == "array" else 1
        if name == "xs" and pad and rows_log < 0:
            full = count
            count = rng.choice([0, 1, min(3, count), count - 1, count, rng.randint(0, count)])
            if first_size_taking(params, lo, count, size) != size:
                count = full
        elif name == "xs" and pad:
            count = row_len * rng.randint(0, 2 ** rows_log)
        for _ in range(count):
            out += [value(rng, u) for u in leaf_types(t)]
    return " ".join(out) + "\n"


def main():
    args = sys.argv[1:]
    backend = "--backend" in args
    big = "--big" in args
    chain = "--chain" in args
    mid = "--mid" in args
    narrow = "--narrow" in args
    columns = "--columns" in args
    sizes = [a for a in args if a.startswith("--sizes=")]
    args = [a for a in args if a not in ("--backend", "--big", "--chain", "--mid", "--narrow", "--columns") + tuple(sizes)]
    if len(args) != 3 or any(a.startswith("-") for a in args) or len(sizes) > 1:
        sys.exit("usage: randprog.py [--backend] [--big] [--chain [--mid]] [--narrow] [--columns] [--sizes=LO:HI] "
                 "DIR COUNT SEED")
    out_dir, count, seed = args[0], int(args[1]), int(args[2])
    refused = CHAIN_REFUSES if chain else BACKEND_REFUSES if backend else ()
    features = [] if columns else [f for f in FEATURES if f not in refused]
    for k in range(count):
        rng = random.Random(seed * 100003 + k)
        g = Gen(rng, features, big, narrow)
        g.columns = columns
        text, params, (lo, hi) = g.program(tuple(int(x) for x in sizes[0][8:].split(":")) if sizes
                                           else (16, 34) if big else (14, 16) if chain and mid else (5, 8) if chain
                                           else (9, 12) if narrow else (12, 16) if columns else (1, 6))
        with open(os.path.join(out_dir, "prog_%d.parm" % k), "w") as f:
            f.write("-- random program %d (seed %d%s%s%s%s)\n%s%s" % (
                k, seed, ", --backend" if backend else "", ", --big" if big else "",
                ", --chain --mid" if chain and mid else ", --chain" if chain else ", --columns" if columns else "",
                ", --narrow" if narrow else "",
                (PRELUDE_SORT if g.uses_sort else "") + (PRELUDE_SCAN if g.uses_scan else ""), text))
        if not big:
            with open(os.path.join(out_dir, "in_%d.txt" % k), "w") as f:
                f.write(input_text(rng, params, rng.randint(lo, hi), g.pad, g.rows_log, lo))


main()
