"""Reading a parmc manifest (NAME.json beside NAME.h, docs/api.md): the entries, their
parameters and results, field types and accepted lengths, checked as it is read so that a
call never meets a malformed description."""
import json

from ._errors import ManifestError
from ._types import C_TYPES

FORMAT = "parmc-manifest"
VERSIONS = (1,)


class Param:
    """A parameter (name set) or a result (name None): kind "array" or "scalar", fields the
    element types, one per tuple field."""
    __slots__ = ("name", "kind", "fields")

    def __init__(self, name, kind, fields):
        self.name, self.kind, self.fields = name, kind, fields


class Lengths:
    """The lengths an entry accepts. `sizes` rows give exact ones: n (the length of the first
    array parameter, else of the first array result) and every array's length. An entry
    marked "any_length" also accepts every n in min_n..max_n; its arrays' lengths scale with n
    as in its largest row. An entry with "rows": {"max_rows": R, "max_row_len": L} takes its
    first array as rows of row_len elements (any rows <= R, row_len <= L), and its function
    takes (rows, row_len) in place of n. With "row_cut": k (a result row length), its array
    results of another length than the padded parameter's hold k elements a row (cut[i]).
    With "segments" (docs/language.md 7.3): the padded parameter is a flat array of any n up
    to max_n, two other parameters give the starts and lengths of its `rows` rows (segments)
    of up to max_row_len, each as long as the rows; results of the padded length hold n
    elements (full[i]: written only in the segments), cut ones all the rows of k, and the
    other arrays keep the lengths of the one size."""

    def __init__(self, rows, any_length, min_n, max_n, grid=None, scales=True, row_cut=None, cut=(),
                 padded=None, segments=None, full=()):
        self.rows = {r.get("n"): r for r in rows}
        self.any_length, self.min_n, self.max_n = any_length, min_n, max_n
        # whether the lengths scale with n as described above: an entry of any length that is
        # a graph (other arrays, a padded parameter after another array) does not
        self.scales = scales
        self.grid = grid    # (max_rows, max_row_len) or None
        self.row_cut, self.cut = row_cut, cut
        self.padded = padded    # the index in params of the padded parameter, or None
        # (starts, lens, rows, max_row_len): starts and lens indices in params; or None
        self.segments, self.full = segments, full
        self.largest = max(rows, key=lambda r: r.get("n", 0)) if rows else None

    def row(self, n):
        """The row for n: {"n", "params", "results"}, or None when n is not accepted."""
        if self.segments is not None:
            return self._segments_row(n)
        r = self.rows.get(n)
        if r is not None or not self.any_length or not self.min_n <= n <= self.max_n:
            return r
        big = self.largest
        scale = lambda length: None if length is None else length * n // big["n"]
        return {"n": n, "params": [scale(x) for x in big["params"]],
                "results": [scale(x) for x in big["results"]]}

    def _segments_row(self, n):
        """The lengths of a call of an entry with segments whose padded parameter has n
        elements (n, here, as the C function takes it); None beyond max_n."""
        if not 0 <= n <= self.max_n:
            return None
        one = next(iter(self.rows.values()))
        starts, lens, rows, _ = self.segments
        params = [n if i == self.padded else rows if i in (starts, lens) else length
                  for i, length in enumerate(one["params"])]
        results = [n if full else rows * self.row_cut if cut else length
                   for length, full, cut in zip(one["results"], self.full, self.cut or (False,) * len(self.full))]
        return {"n": n, "params": params, "results": results}

    def describe(self):
        if self.segments is not None:
            return (f"any length up to {self.max_n}, in {self.segments[2]} segments of up to {self.segments[3]} "
                    "elements")
        if self.grid:
            return f"up to {self.grid[0]} rows of up to {self.grid[1]} elements"
        if self.any_length:
            return f"any length from {self.min_n} to {self.max_n}"
        return ", ".join(str(n) for n in sorted(self.rows))


