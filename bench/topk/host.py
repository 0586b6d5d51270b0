"""bench/topk/host.py: parmc.topk on NumPy arrays (the C target, on the host) by delegates
(python/parmc/_select.py) against the network over the row (the same call with delegates
turned off) and NumPy's own top-k (np.argpartition, then a sort of the k), float32, at the
shapes of bench/topk/run.py of 2^21 elements or more. Each result of the delegates is
checked against the network's first (the same values bit for bit and the same indices), then
each is timed: the median of --runs calls after a warm-up, wall time of one thread.

    PYTHONPATH=python PARMC=build/parmc python3 bench/topk/host.py [--runs 5]

A markdown table goes to stdout. Exit status 1 when a check failed."""
import argparse
import statistics
import sys
import time

import numpy as np

import parmc
from parmc import _select, _sortops

SHAPES = [(64, 1 << 17, 8), (64, 1 << 17, 64), (64, 1 << 17, 256), (128, 1 << 18, 64), (1024, 4096, 64),
          (128, 128256, 40), (256, 151936, 8), (1024, 50257, 8), (256, 1 << 15, 8)]


def seconds(f, runs):
    f()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def numpy_topk(x, k):
    part = np.argpartition(-x, k - 1, axis=1)[:, :k]
    vals = np.take_along_axis(x, part, 1)
    order = np.argsort(-vals, axis=1, kind="stable")
    return np.take_along_axis(vals, order, 1), np.take_along_axis(part, order, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    takes = _select.takes
    rng = np.random.default_rng(26)
    print("| rows × n | k | delegates s | network s | NumPy s | network / delegates | NumPy / delegates |")
    print("|---|---|---|---|---|---|---|")
    failed = 0
    for rows, n, k in SHAPES:
        x = rng.standard_normal((rows, n)).astype(np.float32)
        x.ravel()[rng.integers(0, x.size, x.size // 64)] = np.nan
        assert takes("topk", "numpy", False, x.dtype, x.shape, 1, k) is not None
        timed = {}
        for way, rule in (("delegates", takes), ("network", lambda *_: None)):
            _select.takes = rule
            _sortops._libraries.clear()     # the plans made so far: the next call makes its own
            timed[way] = parmc.topk(x, k), seconds(lambda: parmc.topk(x, k), args.runs)
        _select.takes = takes
        (ours, a), (theirs, b) = timed["delegates"], timed["network"]
        if not (np.array_equal(ours[0].view(np.uint32), theirs[0].view(np.uint32))
                and np.array_equal(ours[1], theirs[1])):
            failed += 1
            print(f"FAIL {rows} × {n} k={k}: the delegates' results differ from the network's")
            continue
        c = seconds(lambda: numpy_topk(x, k), args.runs)
        print(f"| {rows} × {n} | {k} | {a:.4f} | {b:.4f} | {c:.4f} | {b / a:.2f}x | {c / a:.2f}x |", flush=True)
    print(f"{len(SHAPES)} shapes, {failed} failed checks")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
