/* opt_tables.c: position-only subexpressions become tables (opt.h).
 *
 * In a body that knows its position (POS), a value computed from one POS
 * statement and constants alone is the same for every array and every call:
 * a function of the position. Where it is expensive (a sin, a division, a
 * chain of operators) and depends on few bits of the position, it becomes a
 * TABLE statement indexed by those bits: 2^k entries computed here with the
 * interpreter's scalar operators (scalar_ops.c), so every back end reads the
 * interpreter's bits, and the element code does a load instead of the
 * arithmetic. The twiddle factors of an FFT column are the example: cos and
 * sin of an angle proportional to the butterfly's index.
 *
 * Which bits a value depends on is tracked bit by bit through the integer
 * operators (shifts and masks by constants move and drop dependencies,
 * carries spread them upwards), so `cos (f64 (i >> 10) * c)` is a table of
 * the high bits of i alone. A value whose bits are too many for one table
 * is not tabulated; its operands are tried instead (the two factors of a
 * twiddle written as a product of a coarse and a fine one, say). Tables
 * are bounded (TABLE_MAX_LOG entries each, TABLE_BUDGET in all per program);
 * identical tables share their entries, which the emitters write once. */
#include "opt.h"

#include <stdlib.h>
#include <string.h>

#include "scalar_ops.h"

#define TABLE_MAX_LOG 14        /* entries of one table: 2^14 (64 KB of f32) */
#define TABLE_BUDGET (1L << 20) /* entries of all tables of a program */
#define TABLE_MIN_COST 8        /* what a value must cost to be worth a load */
#define TABLE_WORK (1L << 27)   /* operators evaluated to fill the tables of a program */
#define COST_CAP (1L << 30)

typedef struct {
    bool posonly;      /* a function of `pos`'s value and constants */
    const IrStmt *pos; /* that POS statement; NULL for a constant */
    uint64_t bit[64];  /* bit j of the value depends on the bits bit[j] of pos's value */
    int at;            /* its statement's index in the body */
    long cost;         /* what computing it costs, shared operands counted per use (capped) */
    bool read_outside; /* read by code that is not position-only (or returned) */
    bool chosen;       /* becomes a table */
    bool visited;      /* considered by choose */
    IrVal *repl;       /* what replaces it */
} Info;

typedef struct {
    IrProgram *p;
    Arena scratch; /* per body */
    Info **info;   /* by id, for the body being rewritten; cap ids */
    IrVal **repl;  /* by id: the replacement of a value (any body) */
    int *uses, *seen, stamp;
    int *slot; /* by id: a cone statement's place in the evaluation */
    int cap;
    long budget, work;
    int ntables; /* table numbers given (IrStmt.index of a TABLE) */
    struct {
        const Scalar *tab;
        Prim prim;
        int k, number;
    } * known;
    int nknown, known_cap;
} Tab;

static Info *info_of(Tab *t, const IrVal *v) { return v->id < t->cap ? t->info[v->id] : NULL; }
static bool posonly(Tab *t, const IrVal *v) {
    Info *i = info_of(t, v);
    return i && i->posonly;
}

static uint64_t all_bits(const Info *a) {
    uint64_t u = 0;
    for (int j = 0; j < 64; j++) u |= a->bit[j];
    return u;
}

/* Bits at or above the width copy the sign bit or are zero (Scalar's
 * canonical form). */
static void extend(Info *r, Prim p) {
    int w = prim_bits(p);
    if (prim_is_float(p) || p == PRIM_BOOL || w >= 64) return;
    for (int j = w; j < 64; j++) r->bit[j] = prim_is_signed(p) ? r->bit[w - 1] : 0;
}

static void spread(Info *r, uint64_t deps) {
    for (int j = 0; j < 64; j++) r->bit[j] = deps;
}

static const Scalar *const_of(const IrVal *v) {
    return v->def && v->def->op == IR_CONST ? &v->def->cval : NULL;
}

/* Integer operators that move bits: bit j of the result depends on which
 * bits of the operands. Anything else depends on everything. */
