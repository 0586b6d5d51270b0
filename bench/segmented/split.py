"""Where parmc.segmented_sort's time goes, on a GPU: the host's time for one call (no
synchronisation), the GPU time with a sleep long enough to hide all of the host's work, and
that of the class entries alone (the binning done before). Tables as run.py makes them.

    PYTHONPATH=python python3 bench/segmented/split.py"""
import statistics
import time

import numpy as np
import torch

import parmc
from parmc import _segmented
from run import KINDS, N, gpu_ms as timed, lengths


def gpu_ms(f, sleep):
    return timed(f, 11, sleep)


def host_ms(f, reps=11):
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        f()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    rng = np.random.default_rng(6)
    keys = torch.randn(N, device="cuda")
    print("| lengths | host ms (max_length given) | GPU ms, host hidden | classes alone | binning alone |")
    print("|---|---|---|---|---|")
    for kind in KINDS:
        table = lengths(kind, rng)
        offsets = torch.from_numpy(table).cuda()
        top = int(np.diff(table).max())

        def call():
            return parmc.segmented_sort(keys, offsets, max_length=top)
        rows_logs = tuple(_segmented._class_rows_log(N, len(table) - 1, c) for c in range(1, _segmented._log2_up(top) + 1))

        def binning():
            return _segmented._bins("torch", torch, _segmented._classes_of("torch", torch, offsets), rows_logs)
        print(f"| {kind} | {host_ms(call):.3f} | {gpu_ms(call, 40_000_000):.4f} | "
              f"{gpu_ms(call, 40_000_000) - gpu_ms(binning, 40_000_000):.4f} | {gpu_ms(binning, 40_000_000):.4f} |",
              flush=True)


def per_class(kind):
    """GPU time of each class entry of one table, alone."""
    rng = np.random.default_rng(6)
    tables = [lengths(k, rng) for k in KINDS]
    table = tables[KINDS.index(kind)]
    keys = torch.randn(N, device="cuda")
    offsets = torch.from_numpy(table).cuda()
    top = int(np.diff(table).max())
    rows_logs = tuple(_segmented._class_rows_log(N, len(table) - 1, c) for c in range(1, _segmented._log2_up(top) + 1))
    prog = _segmented._class_program(True, "f32", None, False, rows_logs)
    starts, lens, at = _segmented._bins("torch", torch, _segmented._classes_of("torch", torch, offsets), rows_logs)
    out, index = keys.clone(), torch.zeros(N, dtype=torch.int64, device="cuda")
    from parmc import _arrays
    adapter = _arrays.adapter_of(keys, True)
    cells = []
    for c in range(1, len(rows_logs) + 1):
        entry, rows = prog[f"c{c}"], slice(at[c - 1], at[c])
        args = [adapter.ptr(keys), adapter.ptr(starts[rows]), adapter.ptr(lens[rows]), adapter.ptr(out),
                adapter.ptr(index), N]
        live = int((lens[rows] > 0).sum())
        ms = gpu_ms(lambda: entry._invoke(adapter, keys.get_device(), None, args), 4_000_000)
        cells.append(f"c{c}: 2^{rows_logs[c - 1]} rows, {live} live, {ms:.4f} ms")
    print(f"{kind}: " + "; ".join(cells))


if __name__ == "__main__":
    per_class(8)
    per_class(12)
    per_class("zipf")
    main()
