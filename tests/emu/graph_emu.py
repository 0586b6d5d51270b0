#!/usr/bin/env python3
"""graph_emu.py PROG.cu ENTRY OUT.cpp: the nodes and ENTRY_run of an entry
graph's CUDA (parmc PROG.parm -o PROG.cu) as C++ for the CPU
(graph_mock.h): kernels become functions, launches calls of launch(), and
the dynamic shared memory of a chain's kernels one buffer."""
import re
import sys

src = open(sys.argv[1]).read()
entry = sys.argv[2]
ops = src[src.index("// start of parm_ops.h"):src.index("// end of parm_ops.h")]
ops = ops.replace("__host__ __device__", "").replace("__device__", "")
# the first node's code: an entry of one chain is named as the entry, any other's nodes
# BASE_nN (plan.c, plan_node_name)
start = min(i for i in (src.find(f"/* parm_{entry}{node}: ") for node in ("", "_n0")) if i >= 0)
# the tables that element code reads (opt_tables.c), defined before the nodes
tables = "".join(re.findall(r"^static PARM_(?:CONST_)?TABLE .*?^\};\n", src[:start], re.M | re.S))
run = src.index("static int parm_%s_run(" % entry)
body = src[start:src.index("\n}\n", run) + 3]
# a persistent kernel (--tile-buffers) on EMU_GRID blocks (cp_async.h)
body = re.sub(r"parm_persistent_grid\(ctx, (\d+)u, per_sm\)", r"EMU_GRID(\1)", body)
# a kernel of a cluster's tile (__cluster_dims__) launches its blocks in clusters
clusters = dict((k, n) for n, k in re.findall(r"^__cluster_dims__\((\d+), 1, 1\)\n(\w+)\(", body, re.M))
body = re.sub(r"^__cluster_dims__\(\d+, 1, 1\)\n", "", body, flags=re.M)
body = re.sub(r"([\w<>]+)<<<([^,]+), ([^,]+), [^,]+, (ctx->stream|s)>>>\((.*)\);",
              lambda m: "launch(%s, %s, [=] { %s(%s); }%s);" % (m.group(2), m.group(3), m.group(1), m.group(5),
                                                              ", " + clusters[m.group(1)] if m.group(1) in clusters else ""),
              body)
body = body.replace("static __global__ void", "static void")
# a chain's LOCAL kernels: their dynamic shared memory is the block's buffer
body = re.sub(r"extern __shared__ (__align__\(\d+\) )?unsigned char parm_shared\[\];",
              "unsigned char *parm_shared = emu_shared;", body)
with open(sys.argv[3], "w") as f:
    f.write('#include "graph_mock.h"\n' + ops +
            "\nstatic int parm_parity(uint64_t x) { return __builtin_parityll(x); }\n" + tables + body)
