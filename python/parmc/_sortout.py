"""The out= of parmc.sort and parmc.topk (_sortops.py), as torch.sort and torch.topk take it:
a pair (values, indices) of arrays of x's library and device, the values of x's dtype and
the indices int64, each of the results' shape and contiguous (NumPy and CuPy arrays also
writable), or for PyTorch an empty tensor, which is resized to the results' shape
(`resize_`, as torch does; torch also resizes a tensor of another size, with a warning,
which parmc refuses). Arrays that share memory with x or with each other are refused, as
torch refuses an out that overlaps its input. Every check comes before anything is resized
or written, and each error names the argument 'out'."""
import math
import sys

from ._arrays import library_name, masked_refusal
from ._errors import ArgumentTypeError, ArgumentValueError
from ._types import byte_order_refusal, type_name

_ROLES = ("values", "indices")
_KINDS = {"numpy": "a NumPy array", "torch": "a PyTorch tensor", "cupy": "a CuPy array"}


def checked(op, lib, x, out, shape, dtypes):
    """The out arrays of a call on x (of library lib) whose results have `shape` and dtypes
    (values, indices), as a tuple, an empty tensor resized to shape; else the error."""
    where = f"parmc.{op}: argument 'out'"
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise ArgumentTypeError(f"{where}: expected a tuple (values, indices) of two arrays, got "
                                f"{type_name(out)}" + (f" of {len(out)}" if isinstance(out, (tuple, list)) else ""))
    pair = tuple(out)
    for j, (a, dt) in enumerate(zip(pair, dtypes)):
        _check(lib, x, a, dt, shape, f"{where}: out[{j}] (the {_ROLES[j]})")
    _refuse_overlap(lib, x, pair, shape, where)
    for a in pair:
        if tuple(a.shape) != shape:     # an empty tensor, which _check lets through
            a.resize_(shape)
    return pair


def _check(lib, x, a, dtype, shape, where):
    """That one out array a fits the results of x: library, dtype, device, shape, layout."""
    if library_name(a) != lib:
        raise ArgumentTypeError(f"{where}: expected {_KINDS[lib]}, as x is, got {type_name(a)}{masked_refusal(a)}")
    if a.dtype != dtype:
        order = byte_order_refusal(a.dtype)
        if order and a.dtype.newbyteorder("=") == dtype:
            raise ArgumentTypeError(f"{where} {order}")
        raise ArgumentTypeError(f"{where}: expected dtype {dtype}, got {a.dtype}")
    if _device(lib, a) != _device(lib, x):
        raise ArgumentValueError(f"{where} is on {_device(lib, a)}, x on {_device(lib, x)}")
    if tuple(a.shape) != shape:
        if lib != "torch":
            raise ArgumentValueError(f"{where} has shape {tuple(a.shape)}; the results have shape {shape}")
        if a.numel():
            raise ArgumentValueError(f"{where} has shape {tuple(a.shape)}; the results have shape {shape} "
                                     "(an empty tensor is resized to it)")
        return      # empty: resize_ makes it contiguous
    if not (a.is_contiguous() if lib == "torch" else a.flags.c_contiguous):
        raise ArgumentValueError(f"{where} is not contiguous")
    if lib == "numpy" and not a.flags.writeable:     # (CuPy arrays are always writable)
        raise ArgumentValueError(f"{where} is read-only")


def _device(lib, a):
    """Where array a is, as messages name it."""
    if lib == "numpy":
        return "the host"
    if lib == "cupy":
        return f"cuda:{a.device.id}"
    return f"cuda:{a.get_device()}" if a.is_cuda else "cpu" if a.is_cpu else str(a.device)


def _refuse_overlap(lib, x, pair, shape, where):
    """That neither out array shares memory with x, nor the two with each other."""
    meets = _torch_meets(x, pair, shape) if lib == "torch" else _array_meets(lib, x, pair)
    for i, j, names in ((0, 2, "out[0] and x"), (1, 2, "out[1] and x"), (0, 1, "out[0] and out[1]")):
        if meets(i, j):
            raise ArgumentValueError(f"{where}: {names} share memory; the results need arrays of their own")


def _array_meets(lib, x, pair):
    """(i, j) -> whether arrays i and j of (values, indices, x) share memory: NumPy's exact
    test; CuPy's by the arrays' bounds (its exact one runs kernels and synchronises), exact
    but for an x with gaps, since the out arrays are contiguous."""
    arrays = pair + (x,)
    shares = sys.modules["numpy"].shares_memory if lib == "numpy" else sys.modules["cupy"].may_share_memory
    return lambda i, j: shares(arrays[i], arrays[j])


def _torch_meets(x, pair, shape):
    """(i, j) -> whether the bytes of tensors i and j of (values, indices, x) meet, by their
    extents: an out tensor's as the call writes it, contiguous from its data pointer (an
    empty one resized keeps that pointer, or its offset in a storage too small, which is
    reallocated: a view of x's storage meets x there too); x's at its own strides (torch's
    are never negative)."""
    spans = [_span(a.data_ptr(), math.prod(shape) - 1, a.element_size()) for a in pair]
    last = sum((n - 1) * s for n, s in zip(x.shape, x.stride()))
    spans.append(_span(x.data_ptr(), last, x.element_size()) if x.numel() else (0, 0))
    return lambda i, j: spans[i][0] < spans[j][1] and spans[j][0] < spans[i][1]


def _span(ptr, last, size):
    """[first, end) of the bytes of elements 0..last from ptr, each of size bytes (none when last < 0)."""
    return (ptr, ptr + (last + 1) * size) if last >= 0 else (0, 0)


def write(lib, x, pair, results):
    """The results copied into the out arrays: one copy each, on x's device (and torch's and
    CuPy's current stream there, which the call ran on)."""
    if lib == "torch":
        for a, r in zip(pair, results):
            a.copy_(r)
    elif lib == "cupy":
        with sys.modules["cupy"].cuda.Device(x.device.id):      # CuPy copies on the current device
            for a, r in zip(pair, results):
                a[...] = r
    else:
        for a, r in zip(pair, results):
            a[...] = r
