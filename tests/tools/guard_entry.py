#!/usr/bin/env python3
"""The entry description that tests/tools/guard_main.c is compiled with:
guard_entry.py HEADER ENTRY > entry.h

HEADER is the API header parmc wrote beside an output; its comment line
"/* entry NAME: parameters T (by value), [n] T, T, ...; results [n] T, ...;
..." gives the fields' types and the run-time scalar parameters' (bool and
u8 are both uint8_t in the prototype); the prototype "int PREFIX_NAME(PREFIX_ctx
*ctx, ..." gives the API's prefix, which the drivers' names take through
GUARD_API(ctx_create) and GUARD_STATUS(ERROR_ALIAS); a prototype ending in
"size_t rows, size_t row_len)" is an entry over rows of any length, whose
input starts with the row length. An entry of any other shape than one
array of n elements (and scalars) to one such array has no guard driver
yet: exit status 3."""
import re
import sys

CTYPES = {"bool": "uint8_t", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
          "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
          "f32": "float", "f64": "double"}


def values(text):
    """The values of a header comment's list ("i32 (by value), [n] u32, i32"):
    (length or None for a scalar, [field types]) each."""
    out = []
    for token in text.split(", "):
        if token.endswith(" (by value)") or token.endswith(" (one element)"):
            out.append((None, [token.split()[0]]))
        elif token.startswith("["):
            length, field = token.split()
            out.append((length, [field]))
        else:
            out[-1][1].append(token)
    return out


def one_array(params, results):
    """(input fields, output fields, [(scalar type, "before" or "after")])
    of an entry of one array of n elements to one such result, its other
    parameters scalars, or None."""
    ps, rs = values(params), values(results)
    arrays = [k for k, (length, _) in enumerate(ps) if length]
    if len(arrays) != 1 or ps[arrays[0]][0] != "[n]" or len(rs) != 1 or rs[0][0] != "[n]":
        return None
    at = arrays[0]
    scalars = [(fields[0], "before" if k < at else "after") for k, (length, fields) in enumerate(ps) if not length]
    return ps[at][1], rs[0][1], scalars


def main():
    header, entry = sys.argv[1], sys.argv[2]
    text = open(header).read()
    m = re.search(r"/\* entry %s: parameters (.*?); results (.*?); " % re.escape(entry), text)
    if not m:
        sys.exit("guard_entry.py: no entry '%s' in %s" % (entry, header))
    shape = one_array(m.group(1), m.group(2))
    if not shape:
        sys.exit(3)
    ins, outs, scalars = shape
    api = re.search(r"int (\w+)_%s\(\1_ctx \*ctx" % re.escape(entry), text)
    if not api:
        sys.exit("guard_entry.py: no prototype of entry '%s' in %s" % (entry, header))
    prefix = api.group(1)
    include = header.rsplit("/", 1)[-1]
    before = ["*(const %s *)(const void *)guard_args[%d].bytes" % (CTYPES[t], k) for k, (t, at) in enumerate(scalars) if at == "before"]
    after = ["*(const %s *)(const void *)guard_args[%d].bytes" % (CTYPES[t], k) for k, (t, at) in enumerate(scalars) if at == "after"]
    args = before + ["(const %s *)(in)[%d]" % (CTYPES[t], k) for k, t in enumerate(ins)] + after
    args += ["(%s *)(out)[%d]" % (CTYPES[t], k) for k, t in enumerate(outs)]
    print('#include "%s"' % include)
    print("#define GUARD_API(name) %s_##name" % prefix)
    print("#define GUARD_STATUS(name) %s_##name" % prefix.upper())
    print("#define GUARD_NIN %d" % len(ins))
    print("#define GUARD_NOUT %d" % len(outs))
    print("#define GUARD_NARGS %d" % len(scalars))
    print("static const char *const guard_in_types[] = {%s};" % ", ".join('"%s"' % t for t in ins))
    print("static const char *const guard_out_types[] = {%s};" % ", ".join('"%s"' % t for t in outs))
    # the run-time scalar parameters: types, and whether each comes before the array
    print("static const char *const guard_arg_types[] = {%s};" % ", ".join(['"%s"' % t for t, _ in scalars] + ["0"]))
    print("static const int guard_arg_before[] = {%s};" % ", ".join(["%d" % (at == "before") for _, at in scalars] + ["0"]))
    print("static union { int64_t align; unsigned char bytes[8]; } guard_args[%d];" % (len(scalars) + 1))
    # an entry over rows of any length takes (rows, row_len): the input starts with the row length
    rows = re.search(r"int %s_%s\([^)]*size_t rows, size_t row_len\)" % (prefix, re.escape(entry)), text) is not None
    print("#define GUARD_ROWS %d" % rows)
    size = "(n) / guard_row_len, guard_row_len" if rows else "(n)"
    print("#define GUARD_CALL(ctx, in, out, n) %s_%s((ctx), %s, %s)" % (prefix, entry, ", ".join(args), size))


main()
