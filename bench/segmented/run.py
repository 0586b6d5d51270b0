"""parmc.segmented_sort against CUB's DeviceSegmentedSort::StableSortPairs and the same two
stable sorts written with torch, on a GPU, in one run (docs/python.md, "Segments"): 2^24
float32 keys with their positions as values, in segments of uniformly random lengths in
1..2^k (k = 8, 10, 12, 14) and of Zipf-distributed lengths (a = 1.5) up to 2^16. Every result
is checked against CUB's first (keys bit for bit; indices = CUB's values minus the segment's
start). GPU time alone (CUDA events, a sleep queued before the start event so the host's
work of the call overlaps it), median of 15, and a copy of the same bytes (keys and values in
and out) for scale.

    nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 bench/segmented/cub_segmented.cu -o build/libcubseg.so
    PYTHONPATH=python python3 bench/segmented/run.py build/libcubseg.so

(`run.py --prebuild` compiles parmc's programs alone, in parallel.)"""
import ctypes
import statistics
import sys

import numpy as np
import torch

import parmc

N = 1 << 24
KINDS = (8, 10, 12, 14, "zipf")


def lengths(kind, rng):
    out, total = [], 0
    while total < N:
        batch = rng.integers(1, (1 << kind) + 1, 4096) if isinstance(kind, int) else \
            np.minimum(rng.zipf(1.5, 4096), 1 << 16)
        out.append(batch)
        total += int(batch.sum())
    cuts = np.concatenate([[0], np.cumsum(np.concatenate(out))])
    cuts = cuts[cuts < N]
    return np.concatenate([cuts, [N]]).astype(np.int32)


def gpu_ms(f, reps=15, sleep=2_000_000):
    f()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        torch.cuda._sleep(sleep)
        start.record()
        f()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def torch_two_sorts(keys, offsets):
    pos = torch.arange(keys.shape[0], device=keys.device)
    group = offsets.long()[torch.searchsorted(offsets.long(), pos, right=True) - 1]
    p1 = torch.argsort(keys, stable=True)
    perm = p1[torch.argsort(group[p1], stable=True)]
    return keys[perm], perm - group[perm]


def prebuild(tables):
    """The size-class programs of every table (python/parmc/_segmented.py), compiled at once
    (nvcc runs in parallel), before anything is timed."""
    from concurrent.futures import ThreadPoolExecutor
    from parmc import _segmented

    def build(table):
        longest = int(np.diff(table).max())
        if longest > 1 << _segmented._CLASS_LOG_MAX:
            return
        rows_logs = tuple(_segmented._class_rows_log(N, len(table) - 1, c)
                          for c in range(1, _segmented._log2_up(longest) + 1))
        _segmented._class_program(True, "f32", None, False, rows_logs)
    with ThreadPoolExecutor(len(tables)) as pool:
        list(pool.map(build, tables))


def main(cub_path):
    cub = ctypes.CDLL(cub_path)
    cub.cub_segmented_sort_ms.restype = ctypes.c_double
    rng = np.random.default_rng(6)
    keys = torch.randn(N, device="cuda")
    values = torch.arange(N, device="cuda", dtype=torch.int32)
    copy_ms = gpu_ms(lambda: (keys.clone(), values.clone()))
    print(f"# segmented sort of 2^24 float32 keys with int32 positions, {torch.cuda.get_device_name()}")
    print(f"copy of the keys and values (clone of each): {copy_ms:.4f} ms\n")
    print("| lengths | segments | parmc ms | parmc, max_length given | CUB ms | torch two sorts ms | CUB / parmc "
          "| torch / parmc | parmc / copy | checked |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    tables = [lengths(kind, rng) for kind in KINDS]
    prebuild(tables)
    for kind, table in zip(KINDS, tables):
        offsets = torch.from_numpy(table).cuda()
        segments = offsets.shape[0] - 1
        longest = int(np.diff(table).max())
        ck, cv = torch.empty_like(keys), torch.empty_like(values)
        cub_ms = cub.cub_segmented_sort_ms(ctypes.c_void_p(keys.data_ptr()), ctypes.c_void_p(ck.data_ptr()),
                                           ctypes.c_void_p(values.data_ptr()), ctypes.c_void_p(cv.data_ptr()),
                                           N, segments, ctypes.c_void_p(offsets.data_ptr()), 15)
        got = parmc.segmented_sort(keys, offsets)
        start = offsets.long()[torch.searchsorted(offsets.long(), torch.arange(N, device="cuda"), right=True) - 1]
        same = torch.equal(got.values.view(torch.int32), ck.view(torch.int32)) and \
            torch.equal(got.indices, cv.long() - start)
        ours = gpu_ms(lambda: parmc.segmented_sort(keys, offsets))
        given = gpu_ms(lambda: parmc.segmented_sort(keys, offsets, max_length=longest))
        theirs = gpu_ms(lambda: torch_two_sorts(keys, offsets))
        label = f"1..2^{kind}" if isinstance(kind, int) else "Zipf 1.5, up to 2^16"
        print(f"| {label} | {segments} | {ours:.4f} | {given:.4f} | {cub_ms:.4f} | {theirs:.4f} | {cub_ms / ours:.2f} | "
              f"{theirs / ours:.2f} | {ours / copy_ms:.1f} | {'yes' if same and cub_ms > 0 else 'NO'} |", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "--prebuild":     # the programs alone (the tables main makes)
        rng = np.random.default_rng(6)
        prebuild([lengths(kind, rng) for kind in KINDS])
    else:
        main(sys.argv[1])
