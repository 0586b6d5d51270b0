#!/usr/bin/env python3
"""gen.py: the parmc programs of the issue-5 benchmark (bench/run.sh).

  gen.py programs DIR   write DIR/NAME.parm for every program, DIR/manifest.json
                        and DIR/jobs/*.sh, DIR/jobs.txt (parmc, then nvcc, for
                        each program, the library wrappers and the driver)
  gen.py table DIR      write DIR/table.cu: the programs whose object DIR/NAME.o
                        exists, for bench/suite/main.cu

Permutations are checked against a naive gather out[y] = in[A^-1 (y ^ c)].
A and c are derived here from index formulas written independently of the
stdlib (the paper's equations for flip and crinkle, the definitions of bit
reversal and transposition), and the derivation is checked on random indices.
"""
import json
import os
import random
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITE = os.path.join(REPO, "bench", "suite")

PERM_SIZES = [("i32", 24), ("i32", 26), ("i32", 28), ("i64", 26), ("u8", 26), ("i16", 26), ("u8", 28),
              ("i16", 28)]
ELEM_BYTES = {"u8": 1, "i16": 2, "i32": 4, "i64": 8}
SORT_SIZES = [20, 22, 24, 26, 28]
KV_SIZE = 24
# (log2 of all elements, log2 of a row): 2^28 in four row lengths, and
# examples/batched.parm's own 2^16 x 2^10 (the shape of earlier runs)
BATCHES = [(28, 8), (28, 10), (28, 12), (28, 14), (26, 10)]
# 3-D meshes for flip and crinkle: log2 extents, dimension 0 fastest.
DIMS = {24: [8, 8, 8], 26: [9, 9, 8], 28: [10, 9, 9]}
FLIP_DIMS = [0, 2]
CRINKLE_D, CRINKLE_S = 0, 1


# ---------------------------------------------------------------- index maps
def bitrev_map(n):
    return lambda x: int(format(x, "0%db" % n)[::-1], 2)


def transpose_map(r, c):
    # x = i * 2^c + j (a 2^r x 2^c row-major matrix) goes to j * 2^r + i
    return lambda x: (x & ((1 << c) - 1)) * (1 << r) + (x >> c)


def coords(ds, x):
    out = []
    for d in ds:
        out.append(x % (1 << d))
        x //= 1 << d
    return out


def kindex(ds, xs):
    k, scale = 0, 1
    for d, x in zip(ds, xs):
        k += x * scale
        scale <<= d
    return k


def flip_map(ds, fs):
    def f(x):
        xs = coords(ds, x)
        for d in fs:
            xs[d] = (1 << ds[d]) - 1 - xs[d]
        return kindex(ds, xs)
    return f