static void binary_bits(Info *r, const IrStmt *s, const Info *a, const Info *b) {
    Prim p = s->args[0]->elem->prim;
    int w = prim_bits(p);
    const Scalar *ca = const_of(s->args[0]), *cb = const_of(s->args[1]);
    uint64_t lo_a = 0, lo_b = 0;
    switch (s->alu) {
    case OP_ADD:
    case OP_SUB:
    case OP_MUL: /* carries go up */
        for (int j = 0; j < 64; j++) {
            lo_a |= a->bit[j];
            lo_b |= b->bit[j];
            r->bit[j] = lo_a | lo_b;
        }
        return;
    case OP_BAND:
    case OP_BOR: /* a constant bit decides the result's */
        for (int j = 0; j < 64; j++) {
            bool decided = (cb && (cb->u >> j & 1) == (s->alu == OP_BOR)) ||
                           (ca && (ca->u >> j & 1) == (s->alu == OP_BOR));
            r->bit[j] = decided ? 0 : a->bit[j] | b->bit[j];
        }
        return;
    case OP_XOR:
        for (int j = 0; j < 64; j++) r->bit[j] = a->bit[j] | b->bit[j];
        return;
    case OP_SHL:
    case OP_SHR:
        if (cb) {
            int sh = (int)(cb->u & (uint64_t)(w - 1));
            for (int j = 0; j < w; j++)
                r->bit[j] = s->alu == OP_SHL ? (j >= sh ? a->bit[j - sh] : 0)
                                             : (j + sh < w          ? a->bit[j + sh]
                                                : prim_is_signed(p) ? a->bit[w - 1]
                                                                    : 0);
            extend(r, p);
            return;
        }
        break;
    default: break;
    }
    spread(r, all_bits(a) | all_bits(b));
}

static void convert_bits(Info *r, const IrStmt *s, const Info *a) {
    Prim from = s->args[0]->elem->prim, to = s->res[0]->elem->prim;
    bool ints = !prim_is_float(from) && from != PRIM_BOOL && !prim_is_float(to) && to != PRIM_BOOL;
    if (!ints) {
        spread(r, all_bits(a));
        return;
    }
    memcpy(r->bit, a->bit, sizeof r->bit); /* wrap to the new width, then extend */
    int w = prim_bits(to);
    for (int j = w; j < 64; j++) r->bit[j] = 0;
    extend(r, to);
}

/* The position-only facts of a scalar statement's result, or NULL. */
static int weight(const IrStmt *s);

static Info *analyse(Tab *t, const IrStmt *s, int at) {
    bool scalar_op = s->op == IR_CONST || s->op == IR_POS || ir_op_is_alu(s->op) ||
                     s->op == IR_SELECT || s->op == IR_CONVERT;
    if (!scalar_op || s->nres != 1) return NULL;
    const IrStmt *pos = s->op == IR_POS ? s : NULL;
    for (int a = 0; a < s->nargs; a++) {
        Info *ia = info_of(t, s->args[a]);
        if (!ia || !ia->posonly) return NULL;
        if (ia->pos && pos && ia->pos != pos) return NULL; /* two positions: leave it */
        if (ia->pos) pos = ia->pos;
    }
    Info *r = NEW(&t->scratch, Info);
    r->posonly = true;
    r->pos = pos;
    r->at = at;
    r->cost = weight(s);
    for (int k = 0; k < s->nargs; k++) {
        r->cost += info_of(t, s->args[k])->cost;
        if (r->cost > COST_CAP) r->cost = COST_CAP;
    }
    const Info *a = s->nargs > 0 ? info_of(t, s->args[0]) : NULL,
               *b = s->nargs > 1 ? info_of(t, s->args[1]) : NULL;
    switch (s->op) {
    case IR_POS:
        for (int k = 0; k < s->mat->n && k < 64; k++)
            r->bit[k] = s->mat->row[k] ? UINT64_C(1) << k : 0;
        break;
    case IR_CONST: break;
    case IR_BINARY: binary_bits(r, s, a, b); break;
    case IR_CONVERT: convert_bits(r, s, a); break;
    case IR_UNARY:
        if (s->alu == OP_NEG && !prim_is_float(s->args[0]->elem->prim)) {
            uint64_t lo = 0;
            for (int j = 0; j < 64; j++) r->bit[j] = lo |= a->bit[j];
        } else {
            spread(r, all_bits(a));
        }
        break;
    default: {
        uint64_t u = 0;
        for (int k = 0; k < s->nargs; k++) u |= all_bits(info_of(t, s->args[k]));
        spread(r, u);
    }
    }
    return r;
}

