"""parmc's entries and drop-ins on JAX arrays, under jax.jit too, through XLA's FFI (jax.ffi).

An entry's call becomes an XLA custom call of a small C++ handler (the shim, below) that XLA
runs on its own thread (the C target) or stream (CUDA). The shim depends only on the call's
signature (how many buffers, the scalars' types, how many lengths), not on the program: the
program's functions reach it as attributes holding their addresses, so one shim, built once
into the cache with the C++ compiler against jaxlib's FFI headers, serves every program of
that signature. The shim keeps a context per program and device, created at its first call
on XLA's thread (where XLA has made the device current) and kept for the process, and calls
under a mutex, as the ctypes path calls under the program's lock: a context runs one call at
a time. Scalar parameters are attributes, so they are static under jit (Python numbers, not
traced values); arrays are buffers in XLA's row-major layout."""
import ctypes
import sys
import threading

from . import _build
from ._errors import ArgumentTypeError, ArgumentValueError
from ._types import dtype_name

# parm scalar type -> the C++ type of its attribute and parameter (bool: a byte, as in the C ABI)
_CXX = {"bool": "uint8_t", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
        "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t", "f32": "float", "f64": "double"}
_NUMPY_ATTR = {"bool": "uint8"}     # the attribute's NumPy type where it is not the dtype's

_targets = {}       # signature -> the registered FFI target's name
_attrs = {}         # entry -> its functions' addresses (_program_attrs); the entries keep their programs
_kept = []          # the shims' libraries, loaded for the process
_lock = threading.Lock()


def is_jax(a):
    """Whether a is a JAX array or a tracer of one (under jit, grad, vmap)."""
    return type(a).__module__.split(".")[0] in ("jax", "jaxlib") and hasattr(a, "shape") and hasattr(a, "dtype")


def traced(a):
    """Whether a is a JAX tracer (under jit, vmap, grad): a value that has no number while
    traced, so that it cannot be a static argument."""
    jax = sys.modules.get("jax")
    if jax is None or type(a).__module__.split(".")[0] not in ("jax", "jaxlib"):
        return False
    tracer = getattr(getattr(jax, "core", None), "Tracer", None)
    return isinstance(a, tracer) if tracer is not None else "Tracer" in type(a).__name__


def static_refusal(a, what):
    """For a traced a: the end of the message that refuses it where a static `what` ("bool",
    "int") is taken; else ""."""
    if not traced(a):
        return ""
    return (f", got a traced JAX value ({type(a).__name__}): under jax.jit it must be static, a Python or NumPy "
            f"{what} (jax.jit(f, static_argnames=...) keeps it one)")


def any_jax(args):
    for a in args:
        if is_jax(a) or (isinstance(a, (tuple, list)) and any(is_jax(f) for f in a)):
            return True
    return False


def platform(a):
    """"cuda" or "cpu": where a lives (a tracer: where jit runs by default)."""
    import jax
    devices = getattr(a, "devices", None)
    try:
        found = {d.platform for d in devices()} if devices is not None else None
    except Exception:      # a tracer's devices() raises: it has none yet
        found = None
    name = found.pop() if found and len(found) == 1 else jax.default_backend()
    return "cuda" if name in ("gpu", "cuda") else name


def dtype(t):
    import numpy
    import jax.numpy as jnp     # bfloat16 and float16 too, as jnp names them
    return numpy.dtype(jnp.dtype(dtype_name(t)))


ARRAY = "array"     # in a call's inputs: a buffer, where a scalar's is its parm type


