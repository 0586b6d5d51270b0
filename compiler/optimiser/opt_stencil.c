/* opt_stencil.c: a map over an array zipped with its shifts by d and -d
 * that compares pairs (i, i + d), as the masked columns that compare the
 * same pairs in place.
 *
 * Textbook networks compare elements at a distance d with a stencil: each
 * position reads its own element and the ones d above and below it (two
 * shifts, zipped), and its position decides which of them it combines
 * with. Parberry's pairwise network, for one:
 *
 *   mapi (\i ((x, u), w) -> if i % 2 == 1 && i + d < 2^n then min x u
 *                           else if (i - d) % 2 == 1 && i >= d then max w x
 *                           else x)
 *        (zip (zip xs (shift (-d) f xs)) (shift d f xs))
 *
 * Each shift would be a pass over the whole array (an entry graph's
 * gather) that splits the chain. When, at every position, the result reads
 * the elements above (the lower positions L) or the ones below (the upper
 * positions U) but not both, is the element itself everywhere else, and
 * i is in L exactly when i + d is in U (with i + d inside the shift's
 * block), the map compares the disjoint pairs (i, i + d), i in L. Where
 * i + d = i xor m, they are pairs of `coli m`, so the map becomes one
 * column for each such m, guarded to its i in L, whose pair (a, b) gets
 * the map's body at i (its own element a, the one above b) and at i + d
 * (its own b, the one below a). The columns are LOCAL steps that fuse with
 * the network around them (docs/ir.md, "stencil-columns").
 *
 * These facts hold for 2^n positions; they are decided with diagrams over
 * the n bits of i (bdd.h) in which the body's position code is evaluated
 * bit by bit, so the rule costs the same at any n. Position code the
 * diagrams do not take (a division by 3, a float) makes a condition that
 * reads it count as data: the rule then does not fire. It runs in the
 * normalise pass, with neighbour-columns, before col becomes bmmc and two. */
#include "opt_stencil.h"

#include <stdlib.h>

#include "opt_posword.h"

#define STENCIL_MAX_MASKS 64 /* columns of one stencil, at most */

enum { SAME, ABOVE, BELOW, NGROUPS }; /* xs at i, at i + d, at i - d */

/* The map's arrays: each a leaf of its zip, xs itself or xs shifted. */
typedef struct {
    IrStmt *map;
    IrVal *xs;
    int n;
    int64_t d;
    int block[NGROUPS]; /* the shifts' blocks (log), n where a group has none */
    int *group, *slot;  /* by parameter of the map's body: which element, which slot of it */
    int nparams;
    int lo, count; /* the ids of the body's own values are lo .. lo + count - 1 */
} Stencil;

static bool scalar_stmt(const IrStmt *s) {
    return s->op == IR_CONST || ir_op_is_alu(s->op) || s->op == IR_SELECT || s->op == IR_CONVERT ||
           s->op == IR_INDEX || s->op == IR_POS;
}

/* The leaves of the zip tree v, appended to st's parameters: false when one
 * is not xs or a shift of it by d or -d, one d for all. */
static bool collect_leaves(Stencil *st, const IrVal *v, int cap) {
    const IrStmt *def = v->def;
    if (def && def->op == IR_ZIP) {
        for (int i = 0; i < def->nargs; i++)
            if (!collect_leaves(st, def->args[i], cap)) return false;
        return true;
    }
    int group = SAME;
    const IrVal *base = v;
    if (def && def->op == IR_SHIFT) {
        base = def->args[def->nargs - 1];
        int64_t dist = def->dist;
        if (dist == 0 || dist == INT64_MIN) return false;
        if (st->d == 0) st->d = dist < 0 ? -dist : dist;
        if (dist != st->d && dist != -st->d) return false;
        group = dist < 0 ? ABOVE : BELOW; /* shift -d reads xs[i + d] */
        if (st->block[group] >= 0 && st->block[group] != def->k) return false;
        st->block[group] = def->k;
    }
    if (!st->xs) st->xs = (IrVal *)base;
    if (base != st->xs) return false;
    for (int k = 0; k < base->elem->nslots; k++) {
        if (st->nparams == cap) return false;
        st->group[st->nparams] = group;
        st->slot[st->nparams++] = k;
    }
    return true;
}

