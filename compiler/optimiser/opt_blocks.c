/* opt_blocks.c: the rules that make a two's body on a large block (not
 * element code) into whole-array stages, part of the rewrite pass
 * (opt_rewrite.h): its reductions of the block, and elements read at static
 * positions, become stages of the blocks' totals (two-reduce-blocks), two
 * reductions of the block whose totals meet become one (two-reduce-zip), a
 * reduction's start that the block computes is combined with its total
 * after it (two-reduce-start), and scalar code on several sources' totals
 * moves into the functions that read it (two-sink-scalars). two-lift then
 * runs the body as whole-array stages. */
#include "opt_blocks.h"

#include <stdlib.h>
#include <string.h>

/* ---- per-block reductions as whole-array stages ---- */

/* The most elements of type t that element code holds in a thread's
 * registers, log2, at the scheduler's default of 128 bytes
 * (elem_register_log). A two's body on a larger block runs only as
 * whole-array stages. */
static int register_elems_log(const ElemType *t) {
    return elem_register_log(t, ELEM_REGISTER_BYTES_LOG);
}

/* Whether b has a half, join or shift of more than 2^3 elements, which
 * element code does not take (lengths-build builds them up to 2^3). */
static bool wide_length_change(const IrBody *b) {
    for (int i = 0; i < b->nstmts; i++) {
        const IrStmt *t = b->stmts[i];
        bool length = t->op == IR_HALF || t->op == IR_JOIN || t->op == IR_SHIFT;
        if (!t->dead && length && (t->args[t->nargs - 1]->log_len > 3 || t->res[0]->log_len > 3))
            return true;
    }
    return false;
}

/* Marks (the current epoch) b's parameters and every value it computes,
 * in nested bodies too. */
static void mark_own(Rewriter *r, const IrBody *b) {
    for (int i = 0; i < b->nparams; i++) r->mark[b->params[i]->id] = r->epoch;
    for (int i = 0; i < b->nstmts; i++) {
        const IrStmt *t = b->stmts[i];
        for (int k = 0; k < t->nres; k++) r->mark[t->res[k]->id] = r->epoch;
        if (t->body) mark_own(r, t->body);
    }
}

/* Whether b (or a body in it) reads an array that it does not compute
 * (mark_own marked those it does). */
static bool reads_outside_array(const Rewriter *r, const IrBody *b) {
    for (int i = 0; i < b->nstmts; i++) {
        const IrStmt *t = b->stmts[i];
        if (t->dead) continue;
        for (int a = 0; a < t->nargs; a++)
            if (!ir_is_scalar(t->args[a]) && !rw_marked(r, t->args[a])) return true;
        if (t->body && reads_outside_array(r, t->body)) return true;
    }
    for (int k = 0; k < b->nresults; k++)
        if (!ir_is_scalar(b->results[k]) && !rw_marked(r, b->results[k])) return true;
    return false;
}

/* Whether a two's body runs as element code: its block fits a thread's
 * registers, it changes no length beyond 2^3, and it reads no array from
 * outside (a whole array, which element code cannot hold: hoist-invariant
 * moves such work out of bodies); else only as whole-array stages. */
static bool element_code(Rewriter *r, const IrStmt *two) {
    const IrBody *b = two->body;
    if (two->args[0]->log_len - two->k > register_elems_log(b->params[0]->elem) ||
        wide_length_change(b))
        return false;
    rw_grow(r);
    r->epoch++;
    mark_own(r, b);
    return !reads_outside_array(r, b);
}

/* A reduce of a block, or an element of it read at a static position (an
 * index), and the scalars computed from its totals (the reduction's fields,
 * or the element's slot) alone, with constants and values from outside the
 * body: vals[0..nres) are the totals, the rest the values of those scalar
 * statements (defs), in order. */
typedef struct {
    IrStmt *red;
    IrVal **vals;
    IrStmt **defs;
    int n, ntotals;
} Totals;

static int total_index(const Totals *T, const IrVal *v) {
    for (int i = 0; i < T->n; i++)
        if (T->vals[i] == v) return i;
    return -1;
}

static bool defined_in(const IrBody *b, const IrVal *v) {
    for (int i = 0; i < b->nparams; i++)
        if (b->params[i] == v) return true;
    for (int i = 0; i < b->nstmts; i++)
        if (b->stmts[i] == v->def) return true;
    return false;
}

/* A scalar that a copy of the totals' code may read anywhere after it: a
 * constant (copied), a value from outside the body, or scalar code of the
 * body on those, the same for every block (index-map leaves `i16 s` of a
 * scalar parameter s there). */
bool rw_plain_scalar(const IrBody *b, const IrVal *v) {
    if (!ir_is_scalar(v)) return false;
    if (!defined_in(b, v)) return true;
    const IrStmt *d = v->def;
    if (!d || d->op == IR_CONST) return d != NULL;
    if (!ir_op_is_alu(d->op) && d->op != IR_SELECT && d->op != IR_CONVERT) return false;
    for (int a = 0; a < d->nargs; a++)
        if (!rw_plain_scalar(b, d->args[a])) return false;
    return true;
}

/* The totals of red (statement `at` of b) and the scalar code after it
 * that computes from them. */
static Totals totals_of(Rewriter *r, IrBody *b, int at) {
    IrStmt *red = b->stmts[at];
    Totals T = {.red = red};
    T.vals = NEW_ARRAY(r->p->arena, IrVal *, red->nres + b->nstmts);
    T.defs = NEW_ARRAY(r->p->arena, IrStmt *, red->nres + b->nstmts);
    for (int k = 0; k < red->nres; k++) T.vals[T.n++] = red->res[k];
    T.ntotals = red->nres;
    for (int j = at + 1; j < b->nstmts; j++) {
        IrStmt *t = b->stmts[j];
        bool scalar_code = ir_op_is_alu(t->op) || t->op == IR_SELECT || t->op == IR_CONVERT;
        if (t->dead || !scalar_code || t->nres != 1) continue;
        bool reads = false, rest_plain = true;
        for (int a = 0; a < t->nargs; a++) {
            bool total = total_index(&T, t->args[a]) >= 0;
            reads |= total;
            rest_plain &= total || rw_plain_scalar(b, t->args[a]);
        }
        if (!reads || !rest_plain) continue;
        T.defs[T.n] = t;
        T.vals[T.n++] = t->res[0];
    }
    return T;
}

