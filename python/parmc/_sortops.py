"""parmc.sort, parmc.argsort and parmc.topk: drop-ins for torch.sort, torch.argsort and
torch.topk on PyTorch tensors, CuPy arrays (the CUDA target) and NumPy arrays (the C target).
Each call finds its plan in a dictionary keyed by what decides the program (the array's type,
dtype, shape, dim and options); a plan is made once, by generating a parm program over rows
(stdlib/sort.parm and stdlib/topk.parm, docs/python.md "Sorting") and compiling it with
compile(), whose cache keeps the library across processes."""
import operator
import warnings

from . import _arrays, _build
from ._errors import ArgumentTypeError, ArgumentValueError, CompileError

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
    plan = _Plan(op, lib, cuda, _arrays.adapter_of(x, cuda), t, shape, d, flag, k)
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
    """How one shape runs. The array is (outer, length, inner) around dim: rows of `length`
    (inner = 1), or rows of length*inner transposed in the program when both are powers of
    two; otherwise the axis is moved last on the host (a copy each way: docs/python.md). The
    entry is called directly (its lengths fit by construction: the length of an exact entry,
    else rows and the row length), results allocated in the shapes the program writes them."""

    def __init__(self, op, lib, cuda, adapter, t, shape, d, flag, k):
        self.op, self.lib, self.cuda, self.adapter, self.k, self.shape, self.d = op, lib, cuda, adapter, k, shape, d
        length = shape[d] if shape else 1
        outer, inner = _product(shape[:d]), _product(shape[d + 1:])
        self.empty = outer * length * inner == 0 or k == 0
        self.moved = inner > 1 and not (_pow2(length) and _pow2(inner))
        if self.moved:
            outer, inner = outer * inner, 1
            self.work_shape = shape[:d] + shape[d + 1:] + (length,)    # dim moved last
        else:
            self.work_shape = shape
        self.grid = (outer, length * inner)
        self.reshape = self.moved or op == "topk"     # else the results have x's shape as written
        self.dtypes = [adapter.dtype(t), adapter.dtype("i64")]
        if self.empty:
            return
        # exact powers of two: an entry of that size, with no pad (nothing to pad, or to cut)
        exact = _pow2(outer) and _pow2(length)
        self.tail = [outer * length * inner] if exact else list(self.grid)
        j = _log2_up(k) if op == "topk" else None
        b = _log2_up(outer)
        self.entry, self.bitonic = _program("topk" if op == "topk" else "sort", cuda, t, b, _log2_up(length),
                                            _log2_up(inner), flag, j, exact)
        # a bitonic top-k writes whole results: 2^b rows of 2^j x inner, cut here
        self.out_shape = (1 << b, 1 << j, inner) if self.bitonic else self.work_shape

    def __call__(self, x):
        ad = self.adapter
        dev = (x.get_device() if self.lib == "torch" else x.device.id) if self.cuda else None
        if self.empty:
            return self._empty_result(dev)
        xs = _contiguous_copy(self.lib, _moveaxis(self.lib, x, self.d, -1)) if self.moved else x
        outs = [ad.empty(self.out_shape, dt, dev) for dt in self.dtypes]
        self.entry._invoke(ad, dev, None, [ad.ptr(xs), ad.ptr(outs[0]), ad.ptr(outs[1])] + self.tail)
        if self.op == "argsort":    # the sort's indices; its values are dropped
            return self._shaped(outs[1]) if self.reshape else outs[1]
        return (self._shaped(outs[0]), self._shaped(outs[1])) if self.reshape else tuple(outs)

    def _empty_result(self, dev):
        """The results of a call with no element (or k = 0): empty arrays of their shapes."""
        shape = list(self.shape)
        if self.op == "topk":
            shape[self.d] = self.k
        outs = [self.adapter.empty(tuple(shape), dt, dev) for dt in self.dtypes]
        return outs[1] if self.op == "argsort" else tuple(outs)

    def _shaped(self, a):
        """A result in the shape of the call's: cut to k along dim for topk, dim moved back."""
        last = len(self.work_shape) - 1 if self.moved else self.d
        if self.bitonic:
            cut = self.work_shape[:last] + (self.k,) + self.work_shape[last + 1:]
            a = _contiguous_copy(self.lib, a[:self.grid[0], :self.k, :]).reshape(cut)
        elif self.op == "topk":
            a = a[(slice(None),) * last + (slice(0, self.k),)]
        if self.moved:
            a = _moveaxis(self.lib, a, -1, self.d)
        return _contiguous_copy(self.lib, a)


def _product(dims):
    p = 1
    for n in dims:
        p *= n
    return p


