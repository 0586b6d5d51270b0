"""A loaded program: the shared library, its manifest, one callable per entry, and a context
per device, created at the first call on that device and destroyed by close() or at exit."""
import atexit
import ctypes
import math
import sys
import threading
import warnings
import weakref

from . import _arrays, _fast, _jax, _manifest
from ._fast import SLOW
from ._errors import ArgumentTypeError, ArgumentValueError, CallError, Error
from ._types import as_bool, as_index, ctype, scalar_converter, type_name

_open = weakref.WeakSet()
_modules = sys.modules
ERROR_CUDA = 4      # the API's PREFIX_ERROR_CUDA (docs/api.md): PREFIX_ctx_message says which call failed


@atexit.register
def _close_all():
    for prog in list(_open):
        prog.close()


class Program:
    """The entries of a compiled parm program: `prog.main(xs)` or `prog["main"](xs)`."""

    def __init__(self, library, manifest, name=None):
        self.manifest = manifest if isinstance(manifest, _manifest.Manifest) else _manifest.load(manifest)
        self.library_path = str(library)
        self.cache_dir = None   # set by compile()
        self.name = name or self.manifest.prefix
        self.target = self.manifest.target
        self.cuda = self.target == "cuda"
        try:
            self._lib = ctypes.CDLL(self.library_path)
        except OSError as e:
            raise Error(f"cannot load {self.library_path}: {e}") from None
        p = self.manifest.prefix
        self._create = self._symbol(f"{p}_ctx_create", ctypes.c_int, [ctypes.POINTER(ctypes.c_void_p)])
        self._destroy = self._symbol(f"{p}_ctx_destroy", None, [ctypes.c_void_p])
        self._error_string = self._symbol(f"{p}_error_string", ctypes.c_char_p, [ctypes.c_int])
        self._set_stream = self._message = None
        if self.cuda:
            # Without it a call would run on the context's private stream, unordered with the
            # caller's work: refuse such a library rather than race.
            self._set_stream = self._symbol(f"{p}_ctx_set_stream", ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p],
                                            why="compile the program again with this parmc (it needs the caller's stream)")
            self._message = self._symbol(f"{p}_ctx_message", ctypes.c_char_p, [ctypes.c_void_p])
        self._contexts = {}
        self._lock = threading.Lock()
        self._torch_ops = {}
        self.entries = {e.name: EntryFunction(self, e) for e in self.manifest.entries}
        for name, f in self.entries.items():    # prog.NAME, without __getattr__ on every call
            if not hasattr(type(self), name):
                self.__dict__[name] = f
        _open.add(self)
        if "torch" in _modules:
            enable_torch(self)

    def _symbol(self, name, restype, argtypes, why=None):
        try:
            f = getattr(self._lib, name)
        except AttributeError:
            raise Error(f"{self.library_path} has no symbol {name}" + (f": {why}" if why else "")) from None
        f.restype, f.argtypes = restype, argtypes
        return f

    def __getattr__(self, name):
        entries = self.__dict__.get("entries")
        if entries is not None and name in entries:
            return entries[name]
        raise AttributeError(f"program {self.__dict__.get('name')!r} has no entry {name!r}"
                             + (f" (entries: {', '.join(entries)})" if entries else ""))

    def __getitem__(self, name):
        try:
            return self.entries[name]
        except KeyError:
            raise KeyError(f"program {self.name!r} has no entry {name!r} (entries: {', '.join(self.entries)})") from None

    def __dir__(self):
        return list(super().__dir__()) + list(self.entries)

    def __repr__(self):
        return f"<parmc.Program {self.name} ({self.target}): {', '.join(self.entries)}>"

    def context(self, device):
        """The context for device (a CUDA device index; None for the C target), created on
        first use with that device current."""
        ctx = self._contexts.get(device)
        if ctx is None:
            with self._lock:
                ctx = self._contexts.get(device)
                if ctx is None:
                    ctx = self._contexts[device] = self._new_context()
        return ctx

    def _new_context(self):
        handle = ctypes.c_void_p()
        rc = self._create(ctypes.byref(handle))
        if rc:
            detail = self._message(handle) if self._message and handle.value else None
            if handle.value:
                self._destroy(handle)
            raise CallError(f"{self.name}: cannot create a context: {self.error_text(rc, detail)}", rc)
        return handle.value

    def error_text(self, code, detail=None):
        text = self._error_string(code)
        text = text.decode() if text else f"error {code}"
        return f"{text} ({detail.decode()})" if detail else text

    def run_calls(self, adapter, device, calls):
        """Entry calls [(entry name, C arguments)] in order on the device's current stream,
        with one look-up of the context and the stream for all of them (the drop-ins that call
        several entries of one program: python/parmc/_segmented.py)."""
        guard = adapter.guard(device) if self.cuda else None
        if guard is None:
            return self._run_calls(adapter, device, calls)
        with guard:
            return self._run_calls(adapter, device, calls)

    def _run_calls(self, adapter, device, calls):
        ctx = self.context(device if self.cuda else None)
        with self._lock:
            rc = self._set_stream(ctx, adapter.stream(device, None, lambda: self.name)) if self.cuda else 0
            for name, cargs in calls:
                if rc == 0:
                    entry = self.entries[name]
                    rc = entry._fn(ctx, *cargs)
        if rc:
            entry._failed(rc, ctx)

    def close(self):
        """Destroys the contexts (each waits for its stream); the entries stay callable and
        make new ones."""
        with self._lock:
            # emptied in place: the generated fast paths hold this dict, and find no context
            contexts = dict(self._contexts)
            self._contexts.clear()
        for device, ctx in contexts.items():
            try:
                guard = _device_guard(device)
                if guard is None:
                    self._destroy(ctx)
                else:
                    with guard:
                        self._destroy(ctx)
            except Exception:   # at exit the array library may be half torn down
                pass