def crinkle_map(ds, d, s):
    # Hawick and Playne, equation (24): kc = (total/m)*((k/U) % m) + k % U + (k/(m*U))*U
    total, m, u = 1 << sum(ds), 1 << s, 1 << sum(ds[:d])
    return lambda k: (total // m) * ((k // u) % m) + k % u + (k // (m * u)) * u


def parity(x):
    return bin(x).count("1") & 1


def apply(rows, x):
    return sum(parity(r & x) << i for i, r in enumerate(rows))


def affine_of(f, n, rng):
    """rows of A and c with f(x) = A x ^ c, checked on random x"""
    c = f(0)
    cols = [f(1 << j) ^ c for j in range(n)]
    rows = [sum(((cols[j] >> i) & 1) << j for j in range(n)) for i in range(n)]
    for _ in range(2000):
        x = rng.getrandbits(n)
        assert apply(rows, x) ^ c == f(x), "index map is not affine"
    return rows, c


def inverse(rows, n):
    """rows of A^-1 over GF(2), or None when A is singular"""
    a = [(rows[i], 1 << i) for i in range(n)]  # (row of A, row of the identity)
    for col in range(n):
        piv = next((i for i in range(col, n) if (a[i][0] >> col) & 1), None)
        if piv is None:
            return None
        a[col], a[piv] = a[piv], a[col]
        for i in range(n):
            if i != col and (a[i][0] >> col) & 1:
                a[i] = (a[i][0] ^ a[col][0], a[i][1] ^ a[col][1])
    return [a[i][1] for i in range(n)]


def mat_literal(rows):
    return "mat [%s]" % ", ".join(str(r) for r in rows)


# ---------------------------------------------------------------- programs
def example_body(path):
    with open(os.path.join(REPO, path)) as f:
        return "".join(l for l in f if not l.startswith("entry "))


def programs():
    progs = []
    for ty, n in PERM_SIZES:
        esize = ELEM_BYTES[ty]
        arr = "[2^%d]%s" % (n, ty)
        rng = random.Random(1000 * n + esize)  # fixed seeds
        cases = [("bitrev", "bitrev %d xs" % n, bitrev_map(n))]
        if n == 28:   # every element size: the narrow ones move 16-byte vectors (issue 27)
            cases.append(("transpose", "transpose 14 14 xs", transpose_map(14, 14)))
        ds = DIMS[n]
        cases.append(("flip", "flip %s %s xs" % (ds, FLIP_DIMS), flip_map(ds, FLIP_DIMS)))
        cases.append(("crinkle", "crinkle %s %d %d xs" % (ds, CRINKLE_D, CRINKLE_S),
                      crinkle_map(ds, CRINKLE_D, CRINKLE_S)))
        # random BPC with complement: output bit i = input bit p[i], then xor c
        p = list(range(n))
        rng.shuffle(p)
        bpc_rows, bpc_c = [1 << p[i] for i in range(n)], rng.getrandbits(n)
        cases.append(("bpc", "bmmc (%s, %d) xs" % (mat_literal(bpc_rows), bpc_c),
                      lambda x, r=bpc_rows, c=bpc_c: apply(r, x) ^ c))
        # random BMMC with complement: a random invertible matrix
        while True:
            bm_rows = [rng.getrandbits(n) for _ in range(n)]
            if inverse(bm_rows, n):
                break
        bm_c = rng.getrandbits(n)
        cases.append(("bmmc", "bmmc (%s, %d) xs" % (mat_literal(bm_rows), bm_c),
                      lambda x, r=bm_rows, c=bm_c: apply(r, x) ^ c))
        for group, body, f in cases:
            name = "%s_%s_%d" % (group, ty, n)
            rows, c = affine_of(f, n, rng)
            inv = inverse(rows, n)
            assert inv is not None
            src = 'import "perm"\nentry %s (xs : %s) = %s\n' % (name, arr, body)
            progs.append(dict(name=name, kind="K_PERM", group=group, logn=n, esize=esize,
                              logrow=0, inv=inv, c=c, src=src))
    sort_body = example_body("examples/sort.parm")
    bitonic_body = example_body("examples/bitonic.parm")
    for n in SORT_SIZES:
        progs.append(dict(name="bpm_i32_%d" % n, kind="K_SORT", group="bpm", logn=n, esize=4,
                          logrow=0, src=sort_body + "entry bpm_i32_%d (xs : [2^%d]i32) = sort %d xs\n"
                          % (n, n, n)))
        progs.append(dict(name="bitonic_i32_%d" % n, kind="K_SORT", group="bitonic", logn=n,
                          esize=4, logrow=0, src=bitonic_body +
                          "entry bitonic_i32_%d (xs : [2^%d]i32) = bsort %d xs\n" % (n, n, n)))
    n = KV_SIZE
    progs.append(dict(name="kv_bitonic_%d" % n, kind="K_KV", group="kv_bitonic", logn=n, esize=8,
                      logrow=0, src=example_body("examples/kvsort.parm") +
                      "entry kv_bitonic_%d (xs : [2^%d](u32, i32)) = bsort_by kv %d xs\n" % (n, n, n)))
    progs.append(dict(name="kv_bpm_%d" % n, kind="K_KV", group="kv_bpm", logn=n, esize=8,
                      logrow=0, src='import "sort"\n'
                      "entry kv_bpm_%d (xs : [2^%d](u32, i32)) = bpm_sort kv_asc %d xs\n" % (n, n, n)))
    batched_body = example_body("examples/batched.parm")
    for bn, r in BATCHES:
        k = bn - r
        name = "rows_%d_%d" % (k, r)
        progs.append(dict(name=name, kind="K_BATCH", group="bitonic_rows", logn=bn, esize=4,
                          logrow=r, src=batched_body + "entry %s (xs : [2^%d]i32) = rows %d (bsort %d) xs\n"
                          % (name, bn, k, r)))
    return progs


def cost(p):
    """a guess of the compile time, to start the longest jobs first"""
    return {"K_PERM": 0, "K_SORT": 2, "K_KV": 2, "K_BATCH": 1}[p["kind"]] * 100 + p["logn"]


def write_programs(d):
    os.makedirs(d, exist_ok=True)
    progs = programs()
    only = os.environ.get("BENCH_ONLY")   # a regular expression: the programs whose names match
    if only:
        progs = [p for p in progs if re.search(only, p["name"])]
    for p in progs:
        with open(os.path.join(d, p["name"] + ".parm"), "w") as f:
            f.write(p["src"])
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(progs, f, indent=1)
    libs = ["libs_seg", "libs_segradix", "libs_thrust", "libs_merge", "libs_radix", "main"]
    # One shell script per object, listed longest compile first in jobs.txt;
    # run.sh runs them with xargs -P (no make needed). $PARMC, $PARMC_FLAGS
    # (options of every compile) and $NVCC come from the environment. An
    # object that exists is not rebuilt.
    order = libs[:-1] + [p["name"] for p in sorted(progs, key=cost, reverse=True)] + ["main"]
    os.makedirs(os.path.join(d, "jobs"), exist_ok=True)
    by_name = {p["name"]: p for p in progs}
    for o in order:
        if o in libs:
            cmds = ['$NVCC -I%s -c %s/%s.cu -o %s.o.tmp' % (SUITE, SUITE, o, o)]
        else:
            # the API's prefix is the output's name: O_ctx_create, O_O (the entry)
            cmds = ["$PARMC $PARMC_FLAGS --report %s.parm > %s.report" % (o, o),
                    "$PARMC $PARMC_FLAGS %s.parm -o %s.cu" % (o, o),
                    "$NVCC -c %s.cu -o %s.o.tmp" % (o, o)]
        cmds.append("mv %s.o.tmp %s.o" % (o, o))
        job = ["#!/bin/sh", "cd %s || exit 1" % os.path.abspath(d), "[ -f %s.o ] && exit 0" % o,
               "s=$(date +%s)",
               "{ %s; } > %s.build.log 2>&1 || { echo \"FAILED: %s\"; cat %s.build.log; exit 1; }"
               % (" && ".join(cmds), o, o, o),
               'echo "built %s in $(($(date +%%s) - s)) s"' % o, ""]
        with open(os.path.join(d, "jobs", o + ".sh"), "w") as f:
            f.write("\n".join(job))
    with open(os.path.join(d, "jobs.txt"), "w") as f:
        f.write("".join(os.path.join(os.path.abspath(d), "jobs", o + ".sh") + "\n" for o in order))
    print("%d programs in %s" % (len(progs), d))


def write_table(d):
    with open(os.path.join(d, "manifest.json")) as f:
        progs = json.load(f)
    ok = [p for p in progs if os.path.exists(os.path.join(d, p["name"] + ".o"))]
    missing = [p["name"] for p in progs if p not in ok]
    out = ["// written by bench/suite/gen.py: the parmc programs that compiled",
           '#include "common.h"', 'extern "C" {']
    for p in ok:
        nm = p["name"]
        out += ["int %s_ctx_create(parm_ctx **);" % nm, "void %s_ctx_destroy(parm_ctx *);" % nm,
                "cudaStream_t %s_ctx_stream(parm_ctx *);" % nm,
                "const char *%s_error_string(int);" % nm, "int %s_%s(void);" % (nm, nm)]
    out += ["}", "Prog progs[] = {"]
    for p in ok:
        nm = p["name"]
        inv = p.get("inv", [])
        out.append('    {"%s", %s, "%s", %d, %d, %d, (void *)%s_%s, %s_ctx_create, %s_ctx_destroy, '
                   "%s_ctx_stream, %s_error_string, {%s}, %dull}," %
                   (nm, p["kind"], p["group"], p["logn"], p["esize"], p["logrow"], nm, nm, nm, nm, nm,
                    nm, ", ".join("%dull" % r for r in inv) or "0", p.get("c", 0)))
    if not ok:
        out.append('    {"none", -1, "", 0, 0, 0, 0, 0, 0, 0, 0, {0}, 0},')
    out += ["};", "int nprogs = %d;" % len(ok), ""]
    with open(os.path.join(d, "table.cu"), "w") as f:
        f.write("\n".join(out))
    print("table: %d of %d programs compiled%s" % (len(ok), len(progs),
          "; missing: " + " ".join(missing) if missing else ""))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("programs", "table"):
        sys.exit("usage: gen.py programs|table DIR")
    (write_programs if sys.argv[1] == "programs" else write_table)(sys.argv[2])
