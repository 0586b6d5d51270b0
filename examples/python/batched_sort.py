#!/usr/bin/env python3
"""Sort every row of a PyTorch tensor on the GPU with a parm program (examples/batched_any.parm's
sorting network) and compare with torch.sort(dim=-1): the same result, and both timed with
CUDA events on PyTorch's current stream.

    python3 examples/python/batched_sort.py [--rows 1000000] [--length 1000] [--runs 20]

The program is written for the shape asked: `entry main (xs : [2^R][2^L]i32 pad max) =
rows R (bsort L) xs` takes any number of rows up to 2^R of any length up to 2^L (a missing
key is the largest i32, so it sorts after the row's own keys: docs/language.md, section 7),
with 2^R and 2^L the powers of two that hold the shape."""
import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import parmc  # noqa: E402


def log2_up(n):
    """The least k with 2^k >= n."""
    return max(n - 1, 0).bit_length()


def program(rows, length):
    """examples/batched_any.parm's definitions with an entry for up to rows x length keys."""
    with open(os.path.join(HERE, "..", "batched_any.parm")) as f:
        defs = [line for line in f if not line.startswith("entry ")]
    r, k = log2_up(rows), log2_up(length)
    return "".join(defs) + f"entry main (xs : [2^{r}][2^{k}]i32 pad max) = rows {r} (bsort {k}) xs\n"


def time_ms(torch, f, runs):
    """The median over runs of f's GPU time, by CUDA events on the current stream, after a warm-up."""
    f()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        f()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--length", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=20)
    a = ap.parse_args()
    try:
        import torch    # here: program() serves without it (tests/python)
    except ImportError:
        sys.exit("batched_sort.py: needs torch (pip install torch)")
    prog = parmc.compile(program(a.rows, a.length), target="cuda")
    xs = torch.randint(-2**31, 2**31 - 1, (a.rows, a.length), dtype=torch.int32, device="cuda")
    ours = prog.main(xs)
    theirs = torch.sort(xs, dim=-1).values
    if not torch.equal(ours, theirs):
        sys.exit("batched_sort.py: the rows differ from torch.sort")
    t_parmc = time_ms(torch, lambda: prog.main(xs), a.runs)
    t_torch = time_ms(torch, lambda: torch.sort(xs, dim=-1), a.runs)
    print(f"{a.rows} rows of {a.length} int32: parmc {t_parmc:.3f} ms, torch.sort(dim=-1) {t_torch:.3f} ms, "
          f"{t_torch / t_parmc:.2f}x (medians of {a.runs} runs, CUDA events); results equal")


if __name__ == "__main__":
    main()
