#!/usr/bin/env python3
"""manifest_check.py NAME.json NAME.h: the manifest describes the header.

From the manifest alone, by the calling convention of docs/manifest.md,
writes each entry's C prototype (types only) and compares it with the
header's, which must declare exactly those entries (besides the context
functions). Also checks the keys and types the format promises. Prints
"manifest: N entries match" or the differences (exit 1)."""
import json
import re
import sys

CTYPES = {"bool": "uint8_t", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
          "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
          "f32": "float", "f64": "double"}
CONTEXT = ("ctx_create", "ctx_destroy", "error_string", "ctx_stream", "ctx_set_stream", "ctx_message")


def expected(m, e):
    types = ["%s_ctx *" % m["prefix"]]
    for p in e["params"]:
        if p["kind"] == "scalar":
            types.append(CTYPES[p["fields"][0]])
        else:
            types += ["const %s *" % CTYPES[f] for f in p["fields"]]
    for r in e["results"]:
        types += ["%s *" % CTYPES[f] for f in r["fields"]]
    if "rows" in e:
        types += ["size_t", "size_t"]   # rows, row_len
    elif any(v["kind"] == "array" for v in e["params"] + e["results"]):
        types.append("size_t")
    return types


def normal(ctype):
    """ "const int32_t *" and "const int32_t*" alike """
    return re.sub(r"\s+", " ", ctype).replace(" *", "*").strip()


def declared(header, prefix):
    """the header's entry prototypes: name -> the parameters' types, their names dropped"""
    protos = {}
    for name, args in re.findall(r"^int (\w+)\((.*)\);$", open(header).read(), re.M):
        if name[len(prefix) + 1:] not in CONTEXT:
            protos[name] = [normal(re.sub(r"\w+$", "", a.strip())) for a in args.split(",")]
    return protos


def shape_problems(m):
    problems = []
    for key, kind in (("format", str), ("version", int), ("parmc_version", str), ("source", str),
                      ("target", str), ("prefix", str), ("header", str), ("entries", list)):
        if not isinstance(m.get(key), kind):
            problems.append("key %s missing or not a %s" % (key, kind.__name__))
    if m.get("format") != "parmc-manifest" or m.get("version") != 1 or m.get("target") not in ("c", "cuda"):
        problems.append("format, version or target wrong")
    for e in m.get("entries", []):
        if not isinstance(e.get("any_length"), bool) or (e["any_length"] and not isinstance(e.get("max_n"), int)):
            problems.append("entry %s: any_length missing, or max_n missing where it is true" % e["name"])
        nvals = (len(e["params"]), len(e["results"]))
        for s in e["sizes"]:
            if (len(s["params"]), len(s["results"])) != nvals:
                problems.append("entry %s: a size whose lengths do not match the values" % e["name"])
            for v, n in zip(e["params"] + e["results"], s["params"] + s["results"]):
                if (v["kind"] == "scalar") != (n is None):
                    problems.append("entry %s: a length for a scalar or none for an array" % e["name"])
    return problems


def main():
    m = json.load(open(sys.argv[1]))
    problems = shape_problems(m)
    protos = declared(sys.argv[2], m["prefix"])
    for e in m["entries"]:
        want = [normal(t) for t in expected(m, e)]
        got = protos.pop(e["symbol"], None)
        if got is None:
            problems.append("entry %s: no %s in the header" % (e["name"], e["symbol"]))
        elif got != want:
            problems.append("entry %s: header %s, manifest %s" % (e["name"], got, want))
    for name in protos:
        problems.append("the header declares %s, which the manifest does not list" % name)
    for p in problems:
        print("manifest: " + p)
    if not problems:
        print("manifest: %d entries match" % len(m["entries"]))
    sys.exit(1 if problems else 0)


main()
