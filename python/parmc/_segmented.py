"""parmc.segmented_sort and parmc.segmented_topk: sorts and top-k over segments of any lengths
given by offsets, as CUB's DeviceSegmentedSort takes them (a 1-D int32 or int64 array of
n_segments + 1 ascending positions; segment s is values[offsets[s]:offsets[s + 1]]).

Segments of up to 2^16 elements are sorted by size class, all on the array's device and
queued on its stream: class c holds the segments of 2^(c-1) + 1 to 2^c elements, and one
program (cached as every drop-in's) has an entry with segments per class (docs/language.md
7.3), a sort of rows of 2^c in place in the segments. The segments are binned on the device
(their classes, a stable sort of the segment numbers by class, each class's first and count),
so each class's entry gets its segments first and rows of length 0 after them, whose blocks
return at once (Phase.live_check in the compiler); a class has as many rows as segments of it
can exist (n_segments, and n / (2^(c-1) + 1)). Finding the classes to build takes the
longest segment: a read of the device, unless the call gives max_length (then the call can be
captured in a CUDA graph; a longer segment is left as it is, and segmented_topk refuses such a
max_length where the offsets are on the host: _max_length_fits).

Longer segments, and JAX arrays (immutable: no entry writes into a result in place), take two
stable parmc.argsort calls and a few element-wise steps instead:

1. p1 = argsort(values): every element in the order of the call (NaN last, descending, ties
   by position, as parmc.argsort orders them);
2. each element's group: its segment's start, or its own position outside every segment;
   p2 = argsort(group[p1]), stable, so that within a group p1's order stays;
3. perm = p1[p2]: each segment's elements sorted, in the segment's own positions, since a
   group's elements land after every element of a smaller position.

Either way the result at position i is the segment's sorted element, its index relative to
the segment's start. Positions outside every segment (before offsets[0], from offsets[-1] on)
are left as they are, with index 0, as segments of one element would be."""
import sys

from . import _arrays, _build, _jax
from ._errors import ArgumentTypeError, ArgumentValueError
from ._sortops import _flag, _index, _library, _log2_up, _named, _parm_type, argsort, source
from ._types import byte_order_refusal, native_name

# the longest segments sorted by classes, log2 (rows of 2^16 take three passes a class)
_CLASS_LOG_MAX = 16
_programs = {}


def segmented_sort(values, offsets, descending=False, *, max_length=None):
    """(values, indices) of each segment of the 1-D array values sorted (stable), indices
    relative to the segment's start; offsets as CUB takes them (this module's docstring)."""
    descending = _flag(descending, "segmented_sort", "descending")
    lib, xp, values, offsets = _checked("segmented_sort", values, offsets)
    if max_length is not None and _index(max_length, "segmented_sort", "max_length") < 0:
        raise ArgumentValueError(f"parmc.segmented_sort: argument 'max_length' is {max_length}")
    if lib != "jax" and values.shape[0]:
        found = _by_classes(lib, xp, values, offsets, descending, max_length)
        if found is not None:
            return _named(lib, "sort")(found)
    order, start = _sorted_order(lib, xp, values, offsets, descending)
    return _named(lib, "sort")((values[order], order - start[order]))


