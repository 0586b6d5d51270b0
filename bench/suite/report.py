#!/usr/bin/env python3
"""report.py: the Markdown report of bench/run.sh from its CSV.

  report.py CSV WORKDIR TITLE-LINE... > report.md

CSV: the rows of main.cu and torch_sort.py (section,name,method,type,logn,
logrow,bytes,ms,check). WORKDIR holds NAME.report (parmc --report) for each
program: the pass counts come from their first lines. The remaining
arguments are lines written at the top of the report (command, machine,
build and run times)."""
import csv
import glob
import os
import re
import sys

CSV, WORK = sys.argv[1], sys.argv[2]
HEAD = sys.argv[3:]

rows = []
with open(CSV) as f:
    for r in csv.DictReader(f):
        if r["section"] == "section" or not r.get("ms"):
            continue
        r["logn"], r["logrow"], r["bytes"] = int(r["logn"]), int(r["logrow"]), int(r["bytes"])
        r["ms"] = float(r["ms"])
        rows.append(r)

passes = {}
for path in glob.glob(os.path.join(WORK, "*.report")):
    with open(path) as f:
        m = re.match(r"entry (\S+): .*?(\d+) global pass", f.readline())
    if m:
        passes[m.group(1)] = int(m.group(2))

copy = {r["bytes"]: r["ms"] for r in rows if r["section"] == "memory" and r["method"] == "copy16"}
# every copy16 of each size over the run (memory section and before each permutation)
copies = {}
for r in rows:
    if r["method"] == "copy16":
        copies.setdefault(r["bytes"], []).append(r["ms"])
memcpy = {r["bytes"]: r["ms"] for r in rows if r["section"] == "memory" and r["method"] == "memcpy"}


def get(section, name, method, logn, logrow=0, typ=None):
    for r in rows:
        if (r["section"], r["name"], r["method"], r["logn"], r["logrow"]) == \
                (section, name, method, logn, logrow) and (typ is None or r["type"] == typ):
            return r
    return None


def fmt(t):
    return "%.1f" % t if t >= 100 else "%.3f" % t if t >= 1 else "%.4f" % t


def ms(r):
    return fmt(r["ms"]) if r else "—"


def pcopy(r):
    """the copy16 timed right before permutation r, else the run's copy of its size"""
    c = get("perm", r["name"], "copy16", r["logn"], 0, r["type"])
    return c["ms"] if c else copy.get(r["bytes"])


def pct(t, c):
    return "%.1f%%" % (100.0 * c / t) if t and c else "—"


def times(a, b):
    """a / b as 'N× slower' or 'N× faster' for the first method"""
    if not a or not b:
        return "—"
    q = a / b
    return "%.2f× slower" % q if q >= 1 else "%.2f× faster" % (1 / q)


def pw(n):
    return "2^%d" % n


out = []
p = out.append
for h in HEAD:
    p(h)
p("")
fails = [r for r in rows if r["check"] == "FAIL"]
checked = [r for r in rows if r["check"] == "ok"]
p("Checks: %d results compared element by element, %s." %
  (len(checked), "all equal" if not fails else "%d FAILED: %s" %
   (len(fails), ", ".join("%s/%s %s 2^%d" % (r["section"], r["name"], r["method"], r["logn"]) for r in fails))))
p("Times: median of 25 timed calls after 3 warm-up calls, CUDA events on the stream each "
  "method runs on, all in one process (one CUDA context) except torch (a second process "
  "right after). \"copy\" is the 16-byte-per-thread copy kernel on the same number of bytes, "
  "measured in the same process; a copy reads and writes every byte once, as one pass does.")
p("")

