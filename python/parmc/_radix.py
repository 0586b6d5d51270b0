"""parmc.sort and parmc.argsort of one long row on CUDA by the CUDA toolkit's own radix sort
(CUB's DeviceRadixSort, through _radix.cu): where a row is long enough, no generated network
is faster (a bitonic network of 2^n keys runs n(n+1)/2 steps, a radix sort a few passes of
its bits), so the plan takes the library. The keys are ranks in PyTorch's order, sorted
stably with their indices, and the values read back from their keys (a zero or a NaN from
the input by its index): the results are torch.sort(stable=True)'s, bit for bit
(docs/python.md, "Sorting")."""
import ctypes
import math
import os

from . import _build
from ._errors import CallError

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_radix.cu")
RANKS = os.path.join(os.path.dirname(SOURCE), "_ranks.cuh")
# dtype name -> the element code of _radix.cu (bool as uint8: 0 or 1)
CODES = {"float32": 0, "float64": 1, "float16": 2, "bfloat16": 3, "int8": 4, "int16": 5, "int32": 6, "int64": 7,
         "uint8": 8, "uint16": 9, "uint32": 10, "uint64": 11, "bool": 8}
# the element's bytes -> the shortest row that the radix sort takes: from there on it was
# faster than parmc's own sorts on an H200 (bench/rows/long_row.py from 2^15 to 2^26,
# bench/results/2026-12-02-h200-s21-long-row.md): 1- and 2-byte keys from 2^15 (the shortest
# measured), 4-byte ones from 2^17 (float32 at 2^16: 0.059 ms by the network, 0.061 by radix),
# 8-byte ones from 2^21 (float64 at 2^20: 0.184 against 0.199)
SHORTEST = {1: 1 << 15, 2: 1 << 15, 4: 1 << 17, 8: 1 << 21}
_library = None


def takes(op, cuda, dtype, length, others):
    """Whether a call sorts by the radix sort: sort or argsort on CUDA of one row (`others`, the
    product of the other dims, is 1) of at least SHORTEST elements and fewer than 2^32."""
    if not (cuda and op in ("sort", "argsort") and others == 1 and length < 1 << 32):
        return False
    return code(dtype) is not None and SHORTEST[dtype.itemsize] <= length


def code(dtype):
    """_radix.cu's code of a dtype (NumPy's, PyTorch's or CuPy's), or None."""
    return CODES.get(str(dtype).replace("torch.", ""))


def library():
    """_radix.cu's library, built once (the cache) and loaded once per process."""
    global _library
    if _library is None:
        lib = _build.cuda_library(SOURCE, "parmc_radix", (RANKS,))
        lib.parmc_radix_workspace.restype = ctypes.c_size_t
        lib.parmc_radix_workspace.argtypes = [ctypes.c_int, ctypes.c_size_t]
        lib.parmc_radix_sort.restype = ctypes.c_int
        lib.parmc_radix_sort.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                         ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        _library = lib
    return _library


class RadixPlan:
    """How a call of one long row runs: x contiguous (a copy where it is not), the results
    allocated in x's shape, a workspace of the library's size from x's library (its caching
    allocator), one call of the library on the current stream."""

    def __init__(self, op, adapter, device, dtype, shape, descending, named):
        self.op, self.adapter, self.device, self.dtype, self.shape = op, adapter, device, dtype, shape
        self.named = named
        self.code = code(dtype)
        self.n = math.prod(shape)
        self.descending = int(descending)
        self.lib = library()
        self.ws_bytes = self.lib.parmc_radix_workspace(self.code, self.n)
        self.u8, self.i64 = adapter.dtype("u8"), adapter.dtype("i64")

    def __call__(self, x):
        guard = self.adapter.guard(self.device)
        if guard is None:
            return self.run(x)
        with guard:
            return self.run(x)

    def run(self, x):
        a = self.adapter
        xs = contiguous(x)
        v = a.empty(self.shape, self.dtype, self.device) if self.op == "sort" else None
        i = a.empty(self.shape, self.i64, self.device)
        ws = a.empty((self.ws_bytes,), self.u8, self.device)
        rc = self.lib.parmc_radix_sort(self.code, self.descending, a.ptr(xs), a.ptr(v) if v is not None else None,
                                       a.ptr(i), self.n, a.ptr(ws), self.ws_bytes, a.stream(self.device, None, "x"))
        if rc:
            raise CallError(f"parmc.{self.op}: the radix sort of {self.n} elements failed (CUDA error {rc})", rc)
        return i if v is None else self.named((v, i))


def contiguous(x):
    """x, or a contiguous copy of it (a PyTorch tensor or a CuPy array)."""
    if hasattr(x, "is_contiguous"):
        return x if x.is_contiguous() else x.contiguous()
    return x if x.flags.c_contiguous else x.copy(order="C")
