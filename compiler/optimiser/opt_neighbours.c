/* opt_neighbours.c: a column of neighbours between two shifts, as the
 * masked columns that compare the same pairs in place.
 *
 * Textbook networks compare the neighbours (1, 2), (3, 4), ... of an array
 * of 2^n by shifting it one place, comparing the pairs (0, 1), (2, 3), ...
 * and shifting it back (Batcher's odd-even merge, odd-even transposition):
 *
 *   shift 1 (zs ! 0) (col 1 f (shift (-1) (zs ! (2^n - 1)) zs))
 *
 * (or the shifts the other way round, the fills zs ! (2^n - 1) and zs ! 0).
 * Element y and y + 1 meet for every odd y < 2^n - 1; the ends keep their
 * element when f gives back [x, x] for [x, x] at that end (its first
 * element for the last index, its second for index 0), since the end is
 * then f of its own element and the fill, which is that element. An odd y
 * that ends in exactly c ones has y + 1 = y ⊕ (2^(c+1) - 1), so the
 * neighbours are the n - 1 columns
 *
 *   coli (2^(c+1) - 1) (\i p -> if i & (2^c - 1) == 2^c - 1 then f p else p)
 *
 * for c = 1 .. n - 1, which compare disjoint pairs, each only where its
 * lower index ends in c ones: what oem_coli-style programs write by hand.
 * The shifts would each be a pass over the whole array (an entry graph's
 * gather) and split the chain three ways; the columns are LOCAL steps that
 * fuse with the network around them (docs/ir.md, "neighbour-columns").
 *
 * It runs in the normalise pass, before col becomes bmmc and two, on f
 * bodies of scalar code alone (no position, no nested body), which it
 * copies into each column. */
#include "opt_neighbours.h"

static int reads_in(const IrBody *b, const IrVal *v) {
    int n = 0;
    for (int i = 0; i < b->nstmts; i++) {
        const IrStmt *s = b->stmts[i];
        for (int a = 0; a < s->nargs; a++) n += s->args[a] == v;
        if (s->body) n += reads_in(s->body, v);
    }
    for (int i = 0; i < b->nresults; i++) n += b->results[i] == v;
    return n;
}

static bool scalar_stmt(const IrStmt *s) {
    return s->op == IR_CONST || ir_op_is_alu(s->op) || s->op == IR_SELECT || s->op == IR_CONVERT ||
           s->op == IR_INDEX || s->op == IR_BUILD;
}

static bool scalar_body(const IrBody *b) {
    for (int i = 0; i < b->nstmts; i++)
        if (!scalar_stmt(b->stmts[i])) return false;
    return b->nparams == 1 && b->nresults == 1;
}

/* Whether every slot of element `at` of shift s's fill is slot k of element
 * `at` of zs (an index statement of zs). */
static bool fill_is_element(const IrStmt *s, const IrVal *zs, int64_t at) {
    int nslots = zs->elem->nslots;
    for (int k = 0; k < nslots; k++) {
        const IrStmt *d = s->args[k]->def;
        if (!d || d->op != IR_INDEX || d->args[0] != zs || d->at != at || d->slot != k)
            return false;
    }
    return true;
}

/* The ids of f's own values lie in r.lo .. r.lo + r.count - 1
 * (ir_body_id_range): the maps below are indexed by id - lo, as small as f,
 * not as the program. */
typedef struct {
    int lo, count;
} IdRange;

static IdRange id_range(const IrBody *f) {
    IdRange r;
    ir_body_id_range(f, &r.lo, &r.count);
    return r;
}

static bool in_range(IdRange r, const IrVal *v) { return v->id >= r.lo && v->id - r.lo < r.count; }

/* Whether f gives back element x at `which` (0 or 1) of its result when
 * both its elements are x: a scalar evaluation in which every slot k read
 * from the pair is "slot k of x", and a select of two equal arms is its
 * arms whatever its condition. */
