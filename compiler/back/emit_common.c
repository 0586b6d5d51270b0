/* emit_common.c: what the C and CUDA outputs share, written once for a
 * Target (emit_target.h): the program (emit_program), the embedded runtime,
 * the API (context, error codes, one function per entry dispatching on the
 * length), and the standalone main of --emit-main. */
#include "emit.h"

#include <ctype.h>
#include <string.h>

#include "emit_elem.h"

const SharedArray *emit_shared_array(const SharedPlan *sh, SharedRole role, int field) {
    const SharedArray *a = plan_shared_array(sh, role, field);
    if (!a)
        diag_fatal("internal error: a kernel's shared array %d of field %d not planned", role,
                   field);
    return a;
}

void emit_phase_comment(FILE *out, const Phase *p) {
    switch (p->kind) {
    case PHASE_LOCAL:
        fprintf(out, "one pass, tiles of 2^%d elements, %d stage%s:", p->tile_log, p->nsteps,
                p->nsteps == 1 ? "" : "s");
        for (int i = 0; i < p->nsteps; i++) fprintf(out, " %%%d", p->steps[i].stmt->res[0]->id);
        if (p->map) {
            fputs(", loading through ", out);
            ir_print_stmt_brief(out, p->map);
        }
        break;
    case PHASE_MAP:
        fputs("one pass, elementwise: ", out);
        ir_print_stmt_brief(out, p->map);
        break;
    case PHASE_PERMUTE:
        fputs("one pass, the permutation the bmmc statements add up to", out);
        break;
    case PHASE_EXCHANGE:
        fprintf(out, "the permutation the bmmc statements add up to, %s%s%s",
                p->packs ? "packed, " : "",
                p->crosses ? "exchanged between the GPUs" : "on each GPU",
                p->unpacks ? ", unpacked" : "");
        break;
    }
}

/* ---- entries of any length (plan.h, Schedule.pad) ---- */

bool emit_pad_loads(const Schedule *s, const Phase *p) { return s->pad && p->src == BUF_IN; }

bool emit_phase_reduces(const Schedule *s, const Phase *p) {
    return s->reduce && p == &s->phases[s->reduce_phase];
}

void emit_partial_params(FILE *out, const Schedule *s, const Target *target) {
    for (int k = 0; k < s->reduce->nres; k++) {
        const char *t = prim_ctype(emit_reduce_prim(s->reduce, k));
        fprintf(out, ", %s *%sq%d", t, target->restrict_ptr, k);
    }
}
bool emit_pad_stores(const Schedule *s, const Phase *p) {
    return s->pad && !s->pad_in_only && p->dst == BUF_OUT;
}

/* Templates over an index '@' of the padded order (emit_bmmc.h). Rows of
 * an array of at most 2^32 elements compute in 32 bits (the row, the column
 * and row·parm_cols + column all fit): one multiply-add per element, which
 * the load of every element of the first kernel pays. */
static const char *pad_index_type(const Schedule *s) {
    return s->n <= 32 ? "(uint32_t)" : "(uint64_t)";
}

/* Row r = @ >> cols and column c = @ & mask of the padded order, as text. */
static const char *pad_row(Arena *a, const Schedule *s) {
    return arena_printf(a, "(%s@ >> %d)", pad_index_type(s), s->pad_cols_log);
}

static const char *pad_col(Arena *a, const Schedule *s) {
    return arena_printf(a, "(%s@ & 0x%llxu)", pad_index_type(s),
                        (unsigned long long)f2_mask(s->pad_cols_log));
}

/* Segments: column c of row r is there when c < parm_lens[r] and its place,
 * parm_starts[r] + c, is inside the caller's parm_cols elements (never a
 * read or write outside them, whatever the segments). */
static const char *segment_inside_template(Arena *a, const Schedule *s) {
    const char *r = pad_row(a, s), *c = pad_col(a, s);
    return arena_printf(a,
                        "((int64_t)%s < (int64_t)parm_lens[%s] && (int64_t)parm_starts[%s] >= 0 "
                        "&& (uint64_t)parm_starts[%s] + %s < parm_cols)",
                        c, r, r, r, c);
}

static const char *pad_inside_template(Arena *a, const Schedule *s) {
    if (s->segments) return segment_inside_template(a, s);
    if (s->pad_rows_log < 0) return "@ < parm_cols";
    const char *t = pad_index_type(s);
    return arena_printf(a, "(%s@ >> %d) < %sparm_rows && (%s@ & 0x%llxu) < %sparm_cols", t,
                        s->pad_cols_log, t, t, (unsigned long long)f2_mask(s->pad_cols_log), t);
}

static const char *pad_at_template(Arena *a, const Schedule *s) {
    if (s->segments)
        return arena_printf(a, "((uint64_t)parm_starts[%s] + %s)", pad_row(a, s), pad_col(a, s));
    if (s->pad_rows_log < 0) return "@";
    const char *t = pad_index_type(s);
    return arena_printf(a, "(%s@ >> %d) * %sparm_cols + (%s@ & 0x%llxu)", t, s->pad_cols_log, t, t,
                        (unsigned long long)f2_mask(s->pad_cols_log));
}

/* A template with '@' replaced by (index), in the arena. */
static const char *instantiate(Arena *a, const char *tmpl, const char *index) {
    const char *text = "";
    for (const char *c = tmpl; *c; c++)
        text = *c == '@' ? arena_printf(a, "%s(%s)", text, index)
                         : arena_printf(a, "%s%c", text, *c);
    return text;
}

const char *emit_pad_inside(Arena *a, const Schedule *s, const char *index) {
    return instantiate(a, pad_inside_template(a, s), index);
}

const char *emit_pad_at(Arena *a, const Schedule *s, const char *index) {
    return instantiate(a, pad_at_template(a, s), index);
}

const char *emit_pad_value(Arena *a, const Schedule *s, int k) {
    return emit_scalar_literal(a, elem_slot_prim(s->in_elem, k), s->pad[k]);
}

const char *emit_pad_load(Arena *a, const Schedule *s, int k, const char *plane,
                          const char *index) {
    return arena_printf(a, "(%s ? %s[%s] : %s)", emit_pad_inside(a, s, index), plane,
                        emit_pad_at(a, s, index), emit_pad_value(a, s, k));
}

void emit_permute_kernels(FILE *out, const Schedule *s, const Phase *p, const char *name,
                          BmmcEmitter emit) {
    Arena scratch = {0};
    for (int k = 0; k < p->elem->nslots; k++) {
        const char *slot_name = arena_printf(&scratch, "%s_slot%d", name, k);
        BmmcGuard guard =
            {emit_pad_loads(s, p), emit_pad_stores(s, p), NULL, NULL, NULL, NULL, NULL, NULL};
        if (s->pad) {
            guard.params = emit_shape_params(&scratch, s);
            guard.args = emit_shape_args(s);
            guard.unused = emit_shape_unused(s);
            guard.inside = pad_inside_template(&scratch, s);
            guard.at = pad_at_template(&scratch, s);
            guard.pad = emit_pad_loads(s, p) ? emit_pad_value(&scratch, s, k) : "0";
        }
        emit(out, &p->slot_plans[k], slot_name, prim_ctype(elem_slot_prim(p->elem, k)),
             s->pad ? &guard : NULL);
    }
    arena_free(&scratch);
}