/* Whether b (a map's function, at any depth) reads one of T's values. */
static bool body_reads_totals(const IrBody *b, const Totals *T) {
    for (int i = 0; i < b->nstmts; i++) {
        const IrStmt *t = b->stmts[i];
        for (int a = 0; a < t->nargs; a++)
            if (total_index(T, t->args[a]) >= 0) return true;
        if (t->body && body_reads_totals(t->body, T)) return true;
    }
    for (int i = 0; i < b->nresults; i++)
        if (total_index(T, b->results[i]) >= 0) return true;
    return false;
}

static bool is_total_code(const Totals *T, const IrStmt *t) {
    for (int i = T->ntotals; i < T->n; i++)
        if (T->defs[i] == t) return true;
    return false;
}

/* How t reads T's values: 0 not at all (or t is their code), 1 as a
 * replicate of them (and plain scalars), 2 in the function of a map, 3 in
 * the operator of a reduce, 4 in the function of a two (a column's pairs
 * too, once normalised), -1 otherwise (an array stage that would need
 * them per block). */
static int total_reader(const IrBody *b, const IrStmt *t, const Totals *T) {
    if (t->dead || t == T->red || is_total_code(T, t)) return 0;
    bool direct = false, replicable = true;
    for (int a = 0; a < t->nargs; a++) {
        bool total = total_index(T, t->args[a]) >= 0;
        direct |= total;
        replicable &= total || rw_plain_scalar(b, t->args[a]);
    }
    bool inside = t->body && body_reads_totals(t->body, T);
    if (!direct && !inside) return 0;
    if (t->op == IR_REPLICATE && !inside) return replicable ? 1 : -1;
    if (t->op == IR_REDUCE && !direct) return 3;
    if (t->op == IR_TWO && !direct) return 4;
    return t->op == IR_MAP && !direct ? 2 : -1;
}

/* Whether t is a reduce or an index of an array of the block. */
static bool block_totals(const IrStmt *t) { return t->op == IR_REDUCE || t->op == IR_INDEX; }

/* Whether every live statement of b (a two's body on blocks whose
 * parameter is marked) is liftable, or a reduce or index of a block array
 * whose totals only scalar code on them, replicates and maps read
 * (total_reader), or that scalar code: marks the arrays. */
static bool lifts_with_totals(Rewriter *r, IrBody *b) {
    int reduces = 0;
    for (int i = 0; i < b->nstmts; i++) {
        IrStmt *t = b->stmts[i];
        if (t->dead) continue;
        rw_grow(r);
        if (block_totals(t)) {
            IrVal *xs = t->args[t->nargs - 1];
            if (!rw_marked(r, xs) || (t->body && rw_reads_marked(r, t->body))) return false;
            Totals T = totals_of(r, b, i);
            for (int j = i + 1; j < b->nstmts; j++)
                if (total_reader(b, b->stmts[j], &T) < 0) return false;
            for (int k = 0; k < b->nresults; k++)
                if (total_index(&T, b->results[k]) >= 0) return false;
            reduces++;
            continue;
        }
        if (!rw_liftable(r, t)) return false;
        for (int k = 0; k < t->nres; k++)
            if (!ir_is_scalar(t->res[k])) r->mark[t->res[k]->id] = r->epoch;
    }
    return reduces > 0;
}

/* A new statement of op on args, appended to b. */
static IrStmt *body_stmt(Rewriter *r, IrBody *b, IrOp op, Loc loc, int nargs, IrVal **args) {
    IrStmt *t = ir_append(r->p, b, op, loc, nargs, args);
    for (int a = 0; a < nargs; a++) rw_add_use(r, args[a]);
    return t;
}

/* v as code appended to `into` computes it from the totals, which
 * copies[0..nres) name there: the statements of T's values it needs are
 * copied once each (copies[i]), constants copied, values from outside read. */
static IrVal *copy_total(Rewriter *r, IrBody *into, const Totals *T, IrVal **copies, IrVal *v) {
    int i = total_index(T, v);
    if (i >= 0 && !copies[i]) {
        IrStmt *d = T->defs[i];
        IrVal **args = NEW_ARRAY(r->p->arena, IrVal *, d->nargs);
        for (int a = 0; a < d->nargs; a++) args[a] = copy_total(r, into, T, copies, d->args[a]);
        IrStmt *c = body_stmt(r, into, d->op, d->loc, d->nargs, args);
        c->alu = d->alu;
        c->to = d->to;
        copies[i] = ir_add_result(r->p, c, -1, v->elem);
    }
    if (i >= 0) return copies[i];
    if (v->def && v->def->op == IR_CONST) {
        IrStmt *c = body_stmt(r, into, IR_CONST, v->def->loc, 0, NULL);
        c->cval = v->def->cval;
        return ir_add_result(r->p, c, -1, v->elem);
    }
    return v;
}

/* Fresh copies for `into`, whose parameters params.. stand for the totals. */
static IrVal **total_copies(Rewriter *r, const Totals *T, IrVal **params) {
    IrVal **copies = NEW_ARRAY(r->p->arena, IrVal *, T->n);
    for (int k = 0; k < T->ntotals; k++) copies[k] = params[k];
    return copies;
}

/* The expand of rb to 2^j elements, appended to b. */
static IrVal *expanded(Rewriter *r, IrBody *b, const Totals *T, IrVal *rb, int j) {
    IrStmt *e = body_stmt(r, b, IR_EXPAND, T->red->loc, 1, &rb);
    e->k = j;
    return ir_add_result(r->p, e, j, rb->elem);
}

/* t becomes map f xs; the caller has already dropped t's reads of its old
 * arguments, or moved them into f. */
static void become_map(Rewriter *r, IrStmt *t, IrVal *xs, IrBody *f) {
    t->op = IR_MAP;
    t->k = 0;
    t->nargs = 1;
    t->args = NEW_ARRAY(r->p->arena, IrVal *, 1);
    t->args[0] = xs;
    rw_add_use(r, xs);
    t->body = f;
}

/* replicate j s.. (s.. computed from the totals) becomes map f (expand j
 * rb), f computing s.. from the totals; the expand goes to b. */
