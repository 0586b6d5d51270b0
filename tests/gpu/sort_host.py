#!/usr/bin/env python3
"""The host time that parmc.topk, parmc.sort and parmc.argsort add to their kernels, on a small
PyTorch tensor (default 1x1024 float32), after the first call of each kind:

    python3 tests/gpu/sort_host.py [--shape 1 1024] [--calls 2000] [--device cuda|cpu]

For each call, with the stream idle before it (a synchronize), three times are taken:
  call     the host time until the call returns (its kernels queued, not waited for);
  entry    the same for the compiled entry alone, called through ctypes with its results
           allocated beforehand and its stream set: the launches themselves, the floor;
  wall     until the kernels are done (a synchronize after the call).
and, with CUDA events around the call, the GPU time of its kernels (gpu). The report gives
the medians and `added` = call - entry, the host time the Python package adds to the entry's
own launches (the issue's target: under 20 µs), and wall - gpu, what the whole call costs on top
of its kernels. torch.topk and torch.sort are timed alike for comparison. --device cpu runs
CPU tensors through the C target (no GPU; the entry's time is then the sort itself)."""
import argparse
import os
import statistics
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("PARMC", os.path.join(ROOT, "build", "parmc"))
import parmc  # noqa: E402
from parmc import _sortops  # noqa: E402
import torch  # noqa: E402


def bare_entry(op, x, k):
    """The compiled entry of parmc's plan for the call, as a function of no arguments: results
    allocated once, the stream set once (the current one), one ctypes call."""
    plan = _sortops._new_plan(op, x, -1, False, k)
    entry = plan.entry
    prog = entry.program
    dev = plan.device
    ctx = prog.context(dev)
    outs = [torch.empty(plan.out_shape, dtype=dt, device=x.device) for dt in plan.dtypes]
    if prog.cuda:
        prog._set_stream(ctx, torch.cuda.current_stream(dev).cuda_stream or 1)
    args = [ctx, x.data_ptr(), *[o.data_ptr() for o in outs], *plan.tail]
    fn = entry._fn
    return lambda: fn(*args) if outs else None     # (outs: the results stay allocated)


def medians(f, calls, cuda):
    """(call, wall, gpu) medians in µs over calls, the stream idle before each."""
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    host, wall, gpu = [], [], []
    for _ in range(calls):
        sync()
        if cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
        t0 = time.perf_counter()
        f()
        t1 = time.perf_counter()
        if cuda:
            end.record()
        sync()
        t2 = time.perf_counter()
        host.append(t1 - t0)
        wall.append(t2 - t0)
        if cuda:
            gpu.append(start.elapsed_time(end) * 1e-3)
    us = [statistics.median(v) * 1e6 if v else float("nan") for v in (host, wall, gpu)]
    return us


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", type=int, nargs="+", default=[1, 1024])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = ap.parse_args()
    cuda = args.device == "cuda"
    x = torch.randn(*args.shape, device=args.device)
    cases = [("topk", 8, lambda: parmc.topk(x, 8), lambda: torch.topk(x, 8)),
             ("topk", 5, lambda: parmc.topk(x, 5), lambda: torch.topk(x, 5)),
             ("sort", None, lambda: parmc.sort(x), lambda: torch.sort(x, stable=True)),
             ("argsort", None, lambda: parmc.argsort(x), lambda: torch.argsort(x, stable=True))]
    where = torch.cuda.get_device_name() if cuda else "CPU (the C target)"
    print(f"# host time of a call, {'x'.join(map(str, args.shape))} float32 on {where}: medians of "
          f"{args.calls} calls, µs")
    print("| call | call | entry | added | wall | gpu | wall - gpu | torch call | torch wall |")
    print("|---|---|---|---|---|---|---|---|---|")
    for op, k, ours, theirs in cases:
        ours(), theirs()                        # the first call: the plan, the program, the context
        entry = bare_entry(op, x, k)
        entry()
        call, wall, gpu = medians(ours, args.calls, cuda)
        e_call, _, _ = medians(entry, args.calls, cuda)
        t_call, t_wall, _ = medians(theirs, args.calls, cuda)
        name = f"{op} k={k}" if k else op
        print(f"| {name} | {call:.1f} | {e_call:.1f} | {call - e_call:.1f} | {wall:.1f} | {gpu:.1f} | "
              f"{wall - gpu:.1f} | {t_call:.1f} | {t_wall:.1f} |")


if __name__ == "__main__":
    main()
