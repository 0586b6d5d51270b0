#!/usr/bin/env python3
"""parmc.sort, parmc.argsort and parmc.topk on CUDA tensors against torch.sort, torch.argsort
and torch.topk (tests/gpu/sort_ops.sh runs it): every result element by element first, then
both timed with CUDA events on the current stream (a warm-up, then the median of --runs), and
the host time of a call after the first (on a small tensor, so that the kernels do not hide it). CuPy arrays once, when CuPy is installed.

    python3 tests/gpu/sort_ops_gpu.py [--runs 20] [--quick] [--jobs 8]

Exit status 1 when a result differs. The programs are built on first use (nvcc: seconds each
for rows of 2^17); --jobs builds that many at once, and $PARMC_CACHE keeps them for the next
run."""
import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("PARMC", os.path.join(ROOT, "build", "parmc"))
import parmc  # noqa: E402
import torch  # noqa: E402

# (op, shape, dim, k, dtype, descending or largest): the shapes
TOPK = [("topk", (64, 1 << 17), -1, k, torch.float32, True) for k in (8, 64, 256)] + [
    ("topk", (4096, 1 << 14), -1, 64, torch.float32, True),
    ("topk", (128, 1 << 18), -1, 64, torch.float32, True),
    ("topk", (256, 1 << 15), -1, 8, torch.float32, True),
    ("topk", (1024, 1 << 12), -1, 64, torch.float32, True),
    ("topk", (1, 1 << 17), -1, 256, torch.float32, True),
    ("topk", (1, 1 << 17), -1, 8, torch.float32, True),        # a result shorter than a segment
    ("topk", (1, 1000), -1, 8, torch.float32, True),
    ("topk", (64, 1 << 17), -1, 64, torch.uint16, True),        # bf16 keys as u16 (torch: widened to int32 first)
    ("topk", (1024, 3000), -1, 50, torch.float32, False),
]
SORT = [
    ("sort", (1 << 14, 1 << 10), -1, None, torch.float32, False),
    ("sort", (1 << 16, 1 << 8), -1, None, torch.float32, False),
    ("sort", (1024, 1 << 12), -1, None, torch.int32, True),
    ("sort", (1 << 14, 1000), -1, None, torch.float32, False),
    ("sort", (4096, 3000), -1, None, torch.float32, True),
    ("argsort", (1 << 14, 1 << 10), -1, None, torch.float32, False),
    ("argsort", (4096, 3000), -1, None, torch.int64, False),
    ("sort", (64, 1024, 4), 1, None, torch.float32, False),      # dim 1: a transpose in the program
    ("sort", (100, 1000, 3), 1, None, torch.float32, True),      # moved on the host
    ("topk", (64, 1024, 8), 1, 16, torch.float32, True),
]
QUICK = [
    ("topk", (1024, 1 << 12), -1, 64, torch.float32, True),
    ("topk", (1000, 1000), -1, 7, torch.float64, False),
    ("sort", (1024, 1 << 10), -1, None, torch.float32, False),
    ("sort", (1000, 1000), -1, None, torch.int32, True),
    ("argsort", (300, 3000), -1, None, torch.float32, False),
    ("sort", (16, 256, 4), 1, None, torch.float32, False),
    ("topk", (16, 256, 4), 1, 8, torch.float32, True),
]
HALVES = [  # float16 and bfloat16 as u16 bits ranked in the comparator, bool as u8
    ("sort", (1000, 1000), -1, None, torch.float16, False),
    ("sort", (256, 1 << 12), -1, None, torch.bfloat16, True),
    ("topk", (64, 1 << 15), -1, 8, torch.bfloat16, True),
    ("topk", (100, 3000), -1, 5, torch.float16, False),
    ("argsort", (300, 1000), -1, None, torch.bool, True),
    ("argsort", (1 << 14, 1 << 10), -1, None, torch.bfloat16, False),     # u32 keys of the 17-bit rank
]
INTS = [  # packed keys of integers: i64 keys of 32-bit ones, u32 keys of 16 bits and fewer
    ("topk", (64, 1 << 17), -1, 8, torch.int32, True),
    ("argsort", (1 << 14, 1 << 10), -1, None, torch.int32, False),
    ("sort", (1 << 14, 1 << 10), -1, None, torch.int16, False),
    ("sort", (1 << 16, 1 << 8), -1, None, torch.uint8, True),
    ("topk", (64, 1 << 16), -1, 64, torch.int16, True),
]
LONG = [  # one long row: the CUDA toolkit's radix sort (python/parmc/_radix.py)
    ("sort", (1 << 22,), -1, None, torch.float32, False),
    ("argsort", (1 << 21,), -1, None, torch.int32, True),
    ("sort", (1, 1 << 20), -1, None, torch.bfloat16, True),
    ("sort", (1 << 20, 1), 0, None, torch.float64, False),
    ("argsort", (3000000,), -1, None, torch.uint8, False),
]
PADDED = [  # rows of vocabulary sizes, padded in the program to the next power of two
    ("topk", (64, 128256), -1, 64, torch.float32, True),     # Llama 3
    ("topk", (64, 32000), -1, 50, torch.float32, True),      # Llama 2
    ("topk", (256, 151936), -1, 8, torch.bfloat16, True),    # Qwen 2
    ("topk", (1024, 50257), -1, 8, torch.float32, True),     # GPT-2
]

