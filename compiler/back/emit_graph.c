/* emit_graph.c: an entry graph (plan.h, "The entry graph") as C or CUDA:
 * a function or kernel per node, and NAME_run, which checks the aliasing
 * of the call, takes one scratch allocation (temporaries, chains' own
 * scratch, copies of inputs that overlap outputs) and runs the nodes in
 * order on the stream. Scalars that a node computes stay in device memory
 * (one-element planes): kernels that read them get a pointer and load it in
 * their prologue (parm_arg<id>, as element code names it), so no value
 * goes back to the host between nodes. */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

#include "emit_elem.h"

static const char *ctype(const PlaneRef *p) { return prim_ctype(p->prim); }

static Prim val_prim(const IrVal *v) { return elem_slot_prim(v->elem, 0); }

/* The region of a graph run whole on every rank (EntryPlan.whole_graph)
 * that holds its whole parameter (result) plane k. */
static const ScratchRegion *whole_region(const EntryPlan *e, RegionKind kind, int k) {
    for (int r = 0; r < e->host.nregions; r++) {
        const ScratchRegion *g = &e->host.regions[r];
        if (g->kind == kind && g->node < 0 && g->index == k) return g;
    }
    diag_fatal("internal error: a graph run whole without the whole plane %d", k);
}

/* A plane inside NAME_run: P (the parameters' planes, after copies or
 * gathers), out (a graph run whole writes its results whole in the
 * scratch), or the scratch. */
static const char *plane_expr(Arena *a, const EntryPlan *e, const PlaneRef *p) {
    switch (p->kind) {
    case LOC_PARAM: return arena_printf(a, "P[%d]", p->index);
    case LOC_RESULT:
        if (e->whole_graph)
            return arena_printf(a, "(void *)(scratch + 0x%llxu)",
                                whole_region(e, REGION_WHOLE_OUT, p->index)->off);
        return arena_printf(a, "out[%d]", p->index);
    case LOC_TEMP: return arena_printf(a, "(void *)(scratch + 0x%llxu)", e->temps[p->index].off);
    case LOC_UNSTORED: return "(void *)0"; /* the chain stores nothing there */
    case LOC_VALUE: break;
    }
    diag_fatal("internal error: a scalar value used as a plane");
}

/* ---- arguments of node functions ---- */

bool emit_arg_by_ref(const PlanNode *n, int k) { return n->arg_at[k].kind != LOC_VALUE; }

void emit_node_arg_params(FILE *out, const PlanNode *n) {
    for (int k = 0; k < n->nargs; k++) {
        const char *t = prim_ctype(val_prim(n->args[k]));
        if (emit_arg_by_ref(n, k)) fprintf(out, ", const %s *parm_argp%d", t, n->args[k]->id);
        else fprintf(out, ", const %s parm_arg%d", t, n->args[k]->id);
    }
}

void emit_node_arg_loads(FILE *out, const PlanNode *n) {
    for (int k = 0; k < n->nargs; k++) {
        if (emit_arg_by_ref(n, k))
            fprintf(out, "    const %s parm_arg%d = *parm_argp%d;\n",
                    prim_ctype(val_prim(n->args[k])), n->args[k]->id, n->args[k]->id);
        fprintf(out, "    (void)parm_arg%d;\n", n->args[k]->id);
    }
}

/* HEAD NAME(i0.., o0.., scalars)\n{ and the scalars' loads: the opening of
 * a node function that reads n's input planes and writes its output ones. */
void emit_node_open(FILE *out, const char *head, const char *name, const PlanNode *n) {
    fprintf(out, "%s %s(", head, name);
    emit_plane_params(out, "i", n->nin, true, true);
    emit_plane_params(out, "o", n->nout, false, false);
    emit_node_arg_params(out, n);
    fputs(")\n{\n", out);
    emit_node_arg_loads(out, n);
}

/* The value of arg k at the call in NAME_run: an entry scalar parameter
 * (NAME_run's parm_arg<id>), a constant's literal, or a device pointer. */
static void node_arg_values(FILE *out, Arena *a, const EntryPlan *e, const PlanNode *n) {
    for (int k = 0; k < n->nargs; k++) {
        const IrVal *v = n->args[k];
        if (emit_arg_by_ref(n, k))
            fprintf(out, ", (const %s *)%s", prim_ctype(val_prim(v)),
                    plane_expr(a, e, &n->arg_at[k]));
        else if (v->def && v->def->op == IR_CONST)
            fprintf(out, ", %s", emit_scalar_literal(a, val_prim(v), v->def->cval));
        else fprintf(out, ", parm_arg%d", v->id);
    }
}

/* Plane parameters: const void *i0.., void *o0.. (and q0.. for partials). */
void emit_plane_params(FILE *out, const char *name, int count, bool constant, bool first) {
    for (int k = 0; k < count; k++)
        fprintf(out, "%s%svoid *%s%d", first && k == 0 ? "" : ", ", constant ? "const " : "", name,
                k);
}

static void plane_values(FILE *out, Arena *a, const EntryPlan *e, const PlaneRef *planes, int count,
                         bool first) {
    for (int k = 0; k < count; k++)
        fprintf(out, "%s%s", first && k == 0 ? "" : ", ", plane_expr(a, e, &planes[k]));
}

/* ---- REDUCE ---- */

/* A fused map's positions: the element's index, in the C variable ctx. */
static const char *load_pos(const void *ctx, const IrStmt *pos, Arena *a) {
    uint64_t none[64] = {0};
    return emit_pos_expr(a, pos->mat->n, pos->mat->row, none, pos->compl, (const char *)ctx, NULL);
}

/* Element `index` of planes src0.. into v0..: loaded, then through the
 * fused maps. */
static Prim load_prim(const NodeLoads *l, int k) {
    return l->npre ? l->in[k].prim : emit_reduce_prim(l->stmt, k);
}

static int load_planes(const NodeLoads *l) { return l->npre ? l->nin : emit_reduce_slots(l->stmt); }

/* Where element `index` of the reduced array lies in plane k: at index >>
 * shift in an expand read in place (NodeLoads.in_shift). */
static const char *plane_index(Arena *a, const NodeLoads *l, int k, const char *index) {
    if (!l->in_shift || !l->in_shift[k]) return index;
    return arena_printf(a, "(%s) >> %d", index, l->in_shift[k]);
}

/* Element `index` of plane k: from the thread's preloaded x<k> (`index` is
 * then the position in it), or from memory. */
static const char *load_expr(Arena *a, const NodeLoads *l, int k, const char *index,
                             bool preloaded) {
    if (preloaded) return arena_printf(a, "x%d[i]", k);
    return arena_printf(a, "((const %s *)src%d)[%s]", prim_ctype(load_prim(l, k)), k,
                        plane_index(a, l, k, index));
}

/* The thread's `count` contiguous elements of every plane from `first` into
 * x0.. (registers, the loop being unrolled): 16-byte loads where the kernel's
 * template flag A says the planes are aligned. */
void emit_node_preload(FILE *out, const NodeLoads *l, unsigned long long count, const char *first) {
    for (int k = 0; k < load_planes(l); k++) {
        Prim p = load_prim(l, k);
        unsigned long long bytes = count * (unsigned long long)(prim_bits(p) / 8);
        const char *t = prim_ctype(p);
        fprintf(out, "    %s x%d[%llu];\n", t, k, count);
        if (l->in_shift &&
            l->in_shift[k]) { /* an expand read in place: a few elements, each many times */
            fprintf(out,
                    "#pragma unroll\n"
                    "    for (int i = 0; i < %llu; i++) "
                    "x%d[i] = ((const %s *)src%d)[(%s + i) >> %d];\n",
                    count, k, t, k, first, l->in_shift[k]);
            continue;
        }
        if (bytes % 16 == 0) {
            fprintf(out,
                    "    if (A) {\n#pragma unroll\n        for (int j = 0; j < %llu; j++) {\n"
                    "            const uint4 w = ((const uint4 *)((const %s *)src%d + %s))[j];\n"
                    "            memcpy(&x%d[j * %llu], &w, 16);\n        }\n    } else\n",
                    bytes / 16, t, k, first, k, count * 16 / bytes);
        }
        fprintf(out,
                "#pragma unroll\n"
                "    for (int i = 0; i < %llu; i++) x%d[i] = ((const %s *)src%d)[%s + i];\n",
                count, k, t, k, first);
    }
}

