"""The array libraries a call can use: NumPy (host memory, the C target), PyTorch (CPU
tensors for the C target, CUDA tensors for the CUDA target) and CuPy (the CUDA target).
Each adapter checks one array against a field's dtype and returns its pointer and length,
allocates results, and tells the current stream; libraries are imported only when an
argument comes from them."""
import ctypes
import sys

from ._errors import ArgumentTypeError, ArgumentValueError
from ._types import byte_order_refusal, dtype_name

# cudaStreamLegacy: the legacy default stream. PyTorch and CuPy name it 0, which the API
# reads as "the context's own stream", so it is passed as this handle instead.
CUDA_STREAM_LEGACY = 1
_addressof, _c_char = ctypes.addressof, ctypes.c_char


class NumpyAdapter:
    name, cuda = "numpy", False

    def __init__(self):
        import numpy
        self.np = numpy
        self._dtypes = {}

    def dtype(self, t):
        d = self._dtypes.get(t)
        if d is None:
            d = self._dtypes[t] = self.np.dtype(dtype_name(t))
        return d

    def check(self, a, dt, where):
        """(pointer, number of elements, device) of a, or an exception naming `where()`."""
        if a.dtype != dt:
            order = byte_order_refusal(a.dtype, getattr(where, "param", None))
            if order and a.dtype.newbyteorder("=") == dt:
                raise ArgumentTypeError(f"{where()} {order}")
            raise ArgumentTypeError(f"{where()}: expected dtype {dt}, got {a.dtype}")
        if not a.flags.c_contiguous:
            raise ArgumentValueError(f"{where()}: the array is not contiguous (numpy.ascontiguousarray makes a copy that is)")
        return self.ptr(a), a.size, None

    def empty(self, shape, dt, device):
        return self.np.empty(shape, dt)

    def zeros(self, shape, dt, device, stream):
        """A new array of zeros (stream: the raw handle a CUDA call runs on, or None for the
        current stream; on the host, unused)."""
        return self.np.zeros(shape, dt)

    def ptr(self, a):
        # a.ctypes.data and __array_interface__ take microseconds; a ctypes view of a
        # writable array's buffer a fraction of that
        if a.flags.writeable and a.size and a.dtype.char != "E":   # bfloat16 has no buffer format
            return _addressof(_c_char.from_buffer(a))
        return a.__array_interface__["data"][0]

    def device_name(self, device):
        return "the host"

    def fast_snippets(self):
        """Code for the generated fast path (_fast.py): expressions over an array {a}."""
        np = self.np
        return {"env": {"T": np.ndarray, "addr": ctypes.addressof, "cchar": ctypes.c_char, "empty": np.empty,
                        "ascontiguousarray": np.ascontiguousarray},
                "check": "type({a}) is T and {a}.dtype is {D} and {a}.flags.c_contiguous",
                "contiguous": "{a}.flags.c_contiguous", "contiguous_copy": "ascontiguousarray({a})",
                "size": "{a}.size", "device": None,
                # dtypes the buffer protocol does not describe (ml_dtypes' bfloat16)
                "ptr_unbuffered": "{a}.__array_interface__['data'][0]",
                "ptr": "(addr(cchar.from_buffer({a})) if {a}.flags.writeable and {a}.size "
                       "else {a}.__array_interface__['data'][0])",
                "empty": "empty({shape}, {D})"}