const char *emit_parity(Arena *a, int n, const char *const *vars, const uint64_t *masks,
                        const char *extra, int konst) {
    const char *text = "";
    for (int i = 0; i < n; i++) {
        if (!masks[i]) continue;
        const char *sep = *text ? " ^ " : "";
        if (masks[i] == UINT64_MAX)
            text = arena_printf(a, "%s%sparm_parity(%s)", text, sep, vars[i]);
        else
            text = arena_printf(a, "%s%sparm_parity(%s & 0x%llxull)", text, sep, vars[i],
                                (unsigned long long)masks[i]);
    }
    if (extra) text = arena_printf(a, "%s%s%s", text, *text ? " ^ " : "", extra);
    if (konst & 1) text = arena_printf(a, "%s%s1", text, *text ? " ^ " : "");
    return *text ? text : "0";
}

/* Whether row k of a position copies one bit of u (and none of b): bit k
 * is bit *from of u. */
static bool copies_u_bit(uint64_t on_u, uint64_t on_b, int *from) {
    if (!on_u || (on_u & (on_u - 1)) || on_b) return false;
    *from = __builtin_ctzll(on_u);
    return true;
}

/* The rows that copy a bit of u from `shift` places up (down where
 * negative) as one mask: ((u >> shift) & mask) moves them all at once,
 * where parities would take one popc each (a row index, bits of the
 * element's place, is mostly such copies). */
static uint64_t copied_run(int bits, const uint64_t *on_u, const uint64_t *on_b, int shift,
                           uint64_t done) {
    uint64_t mask = 0;
    for (int k = 0; k < bits; k++) {
        int from;
        if (!(done >> k & 1) && copies_u_bit(on_u[k], on_b[k], &from) && from - k == shift)
            mask |= 1ull << k;
    }
    return mask;
}

const char *emit_pos_expr(Arena *a, int bits, const uint64_t *on_u, const uint64_t *on_b,
                          uint64_t konst, const char *u, const char *b) {
    static const uint64_t no_b[64];
    if (!b) on_b = no_b;
    char *text = arena_printf(a, "(int64_t)(0x%llxull", (unsigned long long)konst);
    uint64_t done = 0;
    for (int k = 0; u && k < bits; k++) {
        int from;
        if (done >> k & 1 || !copies_u_bit(on_u[k], on_b[k], &from)) continue;
        uint64_t mask = copied_run(bits, on_u, on_b, from - k, done);
        done |= mask;
        if (from >= k)
            text = arena_printf(a, "%s ^ ((uint64_t)(%s) >> %d & 0x%llxull)", text, u, from - k,
                                (unsigned long long)mask);
        else
            text = arena_printf(a, "%s ^ ((uint64_t)(%s) << %d & 0x%llxull)", text, u, k - from,
                                (unsigned long long)mask);
    }
    for (int k = 0; k < bits; k++) {
        bool tu = u && on_u[k], tb = b && on_b[k];
        if (done >> k & 1 || (!tu && !tb)) continue;
        text = arena_printf(a, "%s ^ ((uint64_t)(", text);
        if (tu)
            text = arena_printf(a, "%sparm_parity(%s & 0x%llxull)", text, u,
                                (unsigned long long)on_u[k]);
        if (tb)
            text = arena_printf(a, "%s%sparm_parity(%s & 0x%llxull)", text, tu ? " ^ " : "", b,
                                (unsigned long long)on_b[k]);
        text = arena_printf(a, "%s) << %d)", text, k);
    }
    return arena_printf(a, "%s)", text);
}

const char *emit_live_row(Arena *a, const Schedule *s, const Phase *p, const char *r) {
    const char *row = emit_pos_expr(a, s->pad_rows_log, p->live_b, NULL, p->live_const, "b", NULL);
    for (int k = 0; k < s->live_dim; k++)
        row = arena_printf(a, "%s ^ ((%s >> %d & 1) ? 0x%llxll : 0)", row, r, k,
                           (unsigned long long)s->live_basis[k]);
    return row;
}

static const char *pos_at(const void *ctx, const IrStmt *pos, Arena *a) {
    const PosAt *at = ctx;
    uint64_t on_u[64], on_b[64], konst;
    if (at->store) {
        int bits = plan_store_pos(at->phase, pos, on_u, &konst);
        return emit_pos_expr(a, bits, on_u, NULL, konst, at->u, NULL);
    }
    int bits = plan_pos(at->phase, at->step, pos, on_u, on_b, &konst);
    return emit_pos_expr(a, bits, on_u, on_b, konst, at->u, at->b);
}

ElemPositions emit_positions_at(const PosAt *at) {
    if (at->store) return (ElemPositions){pos_at, at, NULL, 0}; /* a store map reads no tables */
    if (at->step) return (ElemPositions){pos_at, at, at->step->tables, at->step->ntables};
    return (ElemPositions){pos_at, at, at->phase->map_tables, at->phase->nmap_tables};
}

/* The index in the sliced array of element `index` of a slice
 * (plan_slice_index): each run of the bits outside `fixed` takes the next
 * bits of index, and `value` the others; 64-bit beyond 2^32 elements. */
static const char *slice_index(Arena *a, const Slice *sl, const char *index) {
    bool wide = sl->log > 32;
    const char *text = sl->value ? arena_printf(a, "0x%llx%s", (unsigned long long)sl->value,
                                                wide ? "ull" : "u")
                                 : NULL;
    for (int bit = 0, from = 0; bit < sl->log;) {
        if (sl->fixed >> bit & 1) {
            bit++;
            continue;
        }
        int run = 0;
        while (bit + run < sl->log && !(sl->fixed >> (bit + run) & 1)) run++;
        const char *bits = arena_printf(a, "(((%s(%s) >> %d) & 0x%llx%s) << %d)",
                                        wide ? "(uint64_t)" : "(unsigned)", index, from,
                                        (unsigned long long)f2_mask(run), wide ? "ull" : "u", bit);
        text = text ? arena_printf(a, "%s | %s", text, bits) : bits;
        from += run;
        bit += run;
    }
    return arena_printf(a, "(%s)", text ? text : "0u");
}

/* The index in the output's planes of element `index` of what phase p
 * writes: a slice's element in the array it is of (Schedule.out_slice). */
static const char *output_at(Arena *a, const Schedule *s, const Phase *p, const char *index) {
    return p->dst == BUF_OUT && s->out_slice.log ? slice_index(a, &s->out_slice, index) : index;
}

/* Element `index` of field k of what phase p reads: the pad outside the
 * shape of an entry of any length, an expanded plane's element index >>
 * shift (Schedule.in_shift), a slice's element in the array it is of
 * (Schedule.in_slice). */