static bool match(Arena *a, IrStmt *s, Stencil *st) {
    if (s->op != IR_MAP || s->nres != 1) return false;
    IrBody *f = s->body;
    for (int i = 0; i < f->nstmts; i++)
        if (!scalar_stmt(f->stmts[i])) return false;
    *st = (Stencil){.map = s, .block = {-1, -1, -1}};
    st->group = NEW_ARRAY(a, int, f->nparams ? f->nparams : 1);
    st->slot = NEW_ARRAY(a, int, f->nparams ? f->nparams : 1);
    if (!collect_leaves(st, s->args[0], f->nparams) || st->nparams != f->nparams || !st->d)
        return false;
    st->n = st->xs->log_len;
    ir_body_id_range(f, &st->lo, &st->count);
    if (st->n < 1 || st->n > 62 || st->d >= (INT64_C(1) << st->n)) return false;
    for (int g = 0; g < NGROUPS; g++) {
        if (st->block[g] < 0) st->block[g] = st->n;
        if (st->block[g] > st->n) return false;
    }
    return elem_equal(s->res[0]->elem, st->xs->elem) && f->nresults == st->xs->elem->nslots;
}

/* ---- what the body reads, position by position ---- */

/* A value of the body: position code (`word`, its bits as diagrams over
 * the position's), or data, which may read each group's element where
 * dep[g] holds and equals slot `same` of xs's element (a parameter of
 * group SAME) where `where` holds. */
typedef struct {
    bool known, is_word;
    BddInt word;
    Bdd dep[NGROUPS];
    int same;
    Bdd where;
} Fact;

typedef struct {
    BddSet *bdd;
    const Stencil *st;
    const Bdd *position; /* the n bits of the position the body sees */
    Fact *facts;         /* by id - lo */
    int lo, count;
} Reading;

static const Fact outside = {.known = true, .same = -1};

static const Fact *fact_of(const Reading *r, const IrVal *v) {
    int i = v->id - r->lo;
    return i >= 0 && i < r->count && r->facts[i].known ? &r->facts[i] : &outside;
}

/* Data computed from its arguments: it may read what any of them reads. */
static void data_of_args(const Reading *r, const IrStmt *s, Fact *out) {
    out->same = -1;
    for (int g = 0; g < NGROUPS; g++) out->dep[g] = BDD_FALSE;
    for (int i = 0; i < s->nargs; i++) {
        const Fact *a = fact_of(r, s->args[i]);
        if (a->is_word) continue;
        for (int g = 0; g < NGROUPS; g++) out->dep[g] = bdd_or(r->bdd, out->dep[g], a->dep[g]);
    }
}

/* A select reads its condition and both arms; on a condition of the
 * position alone, the arm that position takes. It is slot k of xs's
 * element where the arm it takes is (a select of two equal arms is that
 * arm, whatever its condition). */
static void data_select(const Reading *r, const IrStmt *s, Fact *out) {
    BddSet *b = r->bdd;
    const Fact *c = fact_of(r, s->args[0]), *x = fact_of(r, s->args[1]),
               *y = fact_of(r, s->args[2]);
    if (!c->is_word) {
        data_of_args(r, s, out);
        if (x->same >= 0 && x->same == y->same) {
            out->same = x->same;
            out->where = bdd_and(b, x->where, y->where);
        }
        return;
    }
    Bdd cond = c->word.bit[0];
    out->same = -1;
    for (int g = 0; g < NGROUPS; g++)
        out->dep[g] = bdd_ite(b, cond, x->is_word ? BDD_FALSE : x->dep[g],
                              y->is_word ? BDD_FALSE : y->dep[g]);
    int same = x->same >= 0 ? x->same : y->same;
    if (same < 0) return;
    out->same = same;
    out->where = bdd_ite(b, cond, x->same == same ? x->where : BDD_FALSE,
                         y->same == same ? y->where : BDD_FALSE);
}