def _device_guard(device):
    if device is None:
        return None
    if "torch" in sys.modules:
        return _arrays.TorchAdapter(True).guard(device)
    if "cupy" in sys.modules:
        return _arrays.CupyAdapter().guard(device)
    return None


class EntryFunction:
    """One entry: `f(*params, stream=None)` checks its arguments, allocates the results with
    the arguments' library on their device, and calls the compiled function."""

    def __init__(self, program, entry):
        self.program, self.entry = program, entry
        self.name = entry.name
        self.__name__ = self.__qualname__ = entry.name
        self.__doc__ = self._signature()
        fn = getattr(program._lib, entry.symbol, None)
        if fn is None:
            raise Error(f"{program.library_path} has no symbol {entry.symbol} (entry {entry.name})")
        argtypes = [ctypes.c_void_p]
        for p in entry.params:
            argtypes += [ctypes.c_void_p] * len(p.fields) if p.kind == "array" else [ctype(t) for t in p.fields]
        for r in entry.results:
            argtypes += [ctypes.c_void_p] * len(r.fields)
        if entry.has_n:     # n, or rows and row_len
            argtypes += [ctypes.c_size_t] * (2 if entry.lengths.grid else 1)
        fn.restype, fn.argtypes = ctypes.c_int, argtypes
        self._fn = fn
        self._nparams = len(entry.params)
        name = f"{program.name}.{entry.name}"
        # per parameter: (spec, converters of a scalar's fields or None for an array, the
        # functions that name it (per field) in messages, built only when a message is)
        self._plan = [(p, [scalar_converter(t) for t in p.fields] if p.kind == "scalar" else None,
                       [_namer(name, p, k if len(p.fields) > 1 else None) for k in range(len(p.fields))])
                      for p in entry.params]
        self._arrays = [p for p in entry.params if p.kind == "array"]
        # the array parameter (its index among the arrays) whose length is n and whose shape
        # the results of its length take: the first, or for an entry with segments the padded one
        padded = entry.lengths.padded
        self._n_at = (self._arrays.index(entry.params[padded]) if entry.lengths.segments is not None else 0)
        self._dtypes = {}   # adapter -> per parameter and per result: its fields' dtypes
        self._fasts = {}    # adapter -> the generated fast path (_fast.py), or None
        self._fast = None   # that of the adapter of the last checked call

    def _signature(self):
        def show(p):
            t = p.fields[0] if len(p.fields) == 1 else "(" + ", ".join(p.fields) + ")"
            return f"[]{t}" if p.kind == "array" else t
        params = ", ".join(f"{p.name}: {show(p)}" for p in self.entry.params)
        results = ", ".join(show(r) for r in self.entry.results)
        # an entry of scalars alone has no length (its manifest's one size is null: "lengths: None")
        lengths = self.entry.lengths.describe() if self.entry.has_n else "none (no arrays)"
        return f"{self.entry.name}({params}) -> {results}; lengths: {lengths}"

    def __repr__(self):
        return f"<parmc entry {self.program.name}.{self._signature()}>"

    def __call__(self, *args, **keywords):
        stream = n = None
        if keywords:
            args, stream, n = self._bind(args, keywords)
        if _compiling is not None and _compiling():
            if n is not None:   # the op takes the parameters alone
                raise ArgumentTypeError(f"{self.program.name}.{self.name}: n= is not taken inside torch.compile")
            return _op_call(self, args)
        fast = self._fast
        if fast is not None and stream is None and n is None:
            r = fast(args)
            if r is not SLOW:
                return r
        return self._checked(args, stream, n)

    def _bind(self, args, keywords):
        """(arguments in parameter order, stream, n) from a call with keywords: a keyword
        naming a parameter (the manifest's names) passes it; stream= and n= are the call's
        options unless a parameter has that name."""
        params = [p.name for p in self.entry.params]
        bound = dict(zip(params, args))
        options = {}
        for key, value in keywords.items():
            if key in params:
                if key in bound:
                    raise ArgumentTypeError(f"{self.program.name}.{self.name}(): parameter '{key}' given twice "
                                            "(by position and by name)")
                bound[key] = value
            elif key in ("stream", "n"):
                options[key] = value
            else:
                raise ArgumentTypeError(f"{self.program.name}.{self.name}() has no parameter '{key}' (parameters: "
                                        f"{', '.join(params) or 'none'}; options: stream=, n=)")
        if len(args) > len(params):
            self._arity_error(args)
        missing = [name for name in params if name not in bound]
        if missing:
            raise ArgumentTypeError(f"{self.program.name}.{self.name}() is missing parameter"
                                    f"{'s' if len(missing) > 1 else ''} {', '.join(repr(m) for m in missing)} "
                                    f"(parameters: {', '.join(params)})")
        return tuple(bound[name] for name in params), options.get("stream"), options.get("n")

    def _checked(self, args, stream, n):
        """A call with every check, each failing one with its own exception."""
        if len(args) != self._nparams:
            self._arity_error(args)
        if _jax.any_jax(args):
            return self._jax_call(args, stream, n)
        cuda = self.program.cuda
        adapter = self._adapter(args)
        dtypes = self._dtypes.get(adapter) or self._dtypes_of(adapter)
        cargs, sizes, shapes = [], [], []
        shape = device = None
        for (p, convert, names), a, dts in zip(self._plan, args, dtypes[0]):
            if convert is not None:
                if len(convert) == 1:
                    cargs.append(convert[0](a, names[0]))
                else:
                    cargs += self._tuple_scalar(p, convert, names, a)
                continue
            size0 = None
            for arr, dt, where in zip((a,) if len(dts) == 1 else self._fields(p, a, names[0]), dts, names):
                if _arrays.adapter_of(arr, cuda) is not adapter:
                    raise ArgumentTypeError(f"{where()}: a {type(arr).__module__}.{type(arr).__name__} among "
                                            f"{adapter.name} arrays" + _arrays.masked_refusal(arr))
                ptr, size, dev = adapter.check(arr, dt, where)
                if shape is None:
                    shape, device = arr.shape, dev
                elif dev != device:
                    raise ArgumentValueError(f"{where()}: on {adapter.device_name(dev)}, other arrays on "
                                             f"{adapter.device_name(device)}")
                if size0 is None:
                    size0 = size
                    shapes.append(arr.shape)
                elif size != size0:
                    raise ArgumentValueError(f"{where()}: {size} elements, field 0 has {size0}")
                cargs.append(ptr)
            sizes.append(size0)
        grid = self._grid(shape) if self.entry.lengths.grid else None   # its shape first: more telling
        row = self._row(sizes, n)
        tail = grid if grid is not None else [row["n"]] if row is not None else []
        if shape is None and cuda:
            device = adapter.current_device()
        if stream is not None and cuda and self.entry.lengths.segments is not None:
            # checked, and made a raw handle, before the zeros that the call's results start as
            # are written on it
            stream = adapter.stream(device, stream, lambda: f"{self.program.name}.{self.name}")
        results = self._allocate(adapter, dtypes[1], row, shapes[self._n_at] if shapes else None, device, cargs,
                                 stream)
        cargs += tail
        self._invoke(adapter, device, stream, cargs)
        if adapter not in self._fasts:
            if adapter.name == "torch" and _compiling is None:
                enable_torch(self.program)
            self._fasts[adapter] = _fast.build(self, adapter, dtypes)
        self._fast = self._fasts[adapter]
        return results[0] if len(results) == 1 else tuple(results)

    def _grid(self, shape):
        """(rows, row_len) of a rows entry's first array: its last dimension is the row length,
        the others count the rows (a 1-D array is one row)."""
        row_len = shape[-1] if shape else 1
        rows = 1
        for d in shape[:-1]:
            rows *= d
        max_rows, max_len = self.entry.lengths.grid
        if rows > max_rows or row_len > max_len:
            p = self.entry.params[0]
            where = f"{self.program.name}.{self.name}: parameter '{p.name}'"
            if len(shape) < 2:
                raise ArgumentValueError(f"{where} expects a 2-D array of rows (rows, row length), got a "
                                         f"{len(shape)}-D array of {row_len} elements: one row, and the entry's "
                                         f"rows have up to {max_len}")
            raise ArgumentValueError(f"{where} has {rows} row{'s' if rows != 1 else ''} of {row_len}; the entry accepts up to {max_rows} rows "
                                     f"of up to {max_len}")
        return [rows, row_len]

    def _failed(self, rc, ctx):
        prog = self.program
        detail = prog._message(ctx) if prog._message is not None and rc == ERROR_CUDA else None
        raise CallError(f"{prog.name}.{self.name}: {prog.error_text(rc, detail)}", rc)

    def _arity_error(self, args):
        k = self._nparams
        raise ArgumentTypeError(f"{self.program.name}.{self.name}() takes {k} argument{'s' if k != 1 else ''} "
                                f"({', '.join(p.name for p in self.entry.params)}), got {len(args)}")

    def _adapter(self, args):
        """The adapter of the first array argument (checked against the target), or the
        default one when the entry has no array parameter."""
        cuda = self.program.cuda
        for (p, convert, names), a in zip(self._plan, args):
            if convert is None:
                arr = a if len(names) == 1 else self._fields(p, a, names[0])[0]
                adapter = _arrays.adapter_of(arr, cuda)
                if adapter is None or adapter.cuda != cuda:
                    wanted = "a torch CUDA tensor or a CuPy array" if cuda else "a NumPy array or a torch CPU tensor"
                    raise ArgumentTypeError(f"{names[0]()}: expected {wanted} (target {self.program.target}), "
                                            f"got {type(arr).__module__}.{type(arr).__name__}"
                                            + _arrays.masked_refusal(arr))
                return adapter
        return _arrays.default_adapter(cuda)

    def _dtypes_of(self, adapter):
        d = self._dtypes[adapter] = ([[adapter.dtype(t) for t in p.fields] for p in self.entry.params],
                                     [[adapter.dtype(t) for t in r.fields] for r in self.entry.results])
        return d

    def _tuple_scalar(self, p, convert, names, a):
        if not isinstance(a, tuple) or len(a) != len(convert):
            raise ArgumentTypeError(f"{names[0]()}: expected a tuple of {len(convert)} values ({', '.join(p.fields)})")
        return [c(v, where) for c, v, where in zip(convert, a, names)]

    def _fields(self, p, a, where):
        if not isinstance(a, (tuple, list)) or len(a) != len(p.fields):
            raise ArgumentTypeError(f"{where()}: an array of tuples ({', '.join(p.fields)}) is passed as a tuple of "
                                    f"{len(p.fields)} arrays, one per field; got {type(a).__name__}")
        return a

    def _row(self, sizes, n):
        """The size row for the arrays' lengths (and n=, when given), or an exception listing the
        accepted ones."""
        lengths = self.entry.lengths
        if n is not None:
            n = self._given_n(n, sizes)
        if not self.entry.has_n:
            return None
        if lengths.segments is not None:
            return self._segments_row(sizes)
        if lengths.any_length and not lengths.scales:
            raise ArgumentValueError(f"{self.program.name}.{self.name}: this package calls an entry of any length only "
                                     "when its one array parameter has the pad and its array results its length; "
                                     "call it through the C API (docs/api.md)")
        if not sizes:
            if n is None and len(lengths.rows) == 1:
                n = next(iter(lengths.rows))
            if n is None:
                raise ArgumentTypeError(f"{self.program.name}.{self.name}: no array parameter tells the length: pass n= "
                                        f"({lengths.describe()})")
        else:
            n = sizes[0]
        row = lengths.row(n)
        arrays = self._arrays
        if row is None:
            p = arrays[0] if arrays else None
            what = f"parameter '{p.name}'" if p else "n"
            raise ArgumentValueError(f"{self.program.name}.{self.name}: {what} has length {n}; the entry accepts "
                                     f"{lengths.describe()}")
        if len(sizes) < 2:   # n is the first array's length
            return row
        want = [length for length in row["params"] if length is not None]
        for p, size, length in zip(arrays[1:], sizes[1:], want[1:]):
            if size != length:
                raise ArgumentValueError(f"{self.program.name}.{self.name}: parameter '{p.name}' has length {size}; "
                                         f"with n = {row['n']} it must be {length}")
        return row

    def _segments_row(self, sizes):
        """The row of a call of an entry with segments (docs/language.md 7.3): n is the padded
        parameter's length, the starts and the lengths have one element a row, the other arrays
        their one size's lengths."""
        lengths, arrays, where = self.entry.lengths, self._arrays, f"{self.program.name}.{self.name}"
        n = sizes[self._n_at]
        row = lengths.row(n)
        if row is None:
            raise ArgumentValueError(f"{where}: parameter '{arrays[self._n_at].name}' has length {n}; the entry "
                                     f"accepts {lengths.describe()}")
        starts, lens, rows, max_row_len = lengths.segments
        want = [length for length in row["params"] if length is not None]
        for p, size, length in zip(arrays, sizes, want):
            if size == length:
                continue
            if p is self.entry.params[starts] or p is self.entry.params[lens]:
                what = "starts" if p is self.entry.params[starts] else "lengths"
                raise ArgumentValueError(f"{where}: parameter '{p.name}' has length {size}; it holds the {what} of "
                                         f"the entry's {rows} segments (rows of up to {max_row_len} of parameter "
                                         f"'{arrays[self._n_at].name}'), one each, so it must have {rows} (give "
                                         "the segments not needed length 0)")
            raise ArgumentValueError(f"{where}: parameter '{p.name}' has length {size}; it must be {length}")
        return row

    def _given_n(self, n, sizes):
        """n= of a call, checked: an integer (never a bool); with array parameters, the first
        one's length (which it is anyway: n= may be left out); refused by an entry with no
        array at all."""
        where = f"{self.program.name}.{self.name}"
        if not self.entry.has_n:
            raise ArgumentTypeError(f"{where}: n= is for an entry with arrays, and this one has none")
        i = as_index(n) if as_bool(n) is None else None
        if i is None:
            raise ArgumentTypeError(f"{where}: n= expected an integer, got {type_name(n)}")
        at = self._n_at
        if sizes and i != sizes[at]:
            which = ("the padded parameter of an entry with segments" if self.entry.lengths.segments is not None
                     else "the first array parameter")
            raise ArgumentValueError(f"{where}: n={i}, but parameter '{self._arrays[at].name}' has length "
                                     f"{sizes[at]}; n is the length of {which} (n= may be left out)")
        return i

    def _result_shapes(self, row, shape):
        """The shape each result is written in: an array result as long as the first array
        parameter (for an entry with segments, the padded one) takes its shape; one that the
        entry's result row length cuts holds the call's rows of row_cut: over rows, that shape
        with its last dimension row_cut (the rows the call gave), in one dimension (row_cut,)
        whatever the shape (the array is one row, the C function writes row_cut elements),
        with segments (segment rows, row_cut); a scalar, ()."""
        n = row["n"] if row is not None else None
        lengths = row["results"] if row is not None else [None] * len(self.entry.results)
        cut = self.entry.lengths.cut or (False,) * len(self.entry.results)
        row_cut, segments = self.entry.lengths.row_cut, self.entry.lengths.segments
        shapes = []
        for j, (r, length, is_cut) in enumerate(zip(self.entry.results, lengths, cut)):
            if r.kind == "scalar":
                shapes.append(())
            elif is_cut:
                shapes.append((segments[2], row_cut) if segments is not None else
                              tuple(shape[:-1]) + (row_cut,) if self.entry.lengths.grid else (row_cut,))
            elif segments is not None:
                shapes.append(shape if self.entry.lengths.full[j] else (length,))
            else:
                shapes.append(shape if shape is not None and length == n else (length,))
        return shapes

    def _allocate(self, adapter, dtypes, row, shape, device, ptrs, stream=None):
        """The results, allocated with the arguments' library; their pointers go to ptrs. An
        entry with segments writes its results of the padded length only in the segments: those
        are zeros elsewhere (filled on the call's stream)."""
        results = []
        zeros = self.entry.lengths.full if self.entry.lengths.segments is not None else ()
        for j, (rshape, dts) in enumerate(zip(self._result_shapes(row, shape), dtypes)):
            if j < len(zeros) and zeros[j]:
                fields = [adapter.zeros(rshape, dt, device, stream) for dt in dts]
            else:
                fields = [adapter.empty(rshape, dt, device) for dt in dts]
            ptrs += [adapter.ptr(f) for f in fields]
            results.append(fields[0] if len(fields) == 1 else tuple(fields))
        return results

    def _jax_call(self, args, stream, n):
        """A call on JAX arrays (_jax.py), checked as _checked checks the others, run as an XLA
        custom call: under jit too. Scalars are static: Python or NumPy numbers."""
        if stream is not None:
            raise ArgumentTypeError(f"{self.program.name}.{self.name}: stream= is not for JAX arrays (XLA runs the "
                                    "call on its own stream)")
        inputs, sizes, shapes, shape = [], [], [], None
        for (p, convert, names), a in zip(self._plan, args):
            if convert is not None:
                if _jax.any_jax([a]):
                    raise ArgumentTypeError(f"{names[0]()}: a JAX array for a scalar: under JAX a scalar parameter "
                                            "is static (a Python or NumPy number)")
                values = [convert[0](a, names[0])] if len(convert) == 1 else self._tuple_scalar(p, convert, names, a)
                inputs += list(zip(p.fields, values))
                continue
            size0 = None
            for arr, t, where in zip((a,) if len(p.fields) == 1 else self._fields(p, a, names[0]), p.fields, names):
                if not _jax.is_jax(arr):
                    raise ArgumentTypeError(f"{where()}: a {type(arr).__module__}.{type(arr).__name__} among JAX "
                                            "arrays")
                want = _jax.dtype(t)
                if arr.dtype != want:
                    raise ArgumentTypeError(f"{where()}: expected dtype {want}, got {arr.dtype}")
                size = math.prod(arr.shape)
                if shape is None:
                    shape = tuple(arr.shape)
                if size0 is None:
                    size0 = size
                    shapes.append(tuple(arr.shape))
                elif size != size0:
                    raise ArgumentValueError(f"{where()}: {size} elements, field 0 has {size0}")
                inputs.append((_jax.ARRAY, arr))
            sizes.append(size0)
        grid = self._grid(shape) if self.entry.lengths.grid else None
        row = self._row(sizes, n)
        tail = grid if grid is not None else [row["n"]] if row is not None else []
        lengths = self.entry.lengths
        result_shapes = self._result_shapes(row, shapes[self._n_at] if shapes else None)
        # with segments, the results of the padded length start as zeros (_allocate)
        zeros = lengths.full if lengths.segments is not None else (False,) * len(self.entry.results)
        specs = [(rshape, _jax.dtype(t), zero) for rshape, r, zero in zip(result_shapes, self.entry.results, zeros)
                 for t in r.fields]
        outs = iter(_jax.call(self, inputs, specs, tail))
        results = [tuple(next(outs) for _ in r.fields) for r in self.entry.results]
        results = [r[0] if len(r) == 1 else r for r in results]
        return results[0] if len(results) == 1 else tuple(results)

    def _invoke(self, adapter, device, stream, cargs):
        prog = self.program
        if not prog.cuda:
            if stream is not None:
                raise ArgumentTypeError(f"{prog.name}.{self.name}: stream= is for the CUDA target")
            ctx = prog.context(None)
            with prog._lock:
                rc = self._fn(ctx, *cargs)
        else:
            guard = adapter.guard(device)
            if guard is None:
                rc, ctx = self._invoke_cuda(adapter, device, stream, cargs)
            else:
                with guard:
                    rc, ctx = self._invoke_cuda(adapter, device, stream, cargs)
        if rc:
            self._failed(rc, ctx)

    def _invoke_cuda(self, adapter, device, stream, cargs):
        prog = self.program
        handle = adapter.stream(device, stream, lambda: f"{prog.name}.{self.name}")
        ctx = prog.context(device)
        with prog._lock:
            rc = prog._set_stream(ctx, handle)
            if rc == 0:
                rc = self._fn(ctx, *cargs)
        return rc, ctx

    @property
    def op(self):
        """The entry as a torch.library custom op (parmc::PREFIX_ENTRY_HASH), as torch.compile
        sees it: parameters flattened (one tensor or scalar per field), results one tensor per
        field (a tensor, or a tuple when several)."""
        from . import _torch_op
        return _torch_op.op_for(self)


def _namer(name, p, field):
    """A function giving the name of parameter p (and its field) in messages; its attribute
    `param`, the parameter's own name (what a message's code names it)."""
    f = "" if field is None else f" field {field}"

    def where():
        return f"{name}: parameter '{p.name}'{f}"
    where.param = p.name if field is None else f"{p.name}[{field}]"
    return where


# Set by enable_torch: while torch.compile traces, a call goes through the entry's custom op
# (_torch_op.py), which the graph keeps; these are plain globals so that the tracer reads
# them as constants.
_compiling = _op_call = None


def enable_torch(program):
    """Once PyTorch is imported: registers program's entries as custom ops (before any
    tracing, which could not register them) and routes traced calls through them."""
    global _compiling, _op_call
    torch = _modules.get("torch")
    is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None)
    if is_compiling is None or not hasattr(torch, "library"):
        return
    from . import _torch_op
    try:
        for ef in program.entries.values():
            _torch_op.op_for(ef)
    except Exception as e:     # an old PyTorch: calls still work, torch.compile breaks its graph at them
        warnings.warn(f"parmc: the entries of {program.name} are not torch custom ops ({e}); torch.compile will "
                      "run them outside its graph")
        return
    _compiling, _op_call = is_compiling, _torch_op.call
