#!/usr/bin/env python3
"""The entry description that tests/tools/guard_main.c is compiled with:
guard_entry.py HEADER ENTRY > entry.h

HEADER is the API header parmc wrote beside a --target=c output; its comment
line "/* entry NAME, fields T, ... -> T, ...[, scalar parameters T before|after,
...]: ..." gives the fields' types and the run-time scalar parameters' (bool
and u8 are both uint8_t in the prototype); the prototype "int PREFIX_NAME(PREFIX_ctx
*ctx, ..." gives the API's prefix, which the drivers' names take through
GUARD_API(ctx_create) and GUARD_STATUS(ERROR_ALIAS); a prototype ending in
"size_t rows, size_t row_len)" is an entry over rows of any length, whose
input starts with the row length. An entry of any other shape (an entry
graph: "/* entry NAME: parameters ...") has no guard driver yet: exit status 3."""
import re
import sys

CTYPES = {"bool": "uint8_t", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
          "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
          "f32": "float", "f64": "double"}


def main():
    header, entry = sys.argv[1], sys.argv[2]
    text = open(header).read()
    m = re.search(r"/\* entry %s, fields ([a-z0-9, ]+) -> ([a-z0-9, ]+?)(?:, scalar parameters ([a-z0-9, ]+))?:"
                  % re.escape(entry), text)
    if not m and re.search(r"/\* entry %s: parameters" % re.escape(entry), text):
        sys.exit(3)
    if not m:
        sys.exit("guard_entry.py: no entry '%s' in %s" % (entry, header))
    api = re.search(r"int (\w+)_%s\(\1_ctx \*ctx" % re.escape(entry), text)
    if not api:
        sys.exit("guard_entry.py: no prototype of entry '%s' in %s" % (entry, header))
    prefix = api.group(1)
    ins, outs = ([t.strip() for t in g.split(",")] for g in m.groups()[:2])
    scalars = [s.split() for s in m.group(3).split(",")] if m.group(3) else []
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