/* ---- what to tabulate ---- */

static int weight(const IrStmt *s) {
    if (ir_op_is_alu(s->op)) return op_info(s->alu)->cost;
    return s->op == IR_CONST || s->op == IR_POS ? 0 : 1;
}

/* The position-only values that read `v`'s statements, `v` first: its cone,
 * marked with the current stamp by a sweep back from v (no recursion: a
 * chain of operators may be as long as a body). Returns its size. */
static int mark_cone(Tab *t, const IrBody *b, const IrVal *v) {
    t->stamp++;
    t->seen[v->id] = t->stamp;
    int n = 0;
    for (int i = info_of(t, v)->at; i >= 0; i--) {
        const IrStmt *s = b->stmts[i];
        if (s->nres != 1 || !posonly(t, s->res[0]) || t->seen[s->res[0]->id] != t->stamp) continue;
        n++;
        for (int a = 0; a < s->nargs; a++) t->seen[s->args[a]->id] = t->stamp;
    }
    return n;
}

/* v, or where v is too large for a table its operands, become tables;
 * a worklist, each value visited once. */
static void choose(Tab *t, const IrBody *b, IrVal *v) {
    int cap = 3 * b->nstmts + 1, n = 0; /* each value pushes its operands once */
    IrVal **stack = NEW_ARRAY(&t->scratch, IrVal *, cap);
    stack[n++] = v;
    while (n > 0) {
        IrVal *x = stack[--n];
        Info *i = info_of(t, x);
        if (!i || !i->posonly || i->chosen || i->visited || !i->pos || i->cost < TABLE_MIN_COST)
            continue;
        i->visited = true;
        int k = __builtin_popcountll(all_bits(i));
        if (k <= TABLE_MAX_LOG && (1L << k) <= t->budget) {
            long work = (1L << k) * mark_cone(t, b, x);
            if (work <= t->work) {
                i->chosen = true;
                t->budget -= 1L << k;
                t->work -= work;
            }
            continue;
        }
        for (int a = 0; a < x->def->nargs && n < cap; a++) stack[n++] = x->def->args[a];
    }
}

/* Values of the body read by a statement of a nested body (or returned by
 * it) are read from outside position-only code. */
static void mark_read_outside(IrWalk *w, IrVal **v) {
    Tab *t = w->ctx;
    if (posonly(t, *v)) info_of(t, *v)->read_outside = true;
}

static void mark_nested_reads(Tab *t, const IrBody *b) {
    IrWalk w = {.read = mark_read_outside, .ctx = t};
    ir_walk(&w, b);
}

/* ---- building a table ---- */

static uint64_t deposit(uint64_t j, uint64_t mask) {
    uint64_t r = 0;
    for (int k = 0; mask; mask &= mask - 1, k++)
        if (j >> k & 1) r |= mask & -mask;
    return r;
}

static uint64_t extract(uint64_t x, uint64_t mask) {
    uint64_t r = 0;
    for (int k = 0; mask; mask &= mask - 1, k++)
        if (x & mask & -mask) r |= UINT64_C(1) << k;
    return r;
}

/* The value of v's statements at each position: the statements of the
 * cone in body order, as eval_scalar (ir_eval.c) computes them. */