static void read_stmt(const Reading *r, const IrStmt *s) {
    Fact *out = &r->facts[s->res[0]->id - r->lo];
    *out = (Fact){.known = true, .same = -1};
    const BddInt *args[3] = {NULL, NULL, NULL}; /* scalar statements have at most three */
    for (int a = 0; a < s->nargs && a < 3; a++) {
        const Fact *f = fact_of(r, s->args[a]);
        args[a] = f->is_word ? &f->word : NULL;
    }
    if (s->nargs <= 3 && posword(r->bdd, s, args, r->position, r->st->n, &out->word))
        out->is_word = true;
    else if (s->op == IR_SELECT) data_select(r, s, out);
    else data_of_args(r, s, out);
}

/* What the body's results read at the position `position`: where they may
 * read each group (dep), and where every result slot k is slot k of xs's
 * element (identity). */
typedef struct {
    Bdd dep[NGROUPS], identity;
} Reads;

static Reads body_reads(BddSet *b, const Stencil *st, const Bdd *position, Fact *facts) {
    int lo = st->lo, count = st->count;
    Reading r = {b, st, position, facts, lo, count};
    for (int i = 0; i < count; i++) facts[i].known = false;
    const IrBody *f = st->map->body;
    for (int k = 0; k < f->nparams; k++) {
        Fact *p = &facts[f->params[k]->id - lo];
        *p = (Fact){.known = true, .same = st->group[k] == SAME ? st->slot[k] : -1};
        p->dep[st->group[k]] = BDD_TRUE;
        p->where = BDD_TRUE;
    }
    for (int i = 0; i < f->nstmts; i++)
        if (f->stmts[i]->nres == 1) read_stmt(&r, f->stmts[i]);
    Reads out = {{BDD_FALSE, BDD_FALSE, BDD_FALSE}, BDD_TRUE};
    for (int k = 0; k < f->nresults; k++) {
        const Fact *x = fact_of(&r, f->results[k]);
        if (x->is_word) {
            out.identity = BDD_FALSE;
            continue;
        }
        for (int g = 0; g < NGROUPS; g++) out.dep[g] = bdd_or(b, out.dep[g], x->dep[g]);
        out.identity = bdd_and(b, out.identity, x->same == k ? x->where : BDD_FALSE);
    }
    return out;
}

/* ---- the pairs ---- */

typedef struct {
    uint64_t mask;
    Bdd lower; /* the lower indices of the pairs of this column */
} Column;

typedef struct {
    BddSet *bdd;
    Bdd var[64];     /* the position's bits */
    BddInt index;    /* the position as a word */
    Column *columns; /* STENCIL_MAX_MASKS of them */
    int ncolumns;
    bool too_many;
} Pairs;

/* The low n bits of word w. */
static void low_bits(const BddInt *w, int n, Bdd *bits) {
    for (int j = 0; j < n; j++) bits[j] = w->bit[j];
}

/* Where i mod 2^k + d stays below 2^k (up), or i mod 2^k - d at or above 0. */
static Bdd inside_block(Pairs *q, const Stencil *st, int k, bool up) {
    BddInt low = q->index;
    for (int j = k; j < 64; j++) low.bit[j] = BDD_FALSE;
    BddInt d = bdd_int_const(st->d), size = bdd_int_const(INT64_C(1) << k);
    if (!up) return bdd_not(q->bdd, bdd_int_ult(q->bdd, &low, &d));
    BddInt moved = bdd_int_add(q->bdd, &low, &d);
    return bdd_int_ult(q->bdd, &moved, &size);
}

/* The columns' masks: the values of i xor (i + d) over the set `lower`,
 * split bit by bit. */