static void replicate_reads_totals(Rewriter *r, IrBody *b, IrStmt *t, const Totals *T, IrVal *rb) {
    bool exact = t->nargs == T->ntotals;
    for (int a = 0; exact && a < t->nargs; a++) exact = t->args[a] == T->vals[a];
    if (exact) { /* the totals themselves: an expand */
        for (int a = 0; a < t->nargs; a++) r->uses[t->args[a]->id]--;
        t->op = IR_EXPAND;
        t->nargs = 1;
        t->args = NEW_ARRAY(r->p->arena, IrVal *, 1);
        t->args[0] = rb;
        rw_add_use(r, rb);
        return;
    }
    IrVal *wide = expanded(r, b, T, rb, t->k);
    IrBody *f = ir_new_body(r->p);
    IrVal **params = NEW_ARRAY(r->p->arena, IrVal *, T->ntotals);
    for (int k = 0; k < T->ntotals; k++)
        params[k] = ir_body_add_param(r->p, f, -1, T->vals[k]->elem);
    IrVal **copies = total_copies(r, T, params);
    for (int a = 0; a < t->nargs; a++) {
        IrVal *v = copy_total(r, f, T, copies, t->args[a]);
        ir_body_add_result(r->p, f, v);
        rw_add_use(r, v);
        IrVal *old = t->args[a];
        r->uses[old->id]--;
        if (total_index(T, old) < 0 && old->def && old->def->op == IR_CONST && !rw_uses(r, old))
            old->def->dead = true;
    }
    become_map(r, t, wide, f);
}

/* Every read of from in body b becomes a read of to. */
static void reread_body(Rewriter *r, IrBody *b, IrVal *from, IrVal *to) {
    int before = rw_uses(r, to);
    rw_substitute(r, b, &from, &to, 1);
    r->uses[from->id] -= rw_uses(r, to) - before;
}

/* xs zipped with the totals (expand j rb) element by element, appended to b. */
static IrVal *zipped_with_totals(Rewriter *r, IrBody *b, const Totals *T, IrVal *xs, IrVal *rb) {
    IrVal *pair[2] = {xs, expanded(r, b, T, rb, xs->log_len)};
    const ElemType *fields[2] = {xs->elem, rb->elem};
    IrStmt *z = body_stmt(r, b, IR_ZIP, T->red->loc, 2, pair);
    return ir_add_result(r->p, z, xs->log_len, elem_tuple(r->p->arena, 2, fields));
}

/* f, a function that reads T's values, computes what it reads from the
 * totals' values params.. instead, first (after the statements of pre,
 * which compute params where they are not f's parameters). */
static void reread_from_params(Rewriter *r, IrBody *f, const Totals *T, IrVal **params,
                               IrBody *pre) {
    IrVal **copies = total_copies(r, T, params);
    for (int i = 0; i < T->n; i++) {
        if (!body_reads_totals(f, &(Totals){.red = T->red,
                                            .vals = T->vals + i,
                                            .defs = T->defs + i,
                                            .n = 1,
                                            .ntotals = 0}))
            continue;
        reread_body(r, f, T->vals[i], copy_total(r, pre, T, copies, T->vals[i]));
    }
    /* the copies come first in f */
    IrStmt **stmts = NEW_ARRAY(r->p->arena, IrStmt *, pre->nstmts + f->nstmts + 1);
    if (pre->nstmts) memcpy(stmts, pre->stmts, sizeof(IrStmt *) * (size_t)pre->nstmts);
    if (f->nstmts) memcpy(stmts + pre->nstmts, f->stmts, sizeof(IrStmt *) * (size_t)f->nstmts);
    f->stmts = stmts;
    f->nstmts = f->cap = pre->nstmts + f->nstmts;
}

/* The map t reads the totals as elements zipped with its own: map f xs
 * becomes map f' (zip xs (expand j rb)), f' taking the totals' fields as
 * parameters after its element's and computing what it read from them
 * first. The new statements go to b, before t. */
static void map_reads_totals(Rewriter *r, IrBody *b, IrStmt *t, const Totals *T, IrVal *rb) {
    IrVal *zipped = zipped_with_totals(r, b, T, t->args[0], rb);
    IrVal **params = NEW_ARRAY(r->p->arena, IrVal *, T->ntotals);
    for (int k = 0; k < T->ntotals; k++)
        params[k] = ir_body_add_param(r->p, t->body, -1, T->vals[k]->elem);
    reread_from_params(r, t->body, T, params, ir_new_body(r->p));
    rw_set_arg(r, t, 0, zipped);
}

/* The two t, whose function reads the totals, works on its blocks zipped
 * with them: two k f xs becomes two k f' (zip xs (expand j rb)), f' taking
 * the block apart (unzip) and reading the totals from its first element
 * (which every element of the block holds), then f on the block. */
static void two_reads_totals(Rewriter *r, IrBody *b, IrStmt *t, const Totals *T, IrVal *rb) {
    IrVal *zipped = zipped_with_totals(r, b, T, t->args[0], rb);
    IrBody *f = t->body, *pre = ir_new_body(r->p);
    IrVal *block = f->params[0];
    IrVal *q = ir_new_val(r->p, block->log_len, zipped->elem);
    IrStmt *u = body_stmt(r, pre, IR_UNZIP, t->loc, 1, &q);
    IrVal *es = ir_add_result(r->p, u, block->log_len, block->elem);
    IrVal *cs = ir_add_result(r->p, u, block->log_len, rb->elem);
    IrVal **totals = NEW_ARRAY(r->p->arena, IrVal *, T->ntotals);
    for (int k = 0; k < T->ntotals; k++) {
        IrStmt *ix = body_stmt(r, pre, IR_INDEX, t->loc, 1, &cs);
        ix->at = 0;
        ix->slot = k;
        totals[k] = ir_add_result(r->p, ix, -1, T->vals[k]->elem);
    }
    reread_body(r, f, block, es);
    f->params[0] = q;
    reread_from_params(r, f, T, totals, pre);
    rw_set_arg(r, t, 0, zipped);
}

/* The reduce t, whose operator reads the totals, reduces its elements
 * zipped with them: reduce op z xs becomes reduce op' (z, 0..) (zip xs
 * (expand j rb)), op' (a, ca) (b, cb) = (op a b, cb) with op reading cb,
 * the totals of the right operand's block. Every operand of the tree, and
 * the total that z meets last, is of one block, so cb is always its
 * totals. t gets one result more per total, which nothing reads. */
