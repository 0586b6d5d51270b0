/* emit_cuda_bmmc.c: a planned one-pass BMMC permutation kernel (bmmc_plan.h)
 * as CUDA: a block's tile through shared memory, element by element or in
 * 16-byte vectors, with the index code of emit_bmmc.c. */
#include "emit_bmmc.h"

#include <inttypes.h>

#include "diag.h"

/* "var" or "var ^ 0x..": no XOR for a zero constant. */
static void emit_xor(FILE *out, const char *var, uint64_t k, BmmcIdxType ty) {
    if (k) fprintf(out, "%s ^ 0x%" PRIx64 "%s", var, k, ty.suffix);
    else fprintf(out, "%s", var);
}

static void extra_args(FILE *out, const BmmcPlan *p, const BmmcGuard *g) {
    if (p->keeps) fputs(", keep_out, keep, keep_xor", out);
    if (g) fputs(g->args, out);
    if (p->piece_log) fputs(", piece", out);
}

/* An index "var ^ 0x.." as a string, for the guards. */
static const char *xor_text(Arena *a, const char *var, uint64_t k, BmmcIdxType ty) {
    return k ? arena_printf(a, "%s ^ 0x%" PRIx64 "%s", var, k, ty.suffix) : var;
}

/* The element moves of a kernel whose thread t takes tile elements tau = t
 * | i << shift for i < iters (every plan's narrow kernel, and the vector
 * kernel's where an array is not 16-byte aligned), at indent `ind`; x0
 * and b are defined. */
static void emit_cuda_elements(FILE *out, const BmmcPlan *p, const BmmcGuard *g, const char *ctype,
                               int shift, unsigned iters, const char *ind) {
    BmmcIdxType ty = bmmc_idx_type(p->n, false), st = bmmc_idx_type(32, false);
    BmmcIterTables it;
    bmmc_iter_tables(p, shift, iters, &it);
    uint64_t pg[BMMC_MAX_TILE];
    bmmc_load_slot_cols(p, pg);
    Arena scratch = {0};
    const char *inner = arena_printf(&scratch, "%s    ", ind);
    bmmc_thread_part(out, ind, arena_printf(&scratch, "const %s x", ty.type), "x0", p->read_cols,
                     shift, ty);
    bmmc_thread_part(out, ind, "const unsigned s", NULL, p->slot_cols, shift, st);
    /* All loads first, so that every thread has its elements in flight. */
    for (unsigned i = 0; i < iters; i++) {
        fprintf(out, "%sconst %s v%u = ", ind, ctype, i);
        bmmc_guarded_load(out, g, xor_text(&scratch, "x", it.read_x[i], ty));
        fprintf(out, ";\n");
    }
    fprintf(out, "%sif (t == 0) {\n", ind);
    bmmc_block_bases(out, p, ty, inner, "y_base", "s_base");
    fprintf(out, "%s}\n", ind);
    for (unsigned i = 0; i < iters; i++) {
        fprintf(out, "%stile[", ind);
        emit_xor(out, "s", it.read_slot[i], st);
        fprintf(out, "] = v%u;\n", i);
    }
    fprintf(out, "%s__syncthreads();\n", ind);
    bmmc_thread_part(out, ind, arena_printf(&scratch, "const %s y", ty.type), "y_base",
                     p->write_cols, shift, ty);
    bmmc_thread_part(out, ind, "const unsigned u", "s_base", pg, shift, st);
    for (unsigned i = 0; i < iters; i++) {
        fprintf(out, "%s", ind);
        const char *index = xor_text(&scratch, "y", it.write_y[i], ty);
        if (p->keeps) bmmc_keep_store(out, p, index);
        else bmmc_guarded_store(out, g, index);
        fprintf(out, "tile[");
        emit_xor(out, "u", it.write_slot[i], st);
        fprintf(out, "];\n");
    }
    arena_free(&scratch);
}

/* The vector kernel's moves (BmmcPlan.vec_log) when both arrays are
 * 16-byte aligned, else its elements one by one (closed here): thread t,
 * iteration i loads the vector of tile elements j | t << v | i << (v +
 * thread_log) into units of 4 bytes (8 for 8-byte elements: one each) and
 * stores each unit at the slot of its first element (P moves slot bits
 * from bank_lo up, the bits above a word's elements, so a word's elements
 * stay together and in order); after
 * the barrier it loads the elements of output vector sigma = j | t << v |
 * i << (v + thread_log) from their slots and stores the vector. */