static void emit_load(FILE *out, const NodeLoads *l, const char *index, bool preloaded) {
    const IrStmt *s = l->stmt;
    Arena names = {0};
    if (l->npre == 0) {
        for (int k = 0; k < emit_reduce_slots(s); k++)
            fprintf(out, "        v%d = %s;\n", k, load_expr(&names, l, k, index, preloaded));
        arena_free(&names);
        return;
    }
    Arena a = {0};
    const char **prev = NEW_ARRAY(&a, const char *, l->nin);
    fputs("        {\n", out);
    for (int k = 0; k < l->nin; k++) {
        const char *t = prim_ctype(l->in[k].prim);
        /* a field that the maps ignore is a dead load, which the compilers drop */
        fprintf(out, "            const %s l%d = %s;\n            (void)l%d;\n", t, k,
                load_expr(&names, l, k, index, preloaded), k);
        prev[k] = arena_printf(&a, "l%d", k);
    }
    const char *where = arena_printf(&a, "(uint64_t)(%s)", index);
    /* the maps of a reduction read their tables from global memory */
    ElemPositions positions = {load_pos, where, NULL, 0};
    for (int m = 0; m < l->npre; m++) {
        const IrStmt *map = l->pre[m];
        const ElemType *t = map->res[0]->elem;
        const char **res = NEW_ARRAY(&a, const char *, t->nslots);
        for (int k = 0; k < t->nslots; k++) {
            res[k] = m + 1 < l->npre ? arena_printf(&a, "m%d_%d", m, k)
                                     : arena_printf(&a, "v%d", k);
            if (m + 1 < l->npre)
                fprintf(out, "            %s %s;\n", prim_ctype(elem_slot_prim(t, k)), res[k]);
        }
        fputs("            {\n", out);
        emit_elem_body(out, map->body, prev, res, arena_printf(&a, "p%d_", m), 16, &positions);
        fputs("            }\n", out);
        prev = res;
    }
    fputs("        }\n", out);
    arena_free(&a);
    arena_free(&names);
}

/* `count` elements from index `first` of planes src0.. reduced in the
 * interpreter's tree order into v0..: a stack of subtotals, where element
 * i closes ctz(i + 1) levels. `unroll`: the loop is unrolled, and its
 * loads (contiguous, 64 bytes of the widest field) may be vectorised where
 * the kernel's template flag A says the planes are 16-byte aligned. */
void emit_serial_tree(FILE *out, const NodeLoads *l, const char *count, const char *first,
                      int depth, bool unroll) {
    const IrStmt *s = l->stmt;
    int ns = emit_reduce_slots(s);
    Arena scratch = {0};
    for (int k = 0; k < ns; k++) {
        const char *t = prim_ctype(emit_reduce_prim(s, k));
        fprintf(out, "    %s st%d[%d], v%d, nv%d;\n", t, k, depth + 1, k, k);
    }
    fputs("    int top = 0;\n", out);
    if (unroll) emit_node_preload(out, l, strtoull(count, NULL, 10), first);
    if (unroll) fputs("#pragma unroll\n", out);
    fprintf(out, "    for (uint64_t i = 0; i < %s; i++) {\n", count);
    emit_load(out, l, arena_printf(&scratch, "%s + i", first), unroll);
    fputs("        for (uint64_t c = i + 1; !(c & 1); c >>= 1) {\n            top--;\n", out);
    emit_reduce_apply(out, s, "st%d[top]", "v%d", "nv%d", 12);
    for (int k = 0; k < ns; k++) fprintf(out, "            v%d = nv%d;\n", k, k);
    fputs("        }\n", out);
    for (int k = 0; k < ns; k++) fprintf(out, "        st%d[top] = v%d;\n", k, k);
    fputs("        top++;\n    }\n", out);
    for (int k = 0; k < ns; k++) fprintf(out, "    v%d = st%d[0];\n", k, k);
    arena_free(&scratch);
}

/* z op total into element `at` of the output planes. */
void emit_reduce_final(FILE *out, const IrStmt *s, const char *at, int indent) {
    int ns = emit_reduce_slots(s);
    for (int k = 0; k < ns; k++)
        fprintf(out, "%*s%s *res%d = (%s *)o%d;\n", indent, "", prim_ctype(emit_reduce_prim(s, k)),
                k, prim_ctype(emit_reduce_prim(s, k)), k);
    Arena a = {0};
    const char **params = NEW_ARRAY(&a, const char *, 2 * ns),
               **results = NEW_ARRAY(&a, const char *, ns);
    for (int k = 0; k < ns; k++) {
        params[k] = arena_printf(&a, "parm_arg%d", s->args[k]->id);
        params[ns + k] = arena_printf(&a, "v%d", k);
        results[k] = arena_printf(&a, "res%d[%s]", k, at);
    }
    emit_elem_body(out, s->body, params, results, "f_", indent, NULL);
    arena_free(&a);
}

void emit_graph_reduce_c(FILE *out, const PlanNode *n, const char *name) {
    emit_node_open(out, "static void", name, n);
    for (int k = 0; k < n->nin; k++) fprintf(out, "    const void *src%d = i%d;\n", k, k);
    Arena scratch = {0};
    NodeLoads loads = plan_node_loads(n);
    if (n->stmt->op == IR_REDUCEBLOCKS) {
        /* a row at a time, each in its own scope */
        int r = n->n - n->rows_log;
        fprintf(out, "    for (uint64_t row = 0; row < %lluu; row++) {\n", 1ULL << n->rows_log);
        emit_serial_tree(out, &loads, arena_printf(&scratch, "%lluu", 1ULL << r),
                         arena_printf(&scratch, "(row << %d)", r), r, false);
        emit_reduce_final(out, n->stmt, "row", 4);
        fputs("    }\n}\n\n", out);
        arena_free(&scratch);
        return;
    }
    emit_serial_tree(out, &loads, arena_printf(&scratch, "%lluu", 1ULL << n->n), "0", n->n, false);
    arena_free(&scratch);
    emit_reduce_final(out, n->stmt, "0", 4);
    fputs("}\n\n", out);
}

/* ---- EXPAND ---- */

static void emit_expand(FILE *out, const PlanNode *n, const char *name, const Target *t) {
    fprintf(out, "%s %s(", t->node_head, name);
    emit_plane_params(out, "i", n->nin, true, true);
    emit_plane_params(out, "o", n->nout, false, false);
    fputs(")\n{\n", out);
    t->node_loop(out, 1ULL << n->n);
    for (int k = 0; k < n->nout; k++)
        fprintf(out, "        ((%s *)o%d)[x] = ((const %s *)i%d)[x >> %d];\n", ctype(&n->out[k]), k,
                ctype(&n->in[k]), k, n->stmt->k);
    fputs("    }\n}\n\n", out);
}

/* ---- FILL and SERIAL ---- */

/* The value a FILL writes to its plane k: the replicate's argument, or
 * the one scalar it stores. */
static const IrVal *fill_value(const PlanNode *n, int k) {
    return n->stmt ? n->stmt->args[k] : n->args[0];
}

static void emit_fill(FILE *out, const PlanNode *n, const char *name, const Target *t) {
    fprintf(out, "%s %s(", t->node_head, name);
    emit_plane_params(out, "o", n->nout, false, true);
    emit_node_arg_params(out, n);
    fputs(")\n{\n", out);
    emit_node_arg_loads(out, n);
    t->node_loop(out, 1ULL << n->n);
    for (int k = 0; k < n->nout; k++)
        fprintf(out, "        ((%s *)o%d)[x] = parm_arg%d;\n", ctype(&n->out[k]), k,
                fill_value(n, k)->id);
    fputs("    }\n}\n\n", out);
}