def call(entry, inputs, results, tail):
    """The results (one JAX array per field of results, each given as (shape, dtype) or
    (shape, dtype, zeros): a result that starts as zeros, as an entry with segments writes
    only in them) of the compiled entry on its inputs, one per field in the C function's order
    (parameter order): (ARRAY, a JAX array) or (a scalar's parm type, its value); and the
    lengths (n, or rows and row_len). A result that starts as zeros is an input of zeros that
    XLA gives the call as that result's buffer (input_output_aliases); the shim does not pass
    it on."""
    import jax
    import numpy
    prog = entry.program
    want = "cuda" if prog.cuda else "cpu"
    arrays = [v for kind, v in inputs if kind == ARRAY]
    for a in arrays:
        where = platform(a)
        if where != want:
            raise ArgumentValueError(f"{prog.name}.{entry.name}: a JAX array on {where}; this program is of the "
                                     f"{prog.target} target, which runs on {want} arrays")
    zeroed = [k for k, spec in enumerate(results) if len(spec) > 2 and spec[2]]
    results = [spec[:2] for spec in results]
    target = _target(tuple(kind for kind, _ in inputs), len(results), len(tail), prog.cuda, len(zeroed))
    attrs = _program_attrs(prog, entry)
    scalars = [(kind, v) for kind, v in inputs if kind != ARRAY]
    for k, (t, v) in enumerate(scalars):
        attrs[f"s{k}"] = numpy.dtype(_NUMPY_ATTR.get(t, dtype_name(t))).type(v)
    for k, n in enumerate(tail):
        attrs[f"n{k}"] = numpy.uint64(n)
    for _, dt in results:   # JAX would make such a buffer narrower than the program writes it
        if jax.dtypes.canonicalize_dtype(dt) != dt:
            raise ArgumentTypeError(f"{prog.name}.{entry.name}: a result of dtype {dt} needs jax_enable_x64 "
                                    "(jax.config.update('jax_enable_x64', True))")
    shapes = [jax.ShapeDtypeStruct(tuple(shape), dt) for shape, dt in results]
    if zeroed:
        import jax.numpy as jnp
        aliases = {len(arrays) + i: k for i, k in enumerate(zeroed)}
        arrays += [jnp.zeros(tuple(results[k][0]), results[k][1]) for k in zeroed]
        out = jax.ffi.ffi_call(target, shapes, vmap_method="sequential", input_output_aliases=aliases)(*arrays,
                                                                                                       **attrs)
    else:
        out = jax.ffi.ffi_call(target, shapes, vmap_method="sequential")(*arrays, **attrs)
    return list(out)


def _program_attrs(prog, entry):
    """The addresses of the program's functions that the shim calls, as attributes: worked out
    at the entry's first call, kept with the program (which stays loaded for the process, since
    registered calls name its functions)."""
    with _lock:
        attrs = _attrs.get(entry)
        if attrs is None:
            import numpy

            def address(name):
                return numpy.uint64(ctypes.cast(getattr(prog._lib, name), ctypes.c_void_p).value)
            p = prog.manifest.prefix
            attrs = {"entry": address(entry.entry.symbol), "create": address(f"{p}_ctx_create"),
                     "error_string": address(f"{p}_error_string")}
            if prog.cuda:
                attrs["set_stream"] = address(f"{p}_ctx_set_stream")
            _attrs[entry] = attrs
    return dict(attrs)


def _target(kinds, nresults, ntail, cuda, nzeroed=0):
    """The name of the FFI target of this signature, its shim built and registered once."""
    key = (kinds, nresults, ntail, cuda, nzeroed)
    with _lock:
        name = _targets.get(key)
        if name is None:
            import jax
            text = shim_source(kinds, nresults, ntail, cuda, nzeroed)
            lib = _build.cxx_library(text, "parmc_jax_shim", [jax.ffi.include_dir()])
            name = f"parmc_{'cuda' if cuda else 'cpu'}_{len(_targets)}"
            jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(lib.parmc_jax_call), platform="CUDA" if cuda else "cpu")
            _targets[key] = name
            _kept.append(lib)
    return name