def segmented_topk(values, offsets, k, largest=True, *, max_length=None):
    """(values, indices) of shape (n_segments, K): the k best of each segment (largest=False:
    smallest), best first, ties to the smaller index, NaN the largest; k an int or a 1-D integer
    array of one k per segment (a negative one taken as 0), K the largest k asked for, at most
    the length of values (no segment is longer). A
    segment with fewer than its k elements is padded after them: values with the dtype's worst (-inf or the least integer
    for largest, +inf or the greatest otherwise), indices with -1."""
    largest = _flag(largest, "segmented_topk", "largest")
    lib, xp, values, offsets = _checked("segmented_topk", values, offsets)
    per_segment = getattr(k, "shape", ()) != ()
    if per_segment:
        _k_library(lib, k)
        if len(k.shape) != 1 or k.shape[0] != offsets.shape[0] - 1 or str(k.dtype).replace("torch.", "") not in (
                "int32", "int64"):
            _byte_order("segmented_topk", k, "k")
            raise ArgumentTypeError("parmc.segmented_topk: argument 'k': expected an int or a 1-D int32/int64 array of "
                                    f"one k per segment ({offsets.shape[0] - 1}), got {_describe(k)}")
        if _jax.traced(k):     # under jax.jit: the result's shape would depend on traced values
            raise ArgumentTypeError("parmc.segmented_topk: argument 'k': a traced JAX array of one k per segment "
                                    "(under jax.jit): the result's shape is the largest k, so it must be static, an int "
                                    "or a concrete array (jax.jit(f, static_argnames=...) keeps an int one)")
        # the result's shape: one read of the device; negative ks are 0 (a concrete JAX array read
        # by NumPy: its own max under jit would be traced)
        top = max(int((_module("numpy").asarray(k) if lib == "jax" else k).max()), 0) if k.shape[0] else 0
    elif isinstance(k, (list, tuple)):      # not an array: the message says what a k per segment is
        raise ArgumentTypeError("parmc.segmented_topk: argument 'k': expected an int or a 1-D int32/int64 array of one "
                                f"k per segment ({offsets.shape[0] - 1}) of values' library, got {type(k).__name__}")
    else:
        top = _index(k, "segmented_topk", "k")
    if top < 0:
        raise ArgumentValueError(f"parmc.segmented_topk: argument 'k' is {top}")
    if top > values.shape[0]:
        # no segment is longer than values: columns past its length would be padding alone, and
        # the (n_segments, K) results are made before anything runs (as parmc.topk's k is at
        # most its rows' length)
        what = f"has {top} as its largest" if per_segment else f"is {top}"
        raise ArgumentValueError(f"parmc.segmented_topk: argument 'k' {what}, more than the {values.shape[0]} "
                                 f"element{'s' if values.shape[0] != 1 else ''} of values: no segment can be longer, "
                                 "so k is at most values' length")
    if max_length is not None:
        _max_length_fits(lib, offsets, _index(max_length, "segmented_topk", "max_length"))
    starts = _int64(lib, xp, offsets[:-1])
    worst = _full(lib, xp, (starts.shape[0], top), _worst(xp, values.dtype, largest), values)
    none = _full(lib, xp, (starts.shape[0], top), -1, starts)
    if values.shape[0] == 0 or top == 0:
        return _named(lib, "topk")((worst, none))
    src = starts[:, None] + _arange(lib, xp, top, values)[None, :]     # (segment, j): where its j-th best is
    last = _int64(lib, xp, offsets[1:])[:, None]
    if per_segment:
        last = xp.minimum(last, starts[:, None] + _int64(lib, xp, k)[:, None])
    keep = (src < last) & (src < values.shape[0])   # offsets past the end (unchecked on a device) read nothing
    src = xp.where(keep, src, 0)
    found = _by_classes(lib, xp, values, offsets, largest, max_length) if lib != "jax" else None
    if found is not None:
        best, index = found
    else:
        order, start = _sorted_order(lib, xp, values, offsets, largest)
        best, index = values[order], order - start[order]
    return _named(lib, "topk")((xp.where(keep, best[src], worst), xp.where(keep, index[src], none)))


def _k_library(lib, k):
    """That a k per segment is an array of values' library (lib), as offsets must be: the
    ks are clipped against the offsets with values' own module, so another library's array
    was an AttributeError (a NumPy k for tensors) or a result of mixed libraries (a JAX k
    for NumPy values). For JAX values a NumPy array is taken too: it is the static form of
    the ks under jax.jit, whose largest is the result's shape."""
    k_lib = _library("segmented_topk", k, "k")[0]
    if k_lib != lib and not (lib == "jax" and k_lib == "numpy"):
        raise ArgumentTypeError(f"parmc.segmented_topk: argument 'k' is {_describe(k)}; values is a {lib} array")