static void split_masks(Pairs *q, const BddInt *moved_xor, int n, Bdd set, int bit, uint64_t m) {
    if (set == BDD_FALSE || q->too_many) return;
    if (bit == n) {
        if (q->ncolumns == STENCIL_MAX_MASKS) {
            q->too_many = true;
            return;
        }
        q->columns[q->ncolumns++] = (Column){m, set};
        return;
    }
    Bdd b = moved_xor->bit[bit];
    split_masks(q, moved_xor, n, bdd_and(q->bdd, set, bdd_not(q->bdd, b)), bit + 1, m);
    split_masks(q, moved_xor, n, bdd_and(q->bdd, set, b), bit + 1, m | UINT64_C(1) << bit);
}

/* Whether the map compares disjoint pairs (i, i + d) and leaves every other
 * element as it is; if so, q's columns are the pairs by mask. */
static bool find_pairs(Arena *a, const Stencil *st, Pairs *q) {
    Fact *facts = NEW_ARRAY(a, Fact, st->count);
    BddSet *b = q->bdd;
    int n = st->n;
    for (int j = 0; j < n; j++) q->var[j] = bdd_var(b, j);
    q->index = bdd_int_const(0);
    for (int j = 0; j < n; j++) q->index.bit[j] = q->var[j];
    Reads here = body_reads(b, st, q->var, facts);
    Bdd lower = here.dep[ABOVE], upper = here.dep[BELOW];
    Bdd alone = bdd_and(b, bdd_not(b, lower), bdd_not(b, upper));
    if (lower == BDD_FALSE || bdd_and(b, lower, upper) != BDD_FALSE ||
        bdd_and(b, alone, bdd_not(b, here.identity)) != BDD_FALSE)
        return false;
    BddInt d = bdd_int_const(st->d);
    BddInt up = bdd_int_add(b, &q->index, &d), down = bdd_int_sub(b, &q->index, &d);
    Bdd at[64];
    low_bits(&up, n, at);
    Reads above = body_reads(b, st, at, facts);
    low_bits(&down, n, at);
    Reads below = body_reads(b, st, at, facts);
    /* i in L: i + d in U, in the shift's block; i in U: i - d in L */
    Bdd partner_up = bdd_and(b, inside_block(q, st, st->block[ABOVE], true), above.dep[BELOW]);
    Bdd partner_down = bdd_and(b, inside_block(q, st, st->block[BELOW], false), below.dep[ABOVE]);
    if (bdd_and(b, lower, bdd_not(b, partner_up)) != BDD_FALSE ||
        bdd_and(b, upper, bdd_not(b, partner_down)) != BDD_FALSE)
        return false;
    BddInt moved_xor;
    for (int j = 0; j < 64; j++) moved_xor.bit[j] = bdd_xor(b, q->index.bit[j], up.bit[j]);
    q->columns = NEW_ARRAY(a, Column, STENCIL_MAX_MASKS);
    split_masks(q, &moved_xor, n, lower, 0, 0);
    return !q->too_many && !bdd_overflowed(b);
}

/* ---- the columns ---- */

static IrVal *append_scalar(IrProgram *p, IrBody *g, IrOp op, Loc loc, int nargs, IrVal **args,
                            Prim prim) {
    IrStmt *s = ir_append(p, g, op, loc, nargs, args);
    return ir_add_result(p, s, -1, elem_prim(prim));
}

static IrVal *const_of(IrProgram *p, IrBody *g, Loc loc, Prim prim, int64_t v) {
    IrStmt *s = ir_append(p, g, IR_CONST, loc, 0, NULL);
    s->cval = scalar_from_int(prim, v);
    return ir_add_result(p, s, -1, elem_prim(prim));
}

static IrVal *binary(IrProgram *p, IrBody *g, Loc loc, Op op, IrVal *x, IrVal *y, Prim prim) {
    IrVal *args[2] = {x, y};
    IrStmt *s = ir_append(p, g, IR_BINARY, loc, 2, args);
    s->alu = op;
    return ir_add_result(p, s, -1, elem_prim(prim));
}