static const char *input_at(Arena *a, const Schedule *s, const Phase *p, int k, const char *index) {
    const char *plane = arena_printf(a, "in%d", k);
    if (p->src == BUF_IN && s->in_slice.log) index = slice_index(a, &s->in_slice, index);
    if (emit_pad_loads(s, p)) return emit_pad_load(a, s, k, plane, index);
    if (p->src == BUF_IN && s->in_shift[k])
        return arena_printf(a, "%s[(%s) >> %d]", plane, index, s->in_shift[k]);
    return arena_printf(a, "%s[%s]", plane, index);
}

void emit_map_element(FILE *out, const Schedule *s, const Phase *p) {
    Arena scratch = {0};
    const char *params[SCHED_MAX_SLOTS], *results[SCHED_MAX_SLOTS];
    bool stores = emit_pad_stores(s, p);
    /* past the end of the shape nothing is stored: nothing to compute */
    if (stores) fprintf(out, "        if (!(%s)) continue;\n", emit_pad_inside(&scratch, s, "x"));
    /* with ranks x is the global index, the planes are the rank's slices */
    const char *index = s->gpu_log ? arena_printf(&scratch, "x & 0x%llxu",
                                                  (unsigned long long)f2_mask(p->n - s->gpu_log))
                                   : "x";
    for (int k = 0; k < p->in_elem->nslots; k++) params[k] = input_at(&scratch, s, p, k, index);
    for (int k = 0; k < p->elem->nslots; k++) {
        if (plan_stores_slot(s, p, k)) {
            results[k] = arena_printf(&scratch, "out%d[%s]", k,
                                      stores ? emit_pad_at(&scratch, s, "x")
                                             : output_at(&scratch, s, p, index));
            continue;
        }
        results[k] = arena_printf(&scratch, "m_unstored%d", k);
        fprintf(out, "        %s %s;\n", prim_ctype(elem_slot_prim(p->elem, k)), results[k]);
    }
    PosAt at = {p, NULL, "x", NULL, false};
    ElemPositions positions = emit_positions_at(&at);
    emit_elem_body(out, p->map->body, params, results, "m_", 2, &positions);
    for (int k = 0; k < p->elem->nslots; k++)
        if (!plan_stores_slot(s, p, k)) fprintf(out, "        (void)%s;\n", results[k]);
    arena_free(&scratch);
}

void emit_tile_element_load(FILE *out, const Schedule *s, const Phase *p, const char *index,
                            const char *const *dest, int indent) {
    Arena scratch = {0};
    const char *fields[SCHED_MAX_SLOTS];
    for (int k = 0; k < p->in_elem->nslots; k++) fields[k] = input_at(&scratch, s, p, k, index);
    if (!p->map) {
        for (int k = 0; k < p->elem->nslots; k++)
            fprintf(out, "%*s%s = %s;\n", 4 * indent, "", dest[k], fields[k]);
    } else {
        /* with ranks the position is the global index */
        const char *x = s->gpu_log ? arena_printf(&scratch, "((%s) | parm_rank << %d)", index,
                                                  p->n - s->gpu_log)
                                   : arena_printf(&scratch, "(%s)", index);
        PosAt at = {p, NULL, x, NULL, false};
        ElemPositions positions = emit_positions_at(&at);
        fprintf(out, "%*s{\n", 4 * indent, "");
        emit_elem_body(out, p->map->body, fields, dest, "m_", 4 * indent + 4, &positions);
        fprintf(out, "%*s}\n", 4 * indent, "");
    }
    arena_free(&scratch);
}

/* `value` into slot k of the phase's output at memory index `index`. */
static void emit_slot_store(FILE *out, const Schedule *s, const Phase *p, int k, const char *index,
                            const char *value, int indent) {
    if (!plan_stores_slot(s, p, k)) return;
    if (!emit_pad_stores(s, p)) {
        Arena sliced = {0};
        fprintf(out, "%*sout%d[%s] = %s;\n", 4 * indent, "", k, output_at(&sliced, s, p, index),
                value);
        arena_free(&sliced);
        return;
    }
    Arena scratch = {0};
    fprintf(out, "%*sif (%s) out%d[%s] = %s;\n", 4 * indent, "",
            emit_pad_inside(&scratch, s, index), k, emit_pad_at(&scratch, s, index), value);
    arena_free(&scratch);
}

void emit_tile_element_store(FILE *out, const Schedule *s, const Phase *p, const char *index,
                             const char *const *fields, int indent) {
    if (!p->store_map) {
        for (int k = 0; k < p->elem->nslots; k++)
            emit_slot_store(out, s, p, k, index, fields[k], indent);
        return;
    }
    Arena scratch = {0};
    const ElemType *res = plan_out_elem(p);
    const char *results[SCHED_MAX_SLOTS];
    fprintf(out, "%*s{\n", 4 * indent, "");
    /* only the slots stored are computed: nvcc warns of one set but never used */
    for (int k = 0; k < res->nslots; k++) {
        results[k] = plan_stores_slot(s, p, k) ? arena_printf(&scratch, "sm%d", k) : NULL;
        if (results[k])
            fprintf(out, "%*s%s %s;\n", 4 * indent + 4, "", prim_ctype(elem_slot_prim(res, k)),
                    results[k]);
    }
    PosAt at = {p, NULL, arena_printf(&scratch, "(%s)", index), NULL, true};
    ElemPositions positions = emit_positions_at(&at);
    emit_elem_body(out, p->store_map->body, fields, results, "sm_", 4 * indent + 4, &positions);
    for (int k = 0; k < res->nslots; k++)
        emit_slot_store(out, s, p, k, index, results[k], indent + 1);
    fprintf(out, "%*s}\n", 4 * indent, "");
    arena_free(&scratch);
}

static unsigned long long plane_bytes(const ElemType *t, int k, int n) {
    return (unsigned long long)(prim_bits(elem_slot_prim(t, k)) / 8) << n;
}

/* ---- a chain (plan.h, Schedule) ---- */

/* NAME_exec's calls of the phases in order, through the plan's buffers. */
static void emit_phase_calls(FILE *out, const Schedule *s, const char *fname, const Target *t) {
    emit_copy_whole(out, s, t);
    Arena names = {0};
    for (int i = 0; i < s->nphases; i++)
        t->phase_call(out, s, &s->phases[i], plan_phase_name(&names, fname, i));
    arena_free(&names);
    fputs("    return PARM_OK;\n}\n\n", out);
}

/* The head of a chain's function NAME_`what` (NAME_exec, NAME_whole). */
static void emit_exec_head(FILE *out, const Schedule *s, const char *fname, const char *what) {
    fprintf(
        out,
        "static int %s_%s(parm_ctx *ctx, const void *const *in, void *const *out, char *scratch%s",
        fname, what, s->reduce ? ", void *const *partial" : "");
    emit_arg_params(out, s);
    fputs(")\n{\n", out);
}

