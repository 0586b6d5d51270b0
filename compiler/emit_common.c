/* emit_common.c: what the C and CUDA outputs share: the embedded runtime,
 * the API (context, error codes, one function per entry dispatching on the
 * length), and the standalone main of --emit-main. */
#include "emit.h"

#include <string.h>

#include "emit_elem.h"

void ir_print_stmt_brief(FILE *out, const IrStmt *s) {
    fprintf(out, "%s", ir_op_name(s->op));
    if (s->op == IR_TWO) fprintf(out, " %d", s->k);
    if (s->loc.src) fprintf(out, " at %s:%d:%d", s->loc.src->name, s->loc.line, s->loc.col);
    fprintf(out, " (%%%d)", s->res[0]->id);
}

void emit_phase_comment(FILE *out, const Phase *p) {
    switch (p->kind) {
    case PHASE_LOCAL:
        fprintf(out, "one pass, tiles of 2^%d elements, %d stage%s:", p->tile_log, p->nsteps,
                p->nsteps == 1 ? "" : "s");
        for (int i = 0; i < p->nsteps; i++) fprintf(out, " %%%d", p->steps[i].stmt->res[0]->id);
        break;
    case PHASE_MAP:
        fputs("one pass, elementwise: ", out);
        ir_print_stmt_brief(out, p->map);
        break;
    case PHASE_PERMUTE:
        fputs("one pass, the permutation the bmmc statements add up to", out);
        break;
    }
}

/* Tiles of at least 2^10: the size the one-pass kernels were measured at. */
void emit_permute_plan(const Phase *p, int k, BmmcPlan *plan) {
    if (!bmmc_plan(&p->mat, p->compl, prim_bits(elem_slot_prim(p->elem, k)) / 8, 10, plan))
        diag_fatal("internal error: no plan for a permutation");
}

void emit_permute_kernels(FILE *out, const Phase *p, const char *name, BmmcEmitter emit) {
    for (int k = 0; k < p->elem->nslots; k++) {
        BmmcPlan plan;
        emit_permute_plan(p, k, &plan);
        char slot_name[128];
        snprintf(slot_name, sizeof slot_name, "%s_slot%d", name, k);
        emit(out, &plan, slot_name, prim_ctype(elem_slot_prim(p->elem, k)));
    }
}

const char *emit_pos_expr(Arena *a, int bits, const uint64_t *on_u, const uint64_t *on_b, uint64_t konst,
                          const char *u, const char *b) {
    char *text = arena_printf(a, "(int64_t)(0x%llxull", (unsigned long long)konst);
    for (int k = 0; k < bits; k++) {
        bool tu = u && on_u[k], tb = b && on_b[k];
        if (!tu && !tb) continue;
        text = arena_printf(a, "%s ^ ((uint64_t)(", text);
        if (tu) text = arena_printf(a, "%sparm_parity(%s & 0x%llxull)", text, u, (unsigned long long)on_u[k]);
        if (tb) text = arena_printf(a, "%s%sparm_parity(%s & 0x%llxull)", text, tu ? " ^ " : "", b,
                                    (unsigned long long)on_b[k]);
        text = arena_printf(a, "%s) << %d)", text, k);
    }
    return arena_printf(a, "%s)", text);
}

static const char *pos_at(const void *ctx, const IrStmt *pos, Arena *a) {
    const PosAt *at = ctx;
    uint64_t on_u[64], on_b[64], konst;
    int bits = schedule_pos(at->phase, at->step, pos, on_u, on_b, &konst);
    return emit_pos_expr(a, bits, on_u, on_b, konst, at->u, at->b);
}

ElemPositions emit_positions_at(const PosAt *at) { return (ElemPositions){pos_at, at}; }

void emit_map_element(FILE *out, const Phase *p) {
    char names[2][SCHED_MAX_SLOTS][32];
    const char *params[SCHED_MAX_SLOTS], *results[SCHED_MAX_SLOTS];
    for (int k = 0; k < p->in_elem->nslots; k++) {
        snprintf(names[0][k], sizeof names[0][k], "in%d[x]", k);
        params[k] = names[0][k];
    }
    for (int k = 0; k < p->elem->nslots; k++) {
        snprintf(names[1][k], sizeof names[1][k], "out%d[x]", k);
        results[k] = names[1][k];
    }
    PosAt at = {p, NULL, "x", NULL};
    ElemPositions positions = emit_positions_at(&at);
    emit_elem_body(out, p->map->body, params, results, "m_", 2, &positions);
}