def _max_length_fits(lib, offsets, max_length):
    """That max_length (an int) is at least 0 and, where the offsets are on the host (NumPy),
    at least the longest segment: a longer one would be left unsorted, and its top-k would be
    its first elements with indices 0. On a device that check would take a read: not made."""
    if max_length < 0:
        raise ArgumentValueError(f"parmc.segmented_topk: argument 'max_length' is {max_length}")
    if lib == "numpy" and offsets.shape[0] > 1:
        import numpy
        lens = numpy.diff(offsets.astype(numpy.int64))
        s = int(lens.argmax())
        if lens[s] > max_length:
            raise ArgumentValueError(f"parmc.segmented_topk: argument 'max_length' is {max_length}, but segment {s} "
                                     f"has {lens[s]} elements: max_length must be at least the longest segment's "
                                     "length (or None, and the call finds it)")


def _class_rows_log(n, segments, c):
    """Rows of class c's entry, log2: as many as segments of 2^(c-1) + 1 or more elements fit."""
    most = min(segments, n // ((1 << (c - 1)) + 1))
    return _log2_up(max(most, 1))


def _class_program(cuda, t, rank, descending, rows_logs):
    """The program of entries c1, c2, ...: class c's rows (2^rows_logs[c-1] of them, placed
    by segments) sorted with their indices, compiled once."""
    key = (cuda, t, rank, descending, rows_logs)
    prog = _programs.get(key)
    if prog is None:
        # source()'s programs without their first two lines (a comment, the import)
        entries = "".join(source(t, b, c, 0, descending, False, rank, name=f"c{c}", segments=True)
                          .split("\n", 2)[2] for c, b in enumerate(rows_logs, 1))
        text = "-- parmc.segmented_sort (python/parmc/_segmented.py)\nimport \"sort\"\n" + entries
        prog = _programs[key] = _build.compile(text, target="cuda" if cuda else "c", prefix="parmc_segsort")
    return prog


def _classes_of(lib, xp, offsets):
    """(starts, lengths, the segment numbers ranked by class, where class c's begin: bounds[c-1])
    for every class that can be built (1.._CLASS_LOG_MAX), before the longest is known."""
    starts = _int64(lib, xp, offsets[:-1])
    lens = _int64(lib, xp, offsets[1:]) - starts
    if lib == "torch":
        exponent = xp.frexp((lens - 1).to(xp.float64)).exponent
    else:
        exponent = xp.frexp((lens - 1).astype("float64"))[1]
    # the class: ceil(log2(length)); segments of one element or none (already in place) last
    cls = xp.where(lens > 1, exponent, _CLASS_LOG_MAX + 1)
    if lib == "torch":
        ranked, order = xp.sort(cls, stable=True)
    else:
        order = xp.argsort(cls, kind="stable") if lib == "numpy" else xp.argsort(cls)
        ranked = cls[order]
    edges = _arange(lib, xp, _CLASS_LOG_MAX + 1, offsets) + 1
    return starts, lens, order, xp.searchsorted(ranked, edges)


def _bins(lib, xp, classes, rows_logs):
    """(starts, lengths) of every class's rows, one after the other (class c's 2^rows_logs[c-1]
    rows: its segments in order, then rows of length 0), and where each class's begin."""
    starts, lens, order, bounds = classes
    slot_class, slot_row, at = _slots(lib, xp, starts, rows_logs)
    src = bounds[slot_class] + slot_row
    live = src < bounds[slot_class + 1]
    rows = order[xp.where(live, src, 0)]
    return xp.where(live, starts[rows], 0), xp.where(live, lens[rows], 0), at


_slot_tables = {}


def _slots(lib, xp, like, rows_logs):
    """(each row's class - 1, its row in the class, where each class's rows begin) over every
    class's rows, made once per device."""
    key = (lib, str(getattr(like, "device", None)), rows_logs)
    found = _slot_tables.get(key)
    if found is None:
        at = [0]
        for b in rows_logs:
            at.append(at[-1] + (1 << b))
        import numpy
        slot_class = numpy.repeat(numpy.arange(len(rows_logs)), [1 << b for b in rows_logs])
        slot_row = numpy.concatenate([numpy.arange(1 << b) for b in rows_logs])
        found = _slot_tables[key] = tuple(_device_copy(lib, xp, a, like) for a in (slot_class, slot_row)) + (at,)
    return found


def _device_copy(lib, xp, a, like):
    """A NumPy int64 array on like's device."""
    if lib == "torch":
        return xp.from_numpy(a.astype("int64")).to(like.device)
    return xp.asarray(a.astype("int64"))


def _by_classes(lib, xp, values, offsets, descending, max_length):
    """(values, indices) of the segments sorted by size class (the module's docstring); the
    longest segment read from the device unless max_length says it, after the work that does
    not need it has been queued."""
    n, segments = values.shape[0], offsets.shape[0] - 1
    cuda = _library("segmented_sort", values)[1]
    t, rank = _parm_type("segmented_sort", values, "values")
    longest = None if max_length is None else _index(max_length, "segmented_sort", "max_length")
    if segments and longest is None:
        longest = (offsets[1:] - offsets[:-1]).max()
        if lib == "torch" and cuda:    # to the host once the queue gets there
            longest = longest.to("cpu", non_blocking=True)
            done = xp.cuda.Event()
            done.record()
    out = values.clone() if lib == "torch" else values.copy()
    index = _full_int(lib, xp, n, 0, values)
    if segments == 0:
        return out, index
    classes = _classes_of(lib, xp, offsets)
    if max_length is None and lib == "torch" and cuda:
        done.synchronize()
    count = _log2_up(int(longest))
    if count > _CLASS_LOG_MAX:
        return None
    rows_logs = tuple(_class_rows_log(n, segments, c) for c in range(1, count + 1))
    if not rows_logs:
        return out, index
    prog = _class_program(cuda, t, rank, descending, rows_logs)
    starts, lens, at = _bins(lib, xp, classes, rows_logs)
    adapter = _arrays.adapter_of(values, cuda)
    device = values.get_device() if lib == "torch" and cuda else values.device.id if lib == "cupy" else None
    ptr = adapter.ptr
    prog.run_calls(adapter, device, [(f"c{c}", [ptr(values), ptr(starts[at[c - 1]:at[c]]), ptr(lens[at[c - 1]:at[c]]),
                                               ptr(out), ptr(index), n]) for c in range(1, count + 1)])
    return out, index


def _full_int(lib, xp, n, value, like):
    if lib == "torch":
        return xp.full((n,), value, dtype=xp.int64, device=like.device)
    return xp.full((n,), value, dtype="int64")


def _sorted_order(lib, xp, values, offsets, descending):
    """(perm, group) of the module's docstring, perm as int64 positions of values."""
    pos = _arange(lib, xp, values.shape[0], values)
    offsets = _int64(lib, xp, offsets)
    if lib == "torch":
        seg = xp.searchsorted(offsets, pos, right=True)
    else:
        seg = xp.searchsorted(offsets, pos, side="right")
    # seg in 1..S: inside segment seg - 1; 0 before offsets[0], S + 1 from offsets[-1] on
    inside = (seg > 0) & (seg < offsets.shape[0])
    group = xp.where(inside, offsets[xp.where(inside, seg - 1, 0)], pos)
    p1 = argsort(values, descending=descending)
    # the groups are positions: int32 keys where they fit, half the bytes of the second sort
    keys = group if values.shape[0] >= 2**31 else group.to(xp.int32) if lib == "torch" else group.astype("int32")
    p2 = argsort(keys[p1])
    perm = p1[p2]
    return perm, group


def _checked(op, values, offsets):
    """(library, its module, values, offsets) of the call, after the checks of values and
    offsets, both made contiguous (a copy of a strided view)."""
    lib, _ = _library(op, values, "values")
    if _library(op, offsets, "offsets")[0] != lib:
        raise ArgumentTypeError(f"parmc.{op}: argument 'offsets' is {_describe(offsets)}; values is a {lib} array")
    if len(values.shape) != 1:
        raise ArgumentValueError(f"parmc.{op}: argument 'values' has {len(values.shape)} dimensions; the segments are "
                                 "of a 1-D array")
    _parm_type(op, values, "values")    # a dtype that parmc sorts, whichever path sorts it
    if len(offsets.shape) != 1 or offsets.shape[0] < 1 or str(offsets.dtype).replace("torch.", "") not in (
            "int32", "int64"):
        _byte_order(op, offsets, "offsets")
        raise ArgumentTypeError(f"parmc.{op}: argument 'offsets': expected a 1-D int32 or int64 array of "
                                f"n_segments + 1 positions, got {_describe(offsets)}")
    if lib == "torch" and offsets.device != values.device:
        raise ArgumentValueError(f"parmc.{op}: argument 'offsets' is on {offsets.device}, values on {values.device}")
    if lib == "numpy":      # on the host the order is checked; on a device it would take a read
        import numpy
        o = offsets.astype(numpy.int64)
        if (numpy.diff(o) < 0).any() or o[0] < 0 or o[-1] > values.shape[0]:
            raise ArgumentValueError(f"parmc.{op}: argument 'offsets' must ascend from 0 or more to at most "
                                     f"{values.shape[0]}")
    xp = _module(lib)
    return lib, xp, _contiguous(lib, xp, values), _contiguous(lib, xp, offsets)


def _byte_order(op, a, arg):
    """The refusal of integer array a (argument `arg`) when the only thing wrong with its dtype
    is its byte order (a big-endian int64, say)."""
    order = byte_order_refusal(a.dtype, arg)
    if order and native_name(a.dtype) in ("int32", "int64"):
        raise ArgumentTypeError(f"parmc.{op}: argument '{arg}' {order}")


def _contiguous(lib, xp, a):
    if lib == "torch":
        return a.contiguous()
    return a if lib == "jax" else xp.ascontiguousarray(a)


def _module(lib):
    if lib == "torch":
        return sys.modules["torch"]
    if lib == "jax":
        import jax.numpy
        return jax.numpy
    import importlib
    return importlib.import_module(lib)


def _arange(lib, xp, n, like):
    """0..n-1 as positions: int64 (JAX's default integer without jax_enable_x64: int32)."""
    if lib == "torch":
        return xp.arange(n, device=like.device)
    return xp.arange(n) if lib == "jax" else xp.arange(n, dtype="int64")


def _int64(lib, xp, a):
    if lib == "torch":
        return a.to(xp.int64)
    return a.astype(_arange(lib, xp, 0, a).dtype)


def _full(lib, xp, shape, value, like):
    if lib == "torch":
        return xp.full(shape, value, dtype=like.dtype, device=like.device)
    return xp.full(shape, value, dtype=like.dtype)


def _worst(xp, dtype, largest):
    """The padding value of a top-k: the worst of dtype in the order asked for."""
    name = str(dtype).replace("torch.", "")
    if name == "bool":
        return not largest
    if name.startswith(("float", "bfloat")):
        return float("-inf") if largest else float("inf")
    info = xp.iinfo(dtype)
    return info.min if largest else info.max


def _describe(a):
    shape = getattr(a, "shape", None)
    return f"{type(a).__module__.split('.')[0]}.{type(a).__name__} of shape {tuple(shape)} and dtype {a.dtype}" \
        if shape is not None else type(a).__name__
