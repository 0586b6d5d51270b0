"""bench/rows/long_row.py: where parmc.sort of one long row should leave its networks for the
CUDA toolkit's radix sort (python/parmc/_radix.py's SHORTEST): the sort with indices of one row
of 2^15 ... 2^26 elements, by parmc's network and by the radix path, against torch.sort, in
float32, int32, bfloat16, float64 and uint8; on a GPU machine from the repository root:

    PYTHONPATH=python PARMC=build/parmc python3 bench/rows/long_row.py

Each result of each path is checked against torch.sort(stable=True) element by element first
(tests/gpu/sort_ops_gpu.py's check), then timed by its GPU time alone (gpu_ms). A markdown
table on stdout: the faster parmc path of each row is the one the plan should take."""
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
import sort_ops_gpu as sog  # noqa: E402  (make, check, gpu_ms)
import parmc  # noqa: E402
from parmc import _radix, _sortops  # noqa: E402

RUNS = 15
LOGS = range(15, 27)
DTYPES = [torch.float32, torch.int32, torch.bfloat16, torch.float64, torch.uint8]


def timed(x, radix):
    """(None or what differs, GPU ms) of parmc.sort of x by one path: a plan made afresh with
    the radix sort's shortest row set so that the path is taken (or not)."""
    saved = dict(_radix.SHORTEST)
    _radix.SHORTEST.update({b: 1 if radix else 1 << 40 for b in saved})
    _sortops._libraries.clear()
    try:
        bad = sog.check(("sort", tuple(x.shape), -1, None, x.dtype, False), x)
        return bad, None if bad else sog.gpu_ms(lambda: parmc.sort(x), RUNS)
    finally:
        _radix.SHORTEST.update(saved)
        _sortops._libraries.clear()


def build_all(inputs, jobs=16):
    """The networks' programs built at once (nvcc on threads), before anything is timed; the
    radix sort's library is one for all."""
    saved = dict(_radix.SHORTEST)
    _radix.SHORTEST.update({b: 1 << 40 for b in saved})
    try:
        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(parmc.sort, inputs))
    finally:
        _radix.SHORTEST.update(saved)
        _sortops._libraries.clear()
    _radix.library()
    torch.cuda.synchronize()


def main():
    gen = torch.Generator(device="cuda").manual_seed(26)
    cases = [(log, dt, sog.make((1 << log,), dt, gen)) for log in LOGS for dt in DTYPES]
    build_all([x for _, _, x in cases])
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}: parmc.sort of one row (values and indices)")
    print("| n | dtype | network ms | radix ms | torch ms | faster |")
    print("|---|---|---|---|---|---|")
    failed = 0
    for log, dt, x in cases:
        name = str(dt).replace("torch.", "")
        (bad_net, net), (bad_radix, radix) = timed(x, False), timed(x, True)
        for what, bad in (("network", bad_net), ("radix", bad_radix)):
            if bad:
                failed += 1
                print(f"FAIL parmc.sort 2^{log} {name} by the {what}: {bad}")
        t = sog.gpu_ms(lambda: torch.sort(x, stable=True), RUNS)
        faster = "–" if net is None or radix is None else "network" if net <= radix else "radix"
        fmt = (lambda v: "–" if v is None else f"{v:.4f}")
        print(f"| 2^{log} | {name} | {fmt(net)} | {fmt(radix)} | {t:.4f} | {faster} |", flush=True)
    print(f"{len(LOGS) * len(DTYPES) * 2} results, {failed} failed checks")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
