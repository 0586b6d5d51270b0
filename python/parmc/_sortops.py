"""parmc.sort, parmc.argsort and parmc.topk: drop-ins for torch.sort, torch.argsort and
torch.topk on PyTorch tensors, CuPy arrays (the CUDA target) and NumPy arrays (the C target).
A plan is made once per kind of call (the array's library, dtype, shape and device, dim and
the options), by generating a parm program over rows (stdlib/sort.parm and stdlib/topk.parm,
docs/python.md "Sorting") and compiling it with compile(), whose cache keeps the library
across processes. A call after the first of its kind is one dictionary look-up and the plan's
run: a function generated for that plan (as _fast.py does for entries) that checks only what
the key does not say (contiguity, else it takes a contiguous copy; the current device),
allocates the results, makes the one foreign call, and shapes and names the results
(torch.return_types for tensors, parmc.return_types for arrays)."""
import sys
import warnings

from . import _arrays, _build, _jax, _radix, _runs, _select, _sortout, _types, return_types
from ._errors import ArgumentTypeError, ArgumentValueError, CompileError

# dtype names (as NumPy, PyTorch and CuPy print them, without a "torch." prefix) -> (the parm
# type of the program's keys, the stdlib function that ranks them, or None for their own order).
# float16 and bfloat16 are sorted as their bits, u16, ranked in the comparator (-0.0 ties with
# 0.0, NaNs last: stdlib/sort.parm f16_rank), so the values come out bit for bit with no map
# before or after the sort; bool as u8 (0 or 1).
_PARM_TYPES = {"int8": ("i8", None), "int16": ("i16", None), "int32": ("i32", None), "int64": ("i64", None),
               "uint8": ("u8", None), "uint16": ("u16", None), "uint32": ("u32", None), "uint64": ("u64", None),
               "float32": ("f32", None), "float64": ("f64", None), "float16": ("u16", "f16_rank"),
               "bfloat16": ("u16", "bf16_rank"), "bool": ("u8", None)}
# the bits of -inf, which a descending sort of ranked bits pads with (ranked below every element)
_NEG_INF_BITS = {"f16_rank": 0xfc00, "bf16_rank": 0xff80, "rank_f32": 0xff800000, "rank_f16": 0xfc00,
                 "rank_bf16": 0xff80}
# Keys of 32 bits or fewer are sorted and selected as packed keys (stdlib/sort.parm, "Packed
# keys"): one integer an element, of its rank and its index, so that one integer compare
# replaces the comparator of (value, index) records (whose NaN tests, and ranks of 16-bit floats
# in each comparison, cost the most). float32, float16 and bfloat16 come back bit for bit, but a
# NaN as the quiet NaN of its sign, in rows short enough for u32 keys (2^15: pack16_32) for
# 16-bit floats, whose longer rows keep every bit (pack16); integers exactly. Integers of 16 bits or fewer take a
# u32 key (rank and index: 4 bytes an element, a 32-bit compare) where the row is short enough
# for the index, else an i64 key; 64-bit keys take records.
# (type, rank) -> the packed keys that can hold it, the narrowest first: (the log2 of the longest
# rows the key holds, the program's type and rank (which the pad follows), (pack, unpack) of an
# order (descending?)).
def _pack32(rank, tie, unrank):
    return lambda d: (f"(pack32 {rank} {tie} {d})", f"(unpack32 {unrank} {d})")


def _pack16(rank):
    return lambda d: (f"(pack16 {rank} {d})", "unpack16")


def _pack16_32(t):
    return lambda d: (f"(pack16_32 rank16_{t} {d})", f"(unpack16_32 unrank16_{t} {d})")


def _pack_narrow(w, rank, unrank):
    return lambda d: (f"(pack_narrow {w} {rank} {d})", f"(unpack_narrow {w} {unrank} {d})")


def _int_keys(t, w, rank, unrank):
    return [(32 - w, t, None, _pack_narrow(w, rank, unrank)), (31, t, None, _pack32(rank, "no_tie", f"(untie {unrank})"))]


_PACKED = {("f32", None): [(31, "u32", "rank_f32", _pack32("rank_f32", "sign32", "unrank_f32"))],
           ("u16", "f16_rank"): [(15, "u16", "rank_f16", _pack16_32("f16")), (31, "u16", "rank_f16", _pack16("rank_f16"))],
           ("u16", "bf16_rank"): [(15, "u16", "rank_bf16", _pack16_32("bf16")),
                                  (31, "u16", "rank_bf16", _pack16("rank_bf16"))],
           ("i32", None): [(31, "i32", None, _pack32("rank_i32", "no_tie", "unrank_i32"))],
           ("u32", None): [(31, "u32", None, _pack32("rank_unsigned", "no_tie", "unrank_u32"))],
           ("i16", None): _int_keys("i16", 16, "rank_i16", "unrank_i16"),
           ("u16", None): _int_keys("u16", 16, "rank_unsigned", "unrank_u16"),
           ("i8", None): _int_keys("i8", 8, "rank_i8", "unrank_i8"),
           ("u8", None): _int_keys("u8", 8, "rank_unsigned", "unrank_u8")}
