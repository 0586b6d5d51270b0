"""parmc.segmented_topk against CUB's DeviceBatchedTopK over the same segments (CCCL 3.5 or
newer, bench/segmented/cub_segtopk.cu), on a GPU, in one run: 2^24 float32
keys (normal, few ties) in segments of bench/segmented/run.py's length mixes, k = 8 and 64,
the k best of each segment (of min(k, its length)). GPU time alone (run.py's gpu_ms), median
of 15. Every parmc result is checked against CUB's deterministic one first (each row's values
sorted, and its indices as a set: ties to the smaller index), and CUB's fastest (unsorted,
ties unspecified) against parmc's values. parmc.segmented_topk sorts the segments by size
class and keeps each one's first k (docs/python.md, "Segments").

    bash bench/topk/fetch_cccl.sh      # CCCL's headers into build/cccl/include
    nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -I build/cccl/include \\
         bench/segmented/cub_segtopk.cu -o build/libcubsegtopk.so
    PYTHONPATH=python python3 bench/segmented/topk.py build/libcubsegtopk.so"""
import ctypes
import sys

import numpy as np
import torch

import parmc
from run import KINDS, N, gpu_ms, lengths

KS = (8, 64)


def rows_sorted(a, keep, fill, descending):
    return torch.sort(torch.where(keep, a, fill), dim=1, descending=descending).values


def cub_call(cub, keys, offsets, k, deterministic, reps=15):
    segments = offsets.shape[0] - 1
    values = torch.full((segments, k), -torch.inf, device=keys.device)
    indices = torch.full((segments, k), -1, device=keys.device, dtype=torch.int32)
    ms = cub.cub_segmented_topk_ms(ctypes.c_void_p(keys.data_ptr()), ctypes.c_void_p(values.data_ptr()),
                                   ctypes.c_void_p(indices.data_ptr()), segments,
                                   ctypes.c_void_p(offsets.data_ptr()), k, int(deterministic), reps)
    return ms, values, indices.long()


def prebuild(tables):
    """The size-class programs of every table (python/parmc/_segmented.py), compiled at
    once (nvcc runs in parallel), before anything is timed."""
    from concurrent.futures import ThreadPoolExecutor
    from parmc import _segmented

    def build(table):
        rows_logs = tuple(_segmented._class_rows_log(N, len(table) - 1, c)
                          for c in range(1, _segmented._log2_up(int(np.diff(table).max())) + 1))
        _segmented._class_program(True, "f32", None, True, rows_logs)
    with ThreadPoolExecutor(len(tables)) as pool:
        list(pool.map(build, tables))


def main(cub_path):
    cub = ctypes.CDLL(cub_path)
    cub.cub_segmented_topk_ms.restype = ctypes.c_double
    rng = np.random.default_rng(7)
    keys = torch.randn(N, device="cuda")
    copy_ms = gpu_ms(lambda: keys.clone())
    print(f"# segmented top-k of 2^24 float32 keys, {torch.cuda.get_device_name()}; copy of the keys: {copy_ms:.4f} ms\n")
    print("| lengths | segments | k | parmc ms | parmc, max_length given | CUB fastest ms | CUB det. ms "
          "| CUB det. / parmc | CUB fastest / parmc | parmc / copy | checked |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    tables = [lengths(kind, rng) for kind in KINDS]
    prebuild(tables)
    for kind, table in zip(KINDS, tables):
        offsets = torch.from_numpy(table).cuda()
        segments, longest = offsets.shape[0] - 1, int(np.diff(table).max())
        lens = (offsets[1:] - offsets[:-1]).long()
        for k in KS:
            keep = torch.arange(k, device="cuda")[None, :] < lens[:, None]
            got = parmc.segmented_topk(keys, offsets, k)
            det_ms, det_v, det_i = cub_call(cub, keys, offsets, k, True)
            fast_ms, fast_v, _ = cub_call(cub, keys, offsets, k, False)
            want_v = rows_sorted(det_v, keep, -torch.inf, True)
            same = det_ms > 0 and fast_ms > 0 and torch.equal(got.values, torch.where(keep, want_v, -torch.inf))
            same = same and torch.equal(rows_sorted(got.indices, keep, N, False), rows_sorted(det_i, keep, N, False))
            same = same and torch.equal(rows_sorted(fast_v, keep, -torch.inf, True), want_v)
            ours = gpu_ms(lambda: parmc.segmented_topk(keys, offsets, k))
            given = gpu_ms(lambda: parmc.segmented_topk(keys, offsets, k, max_length=longest))
            label = f"1..2^{kind}" if isinstance(kind, int) else "Zipf 1.5, up to 2^16"
            print(f"| {label} | {segments} | {k} | {ours:.4f} | {given:.4f} | {fast_ms:.4f} | {det_ms:.4f} "
                  f"| {det_ms / ours:.2f} | {fast_ms / ours:.2f} | {ours / copy_ms:.1f} | {'yes' if same else 'NO'} |",
                  flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
