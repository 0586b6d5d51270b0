/* emit_cuda_reduce.c: the CUDA target's reductions: a block's reduction of
 * its threads' subtotals (or of its warps' segments'), by shuffles and
 * then the warps' totals through shared memory, for the REDUCE nodes of
 * entry graphs (emit_target.h, reduce_node) and the reduces fused into a
 * chain's phase (emit_cuda.c); and the REDUCE node's kernels: per-block
 * partials and their total, or a reduceblocks' rows. Each thread's run of
 * elements is reduced as C's loop reduces them (emit_graph.c). */
#include "emit.h"

#include "machine.h"

/* Lane l takes the subtotal of lane l + step for step = 1, 2, .. below
 * 2^span_log, where it is the left operand (the lower lane). */
static void shuffle_steps(FILE *out, const IrStmt *s, int level, int span_log, const char *mask) {
    int ns = emit_reduce_slots(s);
    for (int step = 1; step < 1 << span_log; step <<= 1) {
        for (int k = 0; k < ns; k++)
            fprintf(out, "    %s r%d_%d_%d = parm_shfl_down(%s, v%d, %d);\n",
                    prim_ctype(emit_reduce_prim(s, k)), level, step, k, mask, k, step);
        fprintf(out, "    if ((lane & %d) == 0) {\n", 2 * step - 1);
        Arena scratch = {0};
        emit_reduce_apply(out, s, "v%d", arena_printf(&scratch, "r%d_%d_%%d", level, step), "nv%d",
                          8);
        arena_free(&scratch);
        for (int k = 0; k < ns; k++) fprintf(out, "        v%d = nv%d;\n", k, k);
        fputs("    }\n", out);
    }
}

static const char *lanes_mask(int threads_log) {
    return threads_log >= MACHINE_WARP_LOG ? "0xffffffffu" : "((1u << blockDim.x) - 1)";
}

/* Shuffles within warps (the lower lane the left operand), then the warps'
 * totals through shared memory. */
void emit_reduce_block_tree(FILE *out, const IrStmt *s, const SharedPlan *sh, int threads_log) {
    int ns = emit_reduce_slots(s),
        lanes_log = threads_log < MACHINE_WARP_LOG ? threads_log : MACHINE_WARP_LOG;
    const char *mask = lanes_mask(threads_log);
    fprintf(
        out,
        "    const unsigned lane = threadIdx.x & %d, warp = threadIdx.x >> %d;\n    (void)warp;\n",
        MACHINE_WARP - 1, MACHINE_WARP_LOG);
    for (int level = 0; level < 2; level++) {
        int span_log = level == 0 ? lanes_log : threads_log - MACHINE_WARP_LOG;
        if (level == 1) {
            if (!plan_shared_array(sh, SHARED_WARP_TOTALS, 0)) break; /* one warp */
            for (int k = 0; k < ns; k++)
                fprintf(out, "    __shared__ %s warps%d[%d];\n", prim_ctype(emit_reduce_prim(s, k)),
                        k, emit_shared_array(sh, SHARED_WARP_TOTALS, k)->cols);
            for (int k = 0; k < ns; k++)
                fprintf(out, "    if (lane == 0) warps%d[warp] = v%d;\n", k, k);
            fputs("    __syncthreads();\n    if (warp != 0) return;\n", out);
            for (int k = 0; k < ns; k++)
                fprintf(out, "    v%d = warps%d[lane < %d ? lane : 0];\n", k, k,
                        emit_shared_array(sh, SHARED_WARP_TOTALS, k)->cols);
            mask = "0xffffffffu";
        }
        shuffle_steps(out, s, level, span_log, mask);
    }
}

/* A shuffle of step below 2^seg_log stays in an aligned segment for the
 * lanes that use it (those with the low bits of 2·step clear). */
void emit_reduce_segment_tree(FILE *out, const IrStmt *s, int threads_log, int seg_log) {
    fprintf(out, "    const unsigned lane = threadIdx.x & %d;\n", MACHINE_WARP - 1);
    shuffle_steps(out, s, 0, seg_log, lanes_mask(threads_log));
}

static void emit_rows_cuda(FILE *out, const PlanNode *n, const char *name);