void emit_chain(FILE *out, const Schedule *s, const char *fname, const Target *t) {
    Arena names = {0};
    for (int i = 0; i < s->nphases; i++) {
        const Phase *p = &s->phases[i];
        const char *name = plan_phase_name(&names, fname, i);
        fprintf(out, "/* %s: ", name);
        emit_phase_comment(out, p);
        fputs(" */\n", out);
        t->phase[p->kind](out, s, p, name);
    }
    arena_free(&names);
    if (s->whole_log) {
        /* too small to split: NAME_whole, the one-GPU body, on every rank */
        emit_exec_head(out, s, fname, "whole");
        t->exec_start(out, s);
        emit_scratch_planes(out, s);
        emit_phase_calls(out, s, fname, t);
        emit_exec_head(out, s, fname, "exec");
        t->whole_body(out, s, fname);
        return;
    }
    emit_exec_head(out, s, fname, "exec");
    t->exec_start(out, s);
    if (s->gpu_log && t->rank_body) {
        t->rank_body(out, s, fname);
        return;
    }
    emit_scratch_planes(out, s);
    emit_phase_calls(out, s, fname, t);
}

void emit_exchange_steps(FILE *out, const Schedule *s, const Phase *p, const char *name,
                         const Target *t) {
    for (int i = 0; i < p->nxsteps; i++) t->exchange_step(out, s, p, name, &p->xsteps[i]);
}

int emit_unpack_kernel_of(const Phase *p, int rank) {
    int d = 0;
    while (p->unpack_const[d] != p->unpack_const[rank]) d++;
    return d;
}

void emit_exchange_kernel_plans(FILE *out, const Schedule *s, const Phase *p, const char *name,
                                BmmcWriter *write) {
    Arena names = {0};
    int ns = p->elem->nslots;
    for (int k = 0; p->pack_plans && k < ns; k++) {
        BmmcPlan pack = p->pack_plans[k];
        pack.keeps = true;
        pack.keep_shift = p->n - s->gpu_log - p->chunk_log;
        write(out, &pack, arena_printf(&names, "%s_pack%d", name, k),
              prim_ctype(elem_slot_prim(p->elem, k)), NULL);
    }
    for (int d = 0; p->unpack_plans && d < 1 << s->gpu_log; d++)
        for (int k = 0; emit_unpack_kernel_of(p, d) == d && k < ns; k++)
            write(out, &p->unpack_plans[d][k], arena_printf(&names, "%s_unpack%d_r%d", name, k, d),
                  prim_ctype(elem_slot_prim(p->elem, k)), NULL);
    arena_free(&names);
}

/* The bytes of the caller's plane k of an array of element type t: 2^n
 * elements, or the shape's for an entry of any length. */
static const char *plane_size(Arena *a, const Schedule *s, const ElemType *t, int k) {
    if (s->pad)
        return arena_printf(a, "sizeof(%s) * (size_t)(parm_rows * parm_cols)",
                            prim_ctype(elem_slot_prim(t, k)));
    return arena_printf(a, "0x%llxu",
                        plane_bytes(t, k, s->n - s->gpu_log)); /* with ranks: a slice */
}

void emit_copy_whole(FILE *out, const Schedule *s, const Target *t) {
    Arena text = {0};
    for (int k = 0; s->nphases == 0 && k < s->out_elem->nslots; k++) {
        fprintf(out, "    if (out[%d] != in[%d])\n        ", k, k);
        t->copy(out, arena_printf(&text, "out[%d]", k), arena_printf(&text, "in[%d]", k),
                plane_size(&text, s, s->out_elem, k));
    }
    arena_free(&text);
}

void emit_scratch_planes(FILE *out, const Schedule *s) {
    for (int x = 0; x < 2; x++) {
        if (s->scratch_planes[x] == 0) continue;
        fprintf(out, "    void *const %s[%d] = {", plan_buf_name(BUF_SCRATCH_A + x),
                s->scratch_planes[x]);
        for (int k = 0; k < s->scratch_planes[x]; k++)
            fprintf(out, "%sscratch + 0x%llxu", k ? ", " : "", s->scratch_plane_off[x][k]);
        fputs("};\n", out);
    }
}

static const char *arg_ctype(const Schedule *s, int k) {
    return prim_ctype(elem_slot_prim(s->args[k]->elem, 0));
}

const char *emit_shape_params(Arena *a, const Schedule *s) {
    if (!s->segments) return ", const uint64_t parm_rows, const uint64_t parm_cols";
    return arena_printf(
        a,
        ", const uint64_t parm_rows, const uint64_t parm_cols, const %s *parm_starts, "
        "const %s *parm_lens",
        prim_ctype(s->seg_starts_prim), prim_ctype(s->seg_lens_prim));
}

const char *emit_shape_args(const Schedule *s) {
    return s->segments ? ", parm_rows, parm_cols, parm_starts, parm_lens"
                       : ", parm_rows, parm_cols";
}

const char *emit_shape_unused(const Schedule *s) {
    return s->segments ? "    (void)parm_rows;\n    (void)parm_cols;\n    (void)parm_starts;\n    "
                         "(void)parm_lens;\n"
                       : "    (void)parm_rows;\n    (void)parm_cols;\n";
}

void emit_arg_params(FILE *out, const Schedule *s) {
    for (int k = 0; k < s->nargs; k++) {
        if (s->arg_by_ref && s->arg_by_ref[k])
            fprintf(out, ", const %s *parm_argp%d", arg_ctype(s, k), s->args[k]->id);
        else fprintf(out, ", const %s parm_arg%d", arg_ctype(s, k), s->args[k]->id);
    }
    if (s->pad) {
        Arena a = {0};
        fputs(emit_shape_params(&a, s), out);
        arena_free(&a);
    }
}

void emit_arg_values(FILE *out, const Schedule *s) {
    for (int k = 0; k < s->nargs; k++)
        fprintf(out, ", parm_arg%s%d", s->arg_by_ref && s->arg_by_ref[k] ? "p" : "",
                s->args[k]->id);
    if (s->pad) fputs(emit_shape_args(s), out);
}

void emit_arg_unused(FILE *out, const Schedule *s) {
    for (int k = 0; k < s->nargs; k++)
        fprintf(out, "    (void)parm_arg%s%d;\n", s->arg_by_ref && s->arg_by_ref[k] ? "p" : "",
                s->args[k]->id);
    if (s->pad) fputs(emit_shape_unused(s), out);
}

void emit_arg_loads(FILE *out, const Schedule *s) {
    for (int k = 0; k < s->nargs; k++) {
        if (s->arg_by_ref && s->arg_by_ref[k])
            fprintf(out, "    const %s parm_arg%d = *parm_argp%d;\n", arg_ctype(s, k),
                    s->args[k]->id, s->args[k]->id);
        fprintf(out, "    (void)parm_arg%d;\n", s->args[k]->id);
    }
    if (s->pad) fputs(emit_shape_unused(s), out);
}

void emit_api_text(FILE *out, const EmitInput *in, const char *text) {
    for (const char *c = text; *c; c++) {
        if (c[0] == '{' && (c[1] == 'p' || c[1] == 'P') && c[2] == '}') {
            for (const char *q = in->prefix; *q; q++)
                fputc(c[1] == 'P' ? toupper((unsigned char)*q) : *q, out);
            c += 2;
        } else {
            fputc(*c, out);
        }
    }
}