static bool in_place(const Phase *p) { return p->kind == PHASE_LOCAL && p->writes_in_place; }

/* Whether phase p's result fits the output: every slot of it has the type of
 * the output's slot (the output's planes are only as large as the output). */
static bool fits_output(const Schedule *s, const Phase *p) {
    if (p->elem->nslots > s->out_elem->nslots) return false;
    for (int k = 0; k < p->elem->nslots; k++)
        if (elem_slot_prim(p->elem, k) != elem_slot_prim(s->out_elem, k)) return false;
    return true;
}

/* Backwards from the last phase, which writes the output: a phase that runs
 * in place reads the buffer it writes, so its source is that buffer too;
 * otherwise the source is the output where it fits, else a scratch buffer
 * that the reading phase does not write. */
static void assign_buffers(const Schedule *s, int *buf) {
    buf[s->nphases - 1] = BUF_OUT;
    for (int i = s->nphases - 1; i > 0; i--) {
        const Phase *src = &s->phases[i - 1];
        if (in_place(&s->phases[i])) buf[i - 1] = buf[i];
        else if (buf[i] != BUF_OUT && fits_output(s, src)) buf[i - 1] = BUF_OUT;
        else buf[i - 1] = buf[i] == BUF_SCRATCH_A ? BUF_SCRATCH_B : BUF_SCRATCH_A;
        if (buf[i - 1] == BUF_OUT && !fits_output(s, src))
            diag_fatal("internal error: phase %d of '%s' does not fit the output", i - 1, s->func->name);
    }
}

static unsigned long long plane_bytes(const ElemType *t, int k, int n) {
    return (unsigned long long)(prim_bits(elem_slot_prim(t, k)) / 8) << n;
}

static AliasRule alias_rule(const Schedule *s, const int *buf) {
    if (s->nphases == 0) return ALIAS_EXACT_OK;   /* a copy, skipped where in is out */
    if (buf[0] != BUF_OUT) return ALIAS_HARMLESS;
    return in_place(&s->phases[0]) ? ALIAS_EXACT_OK : ALIAS_COPY;
}

/* Offsets aligned for any access the kernels make (cudaMalloc's 256). */
static unsigned long long align_up(unsigned long long bytes) { return (bytes + 255) & ~255ULL; }

BufferPlan emit_buffer_plan(Arena *a, const Schedule *s, unsigned long long work_bytes) {
    BufferPlan bp = {.buf = NEW_ARRAY(a, int, s->nphases > 0 ? s->nphases : 1)};
    if (s->nphases > 0) assign_buffers(s, bp.buf);
    unsigned long long plane[2][SCHED_MAX_SLOTS] = {{0}};
    for (int i = 0; i < s->nphases; i++) {
        if (bp.buf[i] == BUF_OUT) continue;
        int x = bp.buf[i] - BUF_SCRATCH_A;
        const ElemType *t = s->phases[i].elem;
        if (t->nslots > bp.nplanes[x]) bp.nplanes[x] = t->nslots;
        for (int k = 0; k < t->nslots; k++) {
            unsigned long long bytes = plane_bytes(t, k, s->phases[i].n);
            if (bytes > plane[x][k]) plane[x][k] = bytes;
        }
    }
    unsigned long long at = 0;
    for (int x = 0; x < 2; x++)
        for (int k = 0; k < bp.nplanes[x]; k++) {
            bp.plane_off[x][k] = at;
            at += align_up(plane[x][k]);
        }
    bp.work_off = at;
    bp.bytes = at + work_bytes;
    bp.alias = alias_rule(s, bp.buf);
    at = align_up(bp.bytes);
    for (int k = 0; k < s->in_elem->nslots; k++) {
        bp.copy_off[k] = at;
        at += align_up(plane_bytes(s->in_elem, k, s->n));
    }
    bp.copy_bytes = at;
    return bp;
}

const char *emit_buffer_name(int buf) {
    static const char *const names[] = {"in", "out", "sa", "sb"};
    return names[buf];
}

static void emit_overlap(FILE *out, const ElemType *a, int ka, const char *na, const ElemType *b, int kb,
                         const char *nb, int n) {
    fprintf(out, "parm_overlap(%s[%d], 0x%llxu, %s[%d], 0x%llxu)", na, ka, plane_bytes(a, ka, n), nb, kb,
            plane_bytes(b, kb, n));
}

/* `copy_input`: whether an input plane overlaps an output plane in a way
 * the alias rule does not allow. */
