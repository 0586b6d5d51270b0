#!/usr/bin/env python3
"""plot.py: PNG plots of a bench/run.sh CSV (matplotlib; runs anywhere, no GPU).

  python3 bench/plot.py [CSV]     default: the newest bench/results/*.csv

Writes next to the CSV, named after it (DATE-GPU-*.png):
  -sort-throughput.png   full sorts of int32: elements/s against n, one line
                         per method (parmc bpm and bitonic, CUB radix and
                         merge, thrust with and without comparator, torch)
  -perm-copy.png         % of the 16-byte copy per permutation, one bar per
                         size and type
  -batched.png           batched sorts of 2^28 int32: time per method and
                         row length (log scale)
"""
import csv
import glob
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) > 1:
    path = sys.argv[1]
else:
    found = sorted(glob.glob(os.path.join(here, "results", "*.csv")))
    if not found:
        sys.exit("no CSV in bench/results/")
    path = found[-1]
base = os.path.splitext(path)[0]

rows = []
with open(path) as f:
    for r in csv.DictReader(f):
        if r["section"] == "section" or not r.get("ms"):
            continue
        r["logn"], r["logrow"], r["bytes"], r["ms"] = (int(r["logn"]), int(r["logrow"]),
                                                       int(r["bytes"]), float(r["ms"]))
        rows.append(r)
copy = {r["bytes"]: r["ms"] for r in rows if r["section"] == "memory" and r["method"] == "copy16"}
written = []

# ---------------------------------------------------------------- full sorts
SORTS = [("bpm", "parmc", "parmc, balanced periodic merger", "C0", "o-"),
         ("bitonic", "parmc", "parmc, bitonic", "C1", "o-"),
         ("cub_radix", "cub_radix", "cub::DeviceRadixSort", "C2", "s--"),
         ("cub_merge", "cub_merge", "cub::DeviceMergeSort", "C3", "s--"),
         ("thrust", "thrust", "thrust::sort (incl. input copy)", "C4", "^:"),
         ("thrust_cmp", "thrust_cmp", "thrust::sort, comparator (incl. input copy)", "C5", "^:"),
         ("torch", "torch_sort", "torch.sort (values + indices)", "C6", "v:")]
fig, ax = plt.subplots(figsize=(10, 5))
any_sort = False
for name, method, label, color, style in SORTS:
    pts = sorted((r["logn"], (1 << r["logn"]) / (r["ms"] * 1e-3)) for r in rows
                 if r["section"] == "sort" and r["name"] == name and r["method"] == method)
    if pts:
        any_sort = True
        ax.plot([1 << n for n, _ in pts], [v for _, v in pts], style, color=color, label=label)
if any_sort:
    # the copy ceiling: elements/s of one pass at copy speed
    pts = sorted((b // 4, (b // 4) / (t * 1e-3)) for b, t in copy.items()
                 if any(r["section"] == "sort" and r["bytes"] == b for r in rows))
    ax.plot([n for n, _ in pts], [v for _, v in pts], "k-", lw=0.8, alpha=0.5,
            label="16-byte copy (one pass)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n (int32 keys)")
    ax.set_ylabel("elements / s")
    ax.set_title("Full sorts of int32 keys")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    out = base + "-sort-throughput.png"
    fig.savefig(out, dpi=120)
    written.append(out)
plt.close(fig)

# ---------------------------------------------------------------- permutations
PERMS = ["bitrev", "transpose", "flip", "crinkle", "bpc", "bmmc"]
SIZES = [("i32", 24), ("i32", 26), ("i32", 28), ("i64", 26)]
fig, ax = plt.subplots(figsize=(9, 4.5))
width = 0.8 / len(SIZES)
any_perm = False
for k, (t, n) in enumerate(SIZES):
    xs, ys = [], []
    for i, g in enumerate(PERMS):
        for r in rows:
            if (r["section"], r["name"], r["method"], r["type"], r["logn"]) == ("perm", g, "parmc", t, n):
                # the copy timed right before the permutation, else the run's copy of its size
                c = [q["ms"] for q in rows if (q["section"], q["name"], q["method"], q["type"], q["logn"])
                     == ("perm", g, "copy16", t, n)] or [copy.get(r["bytes"])]
                if c[0]:
                    xs.append(i + (k - (len(SIZES) - 1) / 2) * width)
                    ys.append(100.0 * c[0] / r["ms"])
    if xs:
        any_perm = True
        bars = ax.bar(xs, ys, width, label="%s 2^%d" % (t, n))
        for b, y in zip(bars, ys):
            ax.text(b.get_x() + b.get_width() / 2, y - 2, "%.1f" % y, ha="center", va="top",
                    rotation=90, fontsize=7, color="white")
if any_perm:
    ax.axhline(90, color="k", ls="--", lw=0.8, label="target 90%")
    ax.axhline(100, color="k", lw=0.5)
    ax.set_xticks(range(len(PERMS)))
    ax.set_xticklabels(["bit reversal", "transpose\n2^14 x 2^14", "flip (3-D)", "crinkle (3-D)",
                        "random BPC", "random BMMC"])
    ax.set_ylabel("% of the 16-byte copy (same bytes)")
    ax.set_ylim(0, 125)
    ax.set_title("parmc permutations (one pass each)")
    ax.legend(fontsize=8, ncol=5, loc="upper center")
    fig.tight_layout()
    out = base + "-perm-copy.png"
    fig.savefig(out, dpi=120)
    written.append(out)
plt.close(fig)

# ---------------------------------------------------------------- batched
BATCH = [("bitonic_rows", "parmc", "parmc rows K (bsort R)"),
         ("cub_segsort", "cub_segsort", "cub::DeviceSegmentedSort"),
         ("cub_segradix", "cub_segradix", "cub::DeviceSegmentedRadixSort"),
         ("torch", "torch_sort", "torch.sort(dim=-1)")]
RS = [8, 10, 12, 14]
fig, ax = plt.subplots(figsize=(8, 4.5))
width = 0.8 / len(BATCH)
any_b = False
for k, (name, method, label) in enumerate(BATCH):
    xs, ys = [], []
    for i, r_ in enumerate(RS):
        for r in rows:
            if (r["section"], r["name"], r["method"], r["logn"], r["logrow"]) == \
                    ("batched", name, method, 28, r_):
                xs.append(i + (k - (len(BATCH) - 1) / 2) * width)
                ys.append(r["ms"])
    if xs:
        any_b = True
        ax.bar(xs, ys, width, label=label)
if any_b:
    c = copy.get(4 << 28)
    if c:
        ax.axhline(c, color="k", ls="--", lw=0.8, label="16-byte copy")
    ax.set_yscale("log")
    ax.set_xticks(range(len(RS)))
    ax.set_xticklabels(["2^%d x 2^%d" % (28 - r_, r_) for r_ in RS])
    ax.set_xlabel("rows x row length (2^28 int32)")
    ax.set_ylabel("ms (log scale)")
    ax.set_title("Batched sorts")
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = base + "-batched.png"
    fig.savefig(out, dpi=120)
    written.append(out)
plt.close(fig)

for w in written:
    print(w)
