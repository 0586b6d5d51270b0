"""An entry as a torch.library custom op (EntryFunction.op), so that torch.compile keeps it in
its graph: parameters flattened to one tensor per field and one scalar per field, results
to one tensor per field; a fake implementation gives the results' shapes and dtypes without
running anything. EntryFunction.__call__ goes through it while torch.compile traces."""
import hashlib

import torch

from ._types import dtype_name

_ops = {}   # op name -> op, so that a program loaded twice registers its entries once
_lib = None  # the torch.library.Library of the parmc namespace, kept alive with the module
_SCALAR_SCHEMA = {"bool": "bool", "f32": "float", "f64": "float"}


def _names(entry):
    """Per flattened parameter: a name for the schema and its type there."""
    out = []
    for p in entry.params:
        base = p.name if p.name not in ("self", "out") else p.name + "_"
        for k, t in enumerate(p.fields):
            name = base if len(p.fields) == 1 else f"{base}_{k}"
            out.append((name, "Tensor" if p.kind == "array" else _SCALAR_SCHEMA.get(t, "int")))
    return out


def _regroup(specs, flat):
    out, i = [], 0
    for s in specs:
        k = len(s.fields)
        out.append(flat[i] if k == 1 else tuple(flat[i:i + k]))
        i += k
    return out


def op_for(ef):
    """The custom op of entry function ef, registered on first use."""
    if getattr(ef, "_op", None) is not None:
        return ef._op
    entry, prog = ef.entry, ef.program
    digest = hashlib.sha1(prog.library_path.encode()).hexdigest()[:10]
    name = f"parmc::{prog.manifest.prefix}_{entry.name}_{digest}"
    op = _ops.get(name)
    if op is None:
        op = _ops[name] = _register(ef, name)
    ef._op, ef._op_nres = op, sum(len(r.fields) for r in entry.results)
    ef._op_params = tuple(len(p.fields) for p in entry.params)
    ef._op_results = tuple(len(r.fields) for r in entry.results)
    return op


def _register(ef, name):
    """Defines the op in the parmc namespace (torch.library.Library: no signature inspection,
    and works from PyTorch 2.2 on), with one implementation for every device and a fake one."""
    global _lib
    entry = ef.entry
    nres = sum(len(r.fields) for r in entry.results)
    results = "Tensor" if nres == 1 else "(" + ", ".join(["Tensor"] * nres) + ")"
    schema = "(" + ", ".join(f"{t} {n}" for n, t in _names(entry)) + f") -> {results}"

    def run(*flat):
        res = ef._checked(_regroup(entry.params, flat), None, None)
        out = _flatten_results(entry, (res,) if len(entry.results) == 1 else res)
        return out[0] if nres == 1 else tuple(out)

    def fake(*flat):
        return _fake(ef, flat, nres)

    if _lib is None:
        _lib = torch.library.Library("parmc", "FRAGMENT")
    short = name.split("::")[1]
    _lib.define(short + schema)
    _lib.impl(short, run, "CompositeExplicitAutograd")
    register_fake = getattr(torch.library, "register_fake", None) or torch.library.impl_abstract
    register_fake(name, fake, lib=_lib)
    return getattr(torch.ops.parmc, short)


def _flatten_results(entry, res):
    out = []
    for r, v in zip(entry.results, res):
        out += [v] if len(r.fields) == 1 else list(v)
    return out


def _fake(ef, flat, nres):
    """The results' shapes and dtypes, as the call makes them (EntryFunction._result_shapes):
    where every array result is as long as the first array, its shape (symbolic under dynamic
    shapes); else from the concrete lengths."""
    entry = ef.entry
    arrays = [t for t, (p, k) in zip(flat, _field_params(entry)) if p.kind == "array" and k == 0]
    lengths = entry.lengths
    same = lengths.segments is None and lengths.row_cut is None and all(
        length == row["n"] for row in lengths.rows.values()
        for r, length in zip(entry.results, row["results"]) if r.kind == "array")
    if same:
        shapes = [() if r.kind == "scalar" else arrays[0].shape for r in entry.results]
    else:
        sizes = [int(t.numel()) for t in arrays]
        if lengths.grid:
            ef._grid(tuple(int(d) for d in arrays[0].shape))
        shapes = ef._result_shapes(ef._row(sizes, None), tuple(int(d) for d in arrays[ef._n_at].shape))
    out = []
    for shape, r in zip(shapes, entry.results):
        out += [arrays[0].new_empty(shape, dtype=getattr(torch, dtype_name(t))) for t in r.fields]
    return out[0] if nres == 1 else tuple(out)


def _field_params(entry):
    return [(p, k) for p in entry.params for k in range(len(p.fields))]


def call(ef, args):
    """ef(*args) through its op (registered by op_for before tracing): what torch.compile
    traces, so only tuples and ints (the fields per parameter and per result)."""
    flat = []
    for k, a in zip(ef._op_params, args):
        flat += [a] if k == 1 else list(a)
    res = ef._op(*flat)
    res = (res,) if ef._op_nres == 1 else tuple(res)
    out, i = [], 0
    for k in ef._op_results:
        out.append(res[i] if k == 1 else tuple(res[i:i + k]))
        i += k
    return out[0] if len(out) == 1 else tuple(out)