# argsort needs no value back: float16 and bfloat16 take u32 keys of their 17-bit rank (-0.0
# and 0.0 one rank, every NaN one) and an index of 15 bits, ahead of _PACKED's.
_INDEX_PACKED = {("u16", "f16_rank"): [(15, "u16", "rank_f16", _pack_narrow(17, "rank_f16", "(\\r -> r)"))],
                 ("u16", "bf16_rank"): [(15, "u16", "rank_bf16", _pack_narrow(17, "rank_bf16", "(\\r -> r)"))]}

# Top-k of keys of 16 bits or fewer goes by u32 keys on every element, whatever the row's
# length (topk_chunked_rows, stdlib/topk.parm): rows are cut into chunks whose index fits the
# key beside the rank, each chunk's best selected by u32 keys, and only those widened to u64
# keys to be merged. float16 and bfloat16 take a 16-bit rank, the index and the sign
# (pack16_32: the values bit for bit, but a NaN as the quiet NaN of its sign, as float32's).
# (type, rank) -> (the log2 of a chunk, the stdlib codec of the keys: pack and unpack of an
# order (descending?), and the widening of a chunk's key).
def _chunked(w, pack, widen, unpack):
    return w, lambda d: (f"({pack} {d})", f"({widen})", f"({unpack} {d})")


def _chunked_half(t):
    """16-bit floats (t: f16 or bf16): chunks of 2^15, whose keys hold the index over a tie bit."""
    return _chunked(15, f"pack16_32 rank16_{t}", "widen_key 16 1", f"unpack_wide16 unrank16_{t}")


def _chunked_int(bits, rank, unrank):
    """Integers of 8 or 16 bits: chunks of 2^(32 - bits), the key's low bits the index."""
    w = 32 - bits
    return _chunked(w, f"pack_narrow {bits} {rank}", f"widen_key {w} 0", f"unpack_wide_narrow {bits} {unrank}")


_CHUNKED = {("u16", "f16_rank"): _chunked_half("f16"), ("u16", "bf16_rank"): _chunked_half("bf16"),
            ("i16", None): _chunked_int(16, "rank_i16", "unrank_i16"),
            ("u16", None): _chunked_int(16, "rank_unsigned", "unrank_u16"),
            ("i8", None): _chunked_int(8, "rank_i8", "unrank_i8"),
            ("u8", None): _chunked_int(8, "rank_unsigned", "unrank_u8")}

# type of an array -> (the key of a call: a function of (x, op, dim, flag, k), the plans' runs
# by key). The key holds the call's own dim and flags, which the op functions first make plain
# ints and bools (NumPy's scalars among what they take), refusing a bool for an int, so that
# True never stands for 1.
_libraries = {}


def _numpy_key(x, op, dim, flag, k):
    return op, x.dtype, x.shape, dim, flag, k


def _torch_key(x, op, dim, flag, k):
    return op, x.dtype, x.shape, x.get_device(), dim, flag, k     # get_device(): -1 on the CPU


def _cupy_key(x, op, dim, flag, k):
    return op, x.dtype, x.shape, x.device.id, dim, flag, k


def _jax_key(x, op, dim, flag, k):
    return op, x.dtype, x.shape, _jax.platform(x), dim, flag, k


def _cached_run(x, op, dim, flag, k):
    """The steady call: x's library's run of a plan made before for this
    key (dim, flag and k plain ints and bools), or None when there is none
    or its checks fail."""
    lib = _libraries.get(type(x))
    if lib is None:
        return None
    run = lib[1].get(lib[0](x, op, dim, flag, k))
    return run(x) if run is not None else None


def sort(x, dim=-1, descending=False, stable=False, *, out=None):
    """(values, indices) of x sorted along dim, as torch.sort: indices int64, NaN after every
    number (first when descending). Always stable: equal elements keep their order. out: a
    pair (values, indices) that receives the results (_sortout.py). stable may be None, as
    torch.sort's `bool? stable` takes it (argsort's is a bool)."""
    if not (type(dim) is int and type(descending) is bool and type(stable) is bool):
        dim, descending = _index(dim, "sort", "dim"), _flag(descending, "sort", "descending")
        if stable is not None:
            _flag(stable, "sort", "stable")
    if out is not None:
        return _into(out, "sort", x, dim, descending, None)
    r = _cached_run(x, "sort", dim, descending, None)
    return r if r is not None else _new_plan("sort", x, dim, descending, None)(x)