static void emit_copy_condition(FILE *out, const Schedule *s, AliasRule rule) {
    fputs("    const int copy_input = 0", out);
    for (int i = 0; i < s->in_elem->nslots; i++)
        for (int j = 0; j < s->out_elem->nslots; j++) {
            fputs("\n        || (", out);
            emit_overlap(out, s->in_elem, i, "in", s->out_elem, j, "out", s->n);
            if (rule == ALIAS_EXACT_OK && i == j) fprintf(out, " && in[%d] != out[%d]", i, j);
            fputs(")", out);
        }
    fputs(";\n", out);
}

static void emit_input_copy(FILE *out, const Schedule *s, const BufferPlan *bp, bool cuda) {
    int ns = s->in_elem->nslots;
    fprintf(out, "    const void *in_copy[%d];\n    if (copy_input) {\n", ns);
    for (int k = 0; k < ns; k++) {
        fprintf(out, "        in_copy[%d] = scratch + 0x%llxu;\n", k, bp->copy_off[k]);
        if (cuda)
            fprintf(out, "        PARM_CHECK(ctx, cudaMemcpyAsync(scratch + 0x%llxu, in[%d], 0x%llxu, "
                         "cudaMemcpyDeviceToDevice, ctx->stream));\n", bp->copy_off[k], k, plane_bytes(s->in_elem, k, s->n));
        else
            fprintf(out, "        memcpy(scratch + 0x%llxu, in[%d], 0x%llxu);\n", bp->copy_off[k], k,
                    plane_bytes(s->in_elem, k, s->n));
    }
    fputs("        in = in_copy;\n    }\n", out);
}

void emit_run_start(FILE *out, const Schedule *s, const BufferPlan *bp, bool cuda) {
    const ElemType *res = s->out_elem;
    if (res->nslots > 1) {
        fputs("    if (0", out);
        for (int i = 0; i < res->nslots; i++)
            for (int j = i + 1; j < res->nslots; j++) {
                fputs("\n        || ", out);
                emit_overlap(out, res, i, "out", res, j, "out", s->n);
            }
        fputs(")\n        return PARM_ERROR_ALIAS;\n", out);
    }
    fputs("    char *scratch;\n    int status;\n", out);
    if (bp->alias == ALIAS_HARMLESS) {
        fprintf(out, "    if ((status = parm_scratch(ctx, 0x%llxu, &scratch))) return status;\n", bp->bytes);
    } else {
        emit_copy_condition(out, s, bp->alias);
        fprintf(out, "    if ((status = parm_scratch(ctx, copy_input ? 0x%llxu : 0x%llxu, &scratch))) return status;\n",
                bp->copy_bytes, bp->bytes);
        emit_input_copy(out, s, bp, cuda);
    }
    fputs("    (void)scratch;\n", out);
    for (int x = 0; x < 2; x++) {
        if (bp->nplanes[x] == 0) continue;
        fprintf(out, "    void *const %s[%d] = {", emit_buffer_name(BUF_SCRATCH_A + x), bp->nplanes[x]);
        for (int k = 0; k < bp->nplanes[x]; k++)
            fprintf(out, "%sscratch + 0x%llxu", k ? ", " : "", bp->plane_off[x][k]);
        fputs("};\n", out);
    }
}

/* ---- the API ---- */

static const Schedule *first_of_entry(const EmitInput *in, const char *entry) {
    for (int i = 0; i < in->nschedules; i++)
        if (strcmp(in->schedules[i].func->entry, entry) == 0) return &in->schedules[i];
    return NULL;
}

static bool first_occurrence(const EmitInput *in, int i) {
    return first_of_entry(in, in->schedules[i].func->entry) == &in->schedules[i];
}

static void emit_signature(FILE *out, const Schedule *s) {
    fprintf(out, "int parm_%s(parm_ctx *ctx", s->func->entry);
    for (int k = 0; k < s->in_elem->nslots; k++)
        fprintf(out, ", const %s *in%d", prim_ctype(elem_slot_prim(s->in_elem, k)), k);
    for (int k = 0; k < s->out_elem->nslots; k++)
        fprintf(out, ", %s *out%d", prim_ctype(elem_slot_prim(s->out_elem, k)), k);
    fputs(", size_t n)", out);
}

