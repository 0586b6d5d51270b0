"""parmc.sort, parmc.argsort and parmc.topk: drop-ins for torch.sort, torch.argsort and
torch.topk on PyTorch tensors, CuPy arrays (the CUDA target) and NumPy arrays (the C target).
Each call finds its plan in a dictionary keyed by what decides the program (the array's type,
dtype, shape, dim and options); a plan is made once, by generating a parm program over rows
(stdlib/sort.parm, docs/python.md "Sorting") and compiling it with compile(), whose cache
keeps the library across processes."""
import operator

from . import _build
from ._errors import ArgumentTypeError, ArgumentValueError

# dtype names (as NumPy, PyTorch and CuPy print them, without a "torch." prefix) -> parm type
_PARM_TYPES = {"int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
               "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
               "float32": "f32", "float64": "f64"}

_plans = {}     # (op, type, dtype, shape, device type, dim, options) -> plan: a function of the array


def sort(x, dim=-1, descending=False, stable=False):
    """(values, indices) of x sorted along dim, as torch.sort: indices int64, NaN after every
    number (first when descending). Always stable: equal elements keep their order."""
    plan = _lookup("sort", x, dim, descending) if type(descending) is bool else None
    if plan is None:
        plan = _new_plan("sort", x, dim, descending, None, stable)
    return plan(x)


def argsort(x, dim=-1, descending=False, stable=False):
    """The int64 indices that sort x along dim, as torch.argsort (always stable)."""
    plan = _lookup("argsort", x, dim, descending) if type(descending) is bool else None
    if plan is None:
        plan = _new_plan("argsort", x, dim, descending, None, stable)
    return plan(x)


def topk(x, k, dim=-1, largest=True, sorted=True):
    """(values, indices) of the k largest (largest=False: smallest) elements of x along dim, as
    torch.topk, always sorted (best first); ties go to the smaller index, NaN is the largest."""
    plan = _lookup("topk", x, dim, (largest, k)) if type(k) is int and type(largest) is bool else None
    if plan is None:
        plan = _new_plan("topk", x, dim, largest, k, sorted)
    return plan(x)


def _lookup(op, x, dim, options):
    """The plan of a call made before, found at once: a contiguous array of a known shape, an
    int dim and options as given then; None sends the call through every check."""
    if type(dim) is not int:
        return None
    try:
        key = (op, type(x), x.dtype, x.shape, _device(x), dim, options)
    except AttributeError:
        return None
    plan = _plans.get(key)
    return plan if plan is not None and _contiguous(x) else None


def _contiguous(x):
    flags = getattr(x, "flags", None)
    if flags is not None:
        return flags.c_contiguous is True
    is_contiguous = getattr(x, "is_contiguous", None)
    return is_contiguous is not None and is_contiguous()


def _device(x):
    """The device type of a tensor ("cpu", "cuda"), None for NumPy and CuPy arrays."""
    d = getattr(x, "device", None)
    return getattr(d, "type", None)


def _flag(v, op, name):
    if v is True or v is False or type(v).__name__ == "bool_":
        return v
    raise ArgumentTypeError(f"parmc.{op}: argument '{name}': expected a bool, got {type(v).__name__}")


# ---- Making a plan: every check, then the program


def _new_plan(op, x, dim, flag, k, option):
    lib, cuda = _library(op, x)
    flag = bool(_flag(flag, op, "largest" if op == "topk" else "descending"))
    shape = tuple(x.shape)
    t = _parm_type(op, x)
    if not _contiguous(x):
        raise ArgumentValueError(f"parmc.{op}: argument 'x' is not contiguous ("
                                 f"{'.contiguous()' if lib == 'torch' else lib + '.ascontiguousarray'} makes a copy that is)")
    _flag(option, op, "sorted" if op == "topk" else "stable")
    d = _dim(op, dim, len(shape))
    length = shape[d] if shape else 1
    if op == "topk":
        k = _k(k, length, d)
    plan = _Plan(op, lib, cuda, t, shape, d, flag, k)
    if type(dim) is int:
        _plans[(op, type(x), x.dtype, x.shape, _device(x), dim, (flag, k) if op == "topk" else flag)] = plan
    return plan