/* The API's names besides the entries', after the prefix. */
static const char *const api_names[] =
    {"ctx",          "ctx_create", "ctx_create_nccl", "ctx_destroy",
     "error_string", "ctx_stream", "ctx_set_stream",  "ctx_message"};

void emit_api_text_gpus(FILE *out, const EmitInput *in, const char *text) {
    Arena a = {0};
    const char *rest = text, *at;
    char *done = arena_printf(&a, "%s", "");
    while ((at = strstr(rest, "{G}"))) {
        done = arena_printf(&a, "%s%.*s%d", done, (int)(at - rest), rest, 1 << in->gpu_log);
        rest = at + 3;
    }
    emit_api_text(out, in, arena_printf(&a, "%s%s", done, rest));
    arena_free(&a);
}

void emit_runtime(FILE *out, const EmitInput *in, const char *name, const char *text) {
    fprintf(out, "// start of %s\n", name);
    emit_api_text(out, in, text);
    fprintf(out, "// end of %s\n\n", name);
}

bool emit_prefix_reserved(const char *prefix) {
    static const char parm[] = "PARM";
    for (int i = 0; i < 4; i++)
        if (toupper((unsigned char)prefix[i]) != parm[i]) return false;
    return prefix[4] == 0 || prefix[4] == '_';
}

/* The status codes: {P}_<name> in the header, PARM_<name> inside the
 * emitted file, and the message of {p}_error_string. */
static const struct {
    const char *name, *comment, *message;
} statuses[] = {
    {"OK", "", "success"},
    {"ERROR_NULL", "a null context or array pointer", "a null context or array pointer"},
    {"ERROR_LENGTH", "a length the entry was not compiled for",
     "a length the entry was not compiled for"},
    {"ERROR_MEMORY", "scratch memory could not be allocated", "out of memory for scratch buffers"},
    {"ERROR_CUDA", "a CUDA call failed: see {p}_ctx_message", "a CUDA call failed"},
    {"ERROR_DEVICE", "the context or the stream belongs to another device",
     "the context or the stream belongs to another device"},
    {"ERROR_ALIAS", "output arrays overlap (inputs may overlap outputs)", "output arrays overlap"},
};
enum { NSTATUSES = sizeof statuses / sizeof statuses[0] };

/* The header's include guard: {P}_PARMC_H. */
static const char header_guard[] = "PARMC_H";

/* Whether {p} and {P} are the same prefix (it has no lower-case letter). */
static bool prefix_upper(const char *prefix) {
    for (const char *c = prefix; *c; c++)
        if (islower((unsigned char)*c)) return false;
    return true;
}

bool emit_api_name_taken(const char *prefix, const char *entry) {
    for (size_t i = 0; i < sizeof api_names / sizeof api_names[0]; i++)
        if (strcmp(entry, api_names[i]) == 0) return true;
    if (!prefix_upper(prefix)) return false;
    for (int i = 0; i < NSTATUSES; i++)
        if (strcmp(entry, statuses[i].name) == 0) return true;
    return strcmp(entry, header_guard) == 0;
}

static void emit_status_enum(FILE *out, const EmitInput *in) {
    fputs("enum {\n", out);
    for (int i = 0; i < NSTATUSES; i++) {
        emit_api_text(out, in, "    {P}_");
        fprintf(out, "%-12s = %d%s", statuses[i].name, i, i + 1 < NSTATUSES ? "," : " ");
        if (*statuses[i].comment) {
            fputs("    /* ", out);
            emit_api_text(out, in, statuses[i].comment);
            fputs(" */", out);
        }
        fputs("\n", out);
    }
    fputs("};\n\n", out);
}

static const char api_decls[] = "/* A context holds scratch memory (and, for CUDA, a stream). */\n"
                                "int {p}_ctx_create({p}_ctx **ctx);\n"
                                "void {p}_ctx_destroy({p}_ctx *ctx);\n"
                                "const char *{p}_error_string(int code);\n";

/* "u32, f32": the fields' types, which the C types do not tell (bool and u8
 * are both uint8_t) */
static void emit_slot_names(FILE *out, const ElemType *t) {
    for (int k = 0; k < t->nslots; k++)
        fprintf(out, "%s%s", k ? ", " : "", prim_name(elem_slot_prim(t, k)));
}

static bool first_plan(const EmitInput *in, int i) {
    for (int j = 0; j < i; j++)
        if (strcmp(in->plans[j].func->entry, in->plans[i].func->entry) == 0) return false;
    return true;
}

/* {p}_ENTRY(ctx, parameters in order: a scalar by value (arg0..), an array
 * as one pointer per field (in0..); results: one pointer per field (out0..),
 * a scalar's to one element; n where the entry has an array). */
static void emit_graph_signature(FILE *out, const EmitInput *in, const EntryPlan *e) {
    const IrBody *body = e->func->body;
    emit_api_text(out, in, "int {p}_");
    fputs(e->func->entry, out);
    emit_api_text(out, in, "({p}_ctx *ctx");
    for (int i = 0, arg = 0, plane = 0; i < body->nparams; i++) {
        const IrVal *v = body->params[i];
        if (ir_is_scalar(v)) {
            fprintf(out, ", %s arg%d", prim_ctype(elem_slot_prim(v->elem, 0)), arg++);
            continue;
        }
        for (int k = 0; k < v->elem->nslots; k++)
            fprintf(out, ", const %s *in%d", prim_ctype(elem_slot_prim(v->elem, k)), plane++);
    }
    for (int k = 0; k < e->nout_planes; k++)
        fprintf(out, ", %s *out%d", prim_ctype(e->out_planes[k].prim), k);
    if (e->pad) fputs(plan_pad_by_rows(e) ? ", size_t rows, size_t row_len)" : ", size_t n)", out);
    else fputs(e->n >= 0 ? ", size_t n)" : ")", out);
}

/* An array's length in terms of n, the first array's: "n", "n/4", "4n". */
static void emit_length(FILE *out, int log_len, int n) {
    if (log_len == n) fputs("n", out);
    else if (log_len < n) fprintf(out, "n/%llu", 1ULL << (n - log_len));
    else fprintf(out, "%llun", 1ULL << (log_len - n));
}

/* An array's length as "[n/4] " (in terms of n at log n); for an entry with
 * segments (n < 0), "[n] " for the padded length seg_log (the call's n) and
 * the length itself for the others, which no n scales. */
static void emit_value_shape(FILE *out, const IrVal *v, int n, int seg_log) {
    if (!ir_is_scalar(v) && n < 0)
        fprintf(out, v->log_len == seg_log ? "[n] " : "[%llu] ", 1ULL << v->log_len);
    else if (!ir_is_scalar(v)) {
        fputs("[", out);
        emit_length(out, v->log_len, n);
        fputs("] ", out);
    }
    emit_slot_names(out, v->elem);
}

/* What an entry graph of any length takes: its padded parameter holds the
 * shape given, as do the results of its length (the lengths above are the
 * whole arrays'); the smallest size that holds the shape runs. */
