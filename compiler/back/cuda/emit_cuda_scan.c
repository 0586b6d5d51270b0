/* emit_cuda_scan.c: the CUDA target's SCAN node (emit_target.h,
 * scan_node): one kernel of tiles, whose loads and stores move a warp's
 * 16-byte chunks through shared memory and whose tiles take the prefix of
 * a scanned block that spans several by a decoupled look-back (PlanNode,
 * NODE_SCAN; docs/scheduling.md). The element code is emit_scan.c's. */
#include "emit.h"

#include "machine.h"

/* A scalar of the tile's shared memory that the kernel declares where it
 * needs it: planned (one element, kernel_plan.c) or an internal error. */
static void planned_scalar(const PlanNode *n, SharedRole role, int field) {
    const SharedArray *a = emit_shared_array(&n->shared, role, field);
    if (a->rows * a->cols != 1)
        diag_fatal("internal error: a scan's shared scalar %d planned as %d elements", role,
                   a->rows * a->cols);
}

/* Whether a scan's tiles publish their values in their state words (one
 * field of at most 4 bytes: PlanNode, NODE_SCAN). */
static bool scan_packed(const PlanNode *n) { return n->npartial == 1; }

/* The shared slot of a lane's chunk c: lane·C + (c ^ (lane >> (3 - log C)
 * mod C)), which puts the 8 lanes of each 128-bit shared access on 8
 * different 16-byte bank groups, both when a lane writes its own chunks
 * and when 8 lanes take 8 consecutive ones. */
static const char *chunk_slot(Arena *a, const char *lane, const char *c, int chunks_log) {
    int C = 1 << chunks_log;
    return arena_printf(a, "(%s) * %d + ((%s) ^ (((%s) >> %d) & %d))", lane, C, c, lane,
                        3 - chunks_log, C - 1);
}

/* The shared buffer of the chunk transposes (SHARED_CHUNKS), which each
 * plane's load and store take in turn, each warp its own row. */
static void emit_chunk_buffer(FILE *out, const PlanNode *n) {
    const SharedArray *chunks = plan_shared_array(&n->shared, SHARED_CHUNKS, -1);
    if (chunks)
        fprintf(out, "    __shared__ uint4 parm_chunks[%d][%d];\n", chunks->rows, chunks->cols);
}

/* The warp's chunks of plane k between global memory (`ptr`, the warp's
 * first element, as uint4) and the lanes' registers x<k>, through the
 * warp's row of parm_chunks (chunk_slot); `load` or store. */
static void emit_chunk_transpose(FILE *out, const PlanNode *n, int k, const char *ptr, bool load) {
    int cl = n->chunks_log[k], C = 1 << cl, per_chunk = (1 << n->per_thread_log) >> cl;
    Arena a = {0};
    fputs("    if (A) {\n        const unsigned sl = threadIdx.x & 31, sw = threadIdx.x >> 5;\n"
          "        __syncwarp(0xffffffffu);\n",
          out); /* the buffer's last readers are done */
    fprintf(out, "        %suint4 *g = (%suint4 *)(%s);\n", load ? "const " : "",
            load ? "const " : "", ptr);
    const char *mine = chunk_slot(&a, "sl", "c", cl);
    const char *striped = chunk_slot(&a, arena_printf(&a, "u >> %d", cl),
                                     arena_printf(&a, "u & %d", C - 1), cl);
    if (load) {
        fprintf(out,
                "#pragma unroll\n        for (unsigned j = 0; j < %d; j++) {\n"
                "            const unsigned u = j * 32 + sl;\n"
                "            parm_chunks[sw][%s] = g[u];\n        }\n"
                "        __syncwarp(0xffffffffu);\n",
                C, striped);
        fprintf(out,
                "#pragma unroll\n        for (unsigned c = 0; c < %d; c++) {\n"
                "            const uint4 w = parm_chunks[sw][%s];\n"
                "            memcpy(&x%d[c * %d], &w, 16);\n        }\n    } else\n",
                C, mine, k, per_chunk);
    } else {
        fprintf(
            out,
            "#pragma unroll\n        for (unsigned c = 0; c < %d; c++) {\n            uint4 w;\n"
            "            memcpy(&w, &x%d[c * %d], 16);\n            parm_chunks[sw][%s] = w;\n"
            "        }\n"
            "        __syncwarp(0xffffffffu);\n",
            C, k, per_chunk, mine);
        fprintf(out,
                "#pragma unroll\n        for (unsigned j = 0; j < %d; j++) {\n"
                "            const unsigned u = j * 32 + sl;\n"
                "            g[u] = parm_chunks[sw][%s];\n        }\n    } else\n",
                C, striped);
    }
    arena_free(&a);
}