static void emit_serial(FILE *out, const PlanNode *n, const char *name, const Target *t) {
    fprintf(out, "%s %s(", t->node_head, name);
    emit_plane_params(out, "i", n->nin, true, true);
    emit_plane_params(out, "o", n->nout, false, n->nin == 0);
    if (n->nin + n->nout == 0) fputs("void", out);
    emit_node_arg_params(out, n);
    fputs(")\n{\n", out);
    emit_node_arg_loads(out, n);
    /* a load that only dead code read is not emitted (its plane unused) */
    for (int j = 0; j < n->nin; j++) fprintf(out, "    (void)i%d;\n", j);
    const IrBody *b = n->serial;
    Arena a = {0};
    const char **params = NEW_ARRAY(&a, const char *, b->nparams + 1);
    for (int j = 0; j < b->nparams; j++)
        params[j] = arena_printf(&a, "((const %s *)i%d)[%lld]", ctype(&n->in[j]), j,
                                 (long long)n->load_index[j]);
    int total = 0;
    for (int r = 0; r < b->nresults; r++) total += emit_elem_slots(b->results[r]);
    const char **results = NEW_ARRAY(&a, const char *, total + 1);
    for (int r = 0, at = 0, plane = 0; r < b->nresults; r++) {
        const IrVal *v = b->results[r];
        int ns = v->elem->nslots, len = v->log_len < 0 ? 1 : 1 << v->log_len;
        for (int i = 0; i < len; i++)
            for (int k = 0; k < ns; k++)
                results[at++] = arena_printf(&a, "((%s *)o%d)[%d]", ctype(&n->out[plane + k]),
                                             plane + k, i);
        plane += ns;
    }
    emit_elem_body(out, b, params, results, "s_", 4, NULL);
    arena_free(&a);
    fputs("}\n\n", out);
}

/* ---- GATHER: half, join and shift ---- */

/* One statement's step of the index map, from the element i of its result
 * to the element i of its source, for a one-source statement (a two-array
 * join is the node's only statement: emit_gather_loads). A shift whose
 * source element is outside sets fill to its number (the first such, from
 * the outermost, decides), and i goes on unused. */
static void emit_gather_step(FILE *out, const IrStmt *s, int shift_number, int n) {
    unsigned low = s->op == IR_SHIFT ? 0 : (unsigned)__builtin_ctzll(s->mask);
    unsigned long long below = (1ULL << low) - 1;
    if (s->op == IR_HALF) { /* a bit inserted at lsb(m), set so that parity(i & m) = b */
        fprintf(out, "        i = ((i & ~0x%llxull) << 1) | (i & 0x%llxull);\n", below, below);
        fprintf(out, "        i |= (uint64_t)(parm_parity(i & 0x%llxull) ^ %d) << %u;\n",
                (unsigned long long)s->mask, s->k, low);
    } else if (s->op == IR_JOIN) { /* bit lsb(m) deleted */
        fprintf(out, "        i = ((i >> %u) << %u) | (i & 0x%llxull);\n", low + 1, low, below);
    } else { /* i - d, its place in the block compared before subtracting;
                   d clamped to +-2^k (all fill) */
        long long len = 1LL << s->k, d = s->dist > len    ? len
                                         : s->dist < -len ? -len
                                                          : (long long)s->dist;
        char pos[64];
        if (s->k < n) snprintf(pos, sizeof pos, "(i & 0x%llxull)", (unsigned long long)len - 1);
        else snprintf(pos, sizeof pos, "i");
        if (d >= 0)
            fprintf(out, "        if (!fill && %s < %lluull) fill = %d;\n", pos,
                    (unsigned long long)d, shift_number);
        else
            fprintf(out, "        if (!fill && %s >= %lluull) fill = %d;\n", pos,
                    (unsigned long long)(len + d), shift_number);
        fprintf(out, "        i -= (uint64_t)%lldll;\n", d);
    }
}

/* The statements outermost first: the node's own, then the fused ones. */
static const IrStmt *gather_at(const PlanNode *n, int k) {
    return k == 0 ? n->stmt : n->pre[n->npre - k];
}

/* Element x of the result: its source element i through every statement's
 * index map, or a shift's fill. */
static void emit_gather_loads(FILE *out, const PlanNode *n) {
    int nstmts = n->npre + 1, shifts = 0;
    const IrStmt *last = gather_at(n, nstmts - 1);
    bool two_arrays = last->op == IR_JOIN && last->args[0] != last->args[1];
    fputs("        uint64_t i = x;\n", out);
    for (int k = 0; k < nstmts; k++) shifts += gather_at(n, k)->op == IR_SHIFT;
    if (shifts) fputs("        int fill = 0;\n", out);
    if (two_arrays) /* the half parity(i & m) says */
        fprintf(out, "        const int upper = parm_parity(i & 0x%llxull);\n",
                (unsigned long long)last->mask);
    for (int k = 0, number = 0; k < nstmts; k++) {
        const IrStmt *s = gather_at(n, k);
        emit_gather_step(out, s, s->op == IR_SHIFT ? ++number : 0, s->res[0]->log_len);
    }
    for (int slot = 0; slot < n->nout; slot++) {
        const char *t = ctype(&n->out[slot]);
        fprintf(out, "        ((%s *)o%d)[x] = ", t, slot);
        for (int k = 0, number = 0; k < nstmts; k++) {
            const IrStmt *s = gather_at(n, k);
            if (s->op == IR_SHIFT)
                fprintf(out, "fill == %d ? parm_arg%d : ", ++number, s->args[slot]->id);
        }
        if (two_arrays)
            fprintf(out, "upper ? ((const %s *)i%d)[i] : ((const %s *)i%d)[i];\n", t,
                    n->nout + slot, t, slot);
        else fprintf(out, "((const %s *)i%d)[i];\n", t, slot);
    }
}

static void emit_gather(FILE *out, const PlanNode *n, const char *name, const Target *t) {
    emit_node_open(out, t->node_head, name, n);
    t->node_loop(out, 1ULL << n->n);
    emit_gather_loads(out, n);
    fputs("    }\n}\n\n", out);
}

/* ---- COPY_PAD and COPY_CUT (an entry of any length) ---- */

/* The rows of an entry with segments: every one of its 2^pad_rows_log. */
static const char *api_rows(Arena *a, const EntryPlan *e) {
    return arena_printf(a, "((uint64_t)1 << %d)", e->pad_rows_log);
}

/* The entry's shape as the fields of a Schedule that the pad helpers of
 * emit_common.c read (emit.h: emit_pad_inside...), so that a graph's copies
 * pad and cut exactly as a chain of any length reads and writes. */
static Schedule pad_shape(const EntryPlan *e) {
    Schedule s;
    memset(&s, 0, sizeof s);
    s.n = e->pad_log;
    s.in_elem = e->pad_elem;
    s.pad = e->pad;
    s.pad_rows_log = e->pad_rows_log;
    s.pad_cols_log = e->pad_cols_log;
    s.segments = e->segments;
    s.seg_starts_prim = e->seg_starts_prim;
    s.seg_lens_prim = e->seg_lens_prim;
    return s;
}

/* The shape node n copies in: the entry's, or for a result that the entry's
 * result row length cuts, the same rows of n's own row length; the kernel's
 * parm_cols is then that row length (shape_cols). */
static Schedule node_shape(const EntryPlan *e, const PlanNode *n) {
    Schedule s = pad_shape(e);
    if (n->copy == COPY_CUT && n->out[0].row_cut) {
        s.n = n->n;
        s.pad_cols_log = n->n - (e->pad_rows_log < 0 ? 0 : e->pad_rows_log);
        s.segments = false; /* every row (with segments, all 2^pad_rows_log), cut to k */
    }
    return s;
}

/* The shape a COPY node's kernel takes: the entry's, or for a result cut to
 * the result row length its rows (parm_rows, or with segments all of them)
 * of that length. */
static const char *shape_args(Arena *a, const EntryPlan *e, const PlanNode *n) {
    if (n->copy != COPY_CUT || !n->out[0].row_cut) {
        Schedule shape = pad_shape(e);
        return emit_shape_args(&shape);
    }
    return arena_printf(a, ", %s, %lluu", e->segments ? api_rows(a, e) : "parm_rows",
                        (unsigned long long)n->out[0].row_cut);
}

