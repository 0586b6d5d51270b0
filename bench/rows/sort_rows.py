"""bench/rows/sort_rows.py: parmc.sort against torch.sort(dim=-1, stable=True), values and
indices, of rows of 2^12, 2^13 and 2^14 elements (2^24 elements in all) in float32, int32 and
bfloat16, on a GPU machine from the repository root with a built parmc (build/parmc) and
PyTorch:

    PYTHONPATH=python PARMC=build/parmc python3 bench/rows/sort_rows.py

Each result is checked first against torch's element by element (tests/gpu/sort_ops_gpu.py's
check: values bit for bit, indices equal), then both are timed by their GPU time alone (CUDA
events, a sleep kernel before each start event so that the host's work for the call overlaps
it; the median of 25 after a warm-up), and against a 16-byte copy of the keys (the same
bytes read and written once). A markdown table on stdout; exit status 1 when a check failed."""
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
import sort_ops_gpu as sog  # noqa: E402  (make, check, gpu_ms)
import parmc  # noqa: E402

RUNS = 25
ROWS = [(1 << 12, 1 << 12), (1 << 11, 1 << 13), (1 << 10, 1 << 14)]
DTYPES = [torch.float32, torch.int32, torch.bfloat16]


def main():
    gen = torch.Generator(device="cuda").manual_seed(26)
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}: sorts with indices of rows")
    print("| rows × n | dtype | parmc ms | torch ms | copy ms | parmc speed-up over torch | parmc / copy |")
    print("|---|---|---|---|---|---|---|")
    failed = 0
    for rows, n in ROWS:
        for dt in DTYPES:
            x = sog.make((rows, n), dt, gen)
            name = str(dt).replace("torch.", "")
            bad = sog.check(("sort", (rows, n), -1, None, dt, False), x)
            if bad:
                failed += 1
                print(f"FAIL parmc.sort {rows}x{n} {name}: {bad}")
                continue
            a = sog.gpu_ms(lambda: parmc.sort(x, dim=-1), RUNS)
            b = sog.gpu_ms(lambda: torch.sort(x, dim=-1, stable=True), RUNS)
            y = torch.empty_like(x)
            c = sog.gpu_ms(lambda: y.copy_(x), RUNS)
            print(f"| {rows} × {n} | {name} | {a:.4f} | {b:.4f} | {c:.4f} | {b / a:.2f}x | {a / c:.1f} |", flush=True)
    print(f"{len(ROWS) * len(DTYPES)} shapes and dtypes, {failed} failed checks")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