/* The thread's 2^p contiguous elements of every input plane from `first`
 * into x<k>: through shared memory (emit_chunk_transpose) where the planes
 * are aligned (A) and the chunks allow, else as a reduction loads them. */
static void emit_scan_load(FILE *out, const PlanNode *n) {
    const IrStmt *s = n->stmt;
    int P = 1 << n->per_thread_log;
    bool any = false;
    for (int k = 0; k < emit_reduce_slots(s); k++) any |= n->chunks_log[k] >= 0;
    if (!any) {
        NodeLoads loads = plan_node_loads(n);
        emit_node_preload(out, &loads, (unsigned long long)P, "first");
        return;
    }
    Arena a = {0};
    for (int k = 0; k < emit_reduce_slots(s); k++) {
        const char *t = prim_ctype(emit_reduce_prim(s, k));
        fprintf(out, "    %s x%d[%d];\n", t, k, P);
        if (n->chunks_log[k] >= 0)
            emit_chunk_transpose(
                out, n, k,
                arena_printf(&a, "(const %s *)src%d + first - (uint64_t)(threadIdx.x & 31) * %d", t,
                             k, P),
                true);
        fprintf(out,
                "#pragma unroll\n"
                "    for (int i = 0; i < %d; i++) x%d[i] = ((const %s *)src%d)[first + i];\n",
                P, k, t, k);
    }
    arena_free(&a);
}

/* The thread's elements x<k>[0..2^p) to the output planes o<k> at `first`:
 * through shared memory where the planes are aligned (A) and the chunks
 * allow, else element by element. */
static void emit_scan_store(FILE *out, const PlanNode *n, unsigned long long count) {
    const IrStmt *s = n->stmt;
    Arena a = {0};
    for (int k = 0; k < emit_reduce_slots(s); k++) {
        const char *t = prim_ctype(emit_reduce_prim(s, k));
        if (n->chunks_log[k] >= 0)
            emit_chunk_transpose(
                out, n, k,
                arena_printf(&a, "(%s *)o%d + first - (uint64_t)(threadIdx.x & 31) * %llu", t, k,
                             count),
                false);
        fprintf(
            out,
            "#pragma unroll\n    for (int i = 0; i < %llu; i++) ((%s *)o%d + first)[i] = x%d[i];\n",
            count, t, k, k);
    }
    arena_free(&a);
}

/* v<k> = pre<k> op v<k> where `cond` holds (pre from a shuffle up by d, or
 * read). */
static void emit_scan_combine(FILE *out, const IrStmt *s, const char *cond, const char *pre,
                              const char *into, int indent) {
    fprintf(out, "%*sif (%s) {\n", indent, "", cond);
    Arena a = {0};
    emit_scan_apply(out, s, pre, arena_printf(&a, "%s%%d", into), into, "c", indent + 4);
    fprintf(out, "%*s}\n", indent, "");
    arena_free(&a);
}

/* The inclusive scan of v<k> over groups of 2^group_log lanes of a warp
 * (2^lanes_log lanes take part), the lower lane on the left. */
static void emit_warp_scan(FILE *out, const IrStmt *s, const char *v, int lanes_log, int group_log,
                           const char *lane, int indent) {
    int ns = emit_reduce_slots(s);
    Arena a = {0};
    for (int d = 1; d < 1 << group_log && d < 1 << lanes_log; d <<= 1) {
        for (int k = 0; k < ns; k++)
            fprintf(out, "%*sconst %s u%d_%d = parm_shfl_up(0xffffffffu, %s%d, %d);\n", indent, "",
                    prim_ctype(emit_reduce_prim(s, k)), d, k, v, k, d);
        emit_scan_combine(out, s,
                          arena_printf(&a, "(%s & %d) >= %d", lane, (1 << group_log) - 1, d),
                          arena_printf(&a, "u%d_%%d", d), v, indent);
    }
    arena_free(&a);
}