class TorchAdapter:
    name = "torch"

    def __init__(self, cuda):
        import torch
        self.torch, self.cuda = torch, cuda
        self._dtypes = {}

    def dtype(self, t):
        d = self._dtypes.get(t)
        if d is None:
            d = getattr(self.torch, dtype_name(t), None)
            if d is None:
                raise ArgumentTypeError(f"this PyTorch has no dtype {dtype_name(t)} (parm type {t})")
            self._dtypes[t] = d
        return d

    def check(self, a, dt, where):
        if a.dtype is not dt:
            raise ArgumentTypeError(f"{where()}: expected dtype {dt}, got {a.dtype}")
        if not (a.is_cuda if self.cuda else a.is_cpu):
            raise ArgumentValueError(f"{where()}: the tensor is on {a.device}; this program was compiled for "
                                     + ("CUDA: move it with .cuda()" if self.cuda else "the CPU (target c): move it with .cpu()"))
        if not a.is_contiguous():
            raise ArgumentValueError(f"{where()}: the tensor is not contiguous (.contiguous() makes a copy that is)")
        return a.data_ptr(), a.numel(), a.get_device() if self.cuda else None

    def empty(self, shape, dt, device):
        return self.torch.empty(shape, dtype=dt, device="cpu" if device is None else device)

    def zeros(self, shape, dt, device, stream):
        """Zeros, written on the stream the call runs on: the device's current one (stream
        None), else the raw handle given."""
        torch = self.torch
        if device is None or stream is None:
            return torch.zeros(shape, dtype=dt, device="cpu" if device is None else device)
        with torch.cuda.stream(torch.cuda.ExternalStream(stream, device=device)):
            return torch.zeros(shape, dtype=dt, device=device)

    def ptr(self, a):
        return a.data_ptr()

    def device_name(self, device):
        return "cpu" if device is None else f"cuda:{device}"

    def current_device(self):
        return self.torch.cuda.current_device()

    def device_object(self, device):
        """What the fast paths allocate on: a torch.device, made once."""
        return self.torch.device("cuda", device)

    def template(self, shape, dt, device):
        """A tensor that torch.empty_like turns into a new contiguous tensor of shape, dtype dt
        on device: one element expanded (its strides 0, so empty_like cannot keep them and
        lays the new tensor out contiguously). empty_like of it takes 4 µs of the host where
        torch.empty(shape, dtype=, device=) takes 6.5, its arguments parsed at every call
        (bench/host/parts.py)."""
        one = self.torch.empty((), dtype=dt, device="cpu" if device is None else self.device_object(device))
        return one.expand(shape)

    def fast_snippets(self):
        torch = self.torch
        where = "is_cuda" if self.cuda else "is_cpu"
        # the raw handle without building a torch.cuda.Stream (what torch's own compiled code reads)
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        # torch.cuda.current_device() less its lazy-initialisation check: a tensor on CUDA
        # (whose device is compared) means CUDA is initialised; a torch.device made once
        # parses faster than a string or an index
        current = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device
        return {"env": {"T": torch.Tensor, "empty": torch.empty, "empty_like": torch.empty_like,
                        "current_device": current,
                        "current_stream": torch.cuda.current_stream, "raw_stream": raw, "CPU": torch.device("cpu")},
                "check": "type({a}) is T and {a}.dtype is {D} and {a}.%s and {a}.is_contiguous()" % where,
                "contiguous": "{a}.is_contiguous()", "contiguous_copy": "{a}.contiguous()",
                "size": "{a}.numel()", "device": "{a}.get_device()" if self.cuda else None,
                "ptr": "{a}.data_ptr()",
                "empty": "empty({shape}, dtype={D}, device=%s)" % ("{dev}" if self.cuda else "CPU"),
                "empty_from": "empty_like({t})",    # a new array like template {t} (template())
                "stream": (f"(raw_stream(dev) or {CUDA_STREAM_LEGACY})" if raw else
                           f"(current_stream(dev).cuda_stream or {CUDA_STREAM_LEGACY})")}

    def guard(self, device):
        """A context manager that makes device current, or None when it is already."""
        cuda = self.torch.cuda
        return None if cuda.current_device() == device else cuda.device(device)

    def stream(self, device, given, where):
        """The stream handle of a call: the given one (a torch.cuda.Stream or a raw handle),
        else torch's current stream on the device."""
        if given is None:
            # the raw handle without building a torch.cuda.Stream, as the fast path does
            raw = getattr(self.torch._C, "_cuda_getCurrentRawStream", None)
            if raw is not None:
                return raw(device) or CUDA_STREAM_LEGACY
            s = self.torch.cuda.current_stream(device)
        elif isinstance(given, int):
            return given or CUDA_STREAM_LEGACY
        else:
            s = given
            sdev = getattr(getattr(s, "device", None), "index", None)
            if sdev is None or not hasattr(s, "cuda_stream"):
                raise ArgumentTypeError(f"{where()}: stream= takes a torch.cuda.Stream or a raw cudaStream_t handle, got {type(s).__name__}")
            if sdev != device:
                raise ArgumentValueError(f"{where()}: the stream is on cuda:{sdev}, the arrays on cuda:{device}")
        return s.cuda_stream or CUDA_STREAM_LEGACY