class Entry:
    __slots__ = ("name", "symbol", "params", "results", "lengths", "has_n")

    def __init__(self, name, symbol, params, results, lengths):
        self.name, self.symbol, self.params, self.results = name, symbol, params, results
        self.lengths = lengths
        self.has_n = any(p.kind == "array" for p in params + results)


class Manifest:
    __slots__ = ("path", "target", "prefix", "header", "source", "parmc_version", "entries")


def _need(cond, where, what):
    if not cond:
        raise ManifestError(f"{where}: {what}")


def _fields(obj, where):
    f = obj.get("fields")
    _need(isinstance(f, list) and f and all(isinstance(t, str) and t in C_TYPES for t in f),
          where, f"'fields' must be a non-empty list of element types ({', '.join(C_TYPES)}), got {f!r}")
    return list(f)


def _param(obj, where, named):
    _need(isinstance(obj, dict), where, "expected an object")
    kind = obj.get("kind")
    _need(kind in ("array", "scalar"), where, f"'kind' must be \"array\" or \"scalar\", got {kind!r}")
    name = obj.get("name") if named else None
    if named:
        _need(isinstance(name, str) and name, where, "a parameter needs a 'name'")
    return Param(name, kind, _fields(obj, where))


def _lengths(obj, params, results, where):
    rows = obj.get("sizes", [])
    _need(isinstance(rows, list), where, "'sizes' must be a list")
    has_array = any(p.kind == "array" for p in params + results)
    for i, r in enumerate(rows):
        w = f"{where}: sizes[{i}]"
        _need(isinstance(r, dict), w, "expected an object")
        if has_array:   # n is left out when the entry has no array
            _need(isinstance(r.get("n"), int) and r["n"] >= 0, w, "needs an integer 'n'")
        for key, specs in (("params", params), ("results", results)):
            lens = r.get(key)
            _need(isinstance(lens, list) and len(lens) == len(specs), w, f"'{key}' must list one length per {key[:-1]}")
            for spec, length in zip(specs, lens):
                ok = length is None if spec.kind == "scalar" else isinstance(length, int) and length >= 0
                _need(ok, w, f"'{key}' has {length!r} for a {spec.kind}")
    any_length = obj.get("any_length", False) is True
    min_n, max_n = obj.get("min_n", 0), obj.get("max_n")
    if any_length:
        _need(isinstance(max_n, int) and isinstance(min_n, int) and 0 <= min_n <= max_n and rows, where,
              "an 'any_length' entry needs integer 'min_n' <= 'max_n' and at least one row in 'sizes'")
    grid = obj.get("rows")
    if grid is not None:
        _need(isinstance(grid, dict) and all(isinstance(grid.get(k), int) and grid[k] > 0
                                             for k in ("max_rows", "max_row_len"))
              and params and params[0].kind == "array", where,
              "'rows' needs positive integers 'max_rows' and 'max_row_len', and an array as the first parameter")
        grid = (grid["max_rows"], grid["max_row_len"])
        any_length, min_n, max_n = True, 0, grid[0] * grid[1]
    _need(rows or not has_array, where, "an entry with arrays needs at least one row in 'sizes'")
    padded = obj.get("padded")
    row_cut = obj.get("row_cut")
    _need(row_cut is None or (isinstance(row_cut, int) and row_cut >= 1 and any_length and padded is not None), where,
          "'row_cut' must be a positive integer, of an entry with a padded parameter")
    scales, cut, segments, full = True, (), obj.get("segments"), ()
    if any_length and padded is not None:
        _need(isinstance(padded, int) and 0 <= padded < len(params) and params[padded].kind == "array", where,
              "'padded' must be the index of an array parameter")
        arrays = [i for i, p in enumerate(params) if p.kind == "array"]
        # results of another length: cut to rows of row_cut, or lengths that do not scale
        cut = tuple(row_cut is not None and x is not None and x != rows[0]["params"][padded] for x in rows[0]["results"])
        scales = arrays == [padded] and all(x is None or x == r["params"][padded] or row_cut is not None
                                            for r in rows for x in r["results"])
    else:
        padded = None
    if segments is not None:
        segments = _segments(segments, params, padded, grid, rows, where)
        full = tuple(x is not None and x == rows[0]["params"][padded] for x in rows[0]["results"])
    return Lengths(rows, any_length, min_n, max_n, grid, scales, row_cut, cut, padded, segments, full)