void emit_graph_reduce_cuda(FILE *out, const PlanNode *n, const char *name) {
    if (n->stmt->op == IR_REDUCEBLOCKS) {
        emit_rows_cuda(out, n, name);
        return;
    }
    const IrStmt *s = n->stmt;
    int ns = s->nres, per = n->per_thread_log, threads = n->threads_log, blocks = n->blocks_log;
    int threads2 = n->final_threads_log, per2 = blocks - threads2;
    for (int pass = 0; pass < 2; pass++) {
        NodeLoads loads = pass ? plan_partial_loads(n) : plan_node_loads(n);
        int t = pass ? threads2 : threads, p = pass ? per2 : per, nin = loads.nin;
        fprintf(out, "%sstatic __global__ void __launch_bounds__(%d)\n%s_%s(",
                pass ? "" : "template <bool A>\n", 1 << t, name, pass ? "final" : "blocks");
        emit_plane_params(out, "i", nin, true, true);
        emit_plane_params(out, pass ? "o" : "q", ns, false, false);
        emit_node_arg_params(out, n);
        fputs(")\n{\n", out);
        emit_node_arg_loads(out, n);
        for (int k = 0; k < nin; k++) fprintf(out, "    const void *src%d = i%d;\n", k, k);
        fprintf(
            out,
            "    const uint64_t first = ((uint64_t)blockIdx.x << %d) + ((uint64_t)threadIdx.x << "
            "%d);\n",
            p + t, p);
        Arena scratch = {0};
        emit_serial_tree(out, &loads, arena_printf(&scratch, "%lluu", 1ULL << p), "first", p,
                         !pass);
        arena_free(&scratch);
        emit_reduce_block_tree(out, s, pass ? &n->final_shared : &n->shared, t);
        fputs("    if (threadIdx.x != 0) return;\n", out);
        if (pass) emit_reduce_final(out, s, "0", 4);
        else
            for (int k = 0; k < ns; k++)
                fprintf(out, "    ((%s *)q%d)[blockIdx.x] = v%d;\n",
                        prim_ctype(emit_reduce_prim(s, k)), k, k);
        fputs("}\n\n", out);
    }
    fprintf(out, "static int %s(parm_ctx *ctx, ", name);
    emit_plane_params(out, "i", n->nin, true, true);
    emit_plane_params(out, "o", ns, false, false);
    emit_plane_params(out, "q", ns, false, false);
    emit_node_arg_params(out, n);
    fputs(")\n{\n    const int aligned = ((0", out);
    for (int k = 0; k < n->nin; k++) fprintf(out, " | (uintptr_t)i%d", k);
    fputs(") & 15) == 0;\n", out);
    for (int A = 1; A >= 0; A--) {
        fprintf(out, "    %s%s_blocks<%s><<<%lluu, %d, 0, ctx->stream>>>(",
                A ? "if (aligned)\n        " : "else\n        ", name, A ? "true" : "false",
                1ULL << blocks, 1 << threads);
        for (int k = 0; k < n->nin; k++) fprintf(out, "%si%d", k ? ", " : "", k);
        for (int k = 0; k < ns; k++) fprintf(out, ", q%d", k);
        for (int k = 0; k < n->nargs; k++)
            fprintf(out, ", parm_arg%s%d", emit_arg_by_ref(n, k) ? "p" : "", n->args[k]->id);
        fputs(");\n", out);
    }
    fprintf(out,
            "    PARM_CHECK(ctx, cudaGetLastError());\n    %s_final<<<1, %d, 0, ctx->stream>>>(",
            name, 1 << threads2);
    for (int k = 0; k < ns; k++) fprintf(out, "%sq%d", k ? ", " : "", k);
    for (int k = 0; k < ns; k++) fprintf(out, ", o%d", k);
    for (int k = 0; k < n->nargs; k++)
        fprintf(out, ", parm_arg%s%d", emit_arg_by_ref(n, k) ? "p" : "", n->args[k]->id);
    fputs(");\n    PARM_CHECK(ctx, cudaGetLastError());\n    return PARM_OK;\n}\n\n", out);
}

/* One kernel of a reduceblocks on CUDA (emit_rows_cuda): the first, over
 * every element (`blocks`: 2^blocks_log blocks a row, which write their
 * partials when there are several), or with `partials` the second, one
 * block a row over its blocks' partials. */