def _pow2(n):
    return n & (n - 1) == 0


def _moveaxis(lib, a, src, dst):
    if lib == "torch":
        return a.movedim(src, dst)
    return (_cupy() if lib == "cupy" else _numpy()).moveaxis(a, src, dst)


def _contiguous_copy(lib, a):
    """a, or a contiguous copy when it is a view that is not."""
    if lib == "torch":
        return a.contiguous()
    return a if a.flags.c_contiguous else (_cupy() if lib == "cupy" else _numpy()).ascontiguousarray(a)


def _numpy():
    import numpy
    return numpy


def _cupy():
    import cupy
    return cupy


# ---- The programs


_entries = {}   # (op, target, type, b, r, c, flag, j, exact) -> (the compiled entry, bitonic top-k?)


def _program(op, cuda, t, b, r, c, flag, j, exact):
    """The entry for op ("sort", which argsort shares, or "topk") on 2^b rows (up to 2^b
    unless exact) of 2^r elements (of 2^(r+c), transposed, when c > 0; up to 2^r unless
    exact), compiled once, and whether it is a bitonic top-k of 2^j (else topk takes the first
    k of a sort): descending (flag) for a sort, the largest first for topk."""
    key = (op, cuda, t, b, r, c, flag, j, exact)
    found = _entries.get(key)
    if found is None:
        target = "cuda" if cuda else "c"
        # k through a row's whole 2^r is a sort (and its results would be cut, not whole)
        if op == "topk" and j < r:
            try:
                found = _build.compile(topk_source(t, b, r, c, flag, j, exact), target=target,
                                       prefix="parmc_topk").main, True
            except CompileError as e:   # the same results from a sort, slower
                warnings.warn(f"parmc.topk: the bitonic top-k of 2^{j} in rows of 2^{r} does not compile, "
                              f"so it sorts them: {e}")
        if found is None:
            found = _build.compile(source(t, b, r, c, flag, exact), target=target, prefix="parmc_sort").main, False
        _entries[key] = found
    return found


def _transpose(n, r, c):
    """The bmmc of 2^n elements that makes the columns of each 2^r x 2^c matrix (its low
    r + c bits, row-major) rows; _transpose(n, c, r) is its inverse."""
    return f"bmmc (bitperm {n} (\\i -> if i < {r} then i + {c} else if i < {r + c} then i - {r} else i))"


def _entry_line(t, b, n, exact, descending):
    """The entry's header: exactly 2^b rows of 2^n, or up to 2^b rows of up to 2^n, padded
    (the pad sorts after every element and loses its ties on the index: stdlib/sort.parm)."""
    if exact:
        return f"entry main (xs0 : [2^{b + n}]{t}) ="
    pad = "min" if descending else "(0.0 / 0.0)" if t[0] == "f" else "max"
    return f"entry main (xs0 : [2^{b}][2^{n}]{t} pad {pad}) ="


def source(t, b, r, c, descending, exact):
    """The program of sort and argsort: records (value, index) of each 2^r x 2^c matrix (c = 0:
    each row of 2^r) sorted along its columns, of 2^b matrices (exact), or of up to 2^b of
    any shape up to that (with a pad). One array of records: one chain of kernels."""
    cmp = "idx_desc" if descending else "idx_asc"
    body = f"sort_records_rows {cmp} {b + c} {r} xs0"
    if c:
        n = b + r + c
        body = f"{_transpose(n, c, r)} (sort_records_rows {cmp} {b + c} {r} ({_transpose(n, r, c)} xs0))"
    return (f"-- parmc.sort and argsort (python/parmc/_sortops.py): {'descending' if descending else 'ascending'}\n"
            f"import \"sort\"\n{_entry_line(t, b, r + c, exact, descending)}\n  {body}\n")


def topk_source(t, b, r, c, largest, j, exact):
    """The program of a bitonic top-k (stdlib/topk.parm): records (value, index) of the best
    2^j of each column of the 2^r x 2^c matrices, as source() takes them; whole: 2^(b+j+c)."""
    cmp = "idx_desc" if largest else "idx_asc"
    body = f"topk_records_rows {cmp} {b} {j} xs0"
    if c:
        body = (f"{_transpose(b + j + c, c, j)} (topk_records_rows {cmp} {b + c} {j} "
                f"({_transpose(b + r + c, r, c)} xs0))")
    return (f"-- parmc.topk (python/parmc/_sortops.py): the {'largest' if largest else 'smallest'} 2^{j}\n"
            f"import \"topk\"\n{_entry_line(t, b, r + c, exact, largest)}\n  {body}\n")