static void emit_graph_any_length_comment(FILE *out, const EmitInput *in, const EntryPlan *first) {
    const EntryPlan *last = first;
    for (int i = 0; i < in->nplans; i++)
        if (strcmp(in->plans[i].func->entry, first->func->entry) == 0) last = &in->plans[i];
    int param = first->func->pad_param + 1;
    if (first->segments) {
        fprintf(out,
                "; segments: parameter %d and the results of its length hold n elements (any n up "
                "to 2^%d), row i of up to 2^%d at parameter %d's element i, as long as parameter "
                "%d's element i",
                param, IR_SEGMENTED_MAX_LOG, first->pad_cols_log, first->func->seg_starts + 1,
                first->func->seg_lens + 1);
        return;
    }
    if (first->pad_rows_log >= 0)
        fprintf(
            out,
            "; any shape: parameter %d and the results of its length hold rows * row_len elements, "
            "row "
            "after row (up to 2^%d rows of 2^%d)",
            param, last->pad_rows_log, last->pad_cols_log);
    else
        fprintf(
            out,
            "; any length: parameter %d and the results of its length hold n elements (up to 2^%d)",
            param, last->pad_log);
    if (first->func->cut_cols)
        fprintf(out, "; the other array results hold %s%lld elements (the result row length)",
                first->pad_rows_log >= 0 ? "rows * " : "", (long long)first->func->cut_cols);
    fprintf(
        out,
        "; the smallest size that holds them runs, the other arrays having the lengths above with "
        "n = 2^%d "
        "at the first size",
        first->n);
}

/* The comment of an entry graph: every parameter and result with its
 * fields and its length in terms of n (for every size, a ranged entry's). */
static void emit_graph_comment(FILE *out, const EmitInput *in, const EntryPlan *first,
                               const Target *t) {
    const IrBody *body = first->func->body;
    /* an entry with segments has one size, its padded length the call's n */
    int n = first->segments ? -1 : first->n;
    int seg_log = first->segments ? body->params[first->func->pad_param]->log_len : -1;
    fprintf(out, "/* entry %s: parameters", first->func->entry);
    for (int i = 0; i < body->nparams; i++) {
        fputs(i ? ", " : " ", out);
        emit_value_shape(out, body->params[i], n, seg_log);
        fputs(ir_is_scalar(body->params[i]) ? " (by value)" : "", out);
    }
    fputs("; results", out);
    for (int i = 0; i < body->nresults; i++) {
        fputs(i ? ", " : " ", out);
        emit_value_shape(out, body->results[i], n, seg_log);
        fputs(ir_is_scalar(body->results[i]) ? " (one element)" : "", out);
    }
    for (int i = 0; i < in->nplans; i++) {
        const EntryPlan *e = &in->plans[i];
        if (e == first || strcmp(e->func->entry, first->func->entry) != 0) continue;
        fprintf(out, "; at n = 2^%d:", e->n);
        int np = e->func->body->nparams;
        for (int j = 0; j < np + e->func->body->nresults; j++) {
            const IrVal *v = j < np ? e->func->body->params[j] : e->func->body->results[j - np];
            fputs(j ? ", " : " ", out);
            emit_value_shape(out, v, e->n, -1);
        }
    }
    if (first->pad) emit_graph_any_length_comment(out, in, first);
    else if (first->n >= 0) fputs("; n is the length of the first array", out);
    fprintf(out, "; one pointer per field (%s pointers). */\n", t->pointers);
}

/* An entry graph of any length: the first (the smallest) size that holds
 * the shape runs, even an empty one (its scalar results and arrays of other
 * lengths are whole, as in the interpreter); a size that is one chain has
 * nothing to write for an empty one; where the first size that holds it was
 * refused, the call returns PARM_ERROR_LENGTH rather than run a larger one. */
static void emit_graph_any_length_dispatch(FILE *out, const EmitInput *in, const EntryPlan *first,
                                           int nscalars) {
    bool rows = plan_pad_by_rows(first);
    Arena names = {0};
    if (!rows) fputs("    const size_t rows = 1, row_len = n;\n", out);
    EntrySize *sizes;
    int nsizes = emit_entry_sizes(&names, in, first->func->entry, &sizes);
    /* an empty shape that no size writes anything for is done, whatever
       its other dimension (0 rows of more columns than any size holds) */
    bool empty_done = true;
    for (int i = 0; i < nsizes; i++)
        empty_done &= sizes[i].plan && plan_empty_shape_writes_nothing(sizes[i].plan);
    if (empty_done) fputs("    if (rows == 0 || row_len == 0) return PARM_OK;\n", out);
    for (int i = 0; i < nsizes; i++) {
        const IrFunc *f = sizes[i].func;
        const EntryPlan *e = sizes[i].plan;
        fprintf(out,
                "    if (rows <= (size_t)1 << %d && row_len <= (size_t)1 << %d)\n        return ",
                rows ? f->pad_rows_log : 0,
                first->segments ? IR_SEGMENTED_MAX_LOG : f->pad_cols_log);
        if (!e) {
            fprintf(out, "PARM_ERROR_LENGTH;   /* the range's size %d is not compiled */\n",
                    f->size_param);
            continue;
        }
        if (!empty_done && plan_empty_shape_writes_nothing(e))
            fputs("rows == 0 || row_len == 0 ? PARM_OK : ", out);
        fprintf(out, "%s_run(ctx, in, out", plan_code_base(&names, e->func));
        for (int k = 0; k < nscalars; k++) fprintf(out, ", arg%d", k);
        fputs(", rows, row_len);\n", out);
    }
    arena_free(&names);
    fputs("    return PARM_ERROR_LENGTH;\n}\n\n", out);
}

/* The API function of an entry graph: checks its arguments and dispatches
 * on n to NAME_run(ctx, in, out, scalars...), which takes the planes of the
 * array parameters (in) and of the results (out). */
static void emit_graph_entry(FILE *out, const EmitInput *in, const EntryPlan *first,
                             const Target *t) {
    emit_graph_signature(out, in, first);
    fputs("\n{\n    if (!ctx", out);
    for (int k = 0; k < first->nin_planes; k++) fprintf(out, " || !in%d", k);
    for (int k = 0; k < first->nout_planes; k++) fprintf(out, " || !out%d", k);
    fputs(") return PARM_ERROR_NULL;\n", out);
    fputs(t->entry_check, out);
    fprintf(out, "    const void *in[%d] = {", first->nin_planes ? first->nin_planes : 1);
    for (int k = 0; k < first->nin_planes; k++) fprintf(out, "%sin%d", k ? ", " : "", k);
    if (!first->nin_planes) fputs("NULL", out);
    fprintf(out, "};\n    void *out[%d] = {", first->nout_planes ? first->nout_planes : 1);
    for (int k = 0; k < first->nout_planes; k++) fprintf(out, "%sout%d", k ? ", " : "", k);
    if (!first->nout_planes) fputs("NULL", out);
    fputs("};\n", out);
    int nscalars = 0;
    for (int i = 0; i < first->func->body->nparams; i++)
        nscalars += ir_is_scalar(first->func->body->params[i]);
    if (first->pad) {
        emit_graph_any_length_dispatch(out, in, first, nscalars);
        return;
    }
    Arena names = {0};
    if (first->n < 0) {
        fprintf(out, "    return %s_run(ctx, in, out", plan_code_base(&names, first->func));
        for (int k = 0; k < nscalars; k++) fprintf(out, ", arg%d", k);
        fputs(");\n}\n\n", out);
        arena_free(&names);
        return;
    }
    fputs("    switch (n) {\n", out);
    for (int i = 0; i < in->nplans; i++) {
        const EntryPlan *e = &in->plans[i];
        if (strcmp(e->func->entry, first->func->entry) != 0) continue;
        fprintf(out, "    case (size_t)1 << %d: return %s_run(ctx, in, out", e->n,
                plan_code_base(&names, e->func));
        for (int k = 0; k < nscalars; k++) fprintf(out, ", arg%d", k);
        fputs(");\n", out);
    }
    arena_free(&names);
    fputs("    default: return PARM_ERROR_LENGTH;\n    }\n}\n\n", out);
}