# ---------------------------------------------------------------- memory
p("## Memory ceilings")
p("")
p("| bytes | 16-byte copy kernel | GB/s (read + write) | cudaMemcpy D2D | GB/s | copy kernel, every timing of this size in the run |")
p("|---|---|---|---|---|---|")
for b in sorted(copy):
    cs = copies.get(b, [])
    p("| %d MiB | %.4f ms | %.0f | %s ms | %s | %s |" % (
        b >> 20, copy[b], 2 * b / copy[b] / 1e6,
        "%.4f" % memcpy[b] if b in memcpy else "—", "%.0f" % (2 * b / memcpy[b] / 1e6) if b in memcpy else "—",
        "%d: %.4f–%.4f ms (spread %.1f%%)" % (len(cs), min(cs), max(cs), 100 * (max(cs) / min(cs) - 1))
        if len(cs) > 1 else "1"))
p("")
p("Each permutation is compared with the copy kernel timed right before it on the same "
  "buffers; the last column shows how much the copy itself moves over the run.")
p("")

# ---------------------------------------------------------------- permutations
PERMS = ["bitrev", "transpose", "flip", "crinkle", "bpc", "bmmc"]
PERM_LABEL = {"bitrev": "bit reversal", "transpose": "transpose 2^14 × 2^14",
              "flip": "flip of a 3-D array (dimensions 0 and 2)",
              "crinkle": "crinkle of a 3-D array (dimension 0, step 2)",
              "bpc": "random BPC with complement", "bmmc": "random BMMC with complement"}
SIZES = [("i32", 24), ("i32", 26), ("i32", 28), ("i64", 26), ("u8", 26), ("i16", 26), ("u8", 28), ("i16", 28)]
p("## Permutations: % of the 16-byte copy of the same bytes (one pass each)")
p("")
p("| permutation | " + " | ".join("%s 2^%d" % s for s in SIZES) + " |")
p("|---|" + "---|" * len(SIZES))
for g in PERMS:
    cells = []
    for t, n in SIZES:
        r = get("perm", g, "parmc", n, 0, t)
        cells.append(pct(r["ms"], pcopy(r)) if r else "—")
    p("| %s | %s |" % (PERM_LABEL[g], " | ".join(cells)))
p("")
p("Details (3-D meshes: 2^24 = [8, 8, 8], 2^26 = [9, 9, 8], 2^28 = [10, 9, 9] log2 extents, "
  "dimension 0 fastest):")
p("")
p("| permutation | type | n | passes | parmc ms | copy ms (right before) | % of copy | % of cudaMemcpy | naive gather ms | naive % of copy | check |")
p("|---|---|---|---|---|---|---|---|---|---|---|")
for t, n in SIZES:
    for g in PERMS:
        r = get("perm", g, "parmc", n, 0, t)
        if not r:
            continue
        nv = get("perm", g, "naive_gather", n, 0, t)
        b = r["bytes"]
        pc = pcopy(r)
        p("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            g, t, pw(n), passes.get("%s_%s_%d" % (g, t, n), "?"), ms(r),
            fmt(pc) if pc else "—", pct(r["ms"], pc),
            pct(r["ms"], memcpy.get(b)), ms(nv), pct(nv["ms"], pc) if nv else "—", r["check"]))
p("")

# ---------------------------------------------------------------- full sorts
LIBS = [("cub_radix", "CUB radix"), ("cub_merge", "CUB merge"), ("thrust", "thrust::sort"),
        ("thrust_cmp", "thrust::sort, comparator"), ("torch", "torch.sort")]
NS = [20, 22, 24, 26, 28]


def sortrow(name, n):
    if name in ("bpm", "bitonic"):
        return get("sort", name, "parmc", n)
    return get("sort", name, "torch_sort" if name == "torch" else name, n)


p("## Full sorts of int32 keys: times (ms)")
p("")
p("thrust::sort sorts in place: its times include a cudaMemcpy D2D of the input (one copy). "
  "torch.sort returns values and int64 indices. parmc: `bpm` is examples/sort.parm (balanced "
  "periodic merger), `bitonic` is examples/bitonic.parm, each with the entry size replaced.")