/* Every index x of the padded order: the pad or the caller's element into
 * the whole array (COPY_PAD), or the whole array's element into the
 * caller's array where x is in the shape (COPY_CUT). */
static void emit_shape_copy(FILE *out, const EntryPlan *e, const PlanNode *n, const char *name,
                            const Target *t) {
    Schedule shape = node_shape(e, n);
    fprintf(out, "%s %s(", t->node_head, name);
    emit_plane_params(out, "i", n->nin, true, true);
    emit_plane_params(out, "o", n->nout, false, false);
    Arena a = {0};
    fprintf(out, "%s)\n{\n%s", emit_shape_params(&a, &shape), emit_shape_unused(&shape));
    t->node_loop(out, 1ULL << n->n);
    if (n->copy == COPY_CUT)
        fprintf(out, "        if (!(%s)) continue;\n", emit_pad_inside(&a, &shape, "x"));
    for (int k = 0; k < n->nin; k++) {
        const char *t = ctype(&n->out[k]), *src = arena_printf(&a, "((const %s *)i%d)", t, k);
        if (n->copy == COPY_PAD)
            fprintf(out, "        ((%s *)o%d)[x] = %s;\n", t, k,
                    emit_pad_load(&a, &shape, k, src, "x"));
        else
            fprintf(out, "        ((%s *)o%d)[%s] = %s[x];\n", t, k, emit_pad_at(&a, &shape, "x"),
                    src);
    }
    arena_free(&a);
    fputs("    }\n}\n\n", out);
}

/* ---- NAME_run ---- */

/* The bytes of an API plane: 2^log_len elements (with ranks on a target
 * whose calls pass slices, a rank's: plan_rank_bytes), or the shape's. */
static const char *api_bytes(Arena *a, const EntryPlan *e, const PlaneRef *p, const Target *t) {
    if (p->row_cut)
        return arena_printf(a, "sizeof(%s) * (size_t)(%s * %lluu)", ctype(p),
                            e->segments ? api_rows(a, e) : "parm_rows",
                            (unsigned long long)p->row_cut);
    if (p->shaped) return arena_printf(a, "sizeof(%s) * (size_t)(parm_rows * parm_cols)", ctype(p));
    return arena_printf(a, "0x%llxu", t->rank_slices ? plan_rank_bytes(e, p) : plan_plane_bytes(p));
}

/* The bytes a COPY node copies of plane p: the API's, or in a graph run
 * whole on every rank, the whole plane. */
static const char *copy_bytes(Arena *a, const EntryPlan *e, const PlaneRef *p, const Target *t) {
    if (e->whole_graph) return arena_printf(a, "0x%llxu", plan_plane_bytes(p));
    return api_bytes(a, e, p, t);
}

static void emit_node_call(FILE *out, Arena *a, const EntryPlan *e, const PlanNode *n,
                           const char *name, const Target *t) {
    switch (n->kind) {
    case NODE_CHAIN:
        fputs("    {\n        const void *ni[] = {", out);
        plane_values(out, a, e, n->in, n->nin, true);
        fputs("};\n        void *no[] = {", out);
        plane_values(out, a, e, n->out, n->nout, true);
        fputs("};\n", out);
        if (n->npartial) {
            fputs("        void *np[] = {", out);
            plane_values(out, a, e, n->partial, n->npartial, true);
            fputs("};\n", out);
        }
        fprintf(out, "        if ((status = %s_exec(ctx, ni, no, scratch + 0x%llxu%s", name,
                e->chain_off, n->npartial ? ", np" : "");
        node_arg_values(out, a, e, n);
        /* a chain over the caller's shape (an entry of any length that is one chain) */
        if (n->chain.pad) fputs(emit_shape_args(&n->chain), out);
        fputs("))) return status;\n    }\n", out);
        break;
    case NODE_COPY:
        if (n->copy == COPY_PAD || n->copy == COPY_CUT) {
            t->node_launch(out, name, n->grid_blocks, n->grid_threads);
            plane_values(out, a, e, n->in, n->nin, true);
            plane_values(out, a, e, n->out, n->nout, false);
            fprintf(out, "%s);\n", shape_args(a, e, n));
            fputs(t->node_check, out);
            break;
        }
        /* with ranks (plan_one_copy) on a target whose calls pass slices, a
           rank's; COPY_SHAPE: the shape's */
        for (int k = 0; k < n->nin; k++) {
            const char *src = plane_expr(a, e, &n->in[k]), *dst = plane_expr(a, e, &n->out[k]);
            fprintf(out, "    if (%s != %s) ", dst, src);
            t->copy(out, dst, src, copy_bytes(a, e, &n->in[k], t));
        }
        break;
    case NODE_REDUCE:
    case NODE_SCAN:
        fprintf(out, t->reduce_call, name);
        plane_values(out, a, e, n->in, n->nin, true);
        plane_values(out, a, e, n->out, n->nout, false);
        if (t->reduce_partials) plane_values(out, a, e, n->partial, n->npartial, false);
        node_arg_values(out, a, e, n);
        fputs(t->reduce_end, out);
        break;
    case NODE_EXPAND:
    case NODE_GATHER:
        t->node_launch(out, name, n->grid_blocks, n->grid_threads);
        plane_values(out, a, e, n->in, n->nin, true);
        plane_values(out, a, e, n->out, n->nout, false);
        node_arg_values(out, a, e, n);
        fputs(");\n", out);
        fputs(t->node_check, out);
        break;
    case NODE_FILL:
    case NODE_SERIAL: {
        t->node_launch(out, name, n->grid_blocks, n->grid_threads);
        if (n->kind == NODE_SERIAL) plane_values(out, a, e, n->in, n->nin, true);
        plane_values(out, a, e, n->out, n->nout, n->kind == NODE_FILL || n->nin == 0);
        if (n->nargs && (n->nin + n->nout == 0))
            diag_fatal("internal error: a node without planes");
        node_arg_values(out, a, e, n);
        fputs(");\n", out);
        fputs(t->node_check, out);
        break;
    }
    }
}


/* The actions of the host program (plan.h) before the nodes' calls. */
static void emit_results_disjoint(FILE *out, Arena *a, const EntryPlan *e, const Target *t) {
    fputs("    if (0", out);
    for (int i = 0; i < e->nout_planes; i++)
        for (int j = i + 1; j < e->nout_planes; j++)
            fprintf(out, "\n        || parm_overlap(out[%d], %s, out[%d], %s)", i,
                    api_bytes(a, e, &e->out_planes[i], t), j,
                    api_bytes(a, e, &e->out_planes[j], t));
    fputs(")\n        return PARM_ERROR_ALIAS;\n", out);
}

/* Whether some node reads parameter plane k (P[k]), as a plane or as an
 * argument. One that none reads needs no alias test and no copy, and
 * setting P[k] anyway draws nvcc's warning of a P set but never used. */
static bool param_read(const EntryPlan *e, int k) {
    if (e->segments && (k == e->seg_starts_plane || k == e->seg_lens_plane)) return true;
    for (int i = 0; i < e->nnodes; i++) {
        const PlanNode *n = &e->nodes[i];
        for (int j = 0; j < n->nin; j++)
            if (n->in[j].kind == LOC_PARAM && n->in[j].index == k) return true;
        for (int j = 0; j < n->nargs; j++)
            if (emit_arg_by_ref(n, j) && n->arg_at[j].kind == LOC_PARAM && n->arg_at[j].index == k)
                return true;
    }
    return false;
}

static void emit_alias_test(FILE *out, Arena *a, const EntryPlan *e, const HostAction *act,
                            const Target *t) {
    int k = act->index;
    if (!param_read(e, k)) return;
    fprintf(out, "    P[%d] = in[%d];\n    copy[%d] = 0", k, k, k);
    for (int j = 0; act->tests && j < e->nout_planes; j++) {
        fprintf(out, "\n        || (parm_overlap(in[%d], %s, out[%d], %s)", k,
                api_bytes(a, e, &e->in_planes[k], t), j, api_bytes(a, e, &e->out_planes[j], t));
        if (act->exact_ok == j) fprintf(out, " && in[%d] != out[%d]", k, j);
        fputs(")", out);
    }
    fprintf(out, ";\n    copies |= copy[%d];\n", k);
}