/* The look-back of a tile (warp 0 of a tile that is not its block's first):
 * each lane reads the state of one of the 32 tiles before the window's end,
 * waiting until that tile has published its total; the warp combines, in
 * order, the totals after the nearest tile that has published its prefix
 * (or the block's first tile), and goes back 32 tiles while none has. The
 * prefix is left in acc<k> (lane 0). */
static void emit_look_back(FILE *out, const PlanNode *n) {
    const IrStmt *s = n->stmt;
    int ns = emit_reduce_slots(s);
    fputs("        int have = 0;\n", out);
    emit_scan_declare(out, s, "acc", 8);
    planned_scalar(n, SHARED_LOOK_STOP, -1);
    fputs("        __shared__ int parm_stop;\n"
          "        for (int64_t end = (int64_t)tile - 1;; end -= 32) {\n"
          "            const int64_t j = end - (31 - (int64_t)lane);\n"
          "            const int valid = j >= (int64_t)seg_first;\n"
          "            unsigned long long word = 2;\n"
          "            if (valid)\n"
          "                do word = ((volatile unsigned long long *)qs)[j]; while ((word & 3) == "
          "0);\n"
          "            const unsigned f = (unsigned)(word & 3);\n"
          "            int stop = f == 2, has = valid;\n",
          out);
    for (int k = 0; k < ns; k++) {
        const char *t = prim_ctype(emit_reduce_prim(s, k));
        fprintf(out, "            %s w%d = parm_arg%d;\n", t, k, s->args[k]->id);
        if (scan_packed(n))
            fprintf(out,
                    "            if (valid) {\n"
                    "                const unsigned bits = (unsigned)(word >> 32);\n"
                    "                memcpy(&w%d, &bits, sizeof w%d);\n            }\n",
                    k, k);
        else
            fprintf(
                out,
                "%s            if (valid) w%d = f == 2 ? ((volatile %s *)q%d)[j] : ((volatile %s "
                "*)q%d)[j];\n",
                k == 0 ? "            __threadfence();\n" : "", k, t, ns + k, t, k);
    }
    /* (stop, has, w): a stop drops what is before it */
    fputs("#pragma unroll\n            for (int d = 1; d < 32; d <<= 1) {\n"
          "                const int ostop = parm_shfl_down(0xffffffffu, stop, d), ohas = "
          "parm_shfl_down(0xffffffffu, has, d);\n",
          out);
    for (int k = 0; k < ns; k++)
        fprintf(out, "                %s ow%d = parm_shfl_down(0xffffffffu, w%d, d);\n",
                prim_ctype(emit_reduce_prim(s, k)), k, k);
    fputs("                if ((lane & (2 * d - 1)) == 0) {\n                    if (ostop) {\n"
          "                        stop = 1;\n                        has = ohas;\n",
          out);
    for (int k = 0; k < ns; k++) fprintf(out, "                        w%d = ow%d;\n", k, k);
    fputs("                    } else if (ohas) {\n", out);
    emit_scan_combine(out, s, "has", "w%d", "ow", 24);
    for (int k = 0; k < ns; k++) fprintf(out, "                        w%d = ow%d;\n", k, k);
    fputs("                        has = 1;\n                    }\n                }\n"
          "            }\n"
          "            if (lane == 0) {\n                if (has) {\n",
          out);
    emit_scan_combine(out, s, "have", "w%d", "acc", 20);
    fputs("                    if (!have)\n", out);
    for (int k = 0; k < ns; k++) fprintf(out, "                        acc%d = w%d;\n", k, k);
    fputs("                    have = 1;\n                }\n                parm_stop = stop;\n"
          "            }\n"
          "            __syncwarp(0xffffffffu);\n            const int done = parm_stop;\n"
          "            __syncwarp(0xffffffffu);\n            if (done) break;\n        }\n",
          out);
}

/* Publishes a tile's total (state 1, planes q<0..ns)) or prefix (state 2,
 * planes q<ns..2ns)) from v<k>: the values, a fence, then the state; or
 * both in one word (scan_packed). */
