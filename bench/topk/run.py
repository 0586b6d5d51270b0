"""bench/topk: parmc.topk against CUB's DeviceBatchedTopK / DeviceTopK, torch.topk and a copy
of the input, at the shapes of issue 42, f32 and bf16 keys, in one run (bench/topk/run.sh).

    PYTHONPATH=python PARMC=build/parmc python3 bench/topk/run.py [--jobs 16] [--only 64x131072]

parmc.topk is checked first against torch.topk (tests/gpu/sort_ops_gpu.py's check: the values
equal torch.topk's, the indices point at them and are the first k of the stable sort, ties to
the smaller index), then parmc.topk and torch.topk are timed (CUDA events, the median of 25
after a warm-up): their GPU time alone, a 100 µs sleep kernel queued before each start event
so that the host's work for the call overlaps it, as CUB is timed; and the call (no sleep:
the host's work in the figure too, which a stream of calls hides and a lone call does not); build/topk/cub_topk_S*_K* (bench/topk/cub_topk.cu, built here with nvcc
against $CCCL_INCLUDE) checks and times CUB and the copy on its own input of the same kind.
A markdown table goes to stdout and, when $OUT is set, to $OUT/topk.md; the CUB binary's JSON
lines to $OUT/topk-cub.jsonl. Exit status 1 when any check failed.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
import sort_ops_gpu as sog  # noqa: E402  (make, check, time_ms, gpu_ms)
import parmc  # noqa: E402

RUNS = 25
# (rows, row length, k), issue 42; each with f32 and bf16 keys
SHAPES = [(64, 1 << 17, 8), (64, 1 << 17, 64), (64, 1 << 17, 256), (4096, 1 << 14, 64), (128, 1 << 18, 64),
          (1024, 4096, 64), (32, 32000, 50), (128, 128256, 40), (256, 151936, 8), (1024, 50257, 8),
          (65536, 256, 8), (8192, 64, 2), (1, 1 << 20, 8), (256, 1 << 15, 8)]
DTYPES = [(torch.float32, "f32"), (torch.bfloat16, "bf16")]


def pow2_at_least(n, least):
    p = least
    while p < n:
        p *= 2
    return p


def bounds(n, k):
    """The compile-time bounds of cub_topk for a shape: the segment size's power of two, k's of 8, 64, 256."""
    return pow2_at_least(n, 64), 8 if k <= 8 else 64 if k <= 64 else 256


def cub_binary(seg, kmax):
    return os.path.join(ROOT, "build", "topk", f"cub_topk_S{seg}_K{kmax}")


def build_cub(seg, kmax, include):
    """nvcc of cub_topk.cu for one pair of bounds, unless a binary newer than the source is there."""
    src = os.path.join(ROOT, "bench", "topk", "cub_topk.cu")
    exe = cub_binary(seg, kmax)
    if os.path.exists(exe) and os.path.getmtime(exe) > os.path.getmtime(src):
        return None
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    cmd = [os.environ.get("NVCC", "nvcc"), "-O3", "-arch=sm_90", "-std=c++17", f"-I{include}",
           f"-DSEG_MAX={seg}", f"-DK_MAX={kmax}", src, "-o", exe]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return None if r.returncode == 0 else f"{' '.join(cmd)}:\n{r.stderr[-3000:]}"


def run_cub(rows, n, k, dtype):
    """{method: ms} from the binary, and its stderr when it failed."""
    seg, kmax = bounds(n, k)
    r = subprocess.run([cub_binary(seg, kmax), str(rows), str(n), str(k), dtype], capture_output=True, text=True)
    got = {}
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            got[d["method"]] = d
    return got, (r.stderr.strip() if r.returncode else "")


def fmt(ms):
    return "–" if ms is None else f"{ms:.4f}"


def ratio(a, b):
    return "–" if a is None or b is None else f"{a / b:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 8, help="programs built at once")
    ap.add_argument("--only", help="only shapes ROWSxN (comma-separated)")
    ap.add_argument("--whole-rows", action="store_true",
                    help="rows of any length read whole, padded, not as pieces (the pieces' baseline)")
    ap.add_argument("--no-delegates", action="store_true",
                    help="long rows by the network over the row, not by delegates (their baseline)")
    args = ap.parse_args()
    if args.whole_rows:
        from parmc import _sortops
        _sortops.pieces = lambda *_: None
    if args.no_delegates:
        from parmc import _select
        _select.takes = lambda *_: None
    include = os.environ.get("CCCL_INCLUDE", os.path.join(ROOT, "build", "cccl", "include"))
    if not os.path.exists(os.path.join(include, "cub", "device", "device_batched_topk.cuh")):
        print(f"no cub/device/device_batched_topk.cuh under {include}: run bench/topk/fetch_cccl.sh, or set CCCL_INCLUDE")
        return 2
    shapes = SHAPES
    if args.only:
        want = set(args.only.split(","))
        shapes = [s for s in SHAPES if f"{s[0]}x{s[1]}" in want]
    cases = [(rows, n, k, dt, name) for rows, n, k in shapes for dt, name in DTYPES]
    gen = torch.Generator(device="cuda").manual_seed(26)
    inputs = [sog.make((rows, n), dt, gen) for rows, n, k, dt, _ in cases]
    torch.cuda.synchronize()

    # Build everything at once: the CUB binaries (nvcc) and parmc's programs (its first calls).
    t = time.time()
    pairs = sorted({bounds(n, k) for _, n, k, _, _ in cases})
    with ThreadPoolExecutor(args.jobs) as pool:
        cub_jobs = [pool.submit(build_cub, s, km, include) for s, km in pairs]
        parmc_jobs = [pool.submit(lambda c, x: parmc.topk(x, c[2]), c, x) for c, x in zip(cases, inputs)]
        build_errors = [j.result() for j in cub_jobs]
        for j in parmc_jobs:
            j.result()
    torch.cuda.synchronize()
    bad_builds = {p for p, e in zip(pairs, build_errors) if e}
    for e in build_errors:
        if e:
            print(f"FAIL build: {e}")
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, CCCL headers {include}: "
          f"{len(pairs)} CUB binaries and {len(cases)} parmc programs built (or found) in {time.time() - t:.0f} s")

    head = ("| rows × n | dtype | k | parmc ms | CUB fastest ms | CUB det. ms | CUB DeviceTopK ms | torch ms | "
            "copy ms | parmc / CUB det. | parmc / CUB fastest | parmc speed-up over torch | parmc call ms | "
            "torch call ms |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    print(head)
    lines, failed, jsonl = [head], 0, []
    for (rows, n, k, dt, name), x in zip(cases, inputs):
        bad = sog.check(("topk", (rows, n), -1, k, dt, True), x)
        if bad:
            failed += 1
            print(f"FAIL parmc.topk {rows}x{n} k={k} {name}: {bad}")
            a = a_call = None
        else:
            a, a_call = sog.gpu_ms(lambda: parmc.topk(x, k), RUNS), sog.time_ms(lambda: parmc.topk(x, k), RUNS)
        b, b_call = sog.gpu_ms(lambda: torch.topk(x, k), RUNS), sog.time_ms(lambda: torch.topk(x, k), RUNS)
        cub, err = ({}, "not built") if bounds(n, k) in bad_builds else run_cub(rows, n, k, name)
        if err:
            failed += 1
            print(f"FAIL cub_topk {rows} {n} {k} {name}: {err}")
        jsonl += [json.dumps(d) for d in cub.values()]
        ms = {m: cub[m]["ms"] if m in cub else None for m in ("batched_fast", "batched_det", "device_topk", "copy")}
        det, fast = ms["batched_det"], ms["batched_fast"]
        line = (f"| {rows} × {n} | {name} | {k} | {fmt(a)} | {fmt(fast)} | {fmt(det)} | "
                f"{fmt(ms['device_topk'])} | {fmt(b)} | {fmt(ms['copy'])} | {ratio(a, det)} | {ratio(a, fast)} | "
                f"{'–' if a is None else f'{b / a:.2f}x'} | {fmt(a_call)} | {fmt(b_call)} |")
        print(line, flush=True)
        lines.append(line)
    summary = f"{len(cases)} shapes and dtypes, {failed} failed checks"
    print(summary)
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "topk.md"), "w") as f:
            f.write("\n".join(lines) + "\n\n" + summary + "\n")
        with open(os.path.join(os.environ["OUT"], "topk-cub.jsonl"), "w") as f:
            f.write("\n".join(jsonl) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