static void emit_input_copy(FILE *out, Arena *a, const EntryPlan *e, const HostAction *act,
                            const Target *t) {
    int k = act->index;
    unsigned long long at = e->host.regions[act->region].off;
    if (!param_read(e, k)) return;
    fprintf(out, "    if (copy[%d]) {\n        ", k);
    t->copy(out, arena_printf(a, "scratch + 0x%llxu", at), arena_printf(a, "in[%d]", k),
            api_bytes(a, e, &e->in_planes[k], t));
    fprintf(out, "        P[%d] = scratch + 0x%llxu;\n    }\n", k, at);
}

/* A graph run whole on every rank (EntryPlan.whole_graph), on a target
 * that runs every rank in one call (Target.rank_slices false: the C
 * simulation): the rank whose actions follow. The gathers of every rank
 * come before any rank's nodes, as a collective's would, so that a result
 * written into the caller's array that holds a parameter too is read by no
 * later gather. */
static void open_rank_loop(FILE *out, const EntryPlan *e, const Target *t) {
    if (t->rank_slices) return;
    fprintf(out,
            "    for (uint64_t parm_rank = 0; parm_rank < %du; parm_rank++) {\n"
            "    char *const scratch = scratch_ranks + parm_rank * 0x%llxu;\n    (void)scratch;\n",
            1 << e->gpu_log, e->host.bytes);
}

static void close_rank_loop(FILE *out, const Target *t) {
    if (!t->rank_slices) fputs("    }\n", out);
}

/* Before a graph run whole starts its nodes: the gathered parameters as P. */
static void start_whole_nodes(FILE *out, const EntryPlan *e, const Target *t) {
    close_rank_loop(out, t);
    open_rank_loop(out, e, t);
    for (int k = 0; k < e->nin_planes; k++)
        if (param_read(e, k))
            fprintf(out, "    P[%d] = scratch + 0x%llxu;\n", k,
                    whole_region(e, REGION_WHOLE_IN, k)->off);
}

/* With segments, before the first node: the rows' starts and lengths,
 * which every node reads, from P (a copy where they overlap a result, which
 * a node may write before the last reads them). */
static void emit_segment_planes(FILE *out, const EntryPlan *e) {
    fprintf(out,
            "    const %s *const parm_starts = (const %s *)P[%d];\n"
            "    const %s *const parm_lens = (const %s *)P[%d];\n",
            prim_ctype(e->seg_starts_prim), prim_ctype(e->seg_starts_prim), e->seg_starts_plane,
            prim_ctype(e->seg_lens_prim), prim_ctype(e->seg_lens_prim), e->seg_lens_plane);
}

/* HOST_SCRATCH: the allocation (a graph run whole in the C simulation
 * holds every rank's). */
static void emit_scratch(FILE *out, const EntryPlan *e, const Target *t) {
    const HostProgram *h = &e->host;
    bool ranks = e->whole_graph && !t->rank_slices;
    const char *name = ranks ? "scratch_ranks" : "scratch";
    unsigned long long plain = h->bytes > 0 ? h->bytes : 1;
    unsigned long long copies = h->bytes_copies > 0 ? h->bytes_copies : 1;
    if (ranks) plain = copies = plain << e->gpu_log;
    fprintf(out,
            "    char *%s;\n    int status;\n"
            "    if ((status = parm_scratch(ctx, copies ? 0x%llxu : 0x%llxu, \"the scratch memory "
            "of entry '%s'\", &%s)))\n"
            "        return status;\n    (void)%s;\n    (void)copy;\n",
            name, copies, plain, e->func->entry, name, name);
    if (e->whole_graph) open_rank_loop(out, e, t);
}

/* HOST_GATHER_INPUT: every rank's slice of parameter plane k, in rank
 * order, into the whole array at the action's region. */
static void emit_gather_input(FILE *out, Arena *a, const EntryPlan *e, const HostAction *act,
                              const Target *t) {
    const PlaneRef *p = &e->in_planes[act->index];
    if (!param_read(e, act->index)) return;
    t->gather(out, arena_printf(a, "scratch + 0x%llxu", e->host.regions[act->region].off),
              arena_printf(a, "in[%d]", act->index), plan_rank_bytes(e, p), 1 << e->gpu_log);
}

/* HOST_KEEP_SLICE: the rank's slice of result plane k (all of a scalar). */
static void emit_keep_slice(FILE *out, Arena *a, const EntryPlan *e, const HostAction *act,
                            const Target *t) {
    const PlaneRef *p = &e->out_planes[act->index];
    unsigned long long bytes = plan_rank_bytes(e, p);
    const char *at = p->log_len ? arena_printf(a, " + %s * 0x%llxu", t->rank_index, bytes) : "";
    const char *dst = t->rank_slices ? arena_printf(a, "out[%d]", act->index)
                                     : arena_printf(a, "(char *)out[%d]%s", act->index, at);
    fputs("    ", out);
    t->copy(out, dst, arena_printf(a, "scratch + 0x%llxu%s", e->host.regions[act->region].off, at),
            arena_printf(a, "0x%llxu", bytes));
}

static void emit_host_action(FILE *out, Arena *a, const EntryPlan *e, const HostAction *act,
                             const Target *t) {
    switch (act->kind) {
    case HOST_RESULTS_DISJOINT: emit_results_disjoint(out, a, e, t); break;
    case HOST_ALIAS_TEST: emit_alias_test(out, a, e, act, t); break;
    case HOST_SCRATCH: emit_scratch(out, e, t); break;
    case HOST_COPY_INPUT: emit_input_copy(out, a, e, act, t); break;
    case HOST_NODE:
        if (e->whole_graph && act->index == 0) start_whole_nodes(out, e, t);
        if (e->segments && act->index == 0) emit_segment_planes(out, e);
        emit_node_call(out, a, e, &e->nodes[act->index], plan_node_name(a, e, act->index), t);
        break;
    case HOST_GATHER_INPUT: emit_gather_input(out, a, e, act, t); break;
    case HOST_KEEP_SLICE: emit_keep_slice(out, a, e, act, t); break;
    }
}

void emit_graph_func(FILE *out, const EntryPlan *e, const Target *t) {
    Arena a = {0};
    const char *fname = plan_code_base(&a, e->func);
    for (int i = 0; i < e->nnodes; i++) {
        const PlanNode *n = &e->nodes[i];
        const char *name = plan_node_name(&a, e, i);
        fprintf(out, "/* %s: %s node */\n", name, plan_node_kind_name(n->kind));
        switch (n->kind) {
        case NODE_CHAIN: emit_chain(out, &n->chain, name, t); break;
        case NODE_REDUCE: t->reduce_node(out, n, name); break;
        case NODE_SCAN: t->scan_node(out, n, name); break;
        case NODE_FILL: emit_fill(out, n, name, t); break;
        case NODE_SERIAL: emit_serial(out, n, name, t); break;
        case NODE_EXPAND: emit_expand(out, n, name, t); break;
        case NODE_GATHER: emit_gather(out, n, name, t); break;
        case NODE_COPY:
            if (n->copy == COPY_PAD || n->copy == COPY_CUT) emit_shape_copy(out, e, n, name, t);
            break;
        }
    }
    fprintf(out, "static int %s_run(parm_ctx *ctx, const void *const *in, void *const *out", fname);
    const IrBody *body = e->func->body;
    for (int i = 0; i < body->nparams; i++)
        if (ir_is_scalar(body->params[i]))
            fprintf(out, ", const %s parm_arg%d", prim_ctype(val_prim(body->params[i])),
                    body->params[i]->id);
    /* the shape given, as a chain of any length takes it (emit_arg_params) */
    if (e->pad) fputs(", const uint64_t parm_rows, const uint64_t parm_cols", out);
    fputs(")\n{\n    (void)in;\n", out);
    if (e->pad) fputs("    (void)parm_rows;\n    (void)parm_cols;\n", out);
    for (int i = 0; i < body->nparams; i++)
        if (ir_is_scalar(body->params[i]))
            fprintf(out, "    (void)parm_arg%d;\n", body->params[i]->id);
    fprintf(out, "    const void *P[%d];\n    (void)P;\n    int copy[%d];\n    int copies = 0;\n",
            e->nin_planes ? e->nin_planes : 1, e->nin_planes ? e->nin_planes : 1);
    if (e->whole_graph) fputs(t->ranks_check, out);
    for (int i = 0; i < e->host.nactions; i++) emit_host_action(out, &a, e, &e->host.actions[i], t);
    if (e->whole_graph)
        close_rank_loop(out, t); /* after the slices kept, the host program's last */
    fputs("    return parm_call_done(ctx);\n}\n\n", out);
    arena_free(&a);
}