static void emit_publish(FILE *out, const PlanNode *n, const char *v, int state, int indent) {
    const IrStmt *s = n->stmt;
    int ns = emit_reduce_slots(s);
    if (scan_packed(n)) {
        fprintf(
            out,
            "%*s{\n%*s    unsigned bits = 0;\n%*s    memcpy(&bits, &%s0, sizeof %s0);\n"
            "%*s    ((volatile unsigned long long *)qs)[tile] = (unsigned long long)bits << 32 | "
            "%du;\n%*s}\n",
            indent, "", indent, "", indent, "", v, v, indent, "", state, indent, "");
        return;
    }
    for (int k = 0; k < ns; k++)
        fprintf(out, "%*s((volatile %s *)q%d)[tile] = %s%d;\n", indent, "",
                prim_ctype(emit_reduce_prim(s, k)), state == 1 ? k : ns + k, v, k);
    fprintf(out, "%*s__threadfence();\n%*s((volatile unsigned long long *)qs)[tile] = %du;\n",
            indent, "", indent, "", state);
}

/* The thread's exclusive prefix tp<k> in its scanned block (has_tp when
 * there is one), from the inclusive scans of the threads' totals v<k>
 * over the lanes of a warp and then over the warps of a tile. */
static void emit_thread_prefix(FILE *out, const PlanNode *n, const char *mask) {
    const IrStmt *s = n->stmt;
    int ns = emit_reduce_slots(s), p = n->per_thread_log, t = n->threads_log, k = s->k;
    int lanes_log = t < MACHINE_WARP_LOG ? t : MACHINE_WARP_LOG,
        group_log = k - p < lanes_log ? k - p : lanes_log;
    emit_warp_scan(out, s, "v", lanes_log, group_log, "lane", 4);
    emit_scan_declare(out, s, "tp", 4);
    for (int j = 0; j < ns; j++) fprintf(out, "    tp%d = parm_shfl_up(%s, v%d, 1);\n", j, mask, j);
    fprintf(out, "    int has_tp = (lane & %d) != 0;\n", (1 << group_log) - 1);
    if (!plan_shared_array(&n->shared, SHARED_WARP_SCANS, 0)) return; /* within a warp */
    int warps_log = t - MACHINE_WARP_LOG,
        wgroup_log = k - p - MACHINE_WARP_LOG < warps_log ? k - p - MACHINE_WARP_LOG : warps_log;
    for (int j = 0; j < ns; j++)
        fprintf(out, "    __shared__ %s wsum%d[%d];\n    if (lane == 31) wsum%d[warp] = v%d;\n",
                prim_ctype(emit_reduce_prim(s, j)), j,
                emit_shared_array(&n->shared, SHARED_WARP_SCANS, j)->cols, j, j);
    fputs("    __syncthreads();\n    if (warp == 0) {\n", out);
    emit_scan_declare(out, s, "wv", 8);
    for (int j = 0; j < ns; j++)
        fprintf(out, "        wv%d = wsum%d[lane < %d ? lane : 0];\n", j, j,
                emit_shared_array(&n->shared, SHARED_WARP_SCANS, j)->cols);
    emit_warp_scan(out, s, "wv", MACHINE_WARP_LOG, wgroup_log, "lane", 8);
    for (int j = 0; j < ns; j++)
        fprintf(out, "        if (lane < %d) wsum%d[lane] = wv%d;\n",
                emit_shared_array(&n->shared, SHARED_WARP_SCANS, j)->cols, j, j);
    fputs("    }\n    __syncthreads();\n", out);
    fprintf(out, "    if ((warp & %d) != 0) {\n", (1 << wgroup_log) - 1);
    emit_scan_combine(out, s, "has_tp", "wsum%d[warp - 1]", "tp", 8);
    fputs("        if (!has_tp) {\n", out);
    for (int j = 0; j < ns; j++) fprintf(out, "            tp%d = wsum%d[warp - 1];\n", j, j);
    fputs("        }\n        has_tp = 1;\n    }\n", out);
}

/* A tile whose scanned block began in a tile before it: the last thread's
 * inclusive value is the tile's total, published at once; warp 0 looks
 * back for the prefix, publishes the tile's own, and the threads take it
 * into theirs (tp<k>). A block's first tile publishes its total as its
 * prefix. */