static void emit_cuda_vectors(FILE *out, const BmmcPlan *p, const char *ctype) {
    BmmcIdxType ty = bmmc_idx_type(p->n, false), st = bmmc_idx_type(32, false);
    int v = p->vec_log, shift = v + p->thread_log;
    unsigned iters = 1u << p->iter_log, elems = 1u << v;
    BmmcIterTables it;
    bmmc_iter_tables(p, shift, iters, &it);
    uint64_t pg[BMMC_MAX_TILE];
    bmmc_load_slot_cols(p, pg);
    Arena scratch = {0};
    const char *ind = "        ";
    fputs("    if (PARM_ALIGNED16(in) && PARM_ALIGNED16(out)) {\n", out);
    bmmc_thread_part(out, ind, arena_printf(&scratch, "const %s xv", ty.type), "x0",
                     p->read_cols + v, p->thread_log, ty);
    bmmc_thread_part(out, ind, "const unsigned sv", NULL, p->slot_cols + v, p->thread_log, st);
    unsigned unit = p->elem_bytes > 4 ? (unsigned)p->elem_bytes : 4u, units = 16u / unit;
    const char *unit_type = unit == 8 ? "unsigned long long" : "unsigned";
    for (unsigned i = 0; i < iters; i++) { /* the loads in flight first */
        fprintf(out, "%s%s a%u[%u];\n%sPARM_LOAD16(a%u, &in[", ind, unit_type, i, units, ind, i);
        emit_xor(out, "xv", it.read_x[i], ty);
        fputs("]);\n", out);
    }
    fprintf(out, "%sif (t == 0) {\n", ind);
    bmmc_block_bases(out, p, ty, "            ", "y_base", "s_base");
    fprintf(out, "%s}\n", ind);
    unsigned per_unit = unit / (unsigned)p->elem_bytes;
    for (unsigned i = 0; i < iters; i++) {
        for (unsigned w = 0; w < units; w++) {
            fprintf(out, "%s*(%s *)(void *)&tile[", ind, unit_type);
            emit_xor(out, "sv", it.read_slot[i] ^ f2_combine(p->slot_cols, v, w * per_unit), st);
            fprintf(out, "] = a%u[%u];\n", i, w);
        }
    }
    fprintf(out, "%s__syncthreads();\n", ind);
    bmmc_thread_part(out, ind, arena_printf(&scratch, "const %s yv", ty.type), "y_base",
                     p->write_cols + v, p->thread_log, ty);
    bmmc_thread_part(out, ind, "const unsigned uv", "s_base", pg + v, p->thread_log, st);
    for (unsigned i = 0; i < iters; i++) {
        fprintf(out, "%s{\n%s    %s w[%u];\n", ind, ind, ctype, elems);
        for (unsigned j = 0; j < elems; j++) {
            fprintf(out, "%s    w[%u] = tile[", ind, j);
            emit_xor(out, "uv", it.write_slot[i] ^ f2_combine(pg, v, j), st);
            fputs("];\n", out);
        }
        fprintf(out, "%s    PARM_STORE16(&out[", ind);
        emit_xor(out, "yv", it.write_y[i], ty);
        fprintf(out, "], w);\n%s}\n", ind);
    }
    fputs("    } else {\n", out);
    emit_cuda_elements(out, p, NULL, ctype, p->thread_log, iters << v, ind);
    fputs("    }\n", out);
    arena_free(&scratch);
}

void bmmc_emit_cuda(FILE *out, const BmmcPlan *p, const char *name, const char *ctype,
                    const BmmcGuard *g) {
    BmmcIdxType ty = bmmc_idx_type(p->n, false);
    unsigned threads = 1u << p->thread_log;
    if (p->vec_log && ((g && (g->load || g->store)) || p->keeps))
        diag_fatal("internal error: a vector permutation kernel with guards or a second output");

    bmmc_comment(out, p);
    fprintf(out, "static __global__ void __launch_bounds__(%u)\n", threads);
    fprintf(out, "%s(const %s *__restrict__ in, %s *__restrict__ out", name, ctype, ctype);
    bmmc_extra_params(out, p, ctype, g);
    /* a vector kernel stores 4-byte words into the tile */
    fprintf(out, ")\n{\n    __shared__ %s%s tile[%u];\n", p->vec_log ? "__align__(16) " : "", ctype,
            1u << p->tile_log);
    /* The output base needs a dense matrix-vector product in general; one
     * thread computes it once its loads are in flight (so the branch comes
     * after them), and the barrier that the tile needs anyway publishes it. */
    fprintf(out, "    __shared__ %s y_base;\n    __shared__ unsigned s_base;\n", ty.type);
    fprintf(out, "    const %s b = blockIdx.x", ty.type);
    if (p->piece_log) /* the piece is the top block bits */
        fprintf(out, " | (%s)piece << %d", ty.type, p->block_log - p->piece_log);
    fputs(";\n    const unsigned t = threadIdx.x;\n", out);
    bmmc_x0(out, p, ty, "    ");
    if (p->vec_log) emit_cuda_vectors(out, p, ctype);
    else emit_cuda_elements(out, p, g, ctype, p->thread_log, 1u << p->iter_log, "    ");
    fprintf(out, "}\n\n");
    fprintf(out, "static cudaError_t %s_launch(const %s *in, %s *out", name, ctype, ctype);
    bmmc_extra_params(out, p, ctype, g);
    fprintf(out, ", cudaStream_t s)\n{\n    %s<<<%" PRIu64 "u, %u, 0, s>>>(in, out", name,
            (uint64_t)1 << (p->block_log - p->piece_log), threads);
    extra_args(out, p, g);
    fputs(");\n", out);
    fprintf(out, "    return cudaGetLastError();\n}\n\n");
}