static void reduce_reads_totals(Rewriter *r, IrBody *b, IrStmt *t, const Totals *T, IrVal *rb) {
    int ns = t->nargs - 1, nt = T->ntotals;
    IrVal *zipped = zipped_with_totals(r, b, T, t->args[ns], rb);
    IrVal **args = NEW_ARRAY(r->p->arena, IrVal *, ns + nt + 1);
    for (int k = 0; k < ns; k++) args[k] = t->args[k];
    for (int k = 0; k < nt; k++) { /* z's totals: any value, never read */
        IrStmt *c = body_stmt(r, b, IR_CONST, t->loc, 0, NULL);
        args[ns + k] = ir_add_result(r->p, c, -1, T->vals[k]->elem);
        rw_add_use(r, args[ns + k]);
    }
    args[ns + nt] = zipped;
    rw_add_use(r, zipped);
    rw_drop_use(r, t->args[ns]);
    t->args = args;
    t->nargs = ns + nt + 1;
    /* params (a.., ca.., b.., cb..): the totals' after each operand's slots */
    IrBody *f = t->body;
    IrVal **params = NEW_ARRAY(r->p->arena, IrVal *, 2 * (ns + nt)),
          **cb = NEW_ARRAY(r->p->arena, IrVal *, nt);
    for (int side = 0; side < 2; side++) {
        for (int k = 0; k < ns; k++) params[side * (ns + nt) + k] = f->params[side * ns + k];
        for (int k = 0; k < nt; k++)
            params[side * (ns + nt) + ns + k] = ir_new_val(r->p, -1, T->vals[k]->elem);
    }
    f->params = params;
    f->nparams = 2 * (ns + nt);
    for (int k = 0; k < nt; k++) cb[k] = params[ns + nt + ns + k];
    reread_from_params(r, f, T, cb, ir_new_body(r->p));
    for (int k = 0; k < nt; k++) {
        ir_body_add_result(r->p, f, cb[k]);
        rw_add_use(r, cb[k]);
        ir_add_result(r->p, t, -1, T->vals[k]->elem);
    }
}

/* T's scalar code is read by nothing now: it dies, with constants only it
 * read (their reads are dropped here, not through rw_kill, since the totals'
 * statement is no longer what defined them). */
static void drop_total_code(Rewriter *r, const Totals *T) {
    for (int i = T->n - 1; i >= T->ntotals; i--) {
        IrStmt *d = T->defs[i];
        d->dead = true;
        for (int a = 0; a < d->nargs; a++) {
            IrVal *v = d->args[a];
            r->uses[v->id]--;
            if (total_index(T, v) < 0 && v->def && v->def->op == IR_CONST && !rw_uses(r, v))
                v->def->dead = true;
        }
    }
    for (int i = 0; i < T->n; i++) r->uses[T->vals[i]->id] = 0;
}

/* The reduce red becomes reduceblocks of all of its array: one element. */
static IrVal *reduce_as_array(Rewriter *r, IrBody *b, IrStmt *red) {
    IrVal *xs = red->args[red->nargs - 1];
    red->op = IR_REDUCEBLOCKS;
    red->k = xs->log_len;
    red->nres = 0;
    red->res = NULL;
    ir_body_push(r->p, b, red);
    return ir_add_result(r->p, red, 0, xs->elem);
}

/* The index ix (slot s of element a of ys, 2^m elements) becomes the
 * one-element array of that slot, appended to b: the slot alone (a map,
 * for tuples), then m halves, each keeping the half that holds a (bit j of
 * a picks the half of mask 2^j). On the whole array a half keeps its
 * mask, so these pick element a of every block: a gather kernel that reads
 * only those. ix dies. */
static IrVal *index_as_array(Rewriter *r, IrBody *b, IrStmt *ix) {
    IrVal *ys = ix->args[0], *v = ys;
    const ElemType *slot = elem_prim(elem_slot_prim(ys->elem, ix->slot));
    if (ys->elem->nslots > 1) {
        IrStmt *map = rw_slot_map(r, ix->loc, ys, ix->slot, 1, NULL, slot);
        ir_body_push(r->p, b, map);
        v = map->res[0];
    }
    for (int j = ys->log_len - 1; j >= 0; j--) {
        IrStmt *h = body_stmt(r, b, IR_HALF, ix->loc, 1, &v);
        h->mask = UINT64_C(1) << j;
        h->k = (int)(ix->at >> j & 1);
        v = ir_add_result(r->p, h, j, slot);
    }
    ix->dead = true;
    r->uses[ys->id]--;
    return v;
}

/* red (statement `at` of b), a reduce of a block or an index of it,
 * becomes a whole-array stage of the block's totals (one element, rb), and
 * its readers read rb: a replicate of what the totals give becomes a map
 * of expand, a map reads rb zipped with its elements. b's statements are
 * rebuilt in order, the new ones before their readers. */
static void totals_as_array(Rewriter *r, IrBody *b, int at) {
    Totals T = totals_of(r, b, at);
    IrStmt **old = b->stmts;
    int count = b->nstmts;
    b->stmts = NULL;
    b->nstmts = b->cap = 0;
    IrVal *rb = NULL;
    for (int i = 0; i < count; i++) {
        IrStmt *t = old[i];
        if (i == at) {
            rb = t->op == IR_REDUCE ? reduce_as_array(r, b, t) : index_as_array(r, b, t);
            continue;
        }
        int how = i > at ? total_reader(b, t, &T) : 0;
        if (how == 1) replicate_reads_totals(r, b, t, &T, rb);
        else if (how == 2) map_reads_totals(r, b, t, &T, rb);
        else if (how == 3) reduce_reads_totals(r, b, t, &T, rb);
        else if (how == 4) two_reads_totals(r, b, t, &T, rb);
        ir_body_push(r->p, b, t);
    }
    drop_total_code(r, &T);
}

/* A two's body that is not element code (element_code: larger than a
 * thread's registers, or with a half, join or shift of more than 2^3
 * elements) that reduces its block (or reads an element of it at a static
 * position) and reads the totals only
 * through replicates and maps, all else being liftable (two-lift):
 *   two k (\ys -> .. replicate j (reduce op z ys) ..)
 *     = two k (\ys -> .. expand j (reduceblocks m op z ys) ..)
 *   two k (\ys -> .. map (f (reduce op z ys)) xs ..)
 *     = two k (\ys -> .. map f' (zip xs (expand j (reduceblocks m ..))) ..)
 *   ys ! a
 *     = the one element of m halves of ys (index_as_array)
 * for blocks of 2^m: the body becomes array code, which two-lift runs as
 * whole-array stages (reduceblocks m of the whole array, halves and
 * expand). Bodies that fit registers stay element code, which does it in
 * one pass. */