DELEGATES = [  # long rows by delegates (python/parmc/_select.py): both ends, every kind of element,
    # rows whose length is no multiple of a 16-byte load, k of one and of nearly 256, rows of a 3-D x
    ("topk", (512, 4097), -1, 1, torch.float32, True),
    ("topk", (48, 50257), -1, 100, torch.float16, False),
    ("topk", (24, 100003), -1, 37, torch.float64, True),
    ("topk", (8, 4, 65536), -1, 16, torch.int32, False),
    ("topk", (32, 1 << 17), -1, 64, torch.bfloat16, False),
    ("topk", (12, 200000), -1, 255, torch.uint8, True),
    ("topk", (70, 30001), -1, 12, torch.int64, True),
    ("topk", (128, 1 << 14), -1, 256, torch.int16, False),
    ("topk", (2, 1 << 20), -1, 8, torch.float32, False),
    ("topk", (50000, 64), 0, 8, torch.float32, True),          # along dim 0: moved last and back
    ("topk", (4, 30000, 32), 1, 16, torch.bfloat16, False),    # along a middle dim
]


def make(shape, dtype, gen):
    """Random keys with ties, and NaNs and infinities for floats."""
    if dtype.is_floating_point:
        x = torch.randn(shape, dtype=dtype, device="cuda", generator=gen)
        flat = x.view(-1)
        n = flat.numel()
        for v in (float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0):
            flat[torch.randint(0, n, (n // 64 + 1,), device="cuda", generator=gen)] = v
        return x
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, device="cuda", generator=gen).bool()
    info = torch.iinfo(dtype)
    if dtype == torch.uint16:    # torch's randint has no uint16: draw int32 and narrow
        return torch.randint(0, 1 << 16, shape, dtype=torch.int32, device="cuda", generator=gen).to(dtype)
    return torch.randint(max(info.min, -1000), min(info.max, 1000), shape, dtype=dtype, device="cuda", generator=gen)


def wide(t):
    """A tensor torch's comparisons and sorts take (uint16 as int32)."""
    return t.to(torch.int32) if t.dtype == torch.uint16 else t


def calls(case, x):
    """(parmc's call, torch's call) of a case."""
    op, _, dim, k, _, flag = case
    if op == "topk":
        return lambda: parmc.topk(x, k, dim=dim, largest=flag), lambda: torch.topk(wide(x), k, dim=dim, largest=flag)
    if op == "argsort":
        return (lambda: parmc.argsort(x, dim=dim, descending=flag),
                lambda: torch.argsort(wide(x), dim=dim, descending=flag, stable=True))
    return (lambda: parmc.sort(x, dim=dim, descending=flag),
            lambda: torch.sort(wide(x), dim=dim, descending=flag, stable=True))


def same(a, b, bits=False):
    """Equal element by element, NaN equal to NaN; bits: halves bit for bit (zeros' signs)."""
    if bits and a.dtype in (torch.float16, torch.bfloat16) and a.dtype == b.dtype and a.shape == b.shape:
        return torch.equal(a.view(torch.int16), b.view(torch.int16))
    a, b = wide(a), wide(b)
    both_nan = torch.isnan(a) & torch.isnan(b) if a.is_floating_point() else torch.zeros_like(a, dtype=torch.bool)
    return a.shape == b.shape and bool(((a == b) | both_nan).all())


def check(case, x):
    """None, or what differs. Sorts: values and indices equal torch's stable sort. topk: the
    values equal torch.topk's; the indices point at them; and both are the first k of the
    stable sort (parmc's ties go to the smaller index; torch's order among ties is its own)."""
    op, _, dim, k, _, flag = case
    ours, theirs = calls(case, x)
    got = ours()
    torch.cuda.synchronize()
    if op == "argsort":
        return None if torch.equal(got, theirs()) else "indices differ from torch.argsort(stable=True)"
    v, i = got
    if i.dtype != torch.int64 or v.dtype != x.dtype:
        return f"dtypes {v.dtype}, {i.dtype}"
    if op == "sort":
        tv, ti = theirs()
        if not same(v, tv, bits=True):
            return "values differ from torch.sort"
        return None if torch.equal(i, ti) else "indices differ from torch.sort(stable=True)"
    tv, _ = theirs()
    if not same(v, tv):
        return "values differ from torch.topk"
    if not same(torch.gather(wide(x), dim, i), v):
        return "the indices do not point at the values"
    sv, si = torch.sort(wide(x), dim=dim, descending=flag, stable=True)
    if not torch.equal(i, si.narrow(dim, 0, k)):
        return "the indices are not the first k of the stable sort"
    return None


def time_ms(f, runs):
    """The median of f's GPU time over runs, by CUDA events on the current stream, after a warm-up."""
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


def gpu_ms(f, runs):
    """The median of f's GPU time alone over runs, by CUDA events on the current stream after a
    warm-up, the host's work for each call overlapped by a sleep kernel queued before the start
    event (torch.cuda._sleep of about 100 µs, longer than a call's host time)."""
    f()
    cycles = int(torch.cuda.get_device_properties(0).clock_rate * 1000 * 100e-6)   # clock_rate: kHz
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(cycles)
        start.record()
        f()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def host_us(f, n=2000):
    """The host time of a call (µs), its kernels queued but not waited for one by one."""
    f()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        f()
    host = time.perf_counter() - t
    torch.cuda.synchronize()
    return host / n * 1e6


def describe(case):
    op, shape, dim, k, dtype, flag = case
    what = "x".join(str(n) for n in shape) + f" {str(dtype).replace('torch.', '')}"
    if dim != -1:
        what += f" dim={dim}"
    if op == "topk":
        return f"topk k={k}{'' if flag else ' smallest'} {what}"
    return f"{op}{' desc' if flag else ''} {what}"


def check_as_torch():
    """On CUDA tensors, what torch.sort and torch.topk return: torch.return_types results, inputs
    that are not contiguous (transposed, of step 2), NumPy scalars for the arguments, and a 0-d
    tensor's top-k (torch.topk's for k = 1; for k = 0 the CPU's, CUDA's being unwritten)."""
    import numpy as np
    x = torch.randn(64, 300, device="cuda")
    bad = []
    r = parmc.topk(x, 5)
    if type(r) is not torch.return_types.topk or r.indices is not r[1] or type(parmc.sort(x)) is not torch.return_types.sort:
        bad.append(f"result types {type(r)}")
    for name, y in (("transposed", x.t()), ("step 2", x[:, ::2])):
        for dim in (0, 1):
            tv, ti = torch.sort(y, dim=dim, descending=True, stable=True)
            v, i = parmc.sort(y, np.int64(dim), np.True_)
            if not (torch.equal(v, tv) and torch.equal(i, ti) and v.is_contiguous()):
                bad.append(f"sort of {name} dim={dim}")
            if not torch.equal(parmc.topk(y, np.int32(3), dim).indices, ti.narrow(dim, 0, 3)):
                bad.append(f"topk of {name} dim={dim}")
    # a long row by delegates (_select.py): transposed, and into out=
    y = torch.randn(8192, 256, device="cuda").t()
    si = torch.sort(y, dim=1, descending=True, stable=True)[1].narrow(1, 0, 24)
    out = (torch.empty(256, 24, device="cuda"), torch.empty(256, 24, dtype=torch.int64, device="cuda"))
    r = parmc.topk(y, 24, out=out)
    if not (torch.equal(parmc.topk(y, 24).indices, si) and torch.equal(out[1], si) and r.values is out[0]):
        bad.append("topk by delegates of a transposed tensor, into out=")
    z = torch.tensor(3.5, device="cuda")
    for k in (1, 0):
        r, (tv, ti) = parmc.topk(z, k), torch.topk(z.cpu(), k)
        if r.values.shape != () or not torch.equal(r.values.cpu(), tv) or not torch.equal(r.indices.cpu(), ti):
            bad.append(f"topk of a 0-d tensor, k={k}: {r}")
    torch.cuda.synchronize()
    print(f"{'FAIL' if bad else 'ok'} as torch: named results, strided inputs, NumPy scalars, 0-d top-k, "
          "delegates of a transposed tensor"
          + (f": {'; '.join(bad)}" if bad else ""))
    return not bad


def check_cupy():
    try:
        import cupy
        import numpy as np
    except ImportError:
        print("skip cupy: CuPy is not installed")
        return True
    host = np.random.default_rng(3).standard_normal((300, 1000)).astype(np.float32)
    host[:, ::7] = np.nan
    x = cupy.asarray(host)
    want = np.argsort(host, axis=-1, kind="stable")     # NaN last, as PyTorch
    v, i = parmc.sort(x)
    ok = type(v) is cupy.ndarray and (cupy.asnumpy(i) == want).all()
    ok = ok and np.array_equal(cupy.asnumpy(v), np.take_along_axis(host, want, -1), equal_nan=True)
    r = parmc.topk(x, 5, largest=False)
    ok = ok and type(r) is parmc.return_types.topk and (cupy.asnumpy(r.indices) == want[:, :5]).all()
    ok = ok and (cupy.asnumpy(parmc.argsort(x.T, 0)) == want.T).all()     # not contiguous: a copy first
    print(f"{'ok' if ok else 'FAIL'} cupy: parmc.sort, topk and argsort of x.T of 300x1000 f32 against numpy's "
          "stable argsort")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--quick", action="store_true", help="small shapes only (minutes of nvcc fewer)")
    ap.add_argument("--jobs", type=int, default=8, help="programs built at once on first use")
    ap.add_argument("--only-padded", action="store_true", help="the vocabulary-sized rows alone, no other check")
    ap.add_argument("--only-rows", action="store_true", help="the one-row top-k alone, no other check")
    ap.add_argument("--only-delegates", action="store_true", help="the top-k by delegates alone, no other check")
    args = ap.parse_args()
    one_row = [c for c in TOPK if c[1][0] == 1]
    cases = PADDED if args.only_padded else one_row if args.only_rows else DELEGATES if args.only_delegates else \
        (QUICK if args.quick else TOPK + SORT) + HALVES + INTS + LONG + PADDED + DELEGATES
    gen = torch.Generator(device="cuda").manual_seed(26)
    inputs = [make(c[1], c[4], gen) for c in cases]
    torch.cuda.synchronize()
    t = time.time()
    with ThreadPoolExecutor(args.jobs) as pool:     # the first calls build the programs (nvcc)
        list(pool.map(lambda ci: calls(*ci)[0](), zip(cases, inputs)))
    torch.cuda.synchronize()
    print(f"# {torch.cuda.get_device_name()}: programs built (or found in the cache) in {time.time() - t:.0f} s")
    print("| case | parmc ms | torch ms | speed-up |")
    print("|---|---|---|---|")
    failed = 0
    for case, x in zip(cases, inputs):
        bad = check(case, x)
        if bad:
            failed += 1
            print(f"FAIL {describe(case)}: {bad}")
            continue
        ours, theirs = calls(case, x)
        a, b = time_ms(ours, args.runs), time_ms(theirs, args.runs)
        print(f"| {describe(case)} | {a:.3f} | {b:.3f} | {b / a:.2f} |")
    if args.only_padded or args.only_rows or args.only_delegates:
        return 1 if failed else 0
    # the host cost of a call after the first: a tiny input, so that the kernels are short
    small = torch.randn(4, 64, device="cuda")
    print(f"host cost of a call on 4x64: parmc.topk {host_us(lambda: parmc.topk(small, 8)):.1f} µs, "
          f"torch.topk {host_us(lambda: torch.topk(small, 8)):.1f} µs; parmc.sort "
          f"{host_us(lambda: parmc.sort(small)):.1f} µs, torch.sort {host_us(lambda: torch.sort(small)):.1f} µs")
    # the current stream: an input written on a side stream, sorted there, without a sync
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)
        y = torch.arange(1 << 12, 0, -1, device="cuda", dtype=torch.float32).reshape(4, -1)
        v, i = parmc.sort(y)
    side.synchronize()
    stream_ok = torch.equal(v, torch.sort(y).values)
    print(f"{'ok' if stream_ok else 'FAIL'} the current stream (torch.cuda.stream(side))")
    cupy_ok, torch_ok = check_cupy(), check_as_torch()
    failed += (not stream_ok) + (not cupy_ok) + (not torch_ok)
    print(f"{len(cases) + 3 - failed} of {len(cases) + 3} checks passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