def shim_source(kinds, nresults, ntail, cuda, nzeroed=0):
    """The C++ handler of calls of this signature: the kinds of the inputs in the C function's
    order (ARRAY or a scalar's parm type), the result buffers, the lengths (the module's
    docstring says what it does), and after the inputs nzeroed buffers of zeros that XLA
    aliases to results (call), bound and not passed on. XLA passes the buffers in order and the
    attributes by name."""
    scalar_types = [kind for kind in kinds if kind != ARRAY]
    narrays = len(kinds) - len(scalar_types)
    params = (["void *stream"] if cuda else []) + [f"ffi::AnyBuffer a{k}" for k in range(narrays)]
    params += [f"ffi::AnyBuffer z{k}" for k in range(nzeroed)]
    params += [f"ffi::Result<ffi::AnyBuffer> r{k}" for k in range(nresults)]
    params += ["uint64_t entry", "uint64_t create", "uint64_t error_string"] + (["uint64_t set_stream"] if cuda else [])
    params += [f"{_CXX[t]} s{k}" for k, t in enumerate(scalar_types)] + [f"uint64_t n{k}" for k in range(ntail)]
    ctypes_, args, next_array, next_scalar = ["void *"], ["ctx"], 0, 0
    for kind in kinds:     # the inputs in the C function's order
        if kind == ARRAY:
            ctypes_.append("const void *")
            args.append(f"a{next_array}.untyped_data()")
            next_array += 1
        else:
            ctypes_.append(_CXX[kind])
            args.append(f"s{next_scalar}")
            next_scalar += 1
    ctypes_ += ["void *"] * nresults + ["size_t"] * ntail
    args += [f"r{k}->untyped_data()" for k in range(nresults)] + [f"(size_t)n{k}" for k in range(ntail)]
    bind = (["Ctx<ffi::PlatformStream<void *>>()"] if cuda else []) + ["Arg<ffi::AnyBuffer>()"] * (narrays + nzeroed)
    bind += ["Ret<ffi::AnyBuffer>()"] * nresults
    bind += [f'Attr<uint64_t>("{a}")' for a in ["entry", "create", "error_string"] + (["set_stream"] if cuda else [])]
    bind += [f'Attr<{_CXX[t]}>("s{k}")' for k, t in enumerate(scalar_types)]
    bind += [f'Attr<uint64_t>("n{k}")' for k in range(ntail)]
    device = "ffi::DeviceOrdinal" if cuda else None
    lines = [
        "// parmc's JAX handler of one call signature (python/parmc/_jax.py), generated",
        "#include <cstddef>",
        "#include <cstdint>",
        "#include <map>",
        "#include <mutex>",
        "#include <string>",
        "#include <utility>",
        '#include "xla/ffi/api/ffi.h"',
        "namespace ffi = xla::ffi;",
        f"typedef int (*Entry)({', '.join(ctypes_)});",
        "typedef int (*Create)(void **);",
        "typedef const char *(*ErrorString)(int);",
        "typedef int (*SetStream)(void *, void *);",
        "static std::mutex lock;",
        "static std::map<std::pair<uint64_t, int>, void *> contexts;   // (create, device) -> context",
        "",
        "static ffi::Error failed(uint64_t error_string, int rc, const char *what) {",
        "    const char *text = ((ErrorString)error_string)(rc);",
        '    return ffi::Error(ffi::ErrorCode::kInternal, std::string("parmc: ") + what + ": " +',
        '                      (text ? text : "error " + std::to_string(rc)));',
        "}",
        "",
        f"static ffi::Error call({', '.join(params + (['int32_t device'] if cuda else []))}) {{",
        "    std::lock_guard<std::mutex> held(lock);",
        f"    void *&ctx = contexts[{{create, {'device' if cuda else '0'}}}];",
        "    if (!ctx) {",
        "        int rc = ((Create)create)(&ctx);",
        '        if (rc) { ctx = nullptr; return failed(error_string, rc, "cannot create a context"); }',
        "    }",
    ]
    if cuda:
        lines += ["    int rc = ((SetStream)set_stream)(ctx, stream);",
                  '    if (rc) return failed(error_string, rc, "cannot use XLA\'s stream");']
    else:
        lines += ["    int rc;"]
    lines += [f"    rc = ((Entry)entry)({', '.join(args)});",
              '    if (rc) return failed(error_string, rc, "the entry failed");',
              "    return ffi::Error::Success();",
              "}",
              "",
              "XLA_FFI_DEFINE_HANDLER_SYMBOL(parmc_jax_call, call, ffi::Ffi::Bind()" +
              "".join(f"\n    .{b}" for b in bind + ([f"Ctx<{device}>()"] if cuda else [])) + ");",
              ""]
    return "\n".join(lines)


def numpy():
    import jax.numpy
    return jax.numpy


class _Adapter:
    """What parmc.sort's plans (_sortops._Plan) ask of an array library, for JAX."""
    name = "jax"

    @staticmethod
    def dtype(t):
        return dtype(t)

    @staticmethod
    def empty(shape, dt, device):
        return numpy().zeros(shape, index_dtype() if dt == dtype("i64") else dt)


ADAPTER = _Adapter()


def index_dtype():
    """The dtype of the drop-ins' indices on JAX arrays: int64 with jax_enable_x64, else int32,
    as jax.lax.top_k and jnp.argsort give them."""
    import jax
    return numpy().dtype(jax.dtypes.canonicalize_dtype("int64"))


def plan_run(plan):
    """The run of a parmc.sort, argsort or topk plan on JAX arrays: the entry as a custom call,
    its results shaped as the plan says. The program writes int64 indices: without
    jax_enable_x64 they are written into int32 pairs, whose low words (little-endian) are the
    indices, since no row has 2^31 elements."""
    import numpy as np
    if plan.empty:
        return lambda x: plan.empty_result()
    entry, tail, move_in, finish, named = plan.entry, list(plan.tail), plan.move_in, plan.finish, plan.named
    narrow = index_dtype() != np.dtype("int64")
    specs = [(plan.out_shape + (2,), np.dtype("int32")) if narrow and dt == np.dtype("int64") else (plan.out_shape, dt)
             for dt in plan.dtypes]

    def run(x):
        outs = call(entry, [(ARRAY, move_in(x) if move_in is not None else x)], specs, tail)
        if narrow:
            outs = [o[..., 0] if o.ndim == len(plan.out_shape) + 1 else o for o in outs]
        if finish is not None:
            outs = [finish(o) for o in outs]
        return named(outs) if named is not None else outs[0]
    return run