static const char api_decls[] =
    "typedef struct parm_ctx parm_ctx;\n\n"
    "enum {\n"
    "    PARM_OK = 0,\n"
    "    PARM_ERROR_NULL = 1,      /* a null context or array pointer */\n"
    "    PARM_ERROR_LENGTH = 2,    /* a length the entry was not compiled for */\n"
    "    PARM_ERROR_MEMORY = 3,    /* scratch memory could not be allocated */\n"
    "    PARM_ERROR_CUDA = 4,      /* a CUDA call failed: see parm_ctx_message */\n"
    "    PARM_ERROR_DEVICE = 5,    /* the context belongs to another device */\n"
    "    PARM_ERROR_ALIAS = 6      /* output arrays overlap (inputs may overlap outputs) */\n"
    "};\n\n"
    "/* A context holds scratch memory (and, for CUDA, a stream). */\n"
    "int parm_ctx_create(parm_ctx **ctx);\n"
    "void parm_ctx_destroy(parm_ctx *ctx);\n"
    "const char *parm_error_string(int code);\n";

/* "u32, f32": the fields' types, which the C types do not tell (bool and u8
 * are both uint8_t) */
static void emit_slot_names(FILE *out, const ElemType *t) {
    for (int k = 0; k < t->nslots; k++) fprintf(out, "%s%s", k ? ", " : "", prim_name(elem_slot_prim(t, k)));
}

void emit_header(FILE *out, const EmitInput *in, bool cuda) {
    fprintf(out, "/* Generated by parmc from %s: the API of the compiled entries. */\n", in->source_name);
    fputs("#ifndef PARM_GENERATED_H\n#define PARM_GENERATED_H\n\n#include <stddef.h>\n#include <stdint.h>\n", out);
    if (cuda) fputs("#include <cuda_runtime.h>\n", out);
    fputs("\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", out);
    fputs(api_decls, out);
    if (cuda) {
        fputs("/* The stream every entry runs on; entries do not synchronise. */\n"
              "cudaStream_t parm_ctx_stream(parm_ctx *ctx);\n"
              "/* The message of the last CUDA error of this context. */\n"
              "const char *parm_ctx_message(parm_ctx *ctx);\n", out);
    }
    fputs("\n", out);
    for (int i = 0; i < in->nschedules; i++) {
        if (!first_occurrence(in, i)) continue;
        const Schedule *e = &in->schedules[i];
        fprintf(out, "/* entry %s, fields ", e->func->entry);
        emit_slot_names(out, e->in_elem);
        fputs(" -> ", out);
        emit_slot_names(out, e->out_elem);
        fprintf(out, ": arrays of tuples are passed one array per field (%s pointers). */\n", cuda ? "device" : "host");
        emit_signature(out, &in->schedules[i]);
        fputs(";\n", out);
    }
    fputs("\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n", out);
}

void emit_preamble(FILE *out, const EmitInput *in, bool cuda) {
    fprintf(out, "/* Generated by parmc from %s. Do not edit. */\n", in->source_name);
    fputs("#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n", out);
    if (cuda) fputs("#include <cuda_runtime.h>\n", out);
    fprintf(out, "#include \"%s\"\n\n", in->header_name);
    /* the runtime defines every operator; a program uses a few */
    if (cuda) fputs("#pragma nv_diag_suppress 177\n", out);
    fputs("// start of parm_ops.h\n", out);
    fputs(runtime_parm_ops_h, out);
    fputs("// end of parm_ops.h\n\n", out);
    fputs("PARM_FN int parm_parity(uint64_t x)\n{\n#ifdef __CUDA_ARCH__\n    return __popcll(x) & 1;\n#else\n"
          "    return __builtin_parityll(x);\n#endif\n}\n\n", out);
    if (!cuda) fputs("static inline int parm_ctz(uint64_t x) { return __builtin_ctzll(x); }\n\n", out);
    fputs("/* Whether [a, a + na) and [b, b + nb) share a byte. */\n"
          "static inline int parm_overlap(const void *a, size_t na, const void *b, size_t nb)\n{\n"
          "    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;\n"
          "    return x < y + nb && y < x + na;\n}\n\n", out);
    fputs("const char *parm_error_string(int code)\n{\n"
          "    switch (code) {\n"
          "    case PARM_OK: return \"success\";\n"
          "    case PARM_ERROR_NULL: return \"a null context or array pointer\";\n"
          "    case PARM_ERROR_LENGTH: return \"a length the entry was not compiled for\";\n"
          "    case PARM_ERROR_MEMORY: return \"out of memory for scratch buffers\";\n"
          "    case PARM_ERROR_CUDA: return \"a CUDA call failed\";\n"
          "    case PARM_ERROR_DEVICE: return \"the context belongs to another device\";\n"
          "    case PARM_ERROR_ALIAS: return \"output arrays overlap\";\n"
          "    default: return \"unknown error code\";\n    }\n}\n\n", out);
}