static Scalar *tabulate(Tab *t, const IrBody *b, const IrVal *v, uint64_t support,
                        const IrStmt *pos) {
    int n = mark_cone(t, b, v);
    const IrStmt **cone = NEW_ARRAY(&t->scratch, const IrStmt *, n);
    for (int i = 0, c = 0; i <= info_of(t, v)->at; i++) {
        const IrStmt *s = b->stmts[i];
        if (s->nres != 1 || !posonly(t, s->res[0]) || t->seen[s->res[0]->id] != t->stamp) continue;
        t->slot[s->res[0]->id] = c;
        cone[c++] = s;
    }
    long len = 1L << __builtin_popcountll(support);
    Scalar *tab = NEW_ARRAY(t->p->arena, Scalar, len);
    Scalar *val = NEW_ARRAY(&t->scratch, Scalar, n);
    for (long j = 0; j < len; j++) {
        uint64_t at = deposit((uint64_t)j, support) | (pos->compl &~support);
        for (int c = 0; c < n; c++) {
            const IrStmt *s = cone[c];
            Prim in = s->nargs ? s->args[0]->elem->prim : s->res[0]->elem->prim;
            Scalar x = s->nargs > 0 ? val[t->slot[s->args[0]->id]] : (Scalar){0};
            Scalar y = s->nargs > 1 ? val[t->slot[s->args[1]->id]] : (Scalar){0};
            Scalar *o = &val[c];
            switch (s->op) {
            case IR_CONST: *o = s->cval; break;
            case IR_POS: o->u = at; break;
            case IR_UNARY: *o = scalar_unary(s->alu, in, x); break;
            case IR_BINARY: *o = scalar_binary(s->alu, in, x, y); break;
            case IR_TERNARY:
                *o = scalar_ternary(s->alu, in, x, y, val[t->slot[s->args[2]->id]]);
                break;
            case IR_SELECT: *o = x.u ? y : val[t->slot[s->args[2]->id]]; break;
            case IR_CONVERT: *o = scalar_convert(in, s->res[0]->elem->prim, x); break;
            default: diag_fatal("internal error: a table of %s", ir_op_name(s->op));
            }
        }
        tab[j] = val[n - 1];
    }
    return tab;
}

/* Tables with the same entries share them and their number. */
static int table_number(Tab *t, const Scalar **tab, Prim prim, int k) {
    for (int i = 0; i < t->nknown; i++)
        if (t->known[i].prim == prim && t->known[i].k == k) {
            bool same = true;
            for (long j = 0; j < 1L << k && same; j++)
                same = scalar_equal(prim, (*tab)[j], t->known[i].tab[j]);
            if (same) {
                t->budget += 1L << k; /* charged when chosen, free when shared */
                *tab = t->known[i].tab;
                return t->known[i].number;
            }
        }
    if (t->nknown == t->known_cap) {
        t->known_cap = t->known_cap ? 2 * t->known_cap : 16;
        t->known = realloc(t->known, sizeof *t->known * (size_t)t->known_cap);
        if (!t->known) diag_fatal("out of memory in the optimiser");
    }
    t->known[t->nknown].tab = *tab;
    t->known[t->nknown].prim = prim;
    t->known[t->nknown].k = k;
    t->known[t->nknown].number = t->ntables;
    t->nknown++;
    return t->ntables++;
}

/* The POS statement that reads the support's bits of pos, as an index. */
static IrStmt *index_pos(Tab *t, IrBody *tmp, const IrStmt *pos, uint64_t support) {
    IrStmt *s = ir_append(t->p, tmp, IR_POS, pos->loc, 0, NULL);
    s->mat = NEW(t->p->arena, F2Mat);
    s->own_mat = true;
    for (uint64_t m = support; m; m &= m - 1)
        s->mat->row[s->mat->n++] = pos->mat->row[__builtin_ctzll(m)];
    s->compl = extract(pos->compl, support);
    ir_add_result(t->p, s, -1, elem_prim(PRIM_I64));
    return s;
}

/* Whether the bool table tab of 2^k entries is true exactly at the indices
 * whose bits `mask` are `value` (a conjunction of index bits). */
static bool table_cube(const Scalar *tab, int k, uint64_t *mask, uint64_t *value) {
    uint64_t all = f2_mask(k), any = 0;
    long count = 0;
    for (long j = 0; j < 1L << k; j++)
        if (tab[j].u) {
            all &= (uint64_t)j;
            any |= (uint64_t)j;
            count++;
        }
    *mask = count ? ~(all ^ any) & f2_mask(k) : 0;
    *value = count ? all & *mask : 1; /* no true entry: (i & 0) == 1 */
    return !count || count == 1L << (k - __builtin_popcountll(*mask));
}