void emit_header(FILE *out, const EmitInput *in, const Target *t) {
    fprintf(out, "/* Generated by parmc from %s: the API of the compiled entries. */\n",
            in->source_name);
    /* the guard is the prefix's: two programs' headers can be included together */
    Arena a = {0};
    emit_api_text(out, in,
                  arena_printf(&a,
                               "#ifndef {P}_%s\n#define {P}_%s\n\n#include <stddef.h>\n"
                               "#include <stdint.h>\n",
                               header_guard, header_guard));
    arena_free(&a);
    fputs(t->header_includes, out);
    if (in->gpu_log) fputs(t->header_includes_ranks, out);
    fputs("\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", out);
    emit_api_text(out, in, "typedef struct {p}_ctx {p}_ctx;\n\n");
    emit_status_enum(out, in);
    emit_api_text(out, in, api_decls);
    emit_api_text(out, in, t->header_decls);
    if (in->gpu_log) emit_api_text_gpus(out, in, t->header_decls_ranks);
    fputs("\n", out);
    for (int i = 0; i < in->nplans; i++) {
        const EntryPlan *e = &in->plans[i];
        if (!first_plan(in, i)) continue;
        emit_graph_comment(out, in, e, t);
        emit_graph_signature(out, in, e);
        fputs(";\n", out);
    }
    fputs("\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n", out);
}

/* Inside the emitted file the context and the status codes have short
 * names: the code that uses them does not depend on the prefix. */
static void emit_status_code(FILE *out, const EmitInput *in) {
    emit_api_text(out, in, "typedef struct {p}_ctx parm_ctx;\n\nenum {\n");
    for (int i = 0; i < NSTATUSES; i++) {
        fprintf(out, "    PARM_%s = ", statuses[i].name);
        emit_api_text(out, in, "{P}_");
        fprintf(out, "%s%s\n", statuses[i].name, i + 1 < NSTATUSES ? "," : "");
    }
    emit_api_text(out, in,
                  "};\n\nconst char *{p}_error_string(int code)\n{\n    switch (code) {\n");
    for (int i = 0; i < NSTATUSES; i++)
        fprintf(out, "    case PARM_%s: return \"%s\";\n", statuses[i].name, statuses[i].message);
    fputs("    default: return \"unknown error code\";\n    }\n}\n\n", out);
}

/* Calls f on the table uses of every step and map function of the program's kernels. */
static void each_table_uses(const EmitInput *in, void (*f)(const TableUse *, int, void *),
                            void *ctx) {
    for (int e = 0; e < in->nplans; e++)
        for (int k = 0; k < in->plans[e].nnodes; k++) {
            const PlanNode *node = &in->plans[e].nodes[k];
            for (int i = 0; node->kind == NODE_CHAIN && i < node->chain.nphases; i++) {
                const Phase *p = &node->chain.phases[i];
                if (p->map) f(p->map_tables, p->nmap_tables, ctx);
                for (int j = 0; p->kind == PHASE_LOCAL && j < p->nsteps; j++)
                    f(p->steps[j].tables, p->steps[j].ntables, ctx);
            }
        }
}

typedef struct {
    bool *constant; /* by table number, once `count` is known */
    int count;
} ConstantTables;

static void count_tables(const TableUse *uses, int n, void *ctx) {
    ConstantTables *c = ctx;
    for (int i = 0; i < n; i++)
        if (uses[i].table->index >= c->count) c->count = uses[i].table->index + 1;
}

static void mark_constant(const TableUse *uses, int n, void *ctx) {
    ConstantTables *c = ctx;
    for (int i = 0; i < n; i++)
        if (uses[i].place == TABLE_CONSTANT) c->constant[uses[i].table->index] = true;
}

/* The numbers of the tables that some kernel reads from constant memory. */
static ConstantTables constant_tables(Arena *a, const EmitInput *in) {
    ConstantTables c = {0};
    each_table_uses(in, count_tables, &c);
    c.constant = NEW_ARRAY(a, bool, c.count > 0 ? c.count : 1);
    each_table_uses(in, mark_constant, &c);
    return c;
}

static void emit_preamble(FILE *out, const EmitInput *in, const Target *t) {
    fprintf(out, "/* Generated by parmc from %s. Do not edit. */\n", in->source_name);
    fputs("#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n",
          out);
    fputs(t->includes, out);
    fprintf(out, "#include \"%s\"\n\n", in->header_name);
    fputs(t->before_runtime, out);
    emit_runtime(out, in, "parm_ops.h", runtime_parm_ops_h);
    fputs("PARM_FN int parm_parity(uint64_t x)\n{\n#ifdef __CUDA_ARCH__\n"
          "    return __popcll(x) & 1;\n#else\n"
          "    return __builtin_parityll(x);\n#endif\n}\n\n",
          out);
    fputs(t->helpers, out);
    fputs("/* Whether [a, a + na) and [b, b + nb) share a byte. */\n"
          "static inline int parm_overlap(const void *a, size_t na, const void *b, size_t nb)\n{\n"
          "    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;\n"
          "    return x < y + nb && y < x + na;\n}\n\n",
          out);
    Arena a = {0};
    const IrBody **bodies = NEW_ARRAY(&a, const IrBody *, in->nplans > 0 ? in->nplans : 1);
    for (int i = 0; i < in->nplans; i++) bodies[i] = in->plans[i].func->body;
    ConstantTables constant = constant_tables(&a, in);
    emit_elem_tables(out, bodies, in->nplans, constant.constant, constant.count);
    arena_free(&a);
    emit_status_code(out, in);
}

int emit_entry_sizes(Arena *a, const EmitInput *in, const char *entry, EntrySize **out) {
    EntrySize *sizes = NEW_ARRAY(a, EntrySize, in->nplans + in->nrefused + 1);
    int count = 0;
    for (int i = 0, r = 0; i <= in->nplans; i++) {
        for (; r < in->nrefused && in->refused[r].next_plan == i; r++)
            if (strcmp(in->refused[r].func->entry, entry) == 0)
                sizes[count++] = (EntrySize){in->refused[r].func, NULL, &in->refused[r],
                                             in->refused[r].n};
        if (i < in->nplans && strcmp(in->plans[i].func->entry, entry) == 0)
            sizes[count++] = (EntrySize){in->plans[i].func, &in->plans[i], NULL, in->plans[i].n};
    }
    *out = sizes;
    return count;
}

