/* emit_reduce.c: the code of a reduction's operator, and a CUDA block's
 * reduction of its threads' subtotals (or of its warps' segments'), for the
 * REDUCE nodes of entry graphs (emit_graph.c) and the reduces fused into a
 * chain's phase (emit_c.c, emit_cuda.c). */
#include "emit.h"

#include "machine.h"

/* reduce has a result per field, reduceblocks one array: the operator's
   results are the fields either way */
int emit_reduce_slots(const IrStmt *s) { return s->body->nresults; }

Prim emit_reduce_prim(const IrStmt *s, int k) {
    return elem_slot_prim(s->args[s->nargs - 1]->elem, k);
}

void emit_reduce_apply(FILE *out, const IrStmt *s, const char *left, const char *right,
                       const char *res, int indent) {
    int ns = emit_reduce_slots(s);
    Arena a = {0};
    const char **params = NEW_ARRAY(&a, const char *, 2 * ns),
               **results = NEW_ARRAY(&a, const char *, ns);
    for (int k = 0; k < ns; k++) {
        params[k] = arena_printf(&a, left, k);
        params[ns + k] = arena_printf(&a, right, k);
        results[k] = arena_printf(&a, res, k);
    }
    fprintf(out, "%*s{\n", indent, "");
    emit_elem_body(out, s->body, params, results, "o_", indent + 4, NULL);
    fprintf(out, "%*s}\n", indent, "");
    arena_free(&a);
}

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
void emit_reduce_block_tree(FILE *out, const IrStmt *s, int threads_log) {
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
            if (threads_log <= MACHINE_WARP_LOG) break;
            for (int k = 0; k < ns; k++)
                fprintf(out, "    __shared__ %s warps%d[%d];\n", prim_ctype(emit_reduce_prim(s, k)),
                        k, 1 << span_log);
            for (int k = 0; k < ns; k++)
                fprintf(out, "    if (lane == 0) warps%d[warp] = v%d;\n", k, k);
            fputs("    __syncthreads();\n    if (warp != 0) return;\n", out);
            for (int k = 0; k < ns; k++)
                fprintf(out, "    v%d = warps%d[lane < %d ? lane : 0];\n", k, k, 1 << span_log);
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