p("")
p("| n | copy | parmc bpm (passes) | parmc bitonic (passes) | " + " | ".join(l for _, l in LIBS) + " |")
p("|---|---|---|---|" + "---|" * len(LIBS))
for n in NS:
    b = 4 << n
    bp, bt = sortrow("bpm", n), sortrow("bitonic", n)
    p("| %s | %s | %s (%s) | %s (%s) | %s |" % (
        pw(n), fmt(copy[b]) if b in copy else "—", ms(bp), passes.get("bpm_i32_%d" % n, "?"),
        ms(bt), passes.get("bitonic_i32_%d" % n, "?"), " | ".join(ms(sortrow(k, n)) for k, _ in LIBS)))
p("")
for g, label in (("bpm", "balanced periodic merger (examples/sort.parm)"),
                 ("bitonic", "bitonic (examples/bitonic.parm)")):
    p("### parmc %s: ratios" % label)
    p("")
    p("\"copies\" = parmc time ÷ copy time; \"passes at copy speed\" = passes × copy time ÷ "
      "parmc time (how close the passes run to the copy); the others compare parmc's time with "
      "each library's.")
    p("")
    p("| n | passes | copies | passes at copy speed | " + " | ".join("vs " + l for _, l in LIBS) + " |")
    p("|---|---|---|---|" + "---|" * len(LIBS))
    for n in NS:
        r = sortrow(g, n)
        if not r:
            continue
        c = copy.get(4 << n)
        k = passes.get("%s_i32_%d" % (g, n))
        p("| %s | %s | %.1f | %s | %s |" % (
            pw(n), k or "?", r["ms"] / c, "%.0f%%" % (100 * k * c / r["ms"]) if k else "—",
            " | ".join(times(r["ms"], (sortrow(l, n) or {}).get("ms")) for l, _ in LIBS)))
    p("")
p("### Throughput (G elements/s)")
p("")
p("| n | parmc bpm | parmc bitonic | " + " | ".join(l for _, l in LIBS) + " |")
p("|---|---|---|" + "---|" * len(LIBS))
for n in NS:
    cells = []
    for k in ["bpm", "bitonic"] + [k for k, _ in LIBS]:
        r = sortrow(k, n)
        cells.append("%.2f" % ((1 << n) / r["ms"] / 1e6) if r else "—")
    p("| %s | %s |" % (pw(n), " | ".join(cells)))
p("")

# ---------------------------------------------------------------- key-value
p("## Key-value sorts: 2^24 records (u32 key, i32 value)")
p("")
p("Checked: keys equal to CUB radix SortPairs' keys, and the records (key, value) the same "
  "multiset as the input's (both sorted by (key, value) with CUB and compared). Copy: the "
  "16-byte copy of the 128 MiB of keys and values.")
p("")
kvb = 8 << 24
kvc = copy.get(kvb)
kvlibs = [get("kv", "cub_radix", "cub_radix", 24), get("kv", "cub_merge", "cub_merge", 24)]
p("| method | passes | ms | copies | vs CUB radix SortPairs | vs CUB merge SortPairs | check |")
p("|---|---|---|---|---|---|---|")
for name, label in (("kv_bitonic", "parmc bitonic (examples/kvsort.parm)"),
                    ("kv_bpm", "parmc bpm_sort kv_asc (stdlib)"),
                    ("cub_radix", "cub::DeviceRadixSort::SortPairs"),
                    ("cub_merge", "cub::DeviceMergeSort::SortPairsCopy")):
    r = get("kv", name, "parmc" if name.startswith("kv_") else name, 24)
    if not r:
        continue
    p("| %s | %s | %s | %s | %s | %s | %s |" % (
        label, passes.get(name + "_24", "") if name.startswith("kv_") else "", ms(r),
        "%.1f" % (r["ms"] / kvc) if kvc else "—",
        times(r["ms"], kvlibs[0]["ms"]) if kvlibs[0] and name != "cub_radix" else "",
        times(r["ms"], kvlibs[1]["ms"]) if kvlibs[1] and name != "cub_merge" else "", r["check"]))
p("")

