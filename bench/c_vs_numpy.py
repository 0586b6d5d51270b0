#!/usr/bin/env python3
"""The C target against numpy.sort: examples/sort.parm on 2^20 random int32 keys, compiled
with --target=c through the Python package (cc -O2), in CPU time (the best of several runs,
so that other work on the machine counts less). The README quotes it.

    PARMC=build/parmc build/venv/bin/python bench/c_vs_numpy.py
"""
import os
import sys
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
import parmc  # noqa: E402


def best_cpu_time(f, runs):
    best = float("inf")
    for _ in range(runs):
        t = time.process_time()
        f()
        best = min(best, time.process_time() - t)
    return best


def main():
    prog = parmc.compile(os.path.join(ROOT, "examples", "sort.parm"), target="c")
    xs = np.random.default_rng(1).integers(-2**31, 2**31, 2**20, dtype=np.int32)
    assert (prog.main(xs) == np.sort(xs)).all()
    c, n = best_cpu_time(lambda: prog.main(xs), 5), best_cpu_time(lambda: np.sort(xs), 20)
    print(f"C target {c * 1e3:.0f} ms, numpy.sort {n * 1e3:.1f} ms (CPU time, best of 5 and 20): "
          f"{c / n:.0f}x slower (numpy {np.__version__})")


if __name__ == "__main__":
    main()