class CupyAdapter:
    name, cuda = "cupy", True

    def __init__(self):
        import cupy
        self.cupy = cupy
        self._dtypes = {}

    def dtype(self, t):
        d = self._dtypes.get(t)
        if d is None:
            d = self._dtypes[t] = self.cupy.dtype(dtype_name(t))
        return d

    def check(self, a, dt, where):
        if a.dtype != dt:
            raise ArgumentTypeError(f"{where()}: expected dtype {dt}, got {a.dtype}")
        if not a.flags.c_contiguous:
            raise ArgumentValueError(f"{where()}: the array is not contiguous (cupy.ascontiguousarray makes a copy that is)")
        return a.data.ptr, a.size, a.device.id

    def empty(self, shape, dt, device):
        with self.cupy.cuda.Device(device):
            return self.cupy.empty(shape, dt)

    def zeros(self, shape, dt, device, stream):
        """Zeros, written on the stream the call runs on (as TorchAdapter.zeros)."""
        cupy = self.cupy
        with cupy.cuda.Device(device):
            if stream is None:
                return cupy.zeros(shape, dt)
            with cupy.cuda.ExternalStream(stream):
                return cupy.zeros(shape, dt)

    def ptr(self, a):
        return a.data.ptr

    def device_name(self, device):
        return f"cuda:{device}"

    def current_device(self):
        return self.cupy.cuda.runtime.getDevice()

    def device_object(self, device):
        """CuPy allocates on the current device, which the fast paths check."""
        return device

    def fast_snippets(self):
        cupy = self.cupy
        return {"env": {"T": cupy.ndarray, "empty": cupy.empty, "current_device": cupy.cuda.runtime.getDevice,
                        "get_current_stream": cupy.cuda.get_current_stream,
                        "ascontiguousarray": cupy.ascontiguousarray},
                "check": "type({a}) is T and {a}.dtype is {D} and {a}.flags.c_contiguous",
                "contiguous": "{a}.flags.c_contiguous", "contiguous_copy": "ascontiguousarray({a})",
                "size": "{a}.size", "device": "{a}.device.id", "ptr": "{a}.data.ptr",
                "empty": "empty({shape}, {D})",
                "stream": f"(get_current_stream().ptr or {CUDA_STREAM_LEGACY})"}

    def guard(self, device):
        return None if self.cupy.cuda.runtime.getDevice() == device else self.cupy.cuda.Device(device)

    def stream(self, device, given, where):
        if given is None:
            with self.cupy.cuda.Device(device):
                s = self.cupy.cuda.get_current_stream()
        elif isinstance(given, int):
            return given or CUDA_STREAM_LEGACY
        else:
            s = given
            if not hasattr(s, "ptr"):
                raise ArgumentTypeError(f"{where()}: stream= takes a cupy.cuda.Stream or a raw cudaStream_t handle, got {type(s).__name__}")
            sdev = getattr(s, "device_id", device)
            if sdev != device:
                raise ArgumentValueError(f"{where()}: the stream is on cuda:{sdev}, the arrays on cuda:{device}")
        return s.ptr or CUDA_STREAM_LEGACY


def library_name(a):
    """"numpy", "torch" or "cupy": the library of array a, or None for anything else. A
    subclass of numpy.ndarray (numpy.memmap, one's own) is NumPy's, but for a masked array
    (masked_refusal)."""
    root = type(a).__module__.split(".")[0]
    if root in ("numpy", "cupy") and type(a).__name__ == "ndarray":
        return root
    if root == "torch" and hasattr(a, "is_cuda"):
        return "torch"
    return "numpy" if _numpy_subclass(type(a)) else None


def _numpy_subclass(cls):
    """Whether cls is a subclass of numpy.ndarray whose arrays parmc takes as NumPy's (their
    data and shape; results are plain ndarrays): every one but numpy.ma.MaskedArray's."""
    numpy = sys.modules.get("numpy")
    if numpy is None or not issubclass(cls, numpy.ndarray):
        return False
    ma = sys.modules.get("numpy.ma")
    return ma is None or not issubclass(cls, ma.MaskedArray)


def masked_refusal(a):
    """For a NumPy masked array: why it is refused (its mask would be ignored), to end a
    message; else ''."""
    ma = sys.modules.get("numpy.ma")
    if ma is None or not isinstance(a, ma.MaskedArray):
        return ""
    return ": a masked array, whose mask parmc would ignore (pass a.filled(value), or a.data for the data as it is)"


_adapters = {}   # (type of an array, CUDA target?) -> its adapter, or None for a type no library has


def adapter_of(a, cuda):
    """The adapter for array a in a program of the CUDA target (cuda True) or the C target; None
    when a is not an array of a supported library."""
    key = (type(a), cuda)
    ad = _adapters.get(key)
    if ad is None and key not in _adapters:
        ad = _adapters[key] = _make(type(a), cuda)
    return ad


_shared = {}


def _one(name, make):
    if name not in _shared:
        _shared[name] = make()
    return _shared[name]


def _make(cls, cuda):
    root = cls.__module__.split(".")[0]
    if (root == "numpy" and cls.__name__ == "ndarray") or _numpy_subclass(cls):
        return _one("numpy", NumpyAdapter)
    if root == "torch" and "torch" in sys.modules and issubclass(cls, sys.modules["torch"].Tensor):
        return _one(("torch", cuda), lambda: TorchAdapter(cuda))
    if root == "cupy" and cls.__name__ == "ndarray":
        return _one("cupy", CupyAdapter)
    return None


def default_adapter(cuda):
    """For an entry with no array parameter: the library its results are allocated with."""
    if not cuda:
        return _one("numpy", NumpyAdapter)
    if "torch" in sys.modules or "cupy" not in sys.modules:
        return _one(("torch", True), lambda: TorchAdapter(True))
    return _one("cupy", CupyAdapter)