/* The position of the pair's lower index, bits `rows` of it. */
static IrVal *position(IrProgram *p, IrBody *g, Loc loc, int nrows, const uint64_t *rows) {
    IrStmt *s = ir_append(p, g, IR_POS, loc, 0, NULL);
    s->mat = NEW(p->arena, F2Mat);
    *s->mat = f2_zero(nrows);
    for (int k = 0; k < nrows; k++) s->mat->row[k] = rows[k];
    s->own_mat = true;
    return ir_add_result(p, s, -1, elem_prim(PRIM_I64));
}

/* The code of each diagram node emitted so far. */
typedef struct {
    Bdd *node;
    IrVal **val;
    int count, cap;
} Emitted;

static void remember(Emitted *e, Bdd node, IrVal *val) {
    if (e->count == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 16;
        e->node = realloc(e->node, (size_t)e->cap * sizeof *e->node);
        e->val = realloc(e->val, (size_t)e->cap * sizeof *e->val);
        if (!e->node || !e->val) diag_fatal("out of memory in the optimiser");
    }
    e->node[e->count] = node;
    e->val[e->count++] = val;
}

/* Whether the lower index's bits `mask` are `value`, as element code. */
static IrVal *cube_code(IrProgram *p, IrBody *g, Loc loc, uint64_t mask, uint64_t value, int n) {
    uint64_t identity[64];
    for (int j = 0; j < n; j++) identity[j] = UINT64_C(1) << j;
    return ir_append_mask_test(p, g, loc, position(p, g, loc, n, identity), mask, value);
}

/* Diagram f of the lower index's bits as element code: a mask test for a
 * conjunction of bits, else a select for each node. */
static IrVal *guard_code(IrProgram *p, IrBody *g, Loc loc, BddSet *b, Bdd f, int n, Emitted *memo) {
    if (f == BDD_TRUE || f == BDD_FALSE) {
        IrStmt *s = ir_append(p, g, IR_CONST, loc, 0, NULL);
        s->cval.u = f == BDD_TRUE;
        return ir_add_result(p, s, -1, elem_prim(PRIM_BOOL));
    }
    for (int i = 0; i < memo->count; i++)
        if (memo->node[i] == f) return memo->val[i];
    uint64_t mask, value;
    IrVal *code;
    if (bdd_cube(b, f, &mask, &value)) {
        code = cube_code(p, g, loc, mask, value, n);
    } else {
        int v = bdd_top(b, f);
        IrVal *high = guard_code(p, g, loc, b, bdd_high(b, f), n, memo);
        IrVal *low = guard_code(p, g, loc, b, bdd_low(b, f), n, memo);
        uint64_t row = UINT64_C(1) << v;
        IrVal *bit = position(p, g, loc, 1, &row);
        IrVal *set = binary(p, g, loc, OP_NE, bit, const_of(p, g, loc, PRIM_I64, 0), PRIM_BOOL);
        IrVal *args[3] = {set, high, low};
        code = append_scalar(p, g, IR_SELECT, loc, 3, args, PRIM_BOOL);
    }
    remember(memo, f, code);
    return code;
}

/* A condition of the position as a column needs it where `care` holds: 1
 * or 0 where it is decided there (a select on it is its arm), else -1 and,
 * where a conjunction of position bits agrees with it there, *code testing
 * them (else NULL: the body's own code stays). */
static int condition_on(IrProgram *p, IrBody *g, Loc loc, BddSet *b, Bdd cond, Bdd care, int n,
                        IrVal **code) {
    *code = NULL;
    Bdd taken = bdd_and(b, care, cond);
    Bdd small = bdd_restrict(b, cond, care);
    if (bdd_overflowed(b)) return -1;
    if (taken == care || taken == BDD_FALSE) return taken == care;
    uint64_t mask, value;
    if (bdd_cube(b, small, &mask, &value)) *code = cube_code(p, g, loc, mask, value, n);
    return -1;
}