/* ---- the standalone main ---- */

static int count_scalar_params(const IrBody *body) {
    int n = 0;
    for (int i = 0; i < body->nparams; i++) n += ir_is_scalar(body->params[i]);
    return n;
}

/* The input values of f's parameters other than the padded one. */
static long other_values(const IrFunc *f) {
    long total = 0;
    for (int j = 0; j < f->body->nparams; j++) {
        const IrVal *v = f->body->params[j];
        if (j != f->pad_param) total += (v->log_len < 0 ? 1L : 1L << v->log_len) * v->elem->nslots;
    }
    return total;
}

/* The log length of f's padded parameter (EntryPlan.pad_log). */
static int pad_log_of(const IrFunc *f) { return f->body->params[f->pad_param]->log_len; }

/* How a result of an entry of any length is cut, in the standalone main's
 * table parm_cut: -1 to the caller's shape, k > 0 to the given rows of k
 * (the entry's result row length), 0 not at all. */
static long result_cut(const IrFunc *f, const IrVal *v) {
    if (ir_is_scalar(v)) return 0;
    if (v->log_len == pad_log_of(f)) return -1;
    return ir_cut_row_log(f, v) >= 0 ? (long)f->cut_cols : 0;
}

/* An entry of any length, per size (refused ones too, emit_entry_sizes):
 * the values of the other parameters, the largest shape (rows, row length)
 * it takes, and which results are cut to the shape. */
static void emit_pad_tables(FILE *out, const EntrySize *sizes, int nsizes) {
    static const char *const names[] = {"parm_others", "parm_max_rows", "parm_max_cols"};
    for (int t = 0; t < 3; t++) {
        fprintf(out, "static const long %s[] = {", names[t]);
        for (int i = 0; i < nsizes; i++) {
            const IrFunc *f = sizes[i].func;
            bool flat = f->pad_rows_log < 0 || f->seg_starts >= 0;
            long value = t == 0 ? other_values(f)
                         : t == 1
                             ? (flat ? 1L : 1L << f->pad_rows_log)
                             : 1L << (f->seg_starts >= 0 ? IR_SEGMENTED_MAX_LOG : f->pad_cols_log);
            fprintf(out, "%s%ldL", i ? ", " : "", value);
        }
        fputs("};\n", out);
    }
    int nres = sizes[0].func->body->nresults;
    fprintf(out, "static const long parm_cut[][%d] = {", nres);
    for (int i = 0; i < nsizes; i++) {
        const IrFunc *f = sizes[i].func;
        fputs(i ? ", {" : "{", out);
        for (int r = 0; r < nres; r++)
            fprintf(out, "%s%ldL", r ? ", " : "", result_cut(f, f->body->results[r]));
        fputs("}", out);
    }
    fputs("};\n", out);
}

/* Lengths per specialisation: spec_log[spec][value] for the parameters,
 * then the results (-1 for a scalar). */
static void emit_tables(FILE *out, const EmitInput *in, const EntryPlan *first, int *nspecs) {
    const IrBody *body = first->func->body;
    int nvals = body->nparams + body->nresults;
    /* every size, the refused ones too: their input reaches the API, which
       returns PARM_ERROR_LENGTH for it; the number of values of each size
       (of an entry of any length: emit_pad_tables) */
    Arena a = {0};
    EntrySize *sizes;
    int count = emit_entry_sizes(&a, in, first->func->entry, &sizes);
    if (!first->pad) fputs("static const long parm_counts[] = {", out);
    for (int i = 0; i < count; i++) {
        const IrBody *b = sizes[i].func->body;
        long total = 0;
        for (int j = 0; j < b->nparams; j++) {
            const IrVal *v = b->params[j];
            total += (v->log_len < 0 ? 1L : 1L << v->log_len) * v->elem->nslots;
        }
        if (!first->pad) fprintf(out, "%s%ldL", i ? ", " : "", total);
    }
    fprintf(out, "%sstatic const int parm_logs[%d][%d] = {", first->pad ? "" : "};\n", count,
            nvals);
    for (int i = 0; i < count; i++) {
        const IrBody *b = sizes[i].func->body;
        fprintf(out, "%s{", i ? ", " : "");
        for (int j = 0; j < nvals; j++) {
            const IrVal *v = j < b->nparams ? b->params[j] : b->results[j - b->nparams];
            fprintf(out, "%s%d", j ? ", " : "", v->log_len);
        }
        fputs("}", out);
    }
    fputs("};\n", out);
    if (first->pad) emit_pad_tables(out, sizes, count);
    arena_free(&a);
    *nspecs = count;
}

/* The call of the entry on the device planes din.. and dout... */
static void emit_call(FILE *out, const EmitInput *in, const EntryPlan *first) {
    const IrBody *body = first->func->body;
    emit_api_text(out, in, "{p}_");
    fprintf(out, "%s(ctx", first->func->entry);
    for (int i = 0, arg = 0, plane = 0; i < body->nparams; i++) {
        const IrVal *v = body->params[i];
        if (ir_is_scalar(v)) {
            fprintf(out, ", parm_main_arg%d", arg++);
            continue;
        }
        for (int k = 0; k < v->elem->nslots; k++)
            fprintf(out, ", (const %s *)din[%d]", prim_ctype(elem_slot_prim(v->elem, k)), plane++);
    }
    for (int k = 0; k < first->nout_planes; k++)
        fprintf(out, ", (%s *)dout[%d]", prim_ctype(first->out_planes[k].prim), k);
    if (first->pad)
        fputs(plan_pad_by_rows(first) ? ", parm_main_rows, parm_main_cols)" : ", parm_main_cols)",
              out);
    else fputs(first->n >= 0 ? ", n)" : ")", out);
}

/* The elements of parameter (result) i in the standalone main: its
 * length at the size that runs, or for an entry of any length the shape's
 * (the padded parameter, and the results that are cut). */
static const char *main_len(Arena *a, const EntryPlan *first, int i, bool result) {
    const char *whole = arena_printf(a, "parm_len(parm_logs[spec][%d])",
                                     i + (result ? first->func->body->nparams : 0));
    if (!first->pad) return whole;
    if (!result) return i == first->func->pad_param ? "parm_main_rows * parm_main_cols" : whole;
    const char *rows = first->segments ? api_rows(a, first) : "parm_main_rows";
    return arena_printf(
        a,
        "(parm_cut[spec][%d] < 0 ? parm_main_rows * parm_main_cols : parm_cut[spec][%d] > 0 ? "
        "%s * (size_t)parm_cut[spec][%d] : %s)",
        i, i, rows, i, whole);
}

/* The call that the runner makes (and times). */
static void emit_run_call(FILE *out, const EmitInput *in, const EntryPlan *first) {
    if (first->pad) fputs("parm_main_call(ctx, din, dout)", out);
    else emit_call(out, in, first);
}

/* The bytes of plane k of the parameters (results): its value's length. */
static void emit_plane_lengths(FILE *out, const EntryPlan *first, bool results, const char *name) {
    const IrBody *body = first->func->body;
    Arena a = {0};
    int nv = results ? body->nresults : body->nparams, count = 0;
    for (int i = 0; i < nv; i++) {
        const IrVal *v = results ? body->results[i] : body->params[i];
        if (!results && ir_is_scalar(v)) continue;
        count += v->elem->nslots;
    }
    fprintf(out, "    size_t %s[%d];\n", name, count ? count : 1);
    for (int i = 0, plane = 0; i < nv; i++) {
        const IrVal *v = results ? body->results[i] : body->params[i];
        if (!results && ir_is_scalar(v)) continue;
        for (int k = 0; k < v->elem->nslots; k++, plane++)
            fprintf(out, "    %s[%d] = sizeof(%s) * %s;\n", name, plane,
                    prim_ctype(elem_slot_prim(v->elem, k)), main_len(&a, first, i, results));
    }
    arena_free(&a);
}