# ---------------------------------------------------------------- batched
SHAPES = [(28, 8), (28, 10), (28, 12), (28, 14), (26, 10)]
p("## Batched sorts of int32 keys in rows (examples/batched.parm, `rows K (bsort R)`)")
p("")
p("| rows × row length | parmc ms (passes) | copies | cub::DeviceSegmentedSort | "
  "cub::DeviceSegmentedRadixSort | torch.sort(dim=-1) | best library | parmc speed-up over the best |")
p("|---|---|---|---|---|---|---|---|")


def batch_libs(n, r_):
    return [("CUB segmented", get("batched", "cub_segsort", "cub_segsort", n, r_)),
            ("CUB segmented radix", get("batched", "cub_segradix", "cub_segradix", n, r_)),
            ("torch", get("batched", "torch", "torch_sort", n, r_))]


for n, r_ in SHAPES:
    pr = get("batched", "bitonic_rows", "parmc", n, r_)
    libs = batch_libs(n, r_)
    have = [(l, x) for l, x in libs if x]
    best = min(have, key=lambda lx: lx[1]["ms"]) if have else None
    bc = copy.get(4 << n)
    p("| 2^%d × 2^%d | %s (%s) | %s | %s | %s | %s | %s | %s |" % (
        n - r_, r_, ms(pr), passes.get("rows_%d_%d" % (n - r_, r_), "?"),
        "%.1f" % (pr["ms"] / bc) if pr and bc else "—",
        *[ms(x) + (" (%.1f×)" % (x["ms"] / pr["ms"]) if x and pr else "") for _, x in libs],
        best[0] if best else "—", "%.2f×" % (best[1]["ms"] / pr["ms"]) if best and pr else "—"))
p("")
p("In parentheses after each library: its time ÷ parmc's (the speed-up of parmc over it).")
p("")

# ---------------------------------------------------------------- targets
p("## Issue 5 targets")
p("")
permv = [(100.0 * pcopy(r) / r["ms"], r) for r in rows
         if r["section"] == "perm" and r["method"] == "parmc" and pcopy(r)]
worst = min(permv, key=lambda x: x[0]) if permv else None
if worst:
    under = [(v, r) for v, r in permv if v < 90]
    p("- Every permutation >= 90%% of copy: %s; the lowest is %s %s 2^%d at %.1f%%%s." % (
        "met" if not under else "missed (%d of %d below)" % (len(under), len(
            [r for r in rows if r["section"] == "perm" and r["method"] == "parmc"])),
        worst[1]["name"], worst[1]["type"], worst[1]["logn"], worst[0],
        "" if not under else "; below 90%: " + ", ".join(
            "%s %s 2^%d %.1f%%" % (r["name"], r["type"], r["logn"], v) for v, r in sorted(under, key=lambda x: x[0]))))
for n, r_ in SHAPES:
    if r_ > 12:
        continue
    pr = get("batched", "bitonic_rows", "parmc", n, r_)
    libs = [x for _, x in batch_libs(n, r_) if x]
    if pr and libs:
        best = min(libs, key=lambda x: x["ms"])
        s = best["ms"] / pr["ms"]
        p("- Batched 2^%d × 2^%d >= 4× the best of CUB and torch (%s, %s ms): %s, %.2f× (%s)." % (
            n - r_, r_, best["method"], fmt(best["ms"]), "met" if s >= 4 else "missed", s,
            "%.0f%% above the target" % (100 * (s / 4 - 1)) if s >= 4 else "%.0f%% short" % (100 * (1 - s / 4))))
m24 = get("sort", "cub_merge", "cub_merge", 24)
for g in ("bpm", "bitonic"):
    r = get("sort", g, "parmc", 24)
    if r and m24:
        q = r["ms"] / m24["ms"]
        p("- Full sort 2^24 (%s) within 1.5× of cub::DeviceMergeSort: %s, %.2f× its time (%s)." % (
            g, "met" if q <= 1.5 else "missed", q,
            "margin %.2f×" % (1.5 - q) if q <= 1.5 else "over by %.2f×" % (q - 1.5)))
p("")
print("\n".join(out))