static bool keeps_equal_pair(const IrBody *f, int which) {
    IdRange r = id_range(f);
    Arena scratch = {0};
    int *slot = NEW_ARRAY(&scratch, int, r.count); /* by id - lo: the slot of x it is, or -1 */
    for (int i = 0; i < r.count; i++) slot[i] = -1;
#define SLOT_OF(v) (in_range(r, v) ? slot[(v)->id - r.lo] : -1)
    const IrVal *pair = f->params[0];
    int nslots = pair->elem->nslots;
    for (int i = 0; i < f->nstmts; i++) {
        const IrStmt *s = f->stmts[i];
        if (s->nres != 1) continue;
        int *out = &slot[s->res[0]->id - r.lo];
        if (s->op == IR_INDEX && s->args[0] == pair) *out = s->slot;
        else if (s->op == IR_SELECT && SLOT_OF(s->args[1]) >= 0 &&
                 SLOT_OF(s->args[1]) == SLOT_OF(s->args[2]))
            *out = SLOT_OF(s->args[1]);
    }
    const IrStmt *build = f->results[0]->def;
    bool keeps = build && build->op == IR_BUILD && build->nargs == 2 * nslots;
    for (int k = 0; keeps && k < nslots; k++) keeps = SLOT_OF(build->args[which * nslots + k]) == k;
#undef SLOT_OF
    arena_free(&scratch);
    return keeps;
}

/* f copied into a new body of the same pair type whose result is f's
 * where the pair's lower index ends in exactly c ones (its bit c is clear,
 * being the lower index of mask 2^(c+1) - 1), else the pair itself. */
static IrBody *guarded_copy(IrProgram *p, const IrBody *f, int c, int n, Loc loc) {
    IrBody *g = ir_new_body(p);
    const IrVal *old_pair = f->params[0];
    IrVal *pair = ir_body_add_param(p, g, old_pair->log_len, old_pair->elem);
    IdRange r = id_range(f);
    Arena scratch = {0};
    IrVal **map = NEW_ARRAY(&scratch, IrVal *, r.count); /* by id - lo: the copy of f's value */
    for (int i = 0; i < r.count; i++) map[i] = NULL;
#define COPY_OF(v) (in_range(r, v) && map[(v)->id - r.lo] ? map[(v)->id - r.lo] : (v))
    map[old_pair->id - r.lo] = pair;
    for (int i = 0; i < f->nstmts; i++) {
        const IrStmt *s = f->stmts[i];
        IrVal **args = NEW_ARRAY(p->arena, IrVal *, s->nargs ? s->nargs : 1);
        for (int a = 0; a < s->nargs; a++) args[a] = COPY_OF(s->args[a]);
        IrStmt *t = ir_append(p, g, s->op, s->loc, s->nargs, args);
        ir_copy_scalar_attrs(t, s);
        for (int k = 0; k < s->nres; k++)
            map[s->res[k]->id - r.lo] = ir_add_result(p, t, s->res[k]->log_len, s->res[k]->elem);
    }
    IrStmt *pos = ir_append(p, g, IR_POS, loc, 0, NULL);
    pos->mat = NEW(p->arena, F2Mat);
    pos->mat->n = n;
    for (int k = 0; k < n; k++) pos->mat->row[k] = UINT64_C(1) << k;
    IrVal *i = ir_add_result(p, pos, -1, elem_prim(PRIM_I64));
    IrStmt *ones = ir_append(p, g, IR_CONST, loc, 0, NULL);
    ones->cval.i = (INT64_C(1) << c) - 1;
    IrVal *m = ir_add_result(p, ones, -1, elem_prim(PRIM_I64));
    IrVal *and_args[2] = {i, m};
    IrStmt *low = ir_append(p, g, IR_BINARY, loc, 2, and_args);
    low->alu = OP_BAND;
    IrVal *bits = ir_add_result(p, low, -1, elem_prim(PRIM_I64));
    IrVal *eq_args[2] = {bits, m};
    IrStmt *eq = ir_append(p, g, IR_BINARY, loc, 2, eq_args);
    eq->alu = OP_EQ;
    IrVal *cond = ir_add_result(p, eq, -1, elem_prim(PRIM_BOOL));
    const IrStmt *result = f->results[0]->def;
    int nslots = pair->elem->nslots;
    IrVal **slots = NEW_ARRAY(p->arena, IrVal *, 2 * nslots);
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < nslots; k++) {
            IrStmt *keep = ir_append(p, g, IR_INDEX, loc, 1, &pair);
            keep->at = e;
            keep->slot = k;
            Prim prim = elem_slot_prim(pair->elem, k);
            IrVal *kept = ir_add_result(p, keep, -1, elem_prim(prim));
            IrVal *sel_args[3] = {cond, COPY_OF(result->args[e * nslots + k]), kept};
            IrStmt *sel = ir_append(p, g, IR_SELECT, loc, 3, sel_args);
            slots[e * nslots + k] = ir_add_result(p, sel, -1, elem_prim(prim));
        }
    IrStmt *build = ir_append(p, g, IR_BUILD, loc, 2 * nslots, slots);
    ir_body_add_result(p, g, ir_add_result(p, build, 1, pair->elem));