/* With ranks, which result planes every rank holds whole: a graph's
 * scalars (the main slices the others). */
static void emit_whole_planes(FILE *out, const EntryPlan *first) {
    if (!first->whole_graph) return;
    fprintf(out, "    static const unsigned char out_whole[%d] = {", first->nout_planes);
    for (int k = 0; k < first->nout_planes; k++)
        fprintf(out, "%s%d", k ? ", " : "", first->out_planes[k].log_len == 0);
    fputs("};\n", out);
}

/* What each plane of the parameters (or the results) is for, as the main's
 * message names it when the plane cannot be allocated: the parameter (by
 * its place among the entry's, scalars included) or the result, and the
 * API's name of the plane (in0..., out0...: docs/api.md). */
static void emit_plane_names(FILE *out, const EntryPlan *first, bool results, const char *name) {
    const IrBody *body = first->func->body;
    int nv = results ? body->nresults : body->nparams, count = 0;
    fprintf(out, "    static const char *const %s[] = {", name);
    for (int i = 0; i < nv; i++) {
        const IrVal *v = results ? body->results[i] : body->params[i];
        if (!results && ir_is_scalar(v)) continue;
        for (int k = 0; k < v->elem->nslots; k++, count++) {
            fputs(count ? ",\n        \"" : "\n        \"", out);
            if (results && nv == 1) fputs("the result", out);
            else fprintf(out, "%s %d", results ? "result" : "parameter", i + 1);
            fprintf(out, " of entry '%s' (%s%d)\"", first->func->entry, results ? "out" : "in",
                    count);
        }
    }
    fputs(count ? "};\n" : "NULL};\n", out);
}

/* An entry of any length: the shape (parm_main_rows rows of parm_main_cols)
 * and the size that runs (spec) from the count of values, after the row
 * length for rows, as the interpreter finds them (compiler/ir/io.c): the first
 * size whose other parameters and a whole number of rows take the count. */
static void emit_main_shape(FILE *out, const EmitInput *in, const EntryPlan *first, int nspecs) {
    Arena a = {0};
    EntrySize *sizes;
    int nsizes = emit_entry_sizes(&a, in, first->func->entry, &sizes);
    const IrFunc *last = sizes[nsizes - 1].func;
    arena_free(&a);
    bool rows = plan_pad_by_rows(first);
    int slots = first->pad_elem->nslots;
    fputs("    long row_len = 1;\n", out);
    if (rows) emit_read_row_length(out, first->func->entry, 1L << last->pad_cols_log);
    fputs("    while (parm_next_token(&input, tok, sizeof tok)) count++;\n", out);
    fprintf(
        out,
        "    int spec = -1;\n    for (int s = 0; s < %d && spec < 0; s++) {\n"
        "        const long values = count - parm_others[s];\n"
        "        if (values < 0 || values %% %d != 0 || (values / %d) %% row_len != 0) continue;\n"
        "        const long elems = values / %d;\n"
        "        parm_main_rows = (size_t)(elems / row_len);\n"
        "        parm_main_cols = (size_t)row_len;\n",
        nspecs, slots, slots, slots);
    if (!rows) fputs("        parm_main_rows = 1;\n        parm_main_cols = (size_t)elems;\n", out);
    fputs("        if ((long)parm_main_rows <= parm_max_rows[s] && (long)parm_main_cols <= "
          "parm_max_cols[s]) spec = s;\n"
          "    }\n    if (spec < 0) {\n",
          out);
    if (rows)
        fprintf(
            out,
            "        char *msg = parm_rows_message(\"%s\", parm_others[%d], %d, parm_max_rows[%d], "
            "row_len, count);\n",
            first->func->entry, nspecs - 1, slots, nspecs - 1);
    else
        fprintf(out,
                "        char *msg = parm_padded_message(\"%s\", parm_others[%d], %d, "
                "parm_max_cols[%d], count);\n",
                first->func->entry, nspecs - 1, slots, nspecs - 1);
    fputs("        fprintf(stderr, PARM_INPUT_NAME \": error: %s\\n\", msg);\n"
          "        free(msg);\n        free(input.text);\n        return 1;\n    }\n"
          "    parm_main_spec = spec;\n    input.pos = 0;\n    input.count = 0;\n",
          out);
    if (rows) fputs("    parm_next_token(&input, tok, sizeof tok);\n", out);
}

/* An entry of any length: the call of the size that runs, through the API
 * where the API picks that size for the shape (the first that holds it),
 * else straight (a ranged entry whose other arrays' lengths told the sizes
 * apart in the input). */
static void emit_main_call(FILE *out, const EmitInput *in, const EntryPlan *first) {
    const IrBody *body = first->func->body;
    fputs("static int parm_main_call(parm_ctx *ctx, void *const *din, void *const *dout)\n{\n"
          "    int first = 0;\n"
          "    while ((long)parm_main_rows > parm_max_rows[first] || (long)parm_main_cols > "
          "parm_max_cols[first]) first++;\n"
          "    if (first == parm_main_spec)\n        return ",
          out);
    emit_call(out, in, first);
    fputs(";\n    switch (parm_main_spec) {\n", out);
    Arena names = {0};
    EntrySize *sizes;
    int nsizes = emit_entry_sizes(&names, in, first->func->entry, &sizes);
    for (int spec = 0; spec < nsizes; spec++) {
        const EntryPlan *e = sizes[spec].plan;
        if (!e) continue; /* a refused size: the default */
        fprintf(out, "    case %d: return ", spec);
        /* a size whose results are all of the caller's shape */
        if (plan_empty_shape_writes_nothing(e))
            fputs("parm_main_rows * parm_main_cols == 0 ? PARM_OK : ", out);
        fprintf(out, "%s_run(ctx, (const void *const *)din, dout", plan_code_base(&names, e->func));
        for (int k = 0; k < count_scalar_params(body); k++) fprintf(out, ", parm_main_arg%d", k);
        fputs(", parm_main_rows, parm_main_cols);\n", out);
    }
    arena_free(&names);
    fputs("    default: return PARM_ERROR_LENGTH;\n    }\n}\n\n", out);
}

/* Element i of the main's host plane k of the segments' starts or lengths. */
static const char *segment_at(Arena *a, Prim p, int plane, const char *i) {
    return arena_printf(a, "(int64_t)((const %s *)host_in[%d])[%s]", prim_ctype(p), plane, i);
}

/* An entry with segments: the main stops, with the interpreter's message
 * (runtime/parm_io.h), where the segments are not each inside the
 * parm_main_cols elements given, at most a row long, and disjoint. */
static void emit_main_check_segments(FILE *out, const EntryPlan *e) {
    Arena a = {0};
    fprintf(out,
            "    {\n        const long rows = 1L << %d;\n"
            "        int64_t *st = (int64_t *)malloc(sizeof(int64_t) * (size_t)rows);\n"
            "        int64_t *ln = (int64_t *)malloc(sizeof(int64_t) * (size_t)rows);\n"
            "        char *msg = NULL;\n"
            "        if (st && ln) {\n"
            "            for (long r = 0; r < rows; r++) {\n"
            "                st[r] = %s;\n                ln[r] = %s;\n            }\n"
            "            msg = parm_segments_message(st, ln, rows, %ldL, (long)parm_main_cols);\n"
            "        } else msg = parm_message(\"%%s\", \"out of memory checking the segments\");\n"
            "        free(st);\n        free(ln);\n        if (msg) {\n"
            "            fprintf(stderr, PARM_INPUT_NAME \": error: %%s\\n\", msg);\n"
            "            free(msg);\n            free(input.text);\n"
            "            for (int k = 0; k < %d; k++) free(host_in[k]);\n"
            "            for (int k = 0; k < %d; k++) free(host_out[k]);\n"
            "            return 1;\n        }\n    }\n",
            e->pad_rows_log, segment_at(&a, e->seg_starts_prim, e->seg_starts_plane, "r"),
            segment_at(&a, e->seg_lens_prim, e->seg_lens_plane, "r"), 1L << e->pad_cols_log,
            e->nin_planes, e->nout_planes);
    arena_free(&a);
}