bool rule_two_reduce_blocks(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrBody *b = s->body;
    if (element_code(r, s)) return false;
    rw_grow(r);
    r->epoch++;
    r->mark[b->params[0]->id] = r->epoch;
    if (!lifts_with_totals(r, b)) return false;
    rw_fired(r, s);
    for (int i = 0; i < b->nstmts; i++)
        if (!b->stmts[i]->dead && block_totals(b->stmts[i])) totals_as_array(r, b, i);
    return true;
}

/* ---- scalar code on totals of several sources, sunk into its readers ---- */

/* Whether t is scalar code: what element code computes from scalars. */
static bool is_scalar_code(const IrStmt *t) {
    return ir_op_is_alu(t->op) || t->op == IR_SELECT || t->op == IR_CONVERT;
}

/* Adds to roots[0..*n) (at most 2) the reduces and indexes of b that v is
 * computed from through scalar code. */
static void scalar_roots(const IrBody *b, const IrVal *v, const IrStmt **roots, int *n, int depth) {
    if (!ir_is_scalar(v) || !defined_in(b, v) || !v->def || depth > 32) return;
    const IrStmt *d = v->def;
    if (block_totals(d)) {
        if (*n == 0 || (roots[0] != d && *n < 2)) roots[(*n)++] = d;
        return;
    }
    if (!is_scalar_code(d)) return;
    for (int a = 0; a < d->nargs && *n < 2; a++) scalar_roots(b, d->args[a], roots, n, depth + 1);
}

/* Whether body f reads v, at any depth. */
static bool body_reads(const IrBody *f, const IrVal *v) {
    for (int i = 0; i < f->nstmts; i++) {
        const IrStmt *t = f->stmts[i];
        for (int a = 0; a < t->nargs; a++)
            if (t->args[a] == v) return true;
        if (t->body && body_reads(t->body, v)) return true;
    }
    for (int i = 0; i < f->nresults; i++)
        if (f->results[i] == v) return true;
    return false;
}

static bool reads_directly(const IrStmt *t, const IrVal *v) {
    for (int a = 0; a < t->nargs; a++)
        if (t->args[a] == v) return true;
    return false;
}

/* Whether every reader of v in b after `at` reads it in a function (a
 * map's, a reduce's, a two's) or is a replicate of it, so that the code of
 * v can move into each; at least one does. */
static bool sinkable(const IrBody *b, int at, const IrVal *v) {
    bool some = false;
    for (int i = at + 1; i < b->nstmts; i++) {
        const IrStmt *t = b->stmts[i];
        if (t->dead) continue;
        bool direct = reads_directly(t, v);
        if (direct && t->op != IR_REPLICATE) return false;
        some |= direct || (t->body && body_reads(t->body, v));
    }
    for (int i = 0; i < b->nresults; i++)
        if (b->results[i] == v) return false;
    return some;
}

/* s inserted into b at place i. */
static void insert_stmt(Rewriter *r, IrBody *b, int i, IrStmt *s) {
    IrStmt **stmts = NEW_ARRAY(r->p->arena, IrStmt *, b->nstmts + 1);
    if (i) memcpy(stmts, b->stmts, sizeof(IrStmt *) * (size_t)i);
    stmts[i] = s;
    if (b->nstmts > i)
        memcpy(stmts + i + 1, b->stmts + i, sizeof(IrStmt *) * (size_t)(b->nstmts - i));
    b->stmts = stmts;
    b->nstmts = b->cap = b->nstmts + 1;
}

/* A new scalar statement of op on args (their reads counted), of a result of
 * prim p, inserted into b at place *at (which moves past it). */
static IrVal *scalar_at(Rewriter *r, IrBody *b, int *at, IrOp op, Loc loc, int nargs, IrVal **args,
                        Prim p) {
    IrStmt *c = rw_detached_n(r, op, loc, nargs, args);
    insert_stmt(r, b, (*at)++, c);
    return ir_add_result(r->p, c, -1, elem_prim(p));
}

static IrVal *bool_at(Rewriter *r, IrBody *b, int *at, Loc loc, bool v) {
    IrVal *c = scalar_at(r, b, at, IR_CONST, loc, 0, NULL, PRIM_BOOL);
    c->def->cval = scalar_from_int(PRIM_BOOL, v);
    return c;
}

/* replicate k a0.. (statement i of b) = map (\_.. -> a0..) (replicate k
 * 0..): its slots then come from a function, which code can move into. */
static void replicate_as_map(Rewriter *r, IrBody *b, int i) {
    IrStmt *t = b->stmts[i];
    const IrVal *res = t->res[0];
    int ns = t->nargs;
    IrVal **zero = NEW_ARRAY(r->p->arena, IrVal *, ns);
    for (int k = 0; k < ns; k++) {
        Prim p = elem_slot_prim(res->elem, k);
        zero[k] = scalar_at(r, b, &i, IR_CONST, t->loc, 0, NULL, p);
        zero[k]->def->cval = scalar_from_int(p, 0);
    }
    IrStmt *rep = rw_detached_n(r, IR_REPLICATE, t->loc, ns, zero);
    rep->k = t->k;
    IrVal *zeros = ir_add_result(r->p, rep, res->log_len, res->elem);
    insert_stmt(r, b, i, rep);
    IrBody *f = ir_new_body(r->p);
    for (int k = 0; k < ns; k++) {
        ir_body_add_param(r->p, f, -1, elem_prim(elem_slot_prim(res->elem, k)));
        ir_body_add_result(r->p, f, t->args[k]); /* the read moves from t's args to f's results */
    }
    become_map(r, t, zeros, f);
}

/* A copy of scalar statement d at the start of body f, whose reads of d's
 * value become reads of the copy's. */
