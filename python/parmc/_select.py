"""parmc.topk of long rows by delegates (_select.cu): a row of n is cut into subranges of
2^log_s, each subrange's best element (its delegate) read in one pass over the row; the top k
of the delegates name the k subranges that hold the row's top k; the top k of their elements
(the candidates) are the result. Both top-ks are parmc's own networks (_sortops._Plan), over
m = ceil(n / 2^log_s) delegates and k * 2^log_s candidates instead of n elements, so a long
row costs about one read of it where a network over it sorts runs of k of every element
(docs/python.md, "Top-k"). Order, ties and NaNs are the networks' (_select.cu says why). On
CUDA the kernels are built by nvcc, on the host by the C++ compiler (_select.cu's host
branch); without one, a host call takes the network over the row."""
import ctypes
import math
import os
import warnings

from . import _build, _radix
from ._errors import CallError, CompileError, ToolError

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_select.cu")
LARGEST_K = 256         # _select.cu ranks a row's k subranges by k compares each
SHORTEST = 1 << 12      # rows shorter than this are left to the network over the row
SMALLEST = 1 << 21      # and calls of fewer elements, whose five launches would cost more than they save
GAIN = 4                # the networks' elements at least this many times fewer
_libraries = {}       # on CUDA? -> _select.cu's library, or None where it cannot be built


def _pad(n):
    return 1 << max(n - 1, 0).bit_length()


def subranges(n, log_s):
    """The delegates of a row of n: its subranges of 2^log_s, the last cut at n."""
    return -(-n >> log_s)


def log_s(n, k):
    """The subrange (its log) of a top-k of k in rows of n by delegates: the one of the fewest
    elements for the two networks (each padded to a power of two, as a network's row is),
    or None where no subrange has GAIN times fewer than the row."""
    best = None
    for j in range(2, 11):
        m = subranges(n, j)
        if m < k:
            break
        work = _pad(m) + _pad(k << j)
        if best is None or work < best[0]:
            best = (work, j)
    return best[1] if best is not None and best[0] * GAIN <= _pad(n) else None


def takes(op, lib, cuda, dtype, shape, d, k):
    """The subrange's log where a call is a top-k by delegates (not of JAX arrays, along any
    dim d, of rows of SHORTEST or more, SMALLEST elements or more, k of 1 to LARGEST_K, an
    element type of _ranks.cuh), else None; the call then goes by delegates where the
    kernels can be built (library)."""
    if not (op == "topk" and lib != "jax" and shape):
        return None
    n = shape[d]
    if not (math.prod(shape) >= SMALLEST and SHORTEST <= n < 1 << 31 and 1 <= k <= LARGEST_K) \
            or _radix.code(dtype) is None:
        return None
    j = log_s(n, k)
    return j if j is not None and math.prod(shape) // n * subranges(n, j) < 1 << 32 else None


def library(cuda):
    """_select.cu's library for CUDA or the host, built once (the cache) and loaded once per
    process; None on the host without a C++ compiler."""
    lib = _libraries.get(cuda, False)
    if lib is False:
        if cuda:
            lib = typed(_build.cuda_library(SOURCE, "parmc_select", (_radix.RANKS,)))
        else:
            try:
                lib = typed(_build.cxx_library(_build.read_text(SOURCE), "parmc_select_host",
                                               [os.path.dirname(SOURCE)], [_build.read_text(_radix.RANKS)]))
            except ToolError:       # no C++ compiler
                lib = None
            except CompileError as e:
                warnings.warn(f"parmc.topk: the host's top-k by delegates does not build, so long rows take "
                              f"the network over the row: {e}")
                lib = None
        _libraries[cuda] = lib
    return lib


def typed(lib):
    """lib (_select.cu's, by nvcc or by the C++ compiler) with its functions' ctypes
    signatures."""
    p, size, u = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint
    for f, args in ((lib.parmc_select_delegates, [ctypes.c_int, ctypes.c_int, p, p, size, size, u, p]),
                    (lib.parmc_select_candidates, [ctypes.c_int, ctypes.c_int, p, p, p, p, size, size, u, u, p]),
                    (lib.parmc_select_indices, [p, p, size, u, u, p])):
        f.restype, f.argtypes = ctypes.c_int, args
    return lib


class SelectPlan:
    """How a top-k of long rows runs, by lib (library()'s): x contiguous with dim d last (a copy where it is not),
    its delegates, the plan `delegates` (a top-k of rows x m), the candidates, the plan
    `candidates` (a top-k of rows x k*2^log_s), their positions made the row's, both results
    with d moved back (ops: _sortops's shaping steps of x's library); every step on the
    current stream (on the host, one after another: device None)."""

    def __init__(self, lib, adapter, ops, device, dtype, shape, d, largest, k, log_s, delegates, candidates,
                 named):
        self.adapter, self.device, self.dtype, self.named = adapter, device, dtype, named
        self.n, self.k, self.log_s = shape[d], k, log_s
        self.rows = math.prod(shape) // self.n
        last = d == len(shape) - 1
        self.move_in = _radix.contiguous if last else ops.move_in(d)
        self.move_back = None if last else ops.move_back(d)
        self.out_shape = tuple(shape[:d]) + tuple(shape[d + 1:]) + (k,)
        self.m = subranges(self.n, log_s)
        self.code, self.largest = _radix.code(dtype), int(largest)
        self.delegates, self.candidates = delegates, candidates
        self.lib = lib     # library(): _select.cu's, built
        self.i32 = adapter.dtype("i32")

    def __call__(self, x):
        guard = self.adapter.guard(self.device) if self.device is not None else None
        if guard is None:
            return self.run(x)
        with guard:
            return self.run(x)

    def run(self, x):
        a, lib, rows, k = self.adapter, self.lib, self.rows, self.k
        xs = self.move_in(x)
        stream = a.stream(self.device, None, "x") if self.device is not None else None
        d = a.empty((rows, self.m), self.dtype, self.device)
        self._check(lib.parmc_select_delegates(self.code, self.largest, a.ptr(xs), a.ptr(d), rows, self.n,
                                               self.log_s, stream))
        ids = self.delegates(d)[1]
        c = a.empty((rows, k << self.log_s), self.dtype, self.device)
        order = a.empty((rows, k), self.i32, self.device)
        self._check(lib.parmc_select_candidates(self.code, self.largest, a.ptr(xs), a.ptr(ids), a.ptr(c), a.ptr(order),
                                                rows, self.n, self.log_s, k, stream))
        values, positions = self.candidates(c)
        self._check(lib.parmc_select_indices(a.ptr(order), a.ptr(positions), rows, k, self.log_s, stream))
        values, positions = values.reshape(self.out_shape), positions.reshape(self.out_shape)
        if self.move_back is not None:
            values, positions = self.move_back(values), self.move_back(positions)
        return self.named((values, positions))

    def _check(self, rc):
        if rc:
            raise CallError(f"parmc.topk: the top-k by delegates of {self.rows} rows of {self.n} failed "
                            f"(CUDA error {rc})", rc)
