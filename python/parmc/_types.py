"""Element types of parm: their ctypes, their dtype names in NumPy, PyTorch and CuPy, and the
conversion of a Python value to a scalar parameter, with its range check."""
import ctypes
import math
import operator

# type -> (ctypes type, dtype name shared by NumPy, PyTorch and CuPy); bool is a byte holding 0 or 1
C_TYPES = {
    "bool": (ctypes.c_uint8, "bool"),
    "i8": (ctypes.c_int8, "int8"), "i16": (ctypes.c_int16, "int16"),
    "i32": (ctypes.c_int32, "int32"), "i64": (ctypes.c_int64, "int64"),
    "u8": (ctypes.c_uint8, "uint8"), "u16": (ctypes.c_uint16, "uint16"),
    "u32": (ctypes.c_uint32, "uint32"), "u64": (ctypes.c_uint64, "uint64"),
    "f32": (ctypes.c_float, "float32"), "f64": (ctypes.c_double, "float64"),
}

_F32_MAX = 3.4028234663852886e38     # float32's largest finite value
# the least magnitude that rounds to float32's infinity: _F32_MAX and half its last place
# (2^128 - 2^103, a tie that rounds to the even, infinity); every finite double of a smaller
# magnitude rounds to a finite float32 (3.4028235e38, float32's largest as NumPy prints it, to
# _F32_MAX)
_F32_ROUNDS_TO_INF = 2.0 ** 128 - 2.0 ** 103


def ctype(t):
    return C_TYPES[t][0]


def dtype_name(t):
    return C_TYPES[t][1]


def _int_range(t):
    bits = int(t[1:])
    return (0, (1 << bits) - 1) if t[0] == "u" else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def _kind(v):
    """The type of v in messages, with an array's shape: "ndarray of shape (3,)", "numpy.float64"."""
    shape = getattr(v, "shape", None)
    return f"{type(v).__name__} of shape {tuple(shape)}" if shape is not None and len(shape) else type_name(v)


def _is_array(v):
    """Whether v is an array of one or more dimensions (NumPy, PyTorch, CuPy): not a scalar,
    even with one element, for any scalar type (a 0-d array is a scalar)."""
    shape = getattr(v, "shape", None)
    try:
        return shape is not None and len(shape) > 0
    except TypeError:
        return False


def as_index(v):
    """operator.index(v), or None for a value that is not an integer (an array among them)."""
    if _is_array(v):
        return None
    try:
        return operator.index(v)
    except TypeError:
        return None


def as_bool(v):
    """v as a bool when it is one: Python's, NumPy's (np.bool_, whose name is "bool" in NumPy 2)
    or a 0-d array or tensor of dtype bool; else None."""
    if v is True or v is False:
        return v
    if not _is_array(v) and str(getattr(v, "dtype", None)) in ("bool", "torch.bool"):
        return bool(v)
    return None


def _is_infinite(v, x):
    """Whether v, whose float() is the infinity x, is itself that infinity (float('inf'),
    NumPy's, Decimal('Infinity')) rather than a finite value too large for a double."""
    try:
        return bool(v == x)
    except Exception:       # a value that cannot be compared: taken as its float() says
        return True


def byte_order_refusal(dtype, name=None):
    """For a NumPy dtype of the other byte order than this machine's (a big-endian array on a
    little-endian host): the refusal that follows the argument's name in a message ("is
    big-endian (dtype >f4, byte order '>'); parmc takes ..."), with the conversion of array
    `name` when given; else "" (PyTorch, CuPy and JAX arrays have the machine's order alone)."""
    order = getattr(dtype, "byteorder", None)
    if order not in ("<", ">") or getattr(dtype, "isnative", True):
        return ""
    its, own = ("big", "little") if order == ">" else ("little", "big")
    fix = f": use {name}.astype({name}.dtype.newbyteorder('='))" if name else ""
    return (f"is {its}-endian (dtype {dtype}, byte order '{order}'); parmc takes arrays in this machine's byte order "
            f"({own}-endian){fix}")


def native_name(dtype):
    """The name of a dtype as str() gives it, in this machine's byte order ("float32" for a
    NumPy '>f4')."""
    if byte_order_refusal(dtype):
        dtype = dtype.newbyteorder("=")
    return str(dtype)


def type_name(v):
    """The name of v's type in messages: builtins bare, others with their module
    ("numpy.float64", "torch.Tensor"), so that NumPy 2's bool is not read as Python's."""
    cls = type(v)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__.split('.')[0]}.{cls.__name__}"


def scalar_converter(t):
    """A function (value, where) -> the value as the C parameter wants it, where() naming the
    parameter in messages; raises TypeError or ValueError (parmc's own subclasses), never the
    value's own conversion errors (an array for a scalar is parmc's TypeError). A bool
    parameter takes a bool alone (as_bool: Python's, NumPy's, a 0-d bool array), never an
    integer; a number parameter never takes a bool, so that 1 and True never stand for each
    other (as the drop-ins' flags and ints: docs/python.md)."""
    from ._errors import ArgumentTypeError, ArgumentValueError
    if t == "bool":
        def convert(v, where):
            b = as_bool(v)
            if b is None:
                raise ArgumentTypeError(f"{where()}: expected a bool, got {_kind(v)}")
            return int(b)
        return convert
    if t[0] in "iu":
        lo, hi = _int_range(t)

        def convert(v, where):
            i = as_index(v) if as_bool(v) is None else None
            if i is None:
                raise ArgumentTypeError(f"{where()}: expected an integer for {t}, got {_kind(v)}")
            if not lo <= i <= hi:
                raise ArgumentValueError(f"{where()}: {i} is out of range for {t} ({lo}..{hi})")
            return i
        return convert

    def convert(v, where):
        if isinstance(v, (str, bytes)) or not hasattr(v, "__float__") or _is_array(v) or as_bool(v) is not None:
            raise ArgumentTypeError(f"{where()}: expected a real number for {t}, got {_kind(v)}")
        try:
            x = float(v)
        except OverflowError:
            raise ArgumentValueError(f"{where()}: {v!r} is out of range for {t}") from None
        except (TypeError, ValueError, RuntimeError):
            # a value whose __float__ refuses (a tensor of several elements, ...)
            raise ArgumentTypeError(f"{where()}: expected a real number for {t}, got {_kind(v)}") from None
        if math.isinf(x) and not _is_infinite(v, x):
            # a finite value beyond double's range that float() makes infinite without an
            # OverflowError (a NumPy longdouble or a Decimal of 1e400), as 10**400 is refused
            raise ArgumentValueError(f"{where()}: {v!r} is out of range for {t} (it rounds to infinity)")
        if t == "f32" and math.isfinite(x) and abs(x) > _F32_MAX:
            if abs(x) >= _F32_ROUNDS_TO_INF:
                raise ArgumentValueError(f"{where()}: {x!r} is out of range for f32 (it rounds to infinity; a finite "
                                         f"value must round to at most float32's largest, {_F32_MAX!r})")
            # what rounding to float32 gives (C leaves the conversion of a double beyond it undefined)
            return math.copysign(_F32_MAX, x)
        return x
    return convert
