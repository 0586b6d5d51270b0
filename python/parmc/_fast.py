"""The fast path of a call: a function generated per entry and array library that does the
checks of a well-formed call with no loop and no method call of its own, and hands anything
else (a wrong dtype, a length not accepted, a stream= argument, a scalar that is not a plain
int or float, ...) back to the checked path, which raises the precise exception. It keeps
the Python cost of a call to a few microseconds over ctypes' own (bench/python_overhead.py)."""
from ._types import _F32_MAX, _int_range

SLOW = object()     # returned when the checked path must handle the call


def _scalar_test(t, v):
    """An expression true when v can be passed as a scalar of type t without conversion."""
    if t == "bool":
        return f"({v} is True or {v} is False)"
    if t[0] in "iu":
        lo, hi = _int_range(t)
        return f"(type({v}) is int and {lo} <= {v} <= {hi})"
    if t == "f32":
        return f"(type({v}) is float and -{_F32_MAX!r} <= {v} <= {_F32_MAX!r})"
    # an int as large as a double's range (10**400) is ctypes' ArgumentError: the checked path's
    # float() refuses it as out of range; 2^1023 and less always convert
    return f"(type({v}) is float or (type({v}) is int and -{1 << 1023} <= {v} <= {1 << 1023}))"


def build(ef, adapter, dtypes):
    """The fast function for entry function ef and adapter (None where the entry does not
    suit one: no array parameter, a tuple-typed scalar). It takes the argument tuple and
    returns the result or SLOW. Entries of rows, with a result row length or with segments
    take the checked path, which shapes their results (and with segments starts those of the
    padded length as zeros)."""
    entry, prog = ef.entry, ef.program
    if (not any(p.kind == "array" for p in entry.params) or entry.lengths.grid or not entry.lengths.scales
            or entry.lengths.row_cut is not None or entry.lengths.segments is not None
            or any(p.kind == "scalar" and len(p.fields) > 1 for p in entry.params)):
        return None
    snip = adapter.fast_snippets()
    env = {"SLOW": SLOW, "fn": ef._fn, "rows": entry.lengths.rows, "any_row": entry.lengths.row, "lock": prog._lock,
           "contexts": prog._contexts, "failed": ef._failed, **snip["env"]}
    lines, cargs, first = [f"if len(args) != {len(entry.params)}: return SLOW"], [], None
    for i, (p, dts) in enumerate(zip(entry.params, dtypes[0])):
        if p.kind == "scalar":
            v = f"s{i}"
            lines.append(f"{v} = args[{i}]")
            lines.append(f"if not {_scalar_test(p.fields[0], v)}: return SLOW")
            cargs.append(v)
            continue
        names = [f"a{i}"] if len(p.fields) == 1 else [f"a{i}_{k}" for k in range(len(p.fields))]
        if len(p.fields) == 1:
            lines.append(f"a{i} = args[{i}]")
        else:
            lines.append(f"t{i} = args[{i}]")
            lines.append(f"if type(t{i}) is not tuple or len(t{i}) != {len(p.fields)}: return SLOW")
            lines.append(f"{', '.join(names)} = t{i}")
        for k, (a, dt) in enumerate(zip(names, dts)):
            env[f"D{i}_{k}"] = dt
            lines.append(f"if not ({snip['check'].format(a=a, D=f'D{i}_{k}')}): return SLOW")
            if first is None:
                first = a
                lines.append(f"n = {snip['size'].format(a=first)}")
                lines.append("row = rows.get(n)")
                if entry.lengths.any_length:
                    lines.append("if row is None: row = any_row(n)")
                lines.append("if row is None: return SLOW")
                if snip["device"]:
                    lines.append(f"dev = {snip['device'].format(a=first)}")
                    lines.append("if dev != current_device(): return SLOW")
            else:
                lines.append(f"if {snip['size'].format(a=a)} != row['params'][{i}]: return SLOW")
                if snip["device"]:
                    lines.append(f"if {snip['device'].format(a=a)} != dev: return SLOW")
            cargs.append(snip["ptr"].format(a=a))
    dev = "dev" if snip["device"] else "None"
    outs = []
    lines.append(f"shape = {first}.shape")
    lines.append("lens = row['results']")
    for j, (r, dts) in enumerate(zip(entry.results, dtypes[1])):
        if r.kind == "scalar":
            lines.append(f"sh{j} = ()")
        else:
            lines.append(f"sh{j} = shape if lens[{j}] == n else (lens[{j}],)")
        fields = []
        for k, dt in enumerate(dts):
            env[f"R{j}_{k}"] = dt
            lines.append(f"o{j}_{k} = {snip['empty'].format(shape=f'sh{j}', D=f'R{j}_{k}', dev=dev)}")
            cargs.append(snip["ptr"].format(a=f"o{j}_{k}"))
            fields.append(f"o{j}_{k}")
        outs.append(fields[0] if len(fields) == 1 else "(" + ", ".join(fields) + ",)")
    cargs.append("n")
    if snip["device"]:
        lines.append("ctx = contexts.get(dev)")
        lines.append("if ctx is None: return SLOW")
        lines.append(f"h = {snip['stream']}")
        lines.append("with lock:")
        lines.append("    rc = set_stream(ctx, h)")
        lines.append(f"    if rc == 0: rc = fn(ctx, {', '.join(cargs)})")
    else:
        lines.append("ctx = contexts.get(None)")
        lines.append("if ctx is None: return SLOW")
        lines.append("with lock:")
        lines.append(f"    rc = fn(ctx, {', '.join(cargs)})")
    lines.append("if rc: failed(rc, ctx)")
    lines.append(f"return {outs[0] if len(outs) == 1 else '(' + ', '.join(outs) + ',)'}")
    if snip["device"]:
        env["set_stream"] = prog._set_stream
    src = "def fast(args):\n" + "".join(f"    {line}\n" for line in lines)
    exec(compile(src, f"<parmc fast path of {prog.name}.{entry.name}>", "exec"), env)
    fast = env["fast"]
    fast.source = src
    return fast

