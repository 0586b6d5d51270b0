#!/usr/bin/env python3
"""Permute a CuPy array on the GPU with a parm program: examples/permute.parm's bit reversal
(each one bmmc, one pass over memory), against CuPy's own gather with the same index, both
timed with CUDA events on CuPy's current stream.

    python3 examples/python/permute_cupy.py [--log-n 24] [--runs 20]
"""
import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import parmc  # noqa: E402


def program(k):
    """examples/permute.parm's definitions with a bit reversal of 2^k elements."""
    with open(os.path.join(HERE, "..", "permute.parm")) as f:
        defs = [line for line in f if not line.startswith("entry ")]
    return "".join(defs) + f"entry main (xs : [2^{k}]f32) = bitrev {k} xs\n"


def time_ms(cupy, f, runs):
    f()
    times = []
    for _ in range(runs):
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        f()
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--log-n", type=int, default=24)
    ap.add_argument("--runs", type=int, default=20)
    a = ap.parse_args()
    try:
        import cupy    # here: program() serves without it (tests/python)
    except ImportError:
        sys.exit("permute_cupy.py: needs cupy (pip install cupy-cuda12x)")
    k = a.log_n
    prog = parmc.compile(program(k), target="cuda")
    xs = cupy.random.random(1 << k, dtype=cupy.float32)
    i = cupy.arange(1 << k, dtype=cupy.int64)
    index = sum(((i >> b) & 1) << (k - 1 - b) for b in range(k))     # i with its k bits reversed
    ours = prog.main(xs)
    if not bool((ours == xs[index]).all()):
        sys.exit("permute_cupy.py: the permutation differs from CuPy's gather")
    t_parmc = time_ms(cupy, lambda: prog.main(xs), a.runs)
    t_cupy = time_ms(cupy, lambda: xs[index], a.runs)
    gbs = 2 * 4 * (1 << k) / (t_parmc * 1e6)
    print(f"bit reversal of 2^{k} f32: parmc {t_parmc:.3f} ms ({gbs:.0f} GB/s read + written), CuPy gather "
          f"{t_cupy:.3f} ms (medians of {a.runs} runs, CUDA events); results equal")


if __name__ == "__main__":
    main()
