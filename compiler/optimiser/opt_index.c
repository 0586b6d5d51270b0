/* opt_index.c: the rules on an element read at a static position (index),
 * part of the rewrite pass (opt_rewrite.h): the read moves through the
 * statement that made the array to the element it comes from, so that one
 * element needs no whole-array work. */
#include "opt_index.h"

#include <stdlib.h>

/* ---- an element read at a static position ---- */

/* The live statement of op that defines the array the index s reads (the
 * table tries these rules on indexes only). */
static IrStmt *index_source(IrStmt *s, IrOp op) {
    IrStmt *d = s->args[0]->def;
    return d && !d->dead && d->op == op ? d : NULL;
}

/* (bmmc (A,c) xs) ! k = xs ! A⁻¹(k ⊕ c): element x of xs is element A·x ⊕ c
 * of the result, so one element needs no permutation. */
bool rule_index_bmmc(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = index_source(s, IR_BMMC);
    F2Mat inv;
    if (!d || !f2_invert(d->mat, &inv)) return false;
    rw_fired(r, s);
    s->at = (int64_t)f2_apply(&inv, (uint64_t)s->at ^ d->compl );
    rw_set_arg(r, s, 0, d->args[0]);
    return true;
}

/* (build s..) ! i = its slot of element i, the value built there */
bool rule_index_build(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = index_source(s, IR_BUILD);
    if (!d) return false;
    rw_fired(r, s);
    rw_replace(r, s, s->res[0], d->args[s->at * s->args[0]->elem->nslots + s->slot]);
    return true;
}

/* The array whose elements build s takes whole, each at one position
 * (slot k of element i is slot k of element built_at(s, i) of it, read by
 * index), or NULL. */
static IrVal *built_from(const IrStmt *s) {
    int ns = s->res[0]->elem->nslots, len = 1 << s->res[0]->log_len;
    IrVal *xs = s->args[0]->def && s->args[0]->def->op == IR_INDEX ? s->args[0]->def->args[0]
                                                                   : NULL;
    if (!xs || xs->log_len != s->res[0]->log_len) return NULL;
    for (int i = 0; i < len; i++)
        for (int k = 0; k < ns; k++) {
            const IrStmt *d = s->args[i * ns + k]->def, *first = s->args[i * ns]->def;
            if (!d || d->dead || d->op != IR_INDEX || d->slot != k || d->args[0] != xs ||
                d->at != first->at)
                return NULL;
        }
    return xs;
}

static uint64_t built_at(const IrStmt *s, int64_t i) {
    return (uint64_t)s->args[i * s->res[0]->elem->nslots]->def->at;
}

/* build (xs ! a(0)) .. (xs ! a(2^n - 1)) = bmmc (A,c) xs when a is an
 * affine bijection, a(i) = M·i ⊕ a(0): element x of xs is element
 * M⁻¹·(x ⊕ a(0)) of the build. The halves and joins that lengths-build
 * makes builds of in a small block are often such permutations (a swap of
 * halves); as a permutation the block is array code, which two-lift runs
 * as a whole-array permutation, and a chain of stages takes that on
 * several GPUs, where a block larger than a GPU's slice cannot be element
 * code. */
bool rule_build_bmmc(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    int n = s->res[0]->log_len;
    IrVal *xs = n >= 1 ? built_from(s) : NULL;
    if (!xs) return false;
    uint64_t a0 = built_at(s, 0);
    F2Mat m = f2_zero(n), inv;
    for (int t = 0; t < n; t++)
        for (int i = 0; i < n; i++) m.row[i] |= ((built_at(s, INT64_C(1) << t) ^ a0) >> i & 1) << t;
    for (int64_t i = 0; i < (INT64_C(1) << n); i++)
        if (f2_apply(&m, (uint64_t)i) != (built_at(s, i) ^ a0)) return false;
    if (!f2_invert(&m, &inv)) return false;
    rw_fired(r, s);
    int nargs = s->nargs;
    IrVal **old = s->args;
    s->op = IR_BMMC;
    s->compl = f2_apply(&inv, a0);
    s->own_mat = false;
    rw_set_matrix(r, s, NULL, &inv);
    s->nargs = 1;
    s->args = NEW_ARRAY(r->p->arena, IrVal *, 1);
    s->args[0] = xs;
    rw_add_use(r, xs);
    for (int k = 0; k < nargs; k++) rw_drop_use(r, old[k]);
    rw_drain(r);
    return true;
}

/* (replicate k x) ! i = x; (expand r ys) ! i = ys ! (i >> r) */
bool rule_index_replicate(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = index_source(s, IR_REPLICATE), *e = index_source(s, IR_EXPAND);
    if (d && d->nargs == s->args[0]->elem->nslots) {
        rw_fired(r, s);
        rw_replace(r, s, s->res[0], d->args[s->slot]);
        return true;
    }
    if (!e) return false;
    rw_fired(r, s);
    s->at >>= e->k;
    rw_set_arg(r, s, 0, e->args[0]);
    return true;
}

/* (half m b xs) ! i, (join m ys zs) ! i, (shift d x xs) ! i: the element of
 * the array it names (rw_length_source), or the shift's fill. */