static void emit_tile_prefix(FILE *out, const PlanNode *n) {
    const IrStmt *s = n->stmt;
    int ns = emit_reduce_slots(s), T = 1 << n->threads_log;
    int tiles_log = s->k - n->per_thread_log - n->threads_log;
    for (int j = 0; j < ns; j++) {
        planned_scalar(n, SHARED_TILE_TOTAL, j);
        planned_scalar(n, SHARED_TILE_PREFIX, j);
        fprintf(out, "    __shared__ %s agg%d, tpre%d;\n", prim_ctype(emit_reduce_prim(s, j)), j,
                j);
    }
    planned_scalar(n, SHARED_TILE_HAS, -1);
    fprintf(out, "    __shared__ int tile_has;\n    if (threadIdx.x == %d) {\n", T - 1);
    emit_scan_combine(out, s, "has_tp", "tp%d", "tot", 8);
    for (int j = 0; j < ns; j++) fprintf(out, "        agg%d = tot%d;\n", j, j);
    fprintf(
        out,
        "    }\n    __syncthreads();\n    const uint64_t seg_first = tile & ~(uint64_t)%lluu;\n",
        (1ULL << tiles_log) - 1);
    fputs("    if (warp == 0 && tile == seg_first) {\n        if (lane == 0) {\n", out);
    emit_publish(out, n, "agg", 2, 12);
    fputs("            tile_has = 0;\n        }\n    } else if (warp == 0) {\n"
          "        if (lane == 0) {\n",
          out);
    emit_publish(out, n, "agg", 1, 12);
    fputs("        }\n", out);
    emit_look_back(out, n);
    fputs("        if (lane == 0) {\n", out);
    emit_scan_declare(out, s, "incl", 12);
    for (int j = 0; j < ns; j++)
        fprintf(out, "            incl%d = agg%d;\n            tpre%d = acc%d;\n", j, j, j, j);
    emit_scan_combine(out, s, "have", "acc%d", "incl", 12);
    emit_publish(out, n, "incl", 2, 12);
    fputs("            tile_has = have;\n        }\n    }\n    __syncthreads();\n"
          "    if (tile_has) {\n",
          out);
    emit_scan_combine(out, s, "has_tp", "tpre%d", "tp", 8);
    fputs("        if (!has_tp) {\n", out);
    for (int j = 0; j < ns; j++) fprintf(out, "            tp%d = tpre%d;\n", j, j);
    fputs("        }\n        has_tp = 1;\n    }\n", out);
}

/* The CUDA target: one kernel, a tile of 2^p elements for each of 2^t
 * threads a block (PlanNode). A scanned block within a thread's elements
 * is scanned there; one within a tile by shuffles over the threads'
 * totals; one over several tiles looks back (emit_tile_prefix), its tiles
 * numbered in the order their blocks start (the counter after the states,
 * zeroed with them before the kernel), so that a tile only ever waits for
 * one that is running. */