static void copy_into(Rewriter *r, IrBody *f, const IrStmt *d) {
    IrStmt *c = rw_detached_n(r, d->op, d->loc, d->nargs, d->args);
    c->alu = d->alu;
    c->to = d->to;
    IrVal *v = d->res[0], *copy = ir_add_result(r->p, c, -1, v->elem);
    insert_stmt(r, f, 0, c);
    int before = rw_uses(r, copy);
    rw_substitute(r, f, &v, &copy, 1);
    r->uses[v->id] -= rw_uses(r, copy) - before;
}

/* In a two's body on large blocks, scalar code that combines the totals of
 * several reductions or elements of the block (`let m = max (ys ! 0)
 * (reduce max 0 ys) in map (\y -> y + m) ys`), which no one source's
 * totals compute, moves into the functions that read it (a replicate of it
 * becoming a map): there two-reduce-blocks zips each source's totals with
 * the elements, as for `map (\y -> y + max (ys ! 0) (reduce max 0 ys)) ys`.
 * Scalar code stays where it is in functions (hoist-invariant moves only
 * array work), so the move is not undone. */
/* Whether t is a replicate whose slots come from the totals of several
 * sources (the reduces and indexes of the block they are computed from). */
static bool replicates_several(const IrBody *b, const IrStmt *t) {
    if (t->dead || t->op != IR_REPLICATE) return false;
    const IrStmt *roots[2];
    int n = 0;
    for (int a = 0; a < t->nargs; a++) scalar_roots(b, t->args[a], roots, &n, 0);
    return n >= 2;
}

bool rule_two_sink_scalars(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (element_code(r, s)) return false;
    IrBody *b = s->body;
    /* a replicate of several sources' totals, slot by slot: a map whose
       function returns them, read as the sunk code is */
    for (int i = 0; i < b->nstmts; i++)
        if (replicates_several(b, b->stmts[i])) {
            rw_fired(r, s);
            replicate_as_map(r, b, i);
            rw_drain(r);
            return true;
        }
    for (int i = b->nstmts - 1; i >= 0; i--) {
        IrStmt *t = b->stmts[i];
        if (t->dead || !is_scalar_code(t) || t->nres != 1) continue;
        const IrStmt *roots[2];
        int n = 0;
        scalar_roots(b, t->res[0], roots, &n, 0);
        if (n < 2 || !sinkable(b, i, t->res[0])) continue;
        rw_fired(r, s);
        IrVal *v = t->res[0];
        for (int j = i + 1; j < b->nstmts; j++) {
            IrStmt *u = b->stmts[j];
            if (u->dead) continue;
            if (u->op == IR_REPLICATE && reads_directly(u, v)) {
                int ns = u->nargs;
                replicate_as_map(r, b, j);
                j += ns + 1; /* its constants and their replicate, before it */
            }
            if (u->body && body_reads(u->body, v)) copy_into(r, u->body, t);
        }
        rw_kill(r, t);
        rw_drain(r);
        return true;
    }
    return false;
}

/* ---- a reduction's start value that the block computes ---- */

/* Whether the operator f is scalar code alone (it can be copied). */
static bool scalar_operator(const IrBody *f) {
    for (int i = 0; i < f->nstmts; i++)
        if (!f->stmts[i]->dead && !is_scalar_code(f->stmts[i]) && f->stmts[i]->op != IR_CONST)
            return false;
    return true;
}

/* The operator f of t (statement i of b) applied to z.. and t's results,
 * copied into b after t (at *at); returns its results. */
static IrVal **operator_after(Rewriter *r, IrBody *b, int *at, const IrStmt *t, IrVal **z) {
    const IrBody *f = t->body;
    int ns = f->nresults, n = 2 * ns + f->nstmts;
    IrVal **from = NEW_ARRAY(r->p->arena, IrVal *, n), **to = NEW_ARRAY(r->p->arena, IrVal *, n);
    int m = 0;
    for (int k = 0; k < ns; k++) {
        from[m] = f->params[k], to[m++] = z[k];
        from[m] = f->params[ns + k], to[m++] = t->res[k];
    }
    for (int i = 0; i < f->nstmts; i++) {
        const IrStmt *d = f->stmts[i];
        if (d->dead) continue;
        IrVal **args = NEW_ARRAY(r->p->arena, IrVal *, d->nargs > 0 ? d->nargs : 1);
        for (int a = 0; a < d->nargs; a++) {
            args[a] = d->args[a];
            for (int j = 0; j < m; j++)
                if (from[j] == d->args[a]) args[a] = to[j];
        }
        IrVal *v = scalar_at(r, b, at, d->op, d->loc, d->nargs, args, d->res[0]->elem->prim);
        IrStmt *c = v->def;
        c->alu = d->alu;
        c->to = d->to;
        c->cval = d->cval;
        from[m] = d->res[0], to[m++] = v;
    }
    IrVal **out = NEW_ARRAY(r->p->arena, IrVal *, ns);
    for (int k = 0; k < ns; k++) {
        out[k] = f->results[k];
        for (int j = 0; j < m; j++)
            if (from[j] == f->results[k]) out[k] = to[j];
    }
    return out;
}

/* f, t's operator, on records (x, flag): a record of flag false is no
 * operand (the other one is the result), so that start (c, false) leaves
 * the tree's total alone. Its params become (a.., fa, b.., fb). */
static void flagged_operator(Rewriter *r, IrStmt *t) {
    IrBody *f = t->body;
    int ns = f->nresults;
    IrVal **params = NEW_ARRAY(r->p->arena, IrVal *, 2 * ns + 2);
    IrVal *fa = ir_new_val(r->p, -1, elem_prim(PRIM_BOOL)),
          *fb = ir_new_val(r->p, -1, elem_prim(PRIM_BOOL));
    for (int k = 0; k < ns; k++) params[k] = f->params[k], params[ns + 1 + k] = f->params[ns + k];
    params[ns] = fa;
    params[2 * ns + 1] = fb;
    f->params = params;
    f->nparams = 2 * ns + 2;
    IrVal **results = NEW_ARRAY(r->p->arena, IrVal *, ns + 1);
    int end = f->nstmts;
    for (int k = 0; k < ns; k++) {
        IrVal *both[3] = {fb, f->results[k], f->params[k]};
        IrVal *left = scalar_at(r, f, &end, IR_SELECT, t->loc, 3, both, f->results[k]->elem->prim);
        IrVal *pick[3] = {fa, left, f->params[ns + 1 + k]};
        results[k] = scalar_at(r, f, &end, IR_SELECT, t->loc, 3, pick, f->results[k]->elem->prim);
        rw_drop_use(r, f->results[k]);
        rw_add_use(r, results[k]);
    }
    IrVal *yes = bool_at(r, f, &end, t->loc, true), *either[3] = {fa, yes, fb};
    results[ns] = scalar_at(r, f, &end, IR_SELECT, t->loc, 3, either, PRIM_BOOL);
    rw_add_use(r, results[ns]);
    f->results = results;
    f->nresults = ns + 1;
}