bool rule_index_lengths(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = index_source(s, IR_HALF);
    if (!d) d = index_source(s, IR_JOIN);
    if (!d) d = index_source(s, IR_SHIFT);
    if (!d) return false;
    rw_fired(r, s);
    int64_t at;
    int from = rw_length_source(d, s->at, &at);
    if (from < 0) {
        rw_replace(r, s, s->res[0], d->args[s->slot]);
        return true;
    }
    s->at = at;
    rw_set_arg(r, s, 0, d->args[from]);
    return true;
}

/* (zip xs ys ..) ! i reads the array of its slot; ((unzip zs) field k) ! i
 * reads zs at that field's slot. */
bool rule_index_zip(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *z = index_source(s, IR_ZIP), *u = index_source(s, IR_UNZIP);
    if (z) {
        int a = 0, slot = s->slot;
        while (slot >= z->args[a]->elem->nslots) slot -= z->args[a++]->elem->nslots;
        rw_fired(r, s);
        s->slot = slot;
        rw_set_arg(r, s, 0, z->args[a]);
        return true;
    }
    if (!u) return false;
    int offset = 0;
    for (int k = 0; u->res[k] != s->args[0]; k++) offset += u->res[k]->elem->nslots;
    rw_fired(r, s);
    s->slot += offset;
    rw_set_arg(r, s, 0, u->args[0]);
    return true;
}

/* A copy of scalar code: from[k] (a map's parameters, then its statements'
 * results) is to[k] there; a parameter's element slot is read at `at` of
 * xs when first needed, a position is the constant it has at element `at`.
 * The copies are listed in order and emitted once all are made, so that
 * every read is counted before a rule sees them. */
typedef struct {
    IrVal **from, **to;
    int n;
    IrVal *xs;
    int64_t at;
    Loc loc;
    StmtList made;
} ElementCopy;

/* v in the copy, with one more use counted. */
static IrVal *copied(Rewriter *r, ElementCopy *c, IrVal *v, int nparams) {
    for (int k = 0; k < c->n; k++) {
        if (c->from[k] != v) continue;
        if (!c->to[k] && k < nparams) { /* a parameter: its slot of element `at` */
            IrStmt *ix = rw_detached(r, IR_INDEX, c->loc, c->xs);
            ix->at = c->at;
            ix->slot = k;
            c->to[k] = ir_add_result(r->p, ix, -1, v->elem);
            rw_list_push(&c->made, ix);
        }
        v = c->to[k];
        break;
    }
    rw_add_use(r, v); /* else from outside the function */
    return v;
}

/* (map f xs) ! i = f (xs ! i) when f is scalar code (no function of its
 * own) on elements of one slot: f's statements are copied to `out` for
 * element i, its positions constants there, so one element needs no map of
 * the array. One slot, so that one element read stays one (a two's body
 * on a large block reads each as a gather, two-reduce-blocks, and two
 * reads whose values meet would stop it). */
bool rule_index_map(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = index_source(s, IR_MAP);
    if (!d || d->args[0]->elem->nslots != 1) return false;
    IrBody *f = d->body;
    int n = f->nparams;
    for (int i = 0; i < f->nstmts; i++) {
        if (f->stmts[i]->body) return false;
        n += f->stmts[i]->nres;
    }
    rw_fired(r, s);
    ElementCopy c = {NEW_ARRAY(r->p->arena, IrVal *, n),
                     NEW_ARRAY(r->p->arena, IrVal *, n),
                     0,
                     d->args[0],
                     s->at,
                     s->loc,
                     {0}};
    for (int k = 0; k < f->nparams; k++) c.from[c.n++] = f->params[k];
    for (int i = 0; i < f->nstmts; i++) {
        const IrStmt *t = f->stmts[i];
        if (t->dead) continue;
        IrStmt *copy = NEW(r->p->arena, IrStmt);
        *copy = *t;
        copy->own_mat = false;
        copy->nres = 0;
        copy->res = NULL;
        copy->args = NEW_ARRAY(r->p->arena, IrVal *, t->nargs ? t->nargs : 1);
        for (int a = 0; a < t->nargs; a++) copy->args[a] = copied(r, &c, t->args[a], f->nparams);
        if (t->op == IR_POS) { /* the element's position: a constant */
            copy->op = IR_CONST;
            copy->mat = NULL;
            copy->cval = (Scalar){.i = (int64_t)(f2_apply(t->mat, (uint64_t)s->at) ^ t->compl )};
        }
        for (int k = 0; k < t->nres; k++) {
            c.from[c.n] = t->res[k];
            c.to[c.n++] = ir_add_result(r->p, copy, t->res[k]->log_len, t->res[k]->elem);
        }
        rw_list_push(&c.made, copy);
    }
    IrVal *v = copied(r, &c, f->results[s->slot], f->nparams);
    for (int i = 0; i < c.made.n; i++) rw_emit(r, out, c.made.items[i]);
    free(c.made.items);
    v = rw_resolve(r, v);
    rw_replace(r, s, s->res[0], v);
    rw_drop_use(r, v);
    rw_drain(r);
    return true;
}