/* One function per entry: checks its arguments and dispatches on n. */
static void emit_entry(FILE *out, const EmitInput *in, const Schedule *first, bool cuda) {
    emit_signature(out, first);
    fputs("\n{\n    if (!ctx", out);
    for (int k = 0; k < first->in_elem->nslots; k++) fprintf(out, " || !in%d", k);
    for (int k = 0; k < first->out_elem->nslots; k++) fprintf(out, " || !out%d", k);
    fputs(") return PARM_ERROR_NULL;\n", out);
    if (cuda) fputs("    int device_status = parm_check_device(ctx);\n    if (device_status) return device_status;\n", out);
    fprintf(out, "    const void *in[%d] = {", first->in_elem->nslots);
    for (int k = 0; k < first->in_elem->nslots; k++) fprintf(out, "%sin%d", k ? ", " : "", k);
    fprintf(out, "};\n    void *out[%d] = {", first->out_elem->nslots);
    for (int k = 0; k < first->out_elem->nslots; k++) fprintf(out, "%sout%d", k ? ", " : "", k);
    fputs("};\n    switch (n) {\n", out);
    for (int i = 0; i < in->nschedules; i++) {
        const Schedule *s = &in->schedules[i];
        if (strcmp(s->func->entry, first->func->entry) != 0) continue;
        fprintf(out, "    case (size_t)1 << %d: return %s_run(ctx, in, out);\n", s->n, s->func->name);
    }
    fputs("    default: return PARM_ERROR_LENGTH;\n    }\n}\n\n", out);
}

void emit_entries(FILE *out, const EmitInput *in, bool cuda) {
    for (int i = 0; i < in->nschedules; i++)
        if (first_occurrence(in, i)) emit_entry(out, in, &in->schedules[i], cuda);
}

/* ---- the standalone main ---- */

static const char *parse_call(Prim p) {
    switch (p) {
    case PRIM_BOOL: return "parm_parse_bool(tok, (uint8_t *)&v.u8)";
    case PRIM_F32: case PRIM_F64: return "parm_parse_double(tok, &v.f64)";
    default: return prim_is_signed(p) ? "parm_parse_signed(tok, %d, &v.i64)" : "parm_parse_unsigned(tok, %d, &v.u64)";
    }
}

static void emit_store(FILE *out, Prim p, int k) {
    const char *t = prim_ctype(p);
    if (p == PRIM_BOOL) fprintf(out, "            ((%s *)host_in[%d])[i] = v.u8;\n", t, k);
    else if (p == PRIM_F32) fprintf(out, "            ((%s *)host_in[%d])[i] = (float)v.f64;\n", t, k);
    else if (p == PRIM_F64) fprintf(out, "            ((%s *)host_in[%d])[i] = v.f64;\n", t, k);
    else if (prim_is_signed(p)) fprintf(out, "            ((%s *)host_in[%d])[i] = (%s)v.i64;\n", t, k, t);
    else fprintf(out, "            ((%s *)host_in[%d])[i] = (%s)v.u64;\n", t, k, t);
}

static void emit_print(FILE *out, Prim p, int k) {
    const char *t = prim_ctype(p);
    const char *fn = p == PRIM_BOOL ? "parm_print_bool" : p == PRIM_F32 ? "parm_print_f32"
                     : p == PRIM_F64 ? "parm_print_f64" : prim_is_signed(p) ? "parm_print_signed"
                     : "parm_print_unsigned";
    fprintf(out, "        %s(stdout, ((const %s *)host_out[%d])[i]);\n", fn, t, k);
}

/* Reads the input as the interpreter does, with its messages for bad input
 * (runtime/parm_io.h): in is the schedules of the entry being run. */