def argsort(x, dim=-1, descending=False, stable=False):
    """The int64 indices that sort x along dim, as torch.argsort (always stable)."""
    if not (type(dim) is int and type(descending) is bool and type(stable) is bool):
        dim, descending = _index(dim, "argsort", "dim"), _flag(descending, "argsort", "descending")
        _flag(stable, "argsort", "stable")
    r = _cached_run(x, "argsort", dim, descending, None)
    return r if r is not None else _new_plan("argsort", x, dim, descending, None)(x)


def topk(x, k, dim=-1, largest=True, sorted=True, *, out=None):
    """(values, indices) of the k largest (largest=False: smallest) elements of x along dim, as
    torch.topk, always sorted (best first); ties go to the smaller index, NaN is the largest.
    out: a pair (values, indices) that receives the results (_sortout.py)."""
    if not (type(k) is int and type(dim) is int and type(largest) is bool and type(sorted) is bool):
        k, dim, largest = _index(k, "topk", "k"), _index(dim, "topk", "dim"), _flag(largest, "topk", "largest")
        _flag(sorted, "topk", "sorted")
    if out is not None:
        return _into(out, "topk", x, dim, largest, k)
    r = _cached_run(x, "topk", dim, largest, k)
    return r if r is not None else _new_plan("topk", x, dim, largest, k)(x)


def _into(out, op, x, dim, flag, k):
    """A call with out=: its results made as without it (the plan's run), then copied into
    the out arrays, checked first, one copy each, and returned named. A separate path, so
    that the plan's run, the steady state without out=, is untouched: writing into out
    directly would take a second generated run per plan, and would serve only the plans
    whose program writes the call's own shape (not where dim is moved on the host, or the
    top k cut from whole results)."""
    lib, cuda, shape, d = _checked(op, x, dim, k)[:4]
    if lib == "jax":
        raise ArgumentTypeError(f"parmc.{op}: out= is not for JAX arrays, which are immutable: use the result")
    dtypes = (x.dtype, _arrays.adapter_of(x, cuda).dtype("i64"))
    pair = _sortout.checked(op, lib, x, out, _result_shape(op, shape, d, k), dtypes)
    r = _cached_run(x, op, dim, flag, k)
    _sortout.write(lib, x, pair, r if r is not None else _new_plan(op, x, dim, flag, k)(x))
    return _named(lib, op)(pair)


def _index(v, op, name):
    """An int argument as an int: Python's, NumPy's, a 0-d integer array or tensor, anything
    with __index__ but an array of one or more dimensions; never a bool (torch.sort refuses
    one: True would stand for 1)."""
    traced = _jax.static_refusal(v, "int")      # a JAX tracer under jit: no value to take
    i = _types.as_index(v) if not traced and _types.as_bool(v) is None else None
    if i is not None:
        return i
    raise ArgumentTypeError(f"parmc.{op}: argument '{name}': expected an integer"
                            + (traced or f", got {_types.type_name(v)}"))


def _flag(v, op, name):
    """A bool argument as a bool: Python's, NumPy's, a 0-d bool array or tensor; never an int,
    nor a JAX tracer (under jit: static_refusal)."""
    traced = _jax.static_refusal(v, "bool")
    b = _types.as_bool(v) if not traced else None
    if b is None:
        raise ArgumentTypeError(f"parmc.{op}: argument '{name}': expected a bool"
                                + (traced or f", got {_types.type_name(v)}"))
    return b


# ---- Making a plan: every check, then the program