void emit_graph_scan_cuda(FILE *out, const PlanNode *n, const char *name) {
    const IrStmt *s = n->stmt;
    int ns = emit_reduce_slots(s), p = n->per_thread_log, t = n->threads_log, k = s->k;
    bool look_back = plan_scan_looks_back(n);
    if (look_back && t < MACHINE_WARP_LOG)
        diag_fatal(
            "internal error: a scan that looks back with tiles of fewer threads than a warp");
    const char *mask = t >= MACHINE_WARP_LOG ? "0xffffffffu" : "((1u << blockDim.x) - 1)";
    fprintf(out, "template <bool A>\nstatic __global__ void __launch_bounds__(%d)\n%s_tiles(",
            1 << t, name);
    emit_plane_params(out, "i", n->nin, true, true);
    emit_plane_params(out, "o", n->nout, false, false);
    emit_plane_params(out, "q", n->npartial, false, false);
    emit_node_arg_params(out, n);
    fputs(")\n{\n", out);
    emit_node_arg_loads(out, n);
    for (int j = 0; j < n->nin; j++) fprintf(out, "    const void *src%d = i%d;\n", j, j);
    fprintf(out, "    unsigned long long *qs = (unsigned long long *)q%d;\n    (void)qs;\n",
            n->npartial - 1);
    if (look_back) planned_scalar(n, SHARED_TILE_NUMBER, -1);
    if (look_back)
        fprintf(out,
                "    __shared__ unsigned long long parm_tile;\n"
                "    if (threadIdx.x == 0) parm_tile = atomicAdd(qs + %lluu, 1ull);\n"
                "    __syncthreads();\n    const uint64_t tile = parm_tile;\n",
                1ULL << n->grid_log);
    else fputs("    const uint64_t tile = blockIdx.x;\n", out);
    fprintf(out, "    const uint64_t first = (tile << %d) + ((uint64_t)threadIdx.x << %d);\n",
            p + t, p);
    emit_chunk_buffer(out, n);
    emit_scan_load(out, n);
    emit_scan_start(out, s, 4, true);
    if (k <= p) {
        fprintf(
            out,
            "#pragma unroll\n    for (int i = 0; i < %d; i++) {\n        if ((i & %d) == 0) {\n",
            1 << p, (1 << k) - 1);
        emit_scan_start(out, s, 12, false);
        fputs("        }\n", out);
        emit_scan_element(out, s, "i", 8);
        fputs("    }\n", out);
    } else {
        emit_scan_declare(out, s, "v", 4);
        for (int j = 0; j < ns; j++) fprintf(out, "    v%d = x%d[0];\n", j, j);
        fprintf(out, "#pragma unroll\n    for (int i = 1; i < %d; i++) {\n", 1 << p);
        emit_scan_step(out, s, "v", "x%d[i]", 8);
        fputs("    }\n", out);
        emit_scan_declare(out, s, "tot", 4);
        for (int j = 0; j < ns; j++) fprintf(out, "    tot%d = v%d;\n", j, j);
        fprintf(out,
                "    const unsigned lane = threadIdx.x & %d, warp = threadIdx.x >> %d;\n"
                "    (void)warp;\n",
                MACHINE_WARP - 1, MACHINE_WARP_LOG);
        emit_thread_prefix(out, n, mask);
        if (look_back) emit_tile_prefix(out, n);
        emit_scan_start(out, s, 4, false);
        emit_scan_combine(out, s, "has_tp", "r%d", "tp", 4);
        fputs("    if (has_tp) {\n", out);
        for (int j = 0; j < ns; j++) fprintf(out, "        r%d = tp%d;\n", j, j);
        fprintf(out, "    }\n#pragma unroll\n    for (int i = 0; i < %d; i++) {\n", 1 << p);
        emit_scan_element(out, s, "i", 8);
        fputs("    }\n", out);
    }
    emit_scan_store(out, n, 1ULL << p);
    fputs("}\n\n", out);
    fprintf(out, "static int %s(parm_ctx *ctx, ", name);
    emit_plane_params(out, "i", n->nin, true, true);
    emit_plane_params(out, "o", n->nout, false, false);
    emit_plane_params(out, "q", n->npartial, false, false);
    emit_node_arg_params(out, n);
    fputs(")\n{\n    const int aligned = ((0", out);
    for (int j = 0; j < n->nin; j++) fprintf(out, " | (uintptr_t)i%d | (uintptr_t)o%d", j, j);
    fputs(") & 15) == 0;\n", out);
    if (look_back)
        fprintf(out,
                "    PARM_CHECK(ctx, cudaMemsetAsync(q%d, 0, sizeof(unsigned long long) * %lluu, "
                "ctx->stream));\n",
                n->npartial - 1, (1ULL << n->grid_log) + 1);
    for (int A = 1; A >= 0; A--) {
        fprintf(out, "    %s%s_tiles<%s><<<%lluu, %d, 0, ctx->stream>>>(",
                A ? "if (aligned)\n        " : "else\n        ", name, A ? "true" : "false",
                1ULL << n->grid_log, 1 << t);
        for (int j = 0; j < n->nin; j++) fprintf(out, "%si%d", j ? ", " : "", j);
        for (int j = 0; j < n->nout; j++) fprintf(out, ", o%d", j);
        for (int j = 0; j < n->npartial; j++) fprintf(out, ", q%d", j);
        for (int j = 0; j < n->nargs; j++)
            fprintf(out, ", parm_arg%s%d", emit_arg_by_ref(n, j) ? "p" : "", n->args[j]->id);
        fputs(");\n", out);
    }
    fputs("    PARM_CHECK(ctx, cudaGetLastError());\n    return PARM_OK;\n}\n\n", out);
}