static void emit_read_input(FILE *out, const EmitInput *in, const Schedule *s) {
    const ElemType *t = s->in_elem;
    fputs("    parm_input input;\n"
          "    if (parm_input_read(&input, stdin)) { fprintf(stderr, \"error: cannot read the input\\n\"); return 1; }\n"
          "    if (parm_input_has_nul(&input)) { free(input.text); return 1; }\n"
          "    char tok[PARM_MAX_TOKEN];\n    long count = 0;\n"
          "    while (parm_next_token(&input, tok, sizeof tok)) count++;\n"
          "    static const long counts[] = {", out);
    int ncounts = 0;
    for (int i = 0; i < in->nschedules; i++)
        if (strcmp(in->schedules[i].func->entry, s->func->entry) == 0)
            fprintf(out, "%s%ldL", ncounts++ ? ", " : "", (long)t->nslots << in->schedules[i].n);
    fprintf(out, "};\n    if (parm_input_bad_count(\"%s\", counts, %d, count)) { free(input.text); return 1; }\n",
            s->func->entry, ncounts);
    fprintf(out, "    size_t n = (size_t)(count / %d);\n    input.pos = 0;\n    input.count = 0;\n", t->nslots);
    fprintf(out, "    void *host_in[%d], *host_out[%d];\n", t->nslots, s->out_elem->nslots);
    for (int k = 0; k < t->nslots; k++)
        fprintf(out, "    host_in[%d] = malloc(sizeof(%s) * n);\n", k, prim_ctype(elem_slot_prim(t, k)));
    for (int k = 0; k < s->out_elem->nslots; k++)
        fprintf(out, "    host_out[%d] = malloc(sizeof(%s) * n);\n", k, prim_ctype(elem_slot_prim(s->out_elem, k)));
    fputs("    for (size_t i = 0; i < n; i++) {\n", out);
    for (int k = 0; k < t->nslots; k++) {
        Prim p = elem_slot_prim(t, k);
        fputs("        {\n            union { int64_t i64; uint64_t u64; double f64; uint8_t u8; } v;\n"
              "            parm_next_token(&input, tok, sizeof tok);\n            if (!", out);
        fprintf(out, parse_call(p), prim_bits(p));
        fprintf(out, ") {\n                parm_input_invalid(&input, \"%s\");\n"
                     "                return 1;\n            }\n", prim_name(p));
        emit_store(out, p, k);
        fputs("        }\n", out);
    }
    fputs("    }\n    free(input.text);\n", out);
}

void emit_entry_call(FILE *out, const Schedule *s, const char *in, const char *outs) {
    fprintf(out, "parm_%s(ctx", s->func->entry);
    for (int k = 0; k < s->in_elem->nslots; k++)
        fprintf(out, ", (const %s *)%s[%d]", prim_ctype(elem_slot_prim(s->in_elem, k)), in, k);
    for (int k = 0; k < s->out_elem->nslots; k++)
        fprintf(out, ", (%s *)%s[%d]", prim_ctype(elem_slot_prim(s->out_elem, k)), outs, k);
    fputs(", n)", out);
}

void emit_main(FILE *out, const EmitInput *in, bool cuda) {
    const Schedule *s = first_of_entry(in, in->main_entry);
    if (!s) diag_fatal("--emit-main: no entry point named '%s'", in->main_entry);
    fputs("// start of parm_io.h\n", out);
    fputs(runtime_parm_io_h, out);
    fputs("// end of parm_io.h\n\n", out);
    if (cuda) emit_cuda_runner(out, s);
    else emit_c_runner(out, s);
    fputs("int main(int argc, char **argv)\n{\n", out);
    fputs("    int repeat = 0;\n"
          "    for (int i = 1; i < argc; i++) {\n"
          "        if (!strcmp(argv[i], \"-r\") && i + 1 < argc) repeat = atoi(argv[++i]);\n"
          "        else { fprintf(stderr, \"usage: %s [-r N] < input\\n\", argv[0]); return 2; }\n"
          "    }\n", out);
    emit_read_input(out, in, s);
    fputs("    parm_ctx *ctx;\n    int status = parm_ctx_create(&ctx);\n", out);
    fprintf(out, "    if (!status) status = parm_main_run_%s(ctx, host_in, host_out, n, repeat);\n", cuda ? "cuda" : "c");
    fputs("    if (status) {\n        fprintf(stderr, \"error: %s\\n\", parm_error_string(status));\n"
          "        parm_ctx_destroy(ctx);\n        return 1;\n    }\n", out);
    fputs("    for (size_t i = 0; i < n; i++) {\n", out);
    for (int k = 0; k < s->out_elem->nslots; k++) {
        if (k) fputs("        fputc(' ', stdout);\n", out);
        emit_print(out, elem_slot_prim(s->out_elem, k), k);
    }
    fputs("        fputc('\\n', stdout);\n    }\n", out);
    for (int k = 0; k < s->in_elem->nslots; k++) fprintf(out, "    free(host_in[%d]);\n", k);
    for (int k = 0; k < s->out_elem->nslots; k++) fprintf(out, "    free(host_out[%d]);\n", k);
    fputs("    parm_ctx_destroy(ctx);\n    return 0;\n}\n", out);
}