/* In a two's body on large blocks, reduce op z xs with z computed from the
 * block (`reduce max (ys ! 0) ys`): the tree's total T alone, by op on
 * records (x, flag) from the start (0, false), then op z T as scalar code
 * after it, the order the language gives (`z op total` last), so the same
 * bits. The reduction then has a plain start (two-reduce-blocks), and op z
 * T is scalar code on two sources' totals (two-reduce-zip, two-sink-
 * scalars). */
bool rule_two_reduce_start(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (element_code(r, s)) return false;
    IrBody *b = s->body;
    for (int i = 0; i < b->nstmts; i++) {
        IrStmt *t = b->stmts[i];
        int ns = t->nargs - 1;
        if (t->dead || t->op != IR_REDUCE || !scalar_operator(t->body)) continue;
        bool computed = false;
        for (int k = 0; k < ns; k++) computed |= !rw_plain_scalar(b, t->args[k]);
        if (!computed) continue;
        rw_fired(r, s);
        IrVal *xs = t->args[ns], **z = NEW_ARRAY(r->p->arena, IrVal *, ns);
        for (int k = 0; k < ns; k++) z[k] = t->args[k];
        int at = i; /* the records (x, true), and the start (0.., false), before t */
        IrVal *yes = bool_at(r, b, &at, t->loc, true);
        IrStmt *rep = rw_detached(r, IR_REPLICATE, t->loc, yes);
        rep->k = xs->log_len;
        IrVal *flags = ir_add_result(r->p, rep, xs->log_len, elem_prim(PRIM_BOOL));
        insert_stmt(r, b, at++, rep);
        IrVal *pair[2] = {xs, flags};
        IrStmt *zip = rw_detached_n(r, IR_ZIP, t->loc, 2, pair);
        const ElemType *fields[2] = {xs->elem, elem_prim(PRIM_BOOL)};
        IrVal *records = ir_add_result(r->p, zip, xs->log_len, elem_tuple(r->p->arena, 2, fields));
        insert_stmt(r, b, at++, zip);
        IrVal **args = NEW_ARRAY(r->p->arena, IrVal *, ns + 2);
        for (int k = 0; k < ns; k++) {
            args[k] = scalar_at(r, b, &at, IR_CONST, t->loc, 0, NULL, t->res[k]->elem->prim);
            args[k]->def->cval = scalar_from_int(t->res[k]->elem->prim, 0);
            rw_add_use(r, args[k]);
        }
        args[ns] = bool_at(r, b, &at, t->loc, false);
        rw_add_use(r, args[ns]);
        args[ns + 1] = records;
        rw_add_use(r, records);
        IrVal **old = t->args;
        t->args = args;
        t->nargs = ns + 2;
        t->commutative = false;
        /* readers of t's results read op z T, after t (b->stmts is a new
           array at each insertion; rest is the old one's readers) */
        IrBody rest = {.stmts = b->stmts + at + 1,
                       .nstmts = b->nstmts - at - 1,
                       .results = b->results,
                       .nresults = b->nresults};
        int after = at + 1;
        IrVal **combined = operator_after(r, b, &after, t, z);
        for (int k = 0; k < ns; k++) {
            int before = rw_uses(r, combined[k]);
            rw_substitute(r, &rest, &t->res[k], &combined[k], 1);
            r->uses[t->res[k]->id] -= rw_uses(r, combined[k]) - before;
        }
        /* z.., read by the copy or its readers now (an operator's result
           may be its left operand, z itself), and xs, by the zip */
        for (int a = 0; a <= ns; a++) rw_drop_use(r, old[a]);
        flagged_operator(r, t);
        ir_add_result(r->p, t, -1, elem_prim(PRIM_BOOL));
        rw_drain(r);
        return true;
    }
    return false;
}

/* ---- two reductions of a block whose totals meet: one reduction ---- */

/* The statement of b that defines v, by its place in b; -1 for one from
 * outside b (or b's parameter). */
static int place_in(const IrBody *b, const IrVal *v) {
    for (int i = 0; i < b->nstmts; i++)
        if (b->stmts[i] == v->def) return i;
    return -1;
}

/* Whether t reads a value marked with the current epoch, at any depth. */
static bool stmt_reads_marked(Rewriter *r, const IrStmt *t) {
    for (int a = 0; a < t->nargs; a++)
        if (rw_marked(r, t->args[a])) return true;
    return t->body && rw_reads_marked(r, t->body);
}

/* Marks what t reads, at any depth, with the current epoch. */
static void mark_stmt_reads(Rewriter *r, const IrStmt *t) {
    for (int a = 0; a < t->nargs; a++) r->mark[t->args[a]->id] = r->epoch;
    if (t->body) rw_mark_reads(r, t->body);
}

/* The statements of b between i and j that read statement i's results, at
 * any remove (after[k] set), when none of them is one that statement j
 * reads, at any remove: those go after the reduction that replaces both. */
static bool after_both(Rewriter *r, const IrBody *b, int i, int j, bool *after) {
    rw_grow(r);
    r->epoch++;
    for (int k = 0; k < b->stmts[i]->nres; k++) r->mark[b->stmts[i]->res[k]->id] = r->epoch;
    for (int k = i + 1; k < j; k++)
        if ((after[k] = !b->stmts[k]->dead && stmt_reads_marked(r, b->stmts[k])))
            for (int v = 0; v < b->stmts[k]->nres; v++) r->mark[b->stmts[k]->res[v]->id] = r->epoch;
    r->epoch++;
    mark_stmt_reads(r, b->stmts[j]);
    for (int k = j - 1; k > i; k--) {
        bool feeds = false;
        for (int v = 0; v < b->stmts[k]->nres; v++) feeds |= rw_marked(r, b->stmts[k]->res[v]);
        if (!feeds) continue;
        if (after[k]) return false;
        mark_stmt_reads(r, b->stmts[k]);
    }
    return true;
}