def _library(op, x):
    """("numpy" | "torch" | "cupy", CUDA target?) of x, or the error that names it."""
    root = type(x).__module__.split(".")[0]
    if root == "numpy" and type(x).__name__ == "ndarray":
        return "numpy", False
    if root == "cupy" and type(x).__name__ == "ndarray":
        return "cupy", True
    if root == "torch" and hasattr(x, "is_cuda"):
        if x.is_cuda:
            return "torch", True
        if x.is_cpu:
            return "torch", False
        raise ArgumentValueError(f"parmc.{op}: argument 'x' is on {x.device}; parmc runs on CUDA tensors (the CUDA "
                                 "target) and CPU tensors (the C target)")
    raise ArgumentTypeError(f"parmc.{op}: argument 'x': expected a NumPy array, a PyTorch tensor or a CuPy array, "
                            f"got {type(x).__module__}.{type(x).__name__}")


def _parm_type(op, x):
    name = str(x.dtype).replace("torch.", "")
    t = _PARM_TYPES.get(name)
    if t is None:
        raise ArgumentTypeError(f"parmc.{op}: argument 'x' has dtype {name}; parmc sorts "
                                f"{', '.join(_PARM_TYPES)}")
    return t


def _dim(op, dim, ndim):
    try:
        d = operator.index(dim)
    except TypeError:
        raise ArgumentTypeError(f"parmc.{op}: argument 'dim': expected an integer, got {type(dim).__name__}") from None
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not lo <= d <= hi:
        raise ArgumentValueError(f"parmc.{op}: argument 'dim' is {d}, out of range for an array of {ndim} "
                                 f"dimension{'s' if ndim != 1 else ''} ({lo}..{hi})")
    return d % ndim if ndim else 0


def _k(k, length, d):
    try:
        k = operator.index(k)
    except TypeError:
        raise ArgumentTypeError(f"parmc.topk: argument 'k': expected an integer, got {type(k).__name__}") from None
    if not 0 <= k <= length:
        raise ArgumentValueError(f"parmc.topk: argument 'k' is {k}; the rows along dim {d} have {length} "
                                 f"element{'s' if length != 1 else ''}")
    return k


def _log2_up(n):
    """The least s with 2^s >= n (0 for n <= 1)."""
    return max(n - 1, 0).bit_length()


class _Plan:
    """How one shape runs: the array seen as rows (outer, length, inner) along dim; the rows of
    a program over rows of `length`, or of length*inner (a transpose in the program) when both
    are powers of two; otherwise the axis moved last on the host (a copy: docs/python.md)."""

    def __init__(self, op, lib, cuda, t, shape, d, flag, k):
        self.op, self.lib, self.k, self.shape, self.d = op, lib, k, shape, d
        length = shape[d] if shape else 1
        inner = 1
        for n in shape[d + 1:]:
            inner *= n
        outer = 1
        for n in shape[:d]:
            outer *= n
        self.empty = outer * length * inner == 0 or k == 0
        self.moved = inner > 1 and not (_pow2(length) and _pow2(inner))
        if self.moved:          # rows of `length` after moving dim last
            rows, row, inner = outer * inner, length, 1
        else:                   # rows of length*inner, transposed in the program when inner > 1
            rows, row = outer, length * inner
        # descending sorts (and the largest first) for sort's descending and topk's largest
        self.entry = None if self.empty else _program(op, cuda, t, _log2_up(rows), _log2_up(length),
                                                      _log2_up(inner), flag)
        self.grid = (rows, row)

    def __call__(self, x):
        if self.empty:
            return _empty_result(self, x)
        xs = x
        if self.moved:
            xs = _contiguous_copy(self.lib, _moveaxis(self.lib, x, self.d, -1))
        out = self.entry(xs.reshape(self.grid))
        if self.op == "argsort":
            return self._shaped(out, xs)
        values, indices = out
        values, indices = self._shaped(values, xs), self._shaped(indices, xs)
        if self.op == "topk":
            return self._first_k(values), self._first_k(indices)
        return values, indices

    def _shaped(self, a, xs):
        """A result back in x's shape (the axis moved back when it was moved)."""
        if not self.moved:
            return a.reshape(self.shape)
        return _contiguous_copy(self.lib, _moveaxis(self.lib, a.reshape(xs.shape), -1, self.d))

    def _first_k(self, a):
        """The first k along dim (the sort's best k), contiguous."""
        cut = (slice(None),) * self.d + (slice(0, self.k),)
        return _contiguous_copy(self.lib, a[cut])