static void emit_entries(FILE *out, const EmitInput *in, const Target *t) {
    for (int i = 0; i < in->nplans; i++)
        if (first_plan(in, i)) emit_graph_entry(out, in, &in->plans[i], t);
}

/* ---- the standalone main ---- */

static const char *parse_call(Prim p) {
    switch (p) {
    case PRIM_BOOL: return "parm_parse_bool(tok, (uint8_t *)&v.u8)";
    case PRIM_F32:
    case PRIM_F64: return "parm_parse_double(tok, &v.f64)";
    default:
        return prim_is_signed(p) ? "parm_parse_signed(tok, %d, &v.i64)"
                                 : "parm_parse_unsigned(tok, %d, &v.u64)";
    }
}

/* Reads the next token as a p into the lvalue `dest`; an invalid one runs
 * `cleanup` (statements that free what the main holds) and exits. */
void emit_read_value(FILE *out, Prim p, const char *dest, const char *cleanup) {
    const char *t = prim_ctype(p);
    fputs("        {\n            union { int64_t i64; uint64_t u64; double f64; uint8_t u8; } v;\n"
          "            parm_next_token(&input, tok, sizeof tok);\n            if (!",
          out);
    fprintf(out, parse_call(p), prim_bits(p));
    fprintf(out, ") {\n                parm_input_invalid(&input, \"%s\");\n%s", prim_name(p),
            cleanup);
    fputs("                return 1;\n            }\n", out);
    if (p == PRIM_BOOL) fprintf(out, "            %s = v.u8;\n", dest);
    else if (p == PRIM_F32) fprintf(out, "            %s = (float)v.f64;\n", dest);
    else if (p == PRIM_F64) fprintf(out, "            %s = v.f64;\n", dest);
    else fprintf(out, "            %s = (%s)v.%s;\n", dest, t, prim_is_signed(p) ? "i64" : "u64");
    fputs("        }\n", out);
}

const char *emit_print_fn(Prim p) {
    return p == PRIM_BOOL      ? "parm_print_bool"
           : p == PRIM_F32     ? "parm_print_f32"
           : p == PRIM_F64     ? "parm_print_f64"
           : prim_is_signed(p) ? "parm_print_signed"
                               : "parm_print_unsigned";
}

void emit_read_row_length(FILE *out, const char *entry, long max) {
    fprintf(out,
            "    if (!parm_next_token(&input, tok, sizeof tok)) {\n"
            "        fprintf(stderr, PARM_INPUT_NAME \": error: \" PARM_MSG_NO_ROW_LENGTH \"\\n\", "
            "\"%s\");\n"
            "        free(input.text);\n        return 1;\n    }\n",
            entry);
    fprintf(out,
            "    if (!parm_parse_row_length(tok, %ldL, &row_len)) {\n"
            "        char excerpt[PARM_EXCERPT_SIZE];\n"
            "        parm_excerpt(input.text + input.start, input.tok_len, excerpt);\n"
            "        char *msg = parm_message(PARM_MSG_ROW_LENGTH, excerpt, %ldL);\n"
            "        parm_input_error_at(&input, input.start, msg);\n"
            "        free(msg);\n        free(input.text);\n        return 1;\n    }\n",
            max, max);
}

/* The main's exit on a failed status: its message, and where the context
 * tells a failed call (one context: not with ranks) NAME_ctx_message, or
 * the allocation that failed. */
static void emit_main_status(FILE *out, const EmitInput *in, const Target *t, const char *cleanup) {
    emit_api_text(
        out, in,
        "    if (status) {\n"
        "        if (status == PARM_ERROR_MEMORY && ctx && ctx->failed)\n"
        "            fprintf(stderr, \"error: \" PARM_MSG_ALLOC \"\\n\", ctx->failed_bytes, "
        "ctx->failed);\n"
        "        else ");
    if (t->ctx_message && !in->gpu_log)
        emit_api_text(out, in,
                      "if (status == PARM_ERROR_CUDA)\n"
                      "            fprintf(stderr, \"error: %s: %s\\n\", {p}_error_string(status), "
                      "{p}_ctx_message(ctx));\n"
                      "        else\n    ");
    emit_api_text(out, in,
                  "        fprintf(stderr, \"error: %s\\n\", {p}_error_string(status));\n"
                  "        {p}_ctx_destroy(ctx);\n");
    fprintf(out, "%s        return 1;\n    }\n", cleanup);
}

/* The standalone main's start: its options (-r N, the runs to time). */
void emit_main_start(FILE *out) {
    fputs("int main(int argc, char **argv)\n{\n", out);
    fputs("    int repeat = 0;\n"
          "    for (int i = 1; i < argc; i++) {\n"
          "        if (!strcmp(argv[i], \"-r\") && i + 1 < argc && "
          "(repeat = parm_main_runs(argv[++i])) > 0)\n"
          "            continue;\n"
          "        fprintf(stderr, \"usage: %s [-r N] < input (N runs timed, 1 to 100000)\\n\", "
          "argv[0]);\n"
          "        return 2;\n"
          "    }\n",
          out);
}

/* The runtime of the standalone main (runtime/parm_main.h and the
 * target's part of it). */
void emit_main_runtime(FILE *out, const EmitInput *in, const Target *t) {
    emit_runtime(out, in, t->main_name, t->main_text);
    emit_runtime(out, in, "parm_main.h", runtime_parm_main_h);
    if (in->gpu_log && t->main_ranks_text)
        emit_runtime(out, in, t->main_ranks_name, t->main_ranks_text);
}

void emit_main_run(FILE *out, const EmitInput *in, const Target *t, const char *cleanup) {
    emit_api_text(out, in, "    parm_ctx *ctx;\n    int status = {p}_ctx_create(&ctx);\n");
    if (in->gpu_log && t->main_ranks_text)
        fputs("    if (!status) status = parm_main_ranks(parm_main_entry, n, &in_planes, "
              "&out_planes, repeat);\n",
              out);
    else
        fputs("    if (!status) status = parm_main_execute(ctx, parm_main_entry, n, &in_planes, "
              "&out_planes, repeat, \"\");\n",
              out);
    emit_main_status(out, in, t, cleanup);
}

static void emit_main(FILE *out, const EmitInput *in, const Target *t) {
    for (int i = 0; i < in->nplans; i++)
        if (strcmp(in->plans[i].func->entry, in->main_entry) == 0) {
            emit_graph_main(out, in, &in->plans[i], t);
            return;
        }
    diag_fatal("--emit-main: no entry point named '%s'", in->main_entry);
}

void emit_program(FILE *out, const EmitInput *in, const Target *t) {
    emit_preamble(out, in, t);
    t->runtime(out, in);
    for (int i = 0; i < in->nplans; i++) emit_graph_func(out, &in->plans[i], t);
    emit_entries(out, in, t);
    if (in->emit_main) emit_main(out, in, t);
}