/* Two reductions of b (statements i < j) of arrays of one length whose
 * totals scalar code combines: their places in *i and *j. source[k]: the
 * reduction (its place) that statement k's scalar value comes from, -1
 * none, -2 several. */
static bool meeting_reductions(const IrBody *b, int *i, int *j) {
    int *source = calloc((size_t)b->nstmts + 1, sizeof(int));
    if (!source) diag_fatal("out of memory in the optimiser");
    bool found = false;
    for (int k = 0; k < b->nstmts && !found; k++) {
        const IrStmt *t = b->stmts[k];
        source[k] = -1;
        if (t->dead) continue;
        if (t->op == IR_REDUCE) {
            source[k] = k;
            continue;
        }
        if (!ir_op_is_alu(t->op) && t->op != IR_SELECT && t->op != IR_CONVERT) continue;
        for (int a = 0; a < t->nargs && !found; a++) {
            int place = place_in(b, t->args[a]), from = place >= 0 ? source[place] : -1;
            if (from == -1) continue;
            if (source[k] == -1) source[k] = from;
            else if (from != source[k]) {
                *i = from < source[k] ? from : source[k];
                *j = from < source[k] ? source[k] : from;
                const IrStmt *x = b->stmts[*i], *y = b->stmts[*j];
                found = x->args[x->nargs - 1]->log_len == y->args[y->nargs - 1]->log_len;
                source[k] = -2;
            }
        }
    }
    free(source);
    return found;
}

/* r1 (reduce op1 z1 xs) reduces the zip of xs and r2's array ys instead:
 * z1.. z2.., params (a1.. a2.. b1.. b2..) with r2's statements after r1's,
 * r2's results after r1's; r2 dies. Returns the zip, placed by the caller. */
static IrStmt *reduce_both(Rewriter *r, IrStmt *r1, IrStmt *r2) {
    int n1 = r1->nargs - 1, n2 = r2->nargs - 1;
    IrVal *pair[2] = {r1->args[n1], r2->args[n2]};
    const ElemType *fields[2] = {pair[0]->elem, pair[1]->elem};
    IrStmt *zip = NEW(r->p->arena, IrStmt);
    zip->op = IR_ZIP;
    zip->loc = r1->loc;
    zip->alu = OP_COUNT;
    zip->nargs = 2;
    zip->args = NEW_ARRAY(r->p->arena, IrVal *, 2);
    memcpy(zip->args, pair, sizeof pair);
    IrVal *zipped = ir_add_result(r->p, zip, pair[0]->log_len, elem_tuple(r->p->arena, 2, fields));
    rw_add_use(r, zipped);
    IrVal **args = NEW_ARRAY(r->p->arena, IrVal *, n1 + n2 + 1);
    memcpy(args, r1->args, sizeof(IrVal *) * (size_t)n1);
    memcpy(args + n1, r2->args, sizeof(IrVal *) * (size_t)n2);
    args[n1 + n2] = zipped;
    r1->args = args;
    r1->nargs = n1 + n2 + 1;
    IrBody *f = r1->body, *g = r2->body;
    IrVal **params = NEW_ARRAY(r->p->arena, IrVal *, 2 * (n1 + n2));
    for (int side = 0; side < 2; side++) {
        memcpy(params + side * (n1 + n2), f->params + side * n1, sizeof(IrVal *) * (size_t)n1);
        memcpy(params + side * (n1 + n2) + n1, g->params + side * n2, sizeof(IrVal *) * (size_t)n2);
    }
    f->params = params;
    f->nparams = 2 * (n1 + n2);
    for (int k = 0; k < g->nstmts; k++) ir_body_push(r->p, f, g->stmts[k]);
    for (int k = 0; k < g->nresults; k++) ir_body_add_result(r->p, f, g->results[k]);
    IrVal **res = NEW_ARRAY(r->p->arena, IrVal *, r1->nres + r2->nres);
    memcpy(res, r1->res, sizeof(IrVal *) * (size_t)r1->nres);
    memcpy(res + r1->nres, r2->res, sizeof(IrVal *) * (size_t)r2->nres);
    for (int k = 0; k < r2->nres; k++) r2->res[k]->def = r1;
    r1->res = res;
    r1->nres += r2->nres;
    r1->commutative = false;
    r2->dead = true;
    r2->body = NULL;
    r2->nres = 0;
    return zip;
}

/* Two reductions of a two's block (not element code: element_code) whose
 * totals scalar code combines, of arrays of one length:
 *   reduce op1 z1 xs, reduce op2 z2 ys = reduce op (z1, z2) (zip xs ys)
 * with op (a1, a2) (b1, b2) = (op1 a1 b1, op2 a2 b2): the same tree of each,
 * so the same bits. It takes the later one's place; what reads the earlier
 * one's totals in between moves after it (when the later one reads none of
 * that). The scalar code then reads the totals of one reduction, which
 * two-reduce-blocks runs as a whole-array stage. */
bool rule_two_reduce_zip(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (element_code(r, s)) return false;
    IrBody *b = s->body;
    int i = 0, j = 0;
    if (!meeting_reductions(b, &i, &j)) return false;
    bool *moves = calloc((size_t)b->nstmts, sizeof(bool));
    if (!moves) diag_fatal("out of memory in the optimiser");
    if (!after_both(r, b, i, j, moves)) {
        free(moves);
        return false;
    }
    IrStmt *r1 = b->stmts[i], *r2 = b->stmts[j];
    rw_fired(r, r1);
    IrStmt *zip = reduce_both(r, r1, r2);
    /* b's statements again: up to j those that do not read r1, the zip and
       r1 at j, then those that do */
    IrStmt **stmts = NEW_ARRAY(r->p->arena, IrStmt *, b->nstmts + 1);
    int n = 0;
    for (int k = 0; k < b->nstmts; k++) {
        if (k == j) {
            stmts[n++] = zip;
            stmts[n++] = r1;
            for (int m = i + 1; m < j; m++)
                if (moves[m]) stmts[n++] = b->stmts[m];
        } else if (k != i && !(k < j && moves[k])) {
            stmts[n++] = b->stmts[k];
        }
    }
    free(moves);
    b->stmts = stmts;
    b->nstmts = b->cap = n;
    return true;
}