def _new_plan(op, x, dim, flag, k):
    """The plan of a call, after every check of its arguments (dim and k ints, flag a bool:
    the op functions made them so); kept under the call's key for the next call of its kind."""
    lib, cuda, shape, d, t, rank = _checked(op, x, dim, k)
    length = shape[d] if shape else 1
    device = (x.get_device() if lib == "torch" else x.device.id) if cuda and lib != "jax" else None
    if lib != "jax" and _radix.takes(op, cuda, x.dtype, length, _product(shape) // length if length else 0):
        return _keep(lib, x, op, dim, flag, k, _radix.RadixPlan(op, _arrays.adapter_of(x, cuda), device, x.dtype, shape,
                                                           flag, _named(lib, op)))
    log_s = _select.takes(op, lib, cuda, x.dtype, shape, d, k)
    kernels = _select.library(cuda) if log_s is not None else None
    if kernels is not None:
        return _keep(lib, x, op, dim, flag, k, _select_plan(lib, x, cuda, device, t, rank, shape, d, flag, k,
                                                            log_s, kernels))
    # a 0-d array is one element, whose top-k is its sort: torch.topk gives 0-d results, the
    # element and 0, for k = 0 as for k = 1 (its CPU kernel; its CUDA one leaves k = 0's unwritten)
    kind = "sort" if op == "topk" and not shape else op
    adapter = _jax.ADAPTER if lib == "jax" else _arrays.adapter_of(x, cuda)
    plan = _Plan(kind, lib, cuda, device, adapter, x.dtype, t, rank, shape, d, flag,
                 k if kind == "topk" else None, _named(lib, op))
    _keep(lib, x, op, dim, flag, k, plan.run)
    return plan


def _select_plan(lib, x, cuda, device, t, rank, shape, d, largest, k, log_s, kernels):
    """A top-k along dim d by delegates (_select.py, its library `kernels`): its two networks
    are plans of rows of the delegates and of the candidates."""
    adapter, n = _arrays.adapter_of(x, cuda), shape[d]
    rows = _product(shape) // n

    def network(length):
        return _Plan("topk", lib, cuda, device, adapter, x.dtype, t, rank, (rows, length), 1, largest, k, tuple)
    return _select.SelectPlan(kernels, adapter, _ops(lib), device, x.dtype, shape, d, largest, k, log_s,
                              network(_select.subranges(n, log_s)), network(k << log_s), _named(lib, "topk"))


def _keep(lib, x, op, dim, flag, k, run):
    """run kept under the call's key (x of library lib) for the next call of its kind; run."""
    key_of = {"numpy": _numpy_key, "torch": _torch_key, "cupy": _cupy_key, "jax": _jax_key}[lib]
    lib_plans = _libraries.setdefault(type(x), (key_of, {}))[1]
    lib_plans[key_of(x, op, dim, flag, k)] = run
    return run


def _checked(op, x, dim, k):
    """(library, CUDA target?, shape, dim in 0..ndim-1, the parm type of the keys and their
    rank) of a call, after every check of x, dim and k."""
    lib, cuda = _library(op, x)
    shape = tuple(x.shape)
    t, rank = _parm_type(op, x)
    d = _dim(op, dim, len(shape))
    if op == "topk":
        _k(k, shape[d] if shape else 1, d)
    return lib, cuda, shape, d, t, rank


def _result_shape(op, shape, d, k):
    """The shape of a call's results: x's, with k along dim for a top-k (0-d for a 0-d x)."""
    if op == "topk" and shape:
        return shape[:d] + (k,) + shape[d + 1:]
    return shape


def _named(lib, op):
    """The function that makes the call's result of the pair (values, indices), as PyTorch users
    expect it: torch.return_types.sort or .topk for tensors, parmc.return_types' named tuples
    for NumPy and CuPy arrays (both take the pair as one sequence); None for argsort."""
    if op == "argsort":
        return None
    if lib == "torch":
        return getattr(sys.modules["torch"].return_types, op)
    return getattr(return_types, op)._make


def _library(op, x, arg="x"):
    """("numpy" | "torch" | "cupy" | "jax", CUDA target?) of x, or the error that names it
    (argument `arg`)."""
    if _jax.is_jax(x):
        where = _jax.platform(x)
        if where not in ("cpu", "cuda"):
            raise ArgumentValueError(f"parmc.{op}: argument '{arg}' is a JAX array on {where}; parmc runs on CUDA (the "
                                     "CUDA target) and the CPU (the C target)")
        return "jax", where == "cuda"
    lib = _arrays.library_name(x)
    if lib == "numpy":
        return "numpy", False
    if lib == "cupy":
        return "cupy", True
    if lib == "torch":
        if x.is_cuda:
            return "torch", True
        if x.is_cpu:
            return "torch", False
        raise ArgumentValueError(f"parmc.{op}: argument '{arg}' is on {x.device}; parmc runs on CUDA tensors (the CUDA "
                                 "target) and CPU tensors (the C target)")
    raise ArgumentTypeError(f"parmc.{op}: argument '{arg}': expected a NumPy array, a PyTorch tensor, a CuPy array or a "
                            f"JAX array, got {type(x).__module__}.{type(x).__name__}" + _arrays.masked_refusal(x))


def _parm_type(op, x, arg="x"):
    """(the parm type of the program's keys, the rank of their bits or None) for the dtype of
    x, argument `arg`."""
    name = str(x.dtype).replace("torch.", "")
    found = _PARM_TYPES.get(name)
    if found is None:
        order = _types.byte_order_refusal(x.dtype, arg)
        if order and _types.native_name(x.dtype) in _PARM_TYPES:
            raise ArgumentTypeError(f"parmc.{op}: argument '{arg}' {order}")
        raise ArgumentTypeError(f"parmc.{op}: argument '{arg}' has dtype {name}; parmc sorts "
                                f"{', '.join(_PARM_TYPES)}")
    return found


def _dim(op, d, ndim):
    """dim in 0..ndim-1 (0 for a 0-d array, which takes -1 and 0, as PyTorch does)."""
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not lo <= d <= hi:
        raise ArgumentValueError(f"parmc.{op}: argument 'dim' is {d}, out of range for an array of {ndim} "
                                 f"dimension{'s' if ndim != 1 else ''} ({lo}..{hi})")
    return d % ndim if ndim else 0


def _k(k, length, d):
    if not 0 <= k <= length:
        raise ArgumentValueError(f"parmc.topk: argument 'k' is {k}; the rows along dim {d} have {length} "
                                 f"element{'s' if length != 1 else ''}")


def _log2_up(n):
    """The least s with 2^s >= n (0 for n <= 1)."""
    return max(n - 1, 0).bit_length()


class _Plan:
    """How one kind of call runs. The array is (outer, length, inner) around dim: rows of
    `length` (inner = 1), or rows of length*inner transposed in the program when both are
    powers of two; otherwise the axis is moved last on the host (a copy each way:
    docs/python.md). The entry is called directly (its lengths fit by construction: the
    length of an exact entry, else rows and the row length), results allocated in the shapes
    the program writes them, then cut and shaped by `finish` where those are not the call's.
    `run` is the steady state (_runs.build); calling the plan also makes the device current
    and the context, which run leaves to this first call."""

    def __init__(self, op, lib, cuda, device, adapter, dtype, t, rank, shape, d, flag, k, named):
        self.op, self.lib, self.cuda, self.device, self.adapter = op, lib, cuda, device, adapter
        self.named = named
        self.k, self.shape, self.d = k, shape, d
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
        # the results' dtypes: the values keep x's dtype, whatever the program's type; argsort's
        # program writes the indices alone
        self.value_dtype = dtype
        self.dtypes = [adapter.dtype("i64")] if op == "argsort" else [dtype, adapter.dtype("i64")]
        self.entry, self.cut = None, None
        if not self.empty:
            # exact powers of two: an entry of that size, with no pad (nothing to pad, or to cut)
            r, c = _log2_up(length), _log2_up(inner)
            j = _log2_up(k) if op == "topk" else None
            # a top-k of a k that is not a power of two: the program cuts its rows of 2^j to k
            # (docs/language.md 7.2), which takes an entry of rows (a pad)
            self.cut = k << c if op == "topk" and not _pow2(k) and j < r else None
            exact = _pow2(outer) and _pow2(length) and self.cut is None
            self.tail = (outer * length * inner,) if exact else self.grid
            b = _log2_up(outer)
            # rows of any length: a top-k reads pieces of them, not the padded row
            logs = (pieces(length, r, j, _wide_keys(t, rank))
                    if op == "topk" and c == 0 and not exact and j < r else None)
            self.entry, self.bitonic = _program(op, cuda, t, b, r, c, flag, j, exact, rank, self.cut, logs)
            # a bitonic top-k writes whole results: 2^b rows of 2^j x inner
            self.out_shape = (1 << b, 1 << j, inner) if self.bitonic else self.work_shape
            self.move_in, self.finish = _shaping(self, _ops(lib), outer)
        self.run = _jax.plan_run(self) if lib == "jax" else _runs.build(self)

    def __call__(self, x):
        """The call's results; a first call (or one on another current device) makes the
        device current for the call and the entry's context on it."""
        if self.empty or self.entry is None or self.lib == "jax":    # the JAX shim makes its contexts
            return self.run(x)
        prog = self.entry.program
        if not self.cuda:
            prog.context(None)
            return self.run(x)
        guard = self.adapter.guard(self.device)
        if guard is None:
            prog.context(self.device)
            return self.run(x)
        with guard:
            prog.context(self.device)
            return self.run(x)

    def empty_result(self):
        """The results of a call with no element (or k = 0): empty arrays of their shapes."""
        shape = _result_shape(self.op, self.shape, self.d, self.k)
        outs = [self.adapter.empty(shape, dt, self.device) for dt in self.dtypes]
        return outs[0] if self.named is None else self.named(outs)


def _shaping(plan, ops, outer):
    """(move_in, finish): the input's axis moved last and made contiguous, or None; and a
    function that makes a result of the shape the program writes the call's (cut to k for
    topk, dim moved back, contiguous), or None where it already is. Sets plan.out_shape, the
    shape the results are allocated in: the call's own wherever the program writes that."""
    d, k, work = plan.d, plan.k, plan.work_shape
    last = len(work) - 1 if plan.moved else d
    steps = []
    if plan.bitonic and plan.cut:   # the program writes the first k of each row: the call's shape
        plan.out_shape = work[:last] + (k,) + work[last + 1:]
    elif plan.bitonic:  # whole results, 2^b rows of 2^j x inner: the first outer rows, the first k of each
        rows, run, inner = plan.out_shape
        if outer == rows:       # the call's shape with run for k: the first k along dim, one copy if k < run
            plan.out_shape = work[:last] + (run,) + work[last + 1:]
            if k < run:
                steps.append(ops.cut_copy(last, k))
        elif last == 1:         # (rows, run, ...): its first outer rows are a view, then as above
            plan.out_shape = (rows, run) + work[2:]
            steps.append(ops.prefix(outer))
            if k < run:
                steps.append(ops.cut_copy(1, k))
        else:
            steps.append(ops.prefix(outer))
            if k < run:
                steps.append(ops.cut_copy(1, k))
            steps.append(ops.view(work[:last] + (k,) + work[last + 1:]))
    elif plan.op == "topk" and k < work[last]:
        steps.append(ops.cut_copy(last, k))          # the first k of each sorted row: a copy
    if plan.moved:
        steps.append(ops.move_back(d))
    move_in = ops.move_in(d) if plan.moved else None
    if not steps:
        return move_in, None
    if len(steps) == 1:
        return move_in, steps[0]
    return move_in, lambda a: _apply(steps, a)


def _apply(steps, a):
    for step in steps:
        a = step(a)
    return a


def _ops(lib):
    if lib == "torch":
        return _TorchOps
    if lib == "jax":
        return _ArrayOps(_jax.numpy(), lambda a: a)
    xp = _cupy() if lib == "cupy" else _numpy()
    return _ArrayOps(xp, xp.ascontiguousarray)


class _TorchOps:
    """The shaping steps on tensors, each one call of the cheapest form (narrow is slower
    than a slice; narrow_copy cuts and copies in one)."""

    @staticmethod
    def prefix(n):
        return lambda a: a[:n]

    @staticmethod
    def cut_copy(axis, n):
        return lambda a: a.narrow_copy(axis, 0, n)

    @staticmethod
    def view(shape):
        return lambda a: a.view(shape)

    @staticmethod
    def move_back(d):
        return lambda a: a.movedim(-1, d).contiguous()

    @staticmethod
    def move_in(d):
        return lambda x: x.movedim(d, -1).contiguous()


class _ArrayOps:
    """The shaping steps on NumPy, CuPy and JAX arrays (xp: the module; contiguous: its copy
    into C order, or none for JAX, whose arrays are always laid out so)."""

    def __init__(self, xp, contiguous):
        self.xp, self.contiguous = xp, contiguous

    def prefix(self, n):
        return lambda a: a[:n]

    def cut_copy(self, axis, n):
        cut, contiguous = (slice(None),) * axis + (slice(0, n),), self.contiguous
        return lambda a: contiguous(a[cut])

    def view(self, shape):
        return lambda a: a.reshape(shape)

    def move_back(self, d):
        moveaxis, contiguous = self.xp.moveaxis, self.contiguous
        return lambda a: contiguous(moveaxis(a, -1, d))

    def move_in(self, d):
        moveaxis, contiguous = self.xp.moveaxis, self.contiguous
        return lambda x: contiguous(moveaxis(x, d, -1))


def _product(dims):
    p = 1
    for n in dims:
        p *= n
    return p


def _pow2(n):
    return n & (n - 1) == 0


def _numpy():
    import numpy
    return numpy


def _cupy():
    import cupy
    return cupy


# ---- The programs


_entries = {}   # (op, target, type, b, r, c, flag, j, exact, rank) -> (the compiled entry, bitonic top-k?)


def _program(op, cuda, t, b, r, c, flag, j, exact, rank=None, cut=None, logs=None):
    """The entry for op ("sort", "argsort" or "topk") on 2^b rows (up to 2^b
    unless exact) of 2^r elements (of 2^(r+c), transposed, when c > 0; up to 2^r unless
    exact), compiled once, and whether it is a bitonic top-k of 2^j (else topk takes the first
    k of a sort): descending (flag) for a sort, the largest first for topk; keys of type t,
    ordered by the stdlib function rank of their bits when given (_PARM_TYPES). cut: the
    top-k's result row length (its rows of 2^(j+c) cut to it), or None. logs: the pieces a
    top-k of rows of any length reads (pieces()), or None."""
    key = (op, cuda, t, b, r, c, flag, j, exact, rank, cut, logs)
    found = _entries.get(key)
    if found is None:
        target = "cuda" if cuda else "c"
        # k through a row's whole 2^r is a sort (and its results would be cut, not whole)
        if op == "topk" and j < r:
            try:
                found = _build.compile(topk_source(t, b, r, c, flag, j, exact, rank, cut, logs), target=target,
                                       prefix="parmc_topk").main, True
            except CompileError as e:   # the same results from a sort, slower
                warnings.warn(f"parmc.topk: the bitonic top-k of 2^{j} in rows of 2^{r} does not compile, "
                              f"so it sorts them: {e}")
        if found is None:
            found = _build.compile(source(t, b, r, c, flag, exact, rank, indices=op == "argsort"), target=target,
                                   prefix="parmc_sort").main, False
        _entries[key] = found
    return found


def _transpose(n, r, c):
    """The bmmc of 2^n elements that makes the columns of each 2^r x 2^c matrix (its low
    r + c bits, row-major) rows; _transpose(n, c, r) is its inverse."""
    return f"bmmc (bitperm {n} (\\i -> if i < {r} then i + {c} else if i < {r + c} then i - {r} else i))"


def _comparator(descending, rank):
    """The comparator of records (key, index): idx_asc or idx_desc, by rank when given."""
    cmp = "idx_desc" if descending else "idx_asc"
    return f"({cmp}_by {rank})" if rank else cmp


def _entry_line(t, b, n, exact, descending, rank, cut=None, name="main", segments=False):
    """The entry's header: exactly 2^b rows of 2^n, or up to 2^b rows of up to 2^n, padded
    (the pad sorts after every element and loses its ties on the index: stdlib/sort.parm;
    ranked bits ascending pad with u16's max, a NaN, descending with -inf); with results cut
    to rows of `cut` when given; segments: the rows placed by starts and lengths (i64
    arrays st and ln, docs/language.md 7.3)."""
    if exact:
        return f"entry {name} (xs0 : [2^{b + n}]{t}) ="
    if rank:
        pad = _NEG_INF_BITS[rank] if descending else "max"
    else:
        pad = "min" if descending else "(0.0 / 0.0)" if t[0] == "f" else "max"
    placed = f", segments st ln) (st : [2^{b}]i64) (ln : [2^{b}]i64" if segments else ""
    return f"entry {name} (xs0 : [2^{b}][2^{n}]{t} pad {pad}{placed}){f' : [{cut}]' if cut else ''} ="


def source(t, b, r, c, descending, exact, rank=None, indices=False, name="main", segments=False):
    """The program of sort and argsort: records (value, index) of each 2^r x 2^c matrix (c = 0:
    each row of 2^r) sorted along its columns, of 2^b matrices (exact), or of up to 2^b of
    any shape up to that (with a pad); keys of 32 bits or fewer as packed keys (_PACKED). One
    array of records: one chain of kernels. indices (argsort): the indices alone, so that the
    kernel leaves the values unstored."""
    packed = _packed(t, r, rank, indices)
    if packed:
        t, rank, codec = packed
        sort = "sort_packed_rows {} {} {} {}".format(*codec(_bool(descending)), b + c, r)
    else:
        sort = f"sort_records_rows {_comparator(descending, rank)} {b + c} {r}"
    body = f"{sort} xs0"
    if c:
        n = b + r + c
        body = f"{_transpose(n, c, r)} ({sort} ({_transpose(n, r, c)} xs0))"
    if indices:
        body = f"let (_, idx) = unzip ({body}) in idx"
    return (f"-- parmc.sort and argsort (python/parmc/_sortops.py): {'descending' if descending else 'ascending'}\n"
            f"import \"sort\"\n{_entry_line(t, b, r + c, exact, descending, rank, None, name, segments)}\n  {body}\n")


def _packed(t, r, rank, indices=False):
    """(the program's type and rank, (pack, unpack) of an order) of packed keys for keys of
    type t ranked by rank in rows of 2^r (indices: for the indices alone), or None where they
    take records (value, index)."""
    keys = (_INDEX_PACKED.get((t, rank), []) if indices else []) + _PACKED.get((t, rank), [])
    return next(((pt, prank, codec) for longest, pt, prank, codec in keys if r <= longest), None)


def _bool(flag):
    """A flag as parm writes it."""
    return "true" if flag else "false"


def _topk_function(t, r, rank, largest, j):
    """(the program's type and rank, the stdlib function) of a bitonic top-k of 2^j in rows of
    2^r: keys of 16 bits or fewer in rows longer than a chunk by u32 keys of chunks (_CHUNKED),
    else keys of 32 bits or fewer as packed keys (_PACKED), else records (value, index)."""
    chunked = _CHUNKED.get((t, rank))
    if chunked and j <= chunked[0] < r <= 31:     # rows of one chunk: packed u32 keys, no widening
        w, codec = chunked
        pack, widen, unpack = codec(_bool(largest))
        return t, rank, f"topk_chunked_rows {w} {pack} {widen} {unpack}"
    packed = _packed(t, r, rank)
    if packed:
        pt, prank, codec = packed
        return pt, prank, "topk_packed_rows {} {}".format(*codec(_bool(largest)))
    return t, rank, f"topk_records_rows {_comparator(largest, rank)}"


# A top-k of rows of a length that is not a power of two reads pieces of each row whose lengths
# are powers of two (its length rounded up to a multiple of the smallest), each piece read in
# place from the caller's rows (Schedule.in_slice, docs/python.md), and merges the pieces'
# winners: a row of 151936 costs 155648 elements' work, not 262144's. At most this many pieces
# (each a chain of kernels, and a merge after each but the first).
_MAX_PIECES = 3
# The pieces' kernels and merges cost about 0.06-0.1 ms a call more than the padded row's on an
# H200 (bench/results/2026-12-07-h200-s30-topk.md), so they pay only where they save much work
# of the costly kind: keys compared as 64-bit words (records, or keys of 32 bits packed with
# their index; not the u32 words of chunks of 16-bit keys, _CHUNKED), read to at most 2/3 of
# the padded row. Measured: f32 rows of 151936 (59%) 0.259 ms against 0.341 read whole;
# f32 rows of 50257 (78%) 0.349 against 0.343; bf16 (u32 words of chunks) 0.208 against 0.205
# and 0.261 against 0.211.
_PIECES_MOST = 2 / 3


def pieces(length, r, j, wide):
    """The logs of the pieces of a top-k of 2^j in rows of `length` (of at most 2^r), largest
    first: the powers of two of the length rounded up to a multiple of 2^g, for the least g >= j
    that gives at most _MAX_PIECES; None where the keys are not `wide` (_wide_keys) or the
    pieces would read more than _PIECES_MOST of the padded row."""
    if not wide:
        return None
    for g in range(j, r):
        whole = -(-length // (1 << g)) << g
        logs = tuple(q for q in range(r - 1, g - 1, -1) if whole >> q & 1)
        if len(logs) <= _MAX_PIECES:
            return logs if whole <= _PIECES_MOST * (1 << r) and len(logs) > 1 else None
    return None


def _wide_keys(t, rank):
    """Whether keys t (ranked by rank) are selected as 64-bit words: wider than 16 bits, which
    have no chunked codec (_CHUNKED)."""
    return (t, rank) not in _CHUNKED


def _piece(r, q, off):
    """The piece of 2^q elements at `off` (a multiple of 2^q) of each row of 2^r of xs0, by
    halves of its bits from the top."""
    text = "xs0"
    for bit in range(r - 1, q - 1, -1):
        text = f"(half {1 << bit} {off >> bit & 1} {text})"
    return text


def _pieces_body(t, b, r, rank, largest, j, logs, program):
    """The top-k of pieces of 2^q (q in logs) of each row of 2^r, each by its own stdlib
    function (_topk_function) on a program of one type and rank (`program`, the whole row's:
    the pad is theirs too), the winners' indices offset to the row's start, merged pairwise."""
    pt, prank = program
    merged, off = None, 0
    for q in logs:
        qt, qrank, fn = _topk_function(t, q, rank, largest, j)
        assert _entry_line(qt, b, r, False, largest, qrank) == _entry_line(pt, b, r, False, largest, prank)
        piece = f"{fn} {b} {j} {_piece(r, q, off)}"
        if off:
            piece = f"map (\\(v, i) -> (v, i + {off})) ({piece})"
        merged = piece if merged is None else \
            f"keep_better {_comparator(largest, prank)} {j} {b} (join {1 << j} ({merged}) ({piece}))"
        off += 1 << q
    return merged


def topk_source(t, b, r, c, largest, j, exact, rank=None, cut=None, logs=None):
    """The program of a bitonic top-k (stdlib/topk.parm): records (value, index) of the best
    2^j of each column of the 2^r x 2^c matrices, as source() takes them; whole: 2^(b+j+c),
    or each row's first `cut` when given. logs (c = 0, rows of any length): the pieces read
    (pieces()), their winners merged, their indices counted from the row's start."""
    pt, prank, topk = _topk_function(t, r, rank, largest, j)
    if logs:
        body = _pieces_body(t, b, r, rank, largest, j, logs, (pt, prank))
    elif c:
        body = (f"{_transpose(b + j + c, c, j)} ({topk} {b + c} {j} "
                f"({_transpose(b + r + c, r, c)} xs0))")
    else:
        body = f"{topk} {b} {j} xs0"
    return (f"-- parmc.topk (python/parmc/_sortops.py): the {'largest' if largest else 'smallest'} 2^{j}\n"
            f"import \"topk\"\n{_entry_line(pt, b, r + c, exact, largest, prank, cut)}\n  {body}\n")
