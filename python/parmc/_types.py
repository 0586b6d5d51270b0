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

_F32_MAX = 3.4028234663852886e38


def ctype(t):
    return C_TYPES[t][0]


def dtype_name(t):
    return C_TYPES[t][1]


def _int_range(t):
    bits = int(t[1:])
    return (0, (1 << bits) - 1) if t[0] == "u" else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def scalar_converter(t):
    """A function (value, where) -> the value as the C parameter wants it, where() naming the
    parameter in messages; raises TypeError or ValueError (parmc's own subclasses)."""
    from ._errors import ArgumentTypeError, ArgumentValueError
    if t == "bool":
        def convert(v, where):
            if v is True or v is False:
                return int(v)
            try:
                i = operator.index(v)
            except TypeError:
                raise ArgumentTypeError(f"{where()}: expected a bool, got {type(v).__name__}") from None
            if i not in (0, 1):
                raise ArgumentValueError(f"{where()}: expected a bool (or 0 or 1), got {i}")
            return i
        return convert
    if t[0] in "iu":
        lo, hi = _int_range(t)

        def convert(v, where):
            try:
                i = operator.index(v)
            except TypeError:
                raise ArgumentTypeError(f"{where()}: expected an integer for {t}, got {type(v).__name__}") from None
            if not lo <= i <= hi:
                raise ArgumentValueError(f"{where()}: {i} is out of range for {t} ({lo}..{hi})")
            return i
        return convert

    def convert(v, where):
        if isinstance(v, (str, bytes)) or not hasattr(v, "__float__"):
            raise ArgumentTypeError(f"{where()}: expected a real number for {t}, got {type(v).__name__}")
        x = float(v)
        if t == "f32" and math.isfinite(x) and abs(x) > _F32_MAX:
            raise ArgumentValueError(f"{where()}: {x!r} is out of range for f32 (|x| <= {_F32_MAX!r})")
        return x
    return convert
