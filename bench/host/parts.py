#!/usr/bin/env python3
"""Where the host time of a steady parmc.topk / sort call goes: each step of the generated run
(python/parmc/_runs.py) timed alone, medians of many calls, on a small CUDA tensor, with the
alternatives of each step that could replace it:

    python3 bench/host/parts.py [--shape 1 1024] [--calls 3000]
"""
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


def median_us(f, calls):
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", type=int, nargs="+", default=[1, 1024])
    ap.add_argument("--calls", type=int, default=3000)
    a = ap.parse_args()
    x = torch.randn(*a.shape, device="cuda")
    dev = x.get_device()
    D = torch.device("cuda", dev)
    for k in (8, 5):
        parmc.topk(x, k)
    parmc.sort(x)
    torch.cuda.synchronize()
    key = _sortops._torch_key(x, "topk", -1, True, 8)
    lib = _sortops._libraries[type(x)]
    run = lib[1][key]
    print(run.source)
    sync = torch.cuda.synchronize
    raw = torch._C._cuda_getCurrentRawStream
    getdev = torch._C._cuda_getDevice
    shape = (1, 8)
    i64 = torch.int64
    f32 = torch.float32
    v = torch.empty(shape, dtype=f32, device=D)
    i = torch.empty(shape, dtype=i64, device=D)
    named = torch.return_types.topk
    tmpl = torch.empty((), dtype=i64, device=D).expand(shape)
    size = torch.Size(shape)
    made = torch.empty_like(tmpl)
    print("empty_like(expanded):", made.shape, made.stride(), made.is_contiguous())
    big = torch.empty((), dtype=i64, device=D).expand(4096, 16384)
    made = torch.empty_like(big)
    print("empty_like(expanded 4096x16384):", made.shape, made.stride(), made.is_contiguous())
    plan = _sortops._new_plan("topk", x, -1, True, 8)
    prog = plan.entry.program
    ctx = prog.context(dev)
    h = raw(dev) or 1
    outs = [torch.empty(plan.out_shape, dtype=dt, device=D) for dt in plan.dtypes]
    args = [ctx, x.data_ptr(), *[o.data_ptr() for o in outs], *plan.tail]
    fn, set_stream = plan.entry._fn, prog._set_stream
    nothing = lambda: None  # noqa: E731
    cases = [
        ("nothing (the timer)", nothing),
        ("parmc.topk(x, 8)", lambda: parmc.topk(x, 8)),
        ("parmc.topk(x, 5)", lambda: parmc.topk(x, 5)),
        ("parmc.sort(x)", lambda: parmc.sort(x)),
        ("parmc.argsort(x)", lambda: parmc.argsort(x)),
        ("torch.topk(x, 8)", lambda: torch.topk(x, 8)),
        ("run(x) (topk 8)", lambda: run(x)),
        ("the key: _torch_key", lambda: _sortops._torch_key(x, "topk", -1, True, 8)),
        ("key + dict get", lambda: lib[1].get(lib[0](x, "topk", -1, True, 8))),
        ("x.dtype, x.shape", lambda: (x.dtype, x.shape)),
        ("x.get_device()", lambda: x.get_device()),
        ("_cuda_getDevice()", lambda: getdev()),
        ("x.is_contiguous()", lambda: x.is_contiguous()),
        ("torch.empty(shape, dtype=, device=torch.device)", lambda: torch.empty(shape, dtype=f32, device=D)),
        ("torch.empty(shape, dtype=, device=int)", lambda: torch.empty(shape, dtype=f32, device=dev)),
        ("x.new_empty(shape)", lambda: x.new_empty(shape)),
        ("x.new_empty(shape, dtype=i64)", lambda: x.new_empty(shape, dtype=i64)),
        ("torch.empty_like(v)", lambda: torch.empty_like(v)),
        ("torch.empty_like(x)", lambda: torch.empty_like(x)),
        ("torch.empty_like(expanded template)", lambda: torch.empty_like(tmpl)),
        ("torch.empty_like(x, dtype=i64)", lambda: torch.empty_like(x, dtype=i64)),
        ("torch.empty(*shape, dtype=, device=)", lambda: torch.empty(*shape, dtype=f32, device=D)),
        ("torch.empty(size, dtype=, device=) (torch.Size)", lambda: torch.empty(size, dtype=f32, device=D)),
        ("torch.empty(16, dtype=uint8) (bytes)", lambda: torch.empty(96, dtype=torch.uint8, device=D)),
        ("x.data_ptr()", lambda: x.data_ptr()),
        ("raw stream", lambda: raw(dev)),
        ("set_stream(ctx, h) (ctypes)", lambda: set_stream(ctx, h)),
        ("the entry alone (ctypes, launches)", lambda: fn(*args)),
        ("named((v, i))", lambda: named((v, i))),
        ("sync (idle stream)", sync),
    ]
    print(f"| step, {'x'.join(map(str, a.shape))} float32 on {torch.cuda.get_device_name()} | median µs |")
    print("|---|---|")
    for name, f in cases:
        f()
        print(f"| {name} | {median_us(f, a.calls):.2f} |")
        sync()


if __name__ == "__main__":
    main()
