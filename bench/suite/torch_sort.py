#!/usr/bin/env python3
"""torch_sort.py: torch.sort on the shapes of bench/run.sh, CSV rows as main.cu
writes them (no header). Full sorts of 2^20..2^28 int32 and the batched
shapes 2^(28-r) x 2^r, dim=-1. torch.sort returns values and int64 indices.
Median of 25 timed calls after 3 warm-up calls, CUDA events. The check: each
row non-decreasing and the same sum as the input."""
import sys

import torch

WARM, RUNS = 3, 25


def time_ms(f):
    for _ in range(WARM):
        f()
    torch.cuda.synchronize()
    ts = []
    for _ in range(RUNS):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        f()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    ts.sort()
    return ts[RUNS // 2]


def one(section, logn, logrow):
    g = torch.Generator(device="cuda").manual_seed(logn * 100 + logrow)
    shape = (1 << logn,) if logrow == 0 else (1 << (logn - logrow), 1 << logrow)
    x = torch.randint(-2**31, 2**31 - 1, shape, dtype=torch.int32, device="cuda", generator=g)
    v, _ = torch.sort(x, dim=-1)
    ok = bool((v[..., 1:] >= v[..., :-1]).all()) and \
        bool((v.sum(dim=-1, dtype=torch.int64) == x.sum(dim=-1, dtype=torch.int64)).all())
    ms = time_ms(lambda: torch.sort(x, dim=-1))
    print("%s,torch,torch_sort,i32,%d,%d,%d,%.5f,%s" % (section, logn, logrow, 4 << logn, ms,
                                                       "ok" if ok else "FAIL"), flush=True)
    print("torch %s 2^%d rows 2^%d: %.4f ms %s" % (section, logn, logrow, ms, ok), file=sys.stderr)
    del x, v
    torch.cuda.empty_cache()


print("torch", torch.__version__, torch.cuda.get_device_name(0), file=sys.stderr)
for logn in (20, 22, 24, 26, 28):
    one("sort", logn, 0)
for logn, logrow in ((28, 8), (28, 10), (28, 12), (28, 14), (26, 10)):
    one("batched", logn, logrow)