def _segments(obj, params, padded, grid, rows, where):
    """(starts, lens, rows, max_row_len) of an entry with segments, checked: two array
    parameters of i32 or i64 other than the padded one, one size, no rows of its own."""
    _need(isinstance(obj, dict) and padded is not None and grid is None and len(rows) == 1, where,
          "'segments' must be an object, of an 'any_length' entry with a 'padded' parameter, one size and no 'rows'")
    keys = ("starts", "lens", "rows", "max_row_len")
    _need(all(isinstance(obj.get(k), int) and not isinstance(obj.get(k), bool) for k in keys), where,
          f"'segments' needs integers {', '.join(repr(k) for k in keys)}")
    starts, lens, count, max_row_len = (obj[k] for k in keys)
    for i in (starts, lens):
        _need(0 <= i < len(params) and i != padded and params[i].kind == "array" and len(params[i].fields) == 1
              and params[i].fields[0] in ("i32", "i64"), where,
              "'segments': 'starts' and 'lens' must be the indices of i32 or i64 array parameters other than the "
              "padded one")
    _need(starts != lens and count >= 1 and max_row_len >= 1, where,
          "'segments': 'starts' and 'lens' must differ, 'rows' and 'max_row_len' be positive")
    return starts, lens, count, max_row_len


def _entry(obj, where):
    _need(isinstance(obj, dict), where, "expected an object")
    name, symbol = obj.get("name"), obj.get("symbol")
    _need(isinstance(name, str) and name.isidentifier(), where, f"bad entry name {name!r}")
    where = f"{where} ({name})"
    _need(isinstance(symbol, str) and symbol.isidentifier(), where, f"bad symbol {symbol!r}")
    ps, rs = obj.get("params"), obj.get("results")
    _need(isinstance(ps, list) and isinstance(rs, list), where, "'params' and 'results' must be lists")
    params = [_param(p, f"{where}: params[{i}]", True) for i, p in enumerate(ps)]
    results = [_param(r, f"{where}: results[{i}]", False) for i, r in enumerate(rs)]
    _need(results, where, "an entry needs a result")
    return Entry(name, symbol, params, results, _lengths(obj, params, results, where))


def parse(text, path="<manifest>"):
    try:
        obj = json.loads(text)
    except ValueError as e:
        raise ManifestError(f"{path}: not JSON: {e}") from None
    _need(isinstance(obj, dict) and obj.get("format") == FORMAT, path, f"not a {FORMAT} (no \"format\": \"{FORMAT}\")")
    _need(obj.get("version") in VERSIONS, path,
          f"manifest version {obj.get('version')!r}; this parmc package reads version {', '.join(map(str, VERSIONS))}: "
          "update the package or the compiler so that they match")
    m = Manifest()
    m.path = path
    m.target = obj.get("target")
    _need(m.target in ("cuda", "c"), path, f"'target' must be \"cuda\" or \"c\", got {m.target!r}")
    m.prefix = obj.get("prefix")
    _need(isinstance(m.prefix, str) and m.prefix.isidentifier(), path, f"bad prefix {m.prefix!r}")
    m.header, m.source, m.parmc_version = obj.get("header"), obj.get("source"), obj.get("parmc_version")
    entries = obj.get("entries")
    _need(isinstance(entries, list) and entries, path, "'entries' must be a non-empty list")
    m.entries = [_entry(e, f"{path}: entries[{i}]") for i, e in enumerate(entries)]
    return m


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ManifestError(f"cannot read the manifest {path}: {e.strerror}") from None
    return parse(text, str(path))