/* The map's body copied into g for one element of the pair: a parameter of
 * group G reads its slot of the pair's element bind[G] (0 the lower, 1 the
 * upper) in `slots`, and a position is that of the lower index xor
 * `moved`. The copy's results count only where `care` holds (the column's
 * guard), so a select whose condition of the position has one value there
 * is its arm. Returns the copy's results. */
static IrVal **copy_at(IrProgram *p, IrBody *g, const Stencil *st, IrVal **slots,
                       const int bind[NGROUPS], uint64_t moved, BddSet *b, Bdd care,
                       Arena *scratch) {
    const IrBody *f = st->map->body;
    int lo = st->lo, count = st->count, ns = st->xs->elem->nslots;
    Bdd position[64];
    for (int j = 0; j < st->n; j++) {
        position[j] = bdd_var(b, j);
        if (moved >> j & 1) position[j] = bdd_not(b, position[j]);
    }
    Fact *facts = NEW_ARRAY(scratch, Fact, count);
    body_reads(b, st, position, facts);
    IrVal **copy = NEW_ARRAY(scratch, IrVal *, count);
    for (int i = 0; i < count; i++) copy[i] = NULL;
#define COPY_OF(v) \
    ((v)->id >= lo && (v)->id - lo < count && copy[(v)->id - lo] ? copy[(v)->id - lo] : (v))
    for (int k = 0; k < f->nparams; k++)
        copy[f->params[k]->id - lo] = slots[bind[st->group[k]] * ns + st->slot[k]];
    for (int i = 0; i < f->nstmts; i++) {
        const IrStmt *s = f->stmts[i];
        int cond = s->op == IR_SELECT ? s->args[0]->id - lo : -1;
        IrVal *cond_code = NULL;
        if (cond >= 0 && cond < count && facts[cond].known && facts[cond].is_word) {
            int decided = condition_on(p, g, s->loc, b, facts[cond].word.bit[0], care, st->n,
                                       &cond_code);
            if (decided >= 0) {
                copy[s->res[0]->id - lo] = COPY_OF(s->args[decided ? 1 : 2]);
                continue;
            }
        }
        IrVal **args = NEW_ARRAY(p->arena, IrVal *, s->nargs ? s->nargs : 1);
        for (int a = 0; a < s->nargs; a++) args[a] = COPY_OF(s->args[a]);
        if (cond_code) args[0] = cond_code;
        IrStmt *t = ir_append(p, g, s->op, s->loc, s->nargs, args);
        ir_copy_scalar_attrs(t, s);
        if (s->op == IR_POS) { /* a matrix of its own: normalising the column rewrites it */
            t->mat = NEW(p->arena, F2Mat);
            *t->mat = *s->mat;
            t->own_mat = true;
            for (int k = 0; k < s->mat->n; k++)
                t->compl ^= (uint64_t)f2_parity(s->mat->row[k] & moved) << k;
        }
        for (int k = 0; k < s->nres; k++)
            copy[s->res[k]->id - lo] = ir_add_result(p, t, s->res[k]->log_len, s->res[k]->elem);
    }
    IrVal **results = NEW_ARRAY(scratch, IrVal *, f->nresults);
    for (int k = 0; k < f->nresults; k++) results[k] = COPY_OF(f->results[k]);
#undef COPY_OF
    return results;
}

/* The body of column c: its pair (a, b) becomes the map's results at the
 * lower index and at the upper one where the lower index is one of c's,
 * and stays as it is elsewhere. */
