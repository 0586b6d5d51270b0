"""parmc.segmented_sort and parmc.segmented_topk: sorts and top-k over segments of any lengths
given by offsets, as CUB's DeviceSegmentedSort takes them (a 1-D int32 or int64 array of
n_segments + 1 ascending positions; segment s is values[offsets[s]:offsets[s + 1]]).

Both are two stable parmc.argsort calls and a few element-wise steps of the array's own
library, all on its device and queued on its stream, with no synchronisation with the host
(segmented_topk with one k per segment reads the largest k, which its result's shape needs):

1. p1 = argsort(values): every element in the order of the call (NaN last, descending, ties
   by position, as parmc.argsort orders them);
2. each element's group: its segment's start, or its own position outside every segment;
   p2 = argsort(group[p1]), stable, so that within a group p1's order stays;
3. perm = p1[p2]: each segment's elements sorted, in the segment's own positions, since a
   group's elements land after every element of a smaller position.

The result at position i is values[perm[i]], its index perm[i] minus its segment's start.
Positions outside every segment (before offsets[0], from offsets[-1] on) are left as they
are, with index 0, as segments of one element would be. This is correct for every length and
every dtype parmc sorts, but it sorts all n elements twice as one row each: docs/python.md
says what it costs against CUB."""
import sys

from ._errors import ArgumentTypeError, ArgumentValueError
from ._sortops import _flag, _index, _library, _named, argsort


def segmented_sort(values, offsets, descending=False):
    """(values, indices) of each segment of the 1-D array values sorted (stable), indices
    relative to the segment's start; offsets as CUB takes them (this module's docstring)."""
    descending = _flag(descending, "segmented_sort", "descending")
    lib, xp = _checked("segmented_sort", values, offsets)
    order, start = _sorted_order(lib, xp, values, offsets, descending)
    return _named(lib, "sort")((values[order], order - start[order]))


def segmented_topk(values, offsets, k, largest=True):
    """(values, indices) of shape (n_segments, K): the k best of each segment (largest=False:
    smallest), best first, ties to the smaller index, NaN the largest; k an int or a 1-D integer
    array of one k per segment (a negative one taken as 0), K the largest k asked for. A
    segment with fewer than its k elements is padded after them: values with the dtype's worst (-inf or the least integer
    for largest, +inf or the greatest otherwise), indices with -1."""
    largest = _flag(largest, "segmented_topk", "largest")
    lib, xp = _checked("segmented_topk", values, offsets)
    per_segment = getattr(k, "shape", ()) != ()
    if per_segment:
        if len(k.shape) != 1 or k.shape[0] != offsets.shape[0] - 1 or str(k.dtype).replace("torch.", "") not in (
                "int32", "int64"):
            raise ArgumentTypeError("parmc.segmented_topk: argument 'k': expected an int or a 1-D int32/int64 array of "
                                    f"one k per segment ({offsets.shape[0] - 1}), got {_describe(k)}")
        top = int(k.max()) if k.shape[0] else 0      # the result's shape: one read of the device
    else:
        top = _index(k, "segmented_topk", "k")
    if top < 0:
        raise ArgumentValueError(f"parmc.segmented_topk: argument 'k' is {top}")
    starts = _int64(lib, xp, offsets[:-1])
    worst = _full(lib, xp, (starts.shape[0], top), _worst(xp, values.dtype, largest), values)
    none = _full(lib, xp, (starts.shape[0], top), -1, starts)
    if values.shape[0] == 0 or top == 0:
        return _named(lib, "topk")((worst, none))
    order, start = _sorted_order(lib, xp, values, offsets, largest)
    src = starts[:, None] + _arange(lib, xp, top, values)[None, :]     # (segment, j): where its j-th best is
    last = _int64(lib, xp, offsets[1:])[:, None]
    if per_segment:
        last = xp.minimum(last, starts[:, None] + _int64(lib, xp, k)[:, None])
    keep = (src < last) & (src < values.shape[0])   # offsets past the end (unchecked on a device) read nothing
    src = xp.where(keep, src, 0)
    index = order - start[order]
    return _named(lib, "topk")((xp.where(keep, values[order[src]], worst), xp.where(keep, index[src], none)))


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
    """(library, its module) of the call, after the checks of values and offsets."""
    lib, _ = _library(op, values)
    if _library(op, offsets)[0] != lib:
        raise ArgumentTypeError(f"parmc.{op}: argument 'offsets' is {_describe(offsets)}; values is a {lib} array")
    if len(values.shape) != 1:
        raise ArgumentValueError(f"parmc.{op}: argument 'values' has {len(values.shape)} dimensions; the segments are "
                                 "of a 1-D array")
    if len(offsets.shape) != 1 or offsets.shape[0] < 1 or str(offsets.dtype).replace("torch.", "") not in (
            "int32", "int64"):
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
    return lib, _module(lib)


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