/* What replaces s, whose entries at the support's bits of pos are tab: a
 * constant, the mask test of a conjunction of bits, or a table read at
 * `index` (NULL: a new POS of the support's bits). */
static IrVal *replacement(Tab *t, IrBody *tmp, const IrStmt *s, const Scalar *tab,
                          const IrStmt *pos, uint64_t support, const IrVal *index) {
    Prim prim = s->res[0]->elem->prim;
    int k = __builtin_popcountll(support);
    uint64_t mask, value;
    if (!support) {
        IrStmt *c = ir_append(t->p, tmp, IR_CONST, s->loc, 0, NULL);
        c->cval = tab[0];
        return ir_add_result(t->p, c, -1, s->res[0]->elem);
    }
    if (!index) index = index_pos(t, tmp, pos, support)->res[0];
    if (prim == PRIM_BOOL && table_cube(tab, k, &mask, &value)) {
        t->budget += 1L << k; /* charged when chosen; no table is stored */
        return ir_append_mask_test(t->p, tmp, s->loc, (IrVal *)index, mask, value);
    }
    IrVal *arg = (IrVal *)index;
    IrStmt *ts = ir_append(t->p, tmp, IR_TABLE, s->loc, 1, &arg);
    ts->k = k;
    ts->index = table_number(t, &tab, prim, k);
    ts->tab = tab;
    return ir_add_result(t->p, ts, -1, s->res[0]->elem);
}

/* The chosen values of pos become tables, one index per support; the new
 * statements go into tmp, to be placed after pos. A bool value that is a
 * conjunction of position bits becomes that test instead: an and and a
 * compare in place of a load (a direction of a comparator network written
 * with `(i / 2^k) % 2 == 0`). */
static void build_tables(Tab *t, const IrBody *b, const IrStmt *pos, IrBody *tmp) {
    for (int i = 0; i < b->nstmts; i++) {
        const IrStmt *s = b->stmts[i];
        Info *in = s->nres == 1 ? info_of(t, s->res[0]) : NULL;
        if (!in || !in->chosen || in->repl || in->pos != pos) continue;
        uint64_t support = all_bits(in);
        /* every bit of pos: pos itself is the index */
        const IrVal *index = support == f2_mask(pos->mat->n) ? pos->res[0] : NULL;
        for (int j = 0; j < tmp->nstmts; j++)
            if (tmp->stmts[j]->op == IR_POS &&
                tmp->stmts[j]->mat->n == __builtin_popcountll(support) &&
                tmp->stmts[j]->compl == extract(pos->compl, support)) {
                bool same = true;
                for (uint64_t m = support, k = 0; m && same; m &= m - 1, k++)
                    same = tmp->stmts[j]->mat->row[k] == pos->mat->row[__builtin_ctzll(m)];
                if (same) index = tmp->stmts[j]->res[0];
            }
        const Scalar *tab = tabulate(t, b, s->res[0], support, pos);
        in->repl = replacement(t, tmp, s, tab, pos, support, index);
        t->repl[s->res[0]->id] = in->repl;
    }
}

/* ---- rewriting the body ---- */

static void replace_read(IrWalk *w, IrVal **v) {
    Tab *t = w->ctx;
    if ((*v)->id < t->cap && t->repl[(*v)->id]) *v = t->repl[(*v)->id];
}

static void substitute(Tab *t, IrBody *b) {
    IrWalk w = {.read = replace_read, .ctx = t};
    ir_walk(&w, b);
}

/* The position-only statements that nothing reads any more go. */
static void drop_dead(Tab *t, IrBody *b) {
    ir_count_uses(b, t->uses, t->cap, 1);
    bool *dead = NEW_ARRAY(&t->scratch, bool, b->nstmts);
    for (int i = b->nstmts - 1; i >= 0; i--) {
        IrStmt *s = b->stmts[i];
        if (s->nres != 1 || s->res[0]->id >= t->cap || !posonly(t, s->res[0]) ||
            t->uses[s->res[0]->id])
            continue;
        dead[i] = true;
        for (int a = 0; a < s->nargs; a++)
            if (s->args[a]->id < t->cap) t->uses[s->args[a]->id]--;
    }
    int n = 0;
    for (int i = 0; i < b->nstmts; i++)
        if (dead[i]) t->uses[b->stmts[i]->res[0]->id] = 0;
        else b->stmts[n++] = b->stmts[i];
    b->nstmts = n;
    ir_count_uses(b, t->uses, t->cap, -1);
}

