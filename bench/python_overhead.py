#!/usr/bin/env python3
"""The cost of calling a compiled entry through the parmc Python package, against calling
the same C function through ctypes with everything prepared: a tiny entry (16 elements),
called N times. The C target takes NumPy arrays; --target cuda takes PyTorch tensors (or CuPy
arrays when PyTorch is missing) and includes reading the current stream.

    PARMC=build/parmc python3 bench/python_overhead.py [--target c|cuda] [--calls N]
"""
import argparse
import ctypes
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import parmc  # noqa: E402

SOURCE = "entry main (xs : [2^4]i32) = map (\\x -> x + 1) xs\n"


def arrays(target):
    """(the input, the library's name, a function giving an array's pointer, a sync)"""
    if target == "c":
        import numpy
        return numpy.arange(16, dtype=numpy.int32), "numpy", lambda a: a.ctypes.data, lambda: None
    try:
        import torch
        x = torch.arange(16, dtype=torch.int32, device="cuda")
        return x, "torch", lambda a: a.data_ptr(), torch.cuda.synchronize
    except ImportError:
        import cupy
        x = cupy.arange(16, dtype=cupy.int32)
        return x, "cupy", lambda a: a.data.ptr, cupy.cuda.runtime.deviceSynchronize


def best_of(f, calls, sync, repeats=5):
    best = float("inf")
    for _ in range(repeats):
        sync()
        t = time.perf_counter()
        for _ in range(calls):
            f()
        sync()
        best = min(best, (time.perf_counter() - t) / calls)
    return best * 1e6


def measure(calls=10000, target="c"):
    """(µs a call through the package, µs a call of the C function through ctypes alone)"""
    prog = parmc.compile(SOURCE, target=target)
    x, _, ptr, sync = arrays(target)
    f = prog.main
    out = f(x)
    fn, ctx = f._fn, prog.context(getattr(getattr(x, "device", None), "index", None) if target == "cuda" else None)
    xp, op = ptr(x), ptr(out)
    if target == "cuda":
        prog._set_stream(ctx, ctypes.c_void_p(1))      # the legacy default stream, as the package passes it
    return best_of(lambda: f(x), calls, sync), best_of(lambda: fn(ctx, xp, op, 16), calls, sync)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", choices=("c", "cuda"), default="c")
    ap.add_argument("--calls", type=int, default=10000)
    a = ap.parse_args()
    lib = arrays(a.target)[1]
    us, raw = measure(a.calls, a.target)
    print(f"python call overhead ({a.target} target, {lib}, {a.calls} calls, best of 5): {us:.2f} us a call through "
          f"parmc, {raw:.2f} us through ctypes alone, overhead {us - raw:.2f} us")


if __name__ == "__main__":
    main()