def _pow2(n):
    return n & (n - 1) == 0


def _moveaxis(lib, a, src, dst):
    if lib == "torch":
        return a.movedim(src, dst)
    return (_cupy() if lib == "cupy" else _numpy()).moveaxis(a, src, dst)


def _contiguous_copy(lib, a):
    if lib == "torch":
        return a.contiguous()
    return (_cupy() if lib == "cupy" else _numpy()).ascontiguousarray(a)


def _numpy():
    import numpy
    return numpy


def _cupy():
    import cupy
    return cupy


def _empty_result(plan, x):
    """The results of a call with no element (or k = 0): empty arrays of their shapes."""
    shape = list(plan.shape)
    if plan.op == "topk":
        shape[plan.d] = plan.k
    shape = tuple(shape)
    if plan.lib == "torch":
        import torch
        v = torch.empty(shape, dtype=x.dtype, device=x.device)
        i = torch.empty(shape, dtype=torch.int64, device=x.device)
    else:
        xp = _cupy() if plan.lib == "cupy" else _numpy()
        v, i = xp.empty(shape, x.dtype), xp.empty(shape, xp.int64)
    return i if plan.op == "argsort" else (v, i)


# ---- The programs


_entries = {}   # (op, target, type, b, r, c, flag) -> the compiled entry


def _program(op, cuda, t, b, r, c, flag):
    """The entry for op on up to 2^b rows of 2^r elements (of 2^(r+c), transposed, when c > 0),
    compiled once: descending (flag) for sort and argsort, the largest first for topk."""
    key = (op, cuda, t, b, r, c, flag)
    entry = _entries.get(key)
    if entry is None:
        prog = _build.compile(source(op, t, b, r, c, flag), target="cuda" if cuda else "c",
                              prefix=f"parmc_{op}")
        entry = _entries[key] = prog.main
    return entry


def source(op, t, b, r, c, descending):
    """The parm program of op: `entry main` over up to 2^b rows of 2^(r+c) elements of type t,
    each a 2^r x 2^c matrix sorted along its columns (c = 0: rows sorted), with indices.
    topk sorts and the caller keeps the first k (docs/python.md)."""
    cmp = "idx_desc" if descending else "idx_asc"
    # the pad sorts after every element and loses its ties on the index (stdlib/sort.parm)
    pad = "min" if descending else "(0.0 / 0.0)" if t[0] == "f" else "max"
    n = b + r + c
    body = f"sort_idx_rows {cmp} {b + c} {r} xs0"
    if c:   # columns of each 2^r x 2^c matrix made rows, and back: one bmmc each way
        to_rows = f"bitperm {n} (\\i -> if i < {r} then i + {c} else if i < {r + c} then i - {r} else i)"
        back = f"bitperm {n} (\\i -> if i < {c} then i + {r} else if i < {r + c} then i - {c} else i)"
        body = (f"let (v, i) = sort_idx_rows {cmp} {b + c} {r} (bmmc ({to_rows}) xs0) in\n"
                f"  (bmmc ({back}) v, bmmc ({back}) i)")
    result = "let (_, i) = sorted in i" if op == "argsort" else "sorted"
    return (f"-- parmc.{op} (python/parmc/_sortops.py): {'descending' if descending else 'ascending'}, "
            f"up to 2^{b} rows of 2^{r + c}\nimport \"sort\"\n"
            f"entry main (xs0 : [2^{b}][2^{r + c}]{t} pad {pad}) =\n  let sorted = ({body}) in\n  {result}\n")