static void insert_after(Tab *t, IrBody *b, const IrStmt *pos, const IrBody *tmp) {
    for (int i = 0; i < tmp->nstmts; i++) ir_body_push(t->p, b, tmp->stmts[i]);
    int at = 0;
    while (b->stmts[at] != pos) at++;
    int moved = tmp->nstmts, tail = b->nstmts - moved;
    IrStmt **added = NEW_ARRAY(&t->scratch, IrStmt *, moved > 0 ? moved : 1);
    memcpy(added, b->stmts + tail, sizeof(IrStmt *) * (size_t)moved);
    memmove(b->stmts + at + 1 + moved, b->stmts + at + 1,
            sizeof(IrStmt *) * (size_t)(tail - at - 1));
    memcpy(b->stmts + at + 1, added, sizeof(IrStmt *) * (size_t)moved);
}

static void tabulate_body(Tab *t, IrBody *b) {
    bool has_pos = false;
    for (int i = 0; i < b->nstmts; i++) has_pos |= b->stmts[i]->op == IR_POS;
    if (has_pos) {
        for (int i = 0; i < b->nstmts; i++) {
            const IrStmt *s = b->stmts[i];
            Info *r = s->nres == 1 && s->res[0]->id < t->cap ? analyse(t, s, i) : NULL;
            if (r) t->info[s->res[0]->id] = r;
            else
                for (int a = 0; a < s->nargs; a++)
                    if (posonly(t, s->args[a])) info_of(t, s->args[a])->read_outside = true;
            if (s->body) mark_nested_reads(t, s->body);
        }
        for (int r = 0; r < b->nresults; r++)
            if (posonly(t, b->results[r])) info_of(t, b->results[r])->read_outside = true;
        for (int i = 0; i < b->nstmts; i++) {
            const IrStmt *s = b->stmts[i];
            if (s->nres == 1 && posonly(t, s->res[0]) && info_of(t, s->res[0])->read_outside)
                choose(t, b, s->res[0]);
        }
        /* every table is computed before the body changes (Info.at) */
        int n = b->nstmts;
        IrBody **made = NEW_ARRAY(&t->scratch, IrBody *, n);
        for (int i = 0; i < n; i++)
            if (b->stmts[i]->op == IR_POS)
                build_tables(t, b, b->stmts[i], made[i] = ir_new_body(t->p));
        for (int i = n - 1; i >= 0; i--)
            if (made[i] && made[i]->nstmts) insert_after(t, b, b->stmts[i], made[i]);
        substitute(t, b);
        drop_dead(t, b);
        for (int i = 0; i < b->nstmts; i++)
            if (b->stmts[i]->nres == 1 && b->stmts[i]->res[0]->id < t->cap)
                t->info[b->stmts[i]->res[0]->id] = NULL;
        arena_free(&t->scratch);
    }
    for (int i = 0; i < b->nstmts; i++)
        if (b->stmts[i]->body) tabulate_body(t, b->stmts[i]->body);
}

void opt_tabulate(IrProgram *p) {
    Tab t = {.p = p, .cap = p->next_id, .budget = TABLE_BUDGET, .work = TABLE_WORK};
    t.info = calloc((size_t)t.cap + 1, sizeof *t.info);
    t.repl = calloc((size_t)t.cap + 1, sizeof *t.repl);
    t.uses = calloc((size_t)t.cap + 1, sizeof *t.uses);
    t.seen = calloc((size_t)t.cap + 1, sizeof *t.seen);
    t.slot = calloc((size_t)t.cap + 1, sizeof *t.slot);
    if (!t.info || !t.repl || !t.uses || !t.seen || !t.slot)
        diag_fatal("out of memory in the optimiser");
    for (int i = 0; i < p->nfuncs; i++) tabulate_body(&t, p->funcs[i]->body);
    free(t.info);
    free(t.repl);
    free(t.uses);
    free(t.seen);
    free(t.slot);
    free(t.known);
}