/* The head of the loop over a result of the padded length of an entry
 * with segments: each row's segment, row after row (the interpreter's
 * order, compiler/ir/io.c), i its place in the caller's array. */
static void emit_main_segment_loop(FILE *out, const EntryPlan *e) {
    Arena a = {0};
    fprintf(out,
            "    for (size_t r = 0; r < (size_t)1 << %d; r++)\n"
            "    for (int64_t c = 0; c < %s; c++) {\n"
            "        const size_t i = (size_t)(%s + c);\n",
            e->pad_rows_log, segment_at(&a, e->seg_lens_prim, e->seg_lens_plane, "r"),
            segment_at(&a, e->seg_starts_prim, e->seg_starts_plane, "r"));
    arena_free(&a);
}

/* The statements that free the main's host planes, indented by `indent`. */
static const char *host_planes_freed(Arena *a, const EntryPlan *first, int indent) {
    return arena_printf(a,
                        "%*sfor (int k = 0; k < %d; k++) free(host_in[k]);\n"
                        "%*sfor (int k = 0; k < %d; k++) free(host_out[k]);\n",
                        indent, "", first->nin_planes, indent, "", first->nout_planes);
}

void emit_graph_main(FILE *out, const EmitInput *in, const EntryPlan *first, const Target *t) {
    const IrBody *body = first->func->body;
    int nspecs, nargs = count_scalar_params(body);
    emit_runtime(out, in, "parm_io.h", runtime_parm_io_h);
    for (int i = 0, arg = 0; i < body->nparams; i++)
        if (ir_is_scalar(body->params[i]))
            fprintf(out, "static %s parm_main_arg%d;\n", prim_ctype(val_prim(body->params[i])),
                    arg++);
    if (first->pad)
        fputs("static size_t parm_main_rows, parm_main_cols;   /* the shape of the input */\n"
              "static int parm_main_spec;                     /* the size that runs */\n",
              out);
    emit_tables(out, in, first, &nspecs);
    fputs("static size_t parm_len(int log) { return log < 0 ? 1 : (size_t)1 << log; }\n\n", out);
    emit_main_runtime(out, in, t);
    if (first->pad) emit_main_call(out, in, first);
    fputs("static int parm_main_entry(parm_ctx *ctx, void *const *din, void *const *dout, size_t "
          "n)\n{\n"
          "    (void)din;\n    (void)dout;\n    (void)n;\n    return ",
          out);
    emit_run_call(out, in, first);
    fputs(";\n}\n\n", out);
    emit_main_start(out);
    fputs("    parm_input input;\n"
          "    if (parm_input_read(&input, stdin)) return 1;\n"
          "    if (parm_input_has_nul(&input)) { free(input.text); return 1; }\n"
          "    char tok[PARM_MAX_TOKEN];\n    long count = 0;\n",
          out);
    Arena names = {0};
    if (first->pad) {
        emit_main_shape(out, in, first, nspecs);
    } else {
        fputs("    while (parm_next_token(&input, tok, sizeof tok)) count++;\n", out);
        fprintf(out,
                "    if (parm_input_bad_count(\"%s\", parm_counts, %d, count)) { free(input.text); "
                "return 1; }\n",
                first->func->entry, nspecs);
        fputs("    int spec = 0;\n    while (parm_counts[spec] != count) spec++;\n"
              "    input.pos = 0;\n    input.count = 0;\n",
              out);
    }
    emit_plane_lengths(out, first, false, "in_bytes");
    emit_plane_lengths(out, first, true, "out_bytes");
    fprintf(out, "    void *host_in[%d], *host_out[%d];\n",
            first->nin_planes ? first->nin_planes : 1, first->nout_planes ? first->nout_planes : 1);
    emit_plane_names(out, first, false, "in_what");
    emit_plane_names(out, first, true, "out_what");
    fprintf(out,
            "    if (parm_main_host_alloc(host_in, in_bytes, in_what, %d) ||\n"
            "        parm_main_host_alloc(host_out, out_bytes, out_what, %d)) {\n",
            first->nin_planes, first->nout_planes);
    fprintf(out, "        for (int k = 0; k < %d; k++) free(host_in[k]);\n", first->nin_planes);
    fprintf(out, "        for (int k = 0; k < %d; k++) free(host_out[k]);\n", first->nout_planes);
    fputs("        free(input.text);\n        return 1;\n    }\n", out);
    int first_array = -1;
    Arena scratch = {0};
    /* what an exit after the host planes' allocation frees: its planes (the
       input's text too, while the values are read) */
    const char *reading_freed = arena_printf(&names, "%s                free(input.text);\n",
                                             host_planes_freed(&names, first, 16));
    const char *planes_freed = host_planes_freed(&names, first, 8);
    for (int i = 0, arg = 0, plane = 0; i < body->nparams; i++) {
        const IrVal *v = body->params[i];
        if (ir_is_scalar(v)) {
            emit_read_value(out, val_prim(v), arena_printf(&scratch, "parm_main_arg%d", arg++),
                            reading_freed);
            continue;
        }
        if (first_array < 0) first_array = i;
        fprintf(out, "    for (size_t i = 0; i < %s; i++) {\n", main_len(&names, first, i, false));
        for (int k = 0; k < v->elem->nslots; k++)
            emit_read_value(out, elem_slot_prim(v->elem, k),
                            arena_printf(&scratch, "((%s *)host_in[%d])[i]",
                                         prim_ctype(elem_slot_prim(v->elem, k)), plane + k),
                            reading_freed);
        fputs("    }\n", out);
        plane += v->elem->nslots;
    }
    arena_free(&scratch);
    if (first->segments) emit_main_check_segments(out, first);
    if (first_array < 0)
        for (int i = 0; i < body->nresults && first_array < 0; i++)
            if (!ir_is_scalar(body->results[i])) first_array = body->nparams + i;
    fputs("    free(input.text);\n", out);
    if (first_array >= 0)
        fprintf(out, "    size_t n = parm_len(parm_logs[spec][%d]);\n", first_array);
    else fputs("    size_t n = 0;\n", out);
    emit_whole_planes(out, first);
    fprintf(out,
            "    const parm_main_planes in_planes = {host_in, in_bytes, in_what, %d, NULL}, "
            "out_planes = {host_out, out_bytes, out_what, %d, %s};\n",
            first->nin_planes, first->nout_planes, first->whole_graph ? "out_whole" : "NULL");
    emit_main_run(out, in, t, planes_freed);
    for (int r = 0, plane = 0; r < body->nresults; r++) {
        const IrVal *v = body->results[r];
        if (first->segments && result_cut(first->func, v) < 0) emit_main_segment_loop(out, first);
        else
            fprintf(out, "    for (size_t i = 0; i < %s; i++) {\n",
                    main_len(&names, first, r, true));
        for (int k = 0; k < v->elem->nslots; k++) {
            Prim p = elem_slot_prim(v->elem, k);
            if (k) fputs("        fputc(' ', stdout);\n", out);
            fprintf(out, "        %s(stdout, ((const %s *)host_out[%d])[i]);\n", emit_print_fn(p),
                    prim_ctype(p), plane + k);
        }
        fputs("        fputc('\\n', stdout);\n    }\n", out);
        plane += v->elem->nslots;
    }
    fprintf(out, "    for (int k = 0; k < %d; k++) free(host_in[k]);\n", first->nin_planes);
    fprintf(out, "    for (int k = 0; k < %d; k++) free(host_out[k]);\n", first->nout_planes);
    emit_api_text(out, in, "    {p}_ctx_destroy(ctx);\n    return parm_main_output_done();\n}\n");
    (void)nargs;
    arena_free(&names);
}