#undef COPY_OF
    arena_free(&scratch);
    return g;
}

/* A match: the inner shift, the column and the outer shift, whose place
 * in the body the columns take. */
typedef struct {
    IrStmt *inner, *col, *outer;
} Neighbours;

static bool match(IrBody *b, IrStmt *outer, Neighbours *m) {
    if (outer->op != IR_SHIFT || (outer->dist != 1 && outer->dist != -1)) return false;
    IrVal *mid = outer->args[outer->nargs - 1];
    IrStmt *col = mid->def;
    if (!col || col->op != IR_COL || col->mask != 1 || !scalar_body(col->body)) return false;
    IrStmt *inner = col->args[0]->def;
    if (!inner || inner->op != IR_SHIFT || inner->dist != -outer->dist) return false;
    IrVal *zs = inner->args[inner->nargs - 1];
    int n = zs->log_len;
    int64_t last = (INT64_C(1) << n) - 1;
    if (n < 2 || inner->k != n || outer->k != n) return false;
    if (reads_in(b, col->args[0]) != 1 || reads_in(b, mid) != 1) return false;
    /* outer dist 1: index 0 filled, the last index f's first element; -1:
       the other way round */
    bool up = outer->dist == 1;
    if (!fill_is_element(outer, zs, up ? 0 : last) || !fill_is_element(inner, zs, up ? last : 0))
        return false;
    if (!keeps_equal_pair(col->body, up ? 0 : 1)) return false;
    *m = (Neighbours){inner, col, outer};
    return true;
}

/* The columns that replace match m, appended to `out`: the last one's result
 * is the outer shift's value, so its uses need no rewriting. */
static void emit_columns(IrProgram *p, IrBody *out, const Neighbours *m) {
    IrVal *x = m->inner->args[m->inner->nargs - 1];
    int n = x->log_len;
    for (int c = 1; c < n; c++) {
        IrStmt *col = ir_append(p, out, IR_COL, m->col->loc, 1, &x);
        col->mask = (UINT64_C(1) << (c + 1)) - 1;
        col->body = guarded_copy(p, m->col->body, c, n, m->col->loc);
        if (c + 1 < n) {
            x = ir_add_result(p, col, n, x->elem);
        } else {
            IrVal *y = m->outer->res[0];
            col->res = NEW_ARRAY(p->arena, IrVal *, 1);
            col->res[0] = y;
            col->nres = 1;
            y->def = col;
        }
    }
}

void opt_neighbour_columns(IrProgram *p, IrBody *b) {
    IrStmt **old = b->stmts;
    int count = b->nstmts;
    Neighbours *found = NULL; /* by statement: the match whose outer shift it is */
    bool *drop = NULL;        /* by statement: an inner shift or column of a match */
    for (int i = 0; i < count; i++) {
        Neighbours m;
        if (!match(b, old[i], &m)) continue;
        if (!found) {
            found = NEW_ARRAY(p->arena, Neighbours, count);
            drop = NEW_ARRAY(p->arena, bool, count);
        }
        found[i] = m;
        for (int j = 0; j < count; j++)
            if (old[j] == m.inner || old[j] == m.col) drop[j] = true;
    }
    if (!found) return;
    b->stmts = NULL;
    b->nstmts = b->cap = 0;
    for (int i = 0; i < count; i++) {
        if (found[i].outer) emit_columns(p, b, &found[i]);
        else if (!drop[i]) ir_body_push(p, b, old[i]);
    }
}