static void rows_kernel(FILE *out, const PlanNode *n, const char *name, bool partials) {
    const IrStmt *s = n->stmt;
    int ns = emit_reduce_slots(s), blocks = n->blocks_log;
    int t = partials ? n->final_threads_log : n->threads_log;
    int p = partials ? blocks - t : n->per_thread_log, rt = partials ? t : n->row_threads_log;
    NodeLoads loads = partials ? plan_partial_loads(n) : plan_node_loads(n);
    fprintf(out, "%sstatic __global__ void __launch_bounds__(%d)\n%s_%s(",
            partials ? "" : "template <bool A>\n", 1 << t, name, partials ? "final" : "blocks");
    emit_plane_params(out, "i", loads.nin, true, true);
    emit_plane_params(out, !partials && blocks ? "q" : "o", ns, false, false);
    emit_node_arg_params(out, n);
    fputs(")\n{\n", out);
    emit_node_arg_loads(out, n);
    for (int k = 0; k < loads.nin; k++) fprintf(out, "    const void *src%d = i%d;\n", k, k);
    /* a grid too large for x alone (rows of a few elements in an array of
       2^39 or more) takes its top bits from blockIdx.y */
    int grid_log = partials ? n->rows_log : n->grid_log;
    int y_log = partials ? n->final_grid_y_log : n->grid_y_log;
    if (y_log)
        fprintf(out, "    const uint64_t blk = blockIdx.x + ((uint64_t)blockIdx.y << %d);\n",
                grid_log - y_log);
    else fputs("    const uint64_t blk = blockIdx.x;\n", out);
    fprintf(out, "    const uint64_t first = (blk << %d) + ((uint64_t)threadIdx.x << %d);\n", p + t,
            p);
    Arena scratch = {0};
    emit_serial_tree(out, &loads, arena_printf(&scratch, "%lluu", 1ULL << p), "first", p,
                     !partials);
    if (rt < t) {
        /* several rows a block, each within a warp */
        emit_reduce_segment_tree(out, s, t, rt);
        fprintf(out, "    if ((threadIdx.x & %d) != 0) return;\n", (1 << rt) - 1);
        emit_reduce_final(out, s,
                          arena_printf(&scratch, "(blk << %d) + (threadIdx.x >> %d)", t - rt, rt),
                          4);
    } else {
        emit_reduce_block_tree(out, s, partials ? &n->final_shared : &n->shared, t);
        fputs("    if (threadIdx.x != 0) return;\n", out);
        if (!partials && blocks)
            for (int k = 0; k < ns; k++)
                fprintf(out, "    ((%s *)q%d)[blk] = v%d;\n", prim_ctype(emit_reduce_prim(s, k)), k,
                        k);
        else emit_reduce_final(out, s, "blk", 4);
    }
    arena_free(&scratch);
    fputs("}\n\n", out);
}

/* Launches kernel `kernel` (a template on A, or not) with 2^grid_log blocks
 * (2^y_log of them in y) of 2^threads_log threads on planes i.., then o..
 * or q... */
static void rows_launch(FILE *out, const PlanNode *n, const char *kernel, int grid_log, int y_log,
                        int threads_log, const char *in, int nin, const char *res) {
    if (y_log)
        fprintf(out, "%s<<<dim3(%lluu, %lluu), %d, 0, ctx->stream>>>(", kernel,
                1ULL << (grid_log - y_log), 1ULL << y_log, 1 << threads_log);
    else
        fprintf(out, "%s<<<%lluu, %d, 0, ctx->stream>>>(", kernel, 1ULL << grid_log,
                1 << threads_log);
    for (int k = 0; k < nin; k++) fprintf(out, "%s%s%d", k ? ", " : "", in, k);
    for (int k = 0; k < emit_reduce_slots(n->stmt); k++) fprintf(out, ", %s%d", res, k);
    for (int k = 0; k < n->nargs; k++)
        fprintf(out, ", parm_arg%s%d", emit_arg_by_ref(n, k) ? "p" : "", n->args[k]->id);
    fputs(");\n    PARM_CHECK(ctx, cudaGetLastError());\n", out);
}

/* A reduceblocks: every row in the interpreter's tree order, by threads of
 * contiguous elements, then a warp's segment or a block, then (when a row
 * spans blocks) a second kernel over the blocks' partials, each row's
 * z op total last (PlanNode). */
static void emit_rows_cuda(FILE *out, const PlanNode *n, const char *name) {
    int ns = emit_reduce_slots(n->stmt), blocks = n->blocks_log;
    rows_kernel(out, n, name, false);
    if (blocks) rows_kernel(out, n, name, true);
    fprintf(out, "static int %s(parm_ctx *ctx, ", name);
    emit_plane_params(out, "i", n->nin, true, true);
    emit_plane_params(out, "o", ns, false, false);
    if (blocks) emit_plane_params(out, "q", ns, false, false);
    emit_node_arg_params(out, n);
    fputs(")\n{\n    const int aligned = ((0", out);
    for (int k = 0; k < n->nin; k++) fprintf(out, " | (uintptr_t)i%d", k);
    fputs(") & 15) == 0;\n", out);
    Arena a = {0};
    for (int A = 1; A >= 0; A--) {
        fputs(A ? "    if (aligned) {\n        " : "    } else {\n        ", out);
        rows_launch(out, n, arena_printf(&a, "%s_blocks<%s>", name, A ? "true" : "false"),
                    n->grid_log, n->grid_y_log, n->threads_log, "i", n->nin, blocks ? "q" : "o");
    }
    fputs("    }\n", out);
    if (blocks) {
        fputs("    ", out);
        rows_launch(out, n, arena_printf(&a, "%s_final", name), n->rows_log, n->final_grid_y_log,
                    n->final_threads_log, "q", ns, "o");
    }
    arena_free(&a);
    fputs("    return PARM_OK;\n}\n\n", out);
}