static IrBody *column_body(IrProgram *p, const Stencil *st, const Column *c, BddSet *b,
                           Arena *scratch) {
    IrBody *g = ir_new_body(p);
    Loc loc = st->map->loc;
    IrVal *pair = ir_body_add_param(p, g, 1, st->xs->elem);
    int ns = st->xs->elem->nslots;
    IrVal **slots = NEW_ARRAY(scratch, IrVal *, 2 * ns);
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < ns; k++) {
            IrStmt *s = ir_append(p, g, IR_INDEX, loc, 1, &pair);
            s->at = e;
            s->slot = k;
            slots[e * ns + k] = ir_add_result(p, s, -1, elem_prim(elem_slot_prim(pair->elem, k)));
        }
    /* the column's lower indices have its top bit clear: the guard need
       only hold there */
    Bdd lower_indices = bdd_not(b, bdd_var(b, f2_top_bit(c->mask)));
    Bdd everywhere = bdd_and(b, lower_indices, bdd_not(b, c->lower));
    Emitted memo = {0};
    IrVal *guard = everywhere == BDD_FALSE
                       ? NULL
                       : guard_code(p, g, loc, b, bdd_restrict(b, c->lower, lower_indices), st->n,
                                    &memo);
    free(memo.node);
    free(memo.val);
    static const int at_lower[NGROUPS] = {[SAME] = 0, [ABOVE] = 1, [BELOW] = 0};
    static const int at_upper[NGROUPS] = {[SAME] = 1, [ABOVE] = 1, [BELOW] = 0};
    IrVal **lower = copy_at(p, g, st, slots, at_lower, 0, b, c->lower, scratch);
    IrVal **upper = copy_at(p, g, st, slots, at_upper, c->mask, b, c->lower, scratch);
    IrVal **out = NEW_ARRAY(p->arena, IrVal *, 2 * ns);
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < ns; k++) {
            IrVal *args[3] = {guard, (e ? upper : lower)[k], slots[e * ns + k]};
            out[e * ns + k] = guard ? append_scalar(p, g, IR_SELECT, loc, 3, args,
                                                    elem_slot_prim(pair->elem, k))
                                    : args[1];
        }
    IrStmt *build = ir_append(p, g, IR_BUILD, loc, 2 * ns, out);
    ir_body_add_result(p, g, ir_add_result(p, build, 1, pair->elem));
    return g;
}

/* The columns that replace st's map, appended to `out`: the last one's
 * result is the map's value, so its uses need no rewriting. */
static void emit_columns(IrProgram *p, IrBody *out, const Stencil *st, const Pairs *q,
                         Arena *scratch) {
    IrVal *x = st->xs;
    for (int c = 0; c < q->ncolumns; c++) {
        IrStmt *col = ir_append(p, out, IR_COL, st->map->loc, 1, &x);
        col->mask = q->columns[c].mask;
        col->body = column_body(p, st, &q->columns[c], q->bdd, scratch);
        if (c + 1 < q->ncolumns) {
            x = ir_add_result(p, col, st->n, st->xs->elem);
        } else {
            IrVal *y = st->map->res[0];
            col->res = NEW_ARRAY(p->arena, IrVal *, 1);
            col->res[0] = y;
            col->nres = 1;
            y->def = col;
        }
    }
}

/* Whether s is a stencil of pairs; if so, its columns appended to out. */
static bool replace(IrProgram *p, IrBody *out, IrStmt *s, Arena *scratch) {
    Stencil st;
    if (!match(scratch, s, &st)) return false;
    Pairs q = {.bdd = bdd_new(st.n)};
    if (!q.bdd) diag_fatal("out of memory in the optimiser");
    bool pairs = find_pairs(scratch, &st, &q);
    if (pairs) emit_columns(p, out, &st, &q, scratch);
    bdd_free(q.bdd);
    return pairs;
}

void opt_stencil_columns(IrProgram *p, IrBody *b) {
    bool any = false;
    for (int i = 0; i < b->nstmts && !any; i++) any = b->stmts[i]->op == IR_MAP;
    if (!any) return;
    IrStmt **old = b->stmts;
    int count = b->nstmts;
    b->stmts = NULL;
    b->nstmts = b->cap = 0;
    Arena scratch = {0};
    for (int i = 0; i < count; i++)
        if (!replace(p, b, old[i], &scratch)) ir_body_push(p, b, old[i]);
    arena_free(&scratch);
}
