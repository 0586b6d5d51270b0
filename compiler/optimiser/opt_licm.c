/* opt_licm.c: loop-invariant code motion (hoist-invariant), part of the
 * rewrite pass (opt_rewrite.h): a body's array work that does not depend on
 * its parameters moves before the statement that runs the body. */
#include "opt_licm.h"

#include <stdlib.h>

/* ---- loop-invariant code motion ---- */

/* Array work: a statement that reads an array or runs a body. Done inside a
 * body that does not need it, it would run once per instance (and element
 * code cannot do it at all); scalar work is left where it is, as element
 * code does it best. */
static bool is_array_work(const IrStmt *t) {
    if (t->body) return true;
    for (int a = 0; a < t->nargs; a++)
        if (!ir_is_scalar(t->args[a])) return true;
    return false;
}

/* Which statements of b vary with its instance: those that read a parameter
 * or what varies (in their own bodies too), and positions. */
static bool *varying_stmts(Rewriter *r, const IrBody *b) {
    bool *varies = calloc((size_t)b->nstmts + 1, sizeof(bool));
    if (!varies) diag_fatal("out of memory in the optimiser");
    rw_grow(r);
    r->epoch++;
    for (int i = 0; i < b->nparams; i++) r->mark[b->params[i]->id] = r->epoch;
    for (int i = 0; i < b->nstmts; i++) {
        const IrStmt *t = b->stmts[i];
        bool v = t->dead || t->op == IR_POS || (t->body && rw_reads_marked(r, t->body));
        for (int a = 0; a < t->nargs && !v; a++) v = r->mark[t->args[a]->id] == r->epoch;
        varies[i] = v;
        if (v)
            for (int k = 0; k < t->nres; k++) r->mark[t->res[k]->id] = r->epoch;
    }
    return varies;
}

/* Which statements leave b: the invariant array work, and the invariant
 * statements it reads (constants excepted: they are copied), found from the
 * end back. Marks with the current epoch what the leaving ones read. */
static bool *leaving_stmts(Rewriter *r, const IrBody *b, const bool *varies) {
    bool *leaves = calloc((size_t)b->nstmts + 1, sizeof(bool));
    if (!leaves) diag_fatal("out of memory in the optimiser");
    r->epoch++;
    for (int i = b->nstmts - 1; i >= 0; i--) {
        IrStmt *t = b->stmts[i];
        if (varies[i] || t->op == IR_CONST) continue;
        bool needed = is_array_work(t);
        for (int k = 0; k < t->nres && !needed; k++) needed = r->mark[t->res[k]->id] == r->epoch;
        if (!needed) continue;
        leaves[i] = true;
        for (int a = 0; a < t->nargs; a++) r->mark[t->args[a]->id] = r->epoch;
        if (t->body) rw_mark_reads(r, t->body);
    }
    return leaves;
}

/* Every read of `from` in t (its body included) becomes a read of `to`. */
static void reread(Rewriter *r, IrStmt *t, IrVal *from, IrVal *to) {
    IrBody one = {.nstmts = 1, .stmts = &t};
    int before = rw_uses(r, to);
    rw_substitute(r, &one, &from, &to, 1);
    r->uses[from->id] -= rw_uses(r, to) - before;
}

/* A body's statements that do not depend on its parameters, transitively,
 * and that do array work (a reduce of an array from outside, a map over
 * one, ...), move before s into `out`, with the invariant scalars they read:
 * they compute the same values once instead of once per instance, and whole-
 * array work inside a map reaches the entry's level, where the back ends
 * plan it. The IR is pure and a body runs at least once per statement (a
 * reduce of one element excepted, where the moved work is merely unused), so
 * the values are the same bit for bit. Constants the moved statements read
 * are copied, as element code keeps its own. */
bool rule_hoist_invariant(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (!s->body) return false;
    IrBody *b = s->body;
    bool *varies = varying_stmts(r, b), *leaves = leaving_stmts(r, b, varies);
    bool any = false;
    for (int i = 0; i < b->nstmts && !any; i++) any = leaves[i];
    if (any) {
        rw_fired(r, s);
        IrStmt **moved = NEW_ARRAY(r->p->arena, IrStmt *, b->nstmts);
        int nmoved = 0, kept = 0;
        for (int i = 0; i < b->nstmts; i++)
            if (leaves[i]) moved[nmoved++] = b->stmts[i];
        for (int i = 0; i < b->nstmts; i++) {
            IrStmt *c = b->stmts[i];
            if (c->dead || c->op != IR_CONST || r->mark[c->res[0]->id] != r->epoch) continue;
            IrStmt *copy = ir_append(r->p, out, IR_CONST, c->loc, 0, NULL);
            copy->cval = c->cval;
            IrVal *v = ir_add_result(r->p, copy, -1, c->res[0]->elem);
            for (int m = 0; m < nmoved; m++) reread(r, moved[m], c->res[0], v);
            if (!rw_uses(r, c->res[0])) rw_kill(r, c);
            rw_drain(r);
        }
        for (int i = 0; i < b->nstmts; i++)
            if (!leaves[i] && !b->stmts[i]->dead) b->stmts[kept++] = b->stmts[i];
        b->nstmts = kept;
        for (int m = 0; m < nmoved; m++) rw_emit(r, out, moved[m]);
    }
    free(varies);
    free(leaves);
    return any;
}
