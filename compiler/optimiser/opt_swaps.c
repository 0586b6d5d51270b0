/* opt_swaps.c: a column whose pairs come out swapped on a parity of the
 * position, as the column and a permutation after it (two-swap-out).
 *
 * Comparator networks written from a textbook give each pair a direction
 * that depends on its index: the bitonic sort's
 *
 *   coli (2^j) (\i p -> if (i / 2^k) % 2 == 0 then cas p else swap (cas p))
 *
 * After normalising, that is a `two` over pairs whose body ends in
 * build (select c P Q) (select c Q P) for each slot, c a function of the
 * block p alone: the pair (P, Q) where c holds, swapped elsewhere. When c
 * is a parity, parity(w·p) ⊕ c0 (decided with decision diagrams over the
 * block's bits, opt_posword.h), swapping element x of the result where it
 * fails is the bmmc x ↦ x ⊕ e0·(parity((w << 1)·x) ⊕ c0 ⊕ 1), invertible
 * since w << 1 has no bit 0. The body then builds (P, Q), and the bmmc
 * moves on to meet the next permutation (bmmc-bmmc); the planner makes it
 * the order of the pair in the layout, as the stdlib's sorts have theirs,
 * instead of a select in every pair. */
#include "opt_swaps.h"

#include <stdlib.h>
#include <string.h>

#include "opt_posword.h"

#define SWAP_EQUAL_DEPTH 10 /* how deep values are compared and followed */

/* Whether x and y compute the same scalar: one value, or statements of one
 * op, operator, constant or position on the same values, to a depth. */
static bool same_value(const IrVal *x, const IrVal *y, int depth) {
    if (x == y) return true;
    const IrStmt *a = x->def, *b = y->def;
    if (!a || !b || depth == 0 || a->op != b->op || a->nargs != b->nargs || a->nres != 1 ||
        b->nres != 1 || a->body || b->body || !elem_equal(x->elem, y->elem))
        return false;
    if (a->op == IR_TABLE) return false;
    if (a->op == IR_CONST) return a->cval.u == b->cval.u;
    if (a->op == IR_POS)
        return a->compl == b->compl &&a->mat->n == b->mat->n &&
               !memcmp(a->mat->row, b->mat->row, sizeof(uint64_t) * (size_t)a->mat->n);
    if (a->alu != b->alu || a->to != b->to || a->at != b->at || a->slot != b->slot) return false;
    for (int i = 0; i < a->nargs; i++)
        if (!same_value(a->args[i], b->args[i], depth - 1)) return false;
    return true;
}

/* The condition c when the body's result is, slot by slot, (select c P Q,
 * select c Q P), the same c (or its copies) in every select: the build,
 * and c; NULL otherwise. */
static const IrVal *swapped_pairs(Rewriter *r, const IrBody *b, IrStmt **build) {
    const IrVal *res = b->results[0];
    IrStmt *t = res->def;
    int ns = res->elem->nslots;
    if (!t || t->dead || t->op != IR_BUILD || t->nargs != 2 * ns || rw_uses(r, res) != 1)
        return NULL;
    const IrVal *c = NULL;
    for (int k = 0; k < ns; k++) {
        const IrStmt *lo = t->args[k]->def, *hi = t->args[ns + k]->def;
        if (!lo || !hi || lo->op != IR_SELECT || hi->op != IR_SELECT || lo->dead || hi->dead)
            return NULL;
        if (!same_value(lo->args[0], hi->args[0], SWAP_EQUAL_DEPTH) ||
            (c && !same_value(lo->args[0], c, SWAP_EQUAL_DEPTH)))
            return NULL;
        c = lo->args[0];
        if (!same_value(lo->args[1], hi->args[2], SWAP_EQUAL_DEPTH) ||
            !same_value(lo->args[2], hi->args[1], SWAP_EQUAL_DEPTH))
            return NULL;
    }
    *build = t;
    return c;
}

/* Whether v is computed from the body's position and constants alone
 * (depth levels down): the cheap test before the diagrams. */
static bool position_only(const IrVal *v, int depth) {
    const IrStmt *d = v->def;
    if (!d || depth == 0 || d->body) return false;
    if (d->op == IR_POS || d->op == IR_CONST) return true;
    if (!ir_op_is_alu(d->op) && d->op != IR_SELECT && d->op != IR_CONVERT) return false;
    for (int a = 0; a < d->nargs; a++)
        if (!position_only(d->args[a], depth - 1)) return false;
    return true;
}

static bool eval(const BddSet *b, Bdd f, uint64_t at) {
    while (f != BDD_TRUE && f != BDD_FALSE)
        f = (at >> bdd_top(b, f) & 1) ? bdd_high(b, f) : bdd_low(b, f);
    return f == BDD_TRUE;
}

/* Whether c, a value of body `body` on a block of `nbits` bits, is
 * parity(*w · block) ⊕ *c0 at every block. */
static bool parity_of_block(const IrBody *body, const IrVal *c, int nbits, uint64_t *w, int *c0) {
    if (nbits > 62) return false;
    BddSet *b = bdd_new(nbits);
    if (!b) diag_fatal("out of memory in the optimiser");
    Bdd position[64];
    for (int j = 0; j < nbits; j++) position[j] = bdd_var(b, j);
    int lo, count;
    ir_body_id_range(body, &lo, &count);
    BddInt *words = count > 0 ? calloc((size_t)count, sizeof *words) : NULL;
    bool *known = count > 0 ? calloc((size_t)count, sizeof *known) : NULL;
    if (count > 0 && (!words || !known)) diag_fatal("out of memory in the optimiser");
    for (int i = 0; i < body->nstmts; i++) {
        const IrStmt *s = body->stmts[i];
        if (s->nres != 1 || s->dead || s->nargs > 3) continue;
        const BddInt *args[3] = {NULL, NULL, NULL};
        for (int a = 0; a < s->nargs; a++) {
            int id = s->args[a]->id - lo;
            args[a] = id >= 0 && id < count && known[id] ? &words[id] : NULL;
        }
        int id = s->res[0]->id - lo;
        known[id] = posword(b, s, args, position, nbits, &words[id]);
    }
    int id = c->id - lo;
    bool parity = false;
    if (id >= 0 && id < count && known[id] && !bdd_overflowed(b)) {
        Bdd f = words[id].bit[0], expect = BDD_FALSE;
        *c0 = eval(b, f, 0);
        *w = 0;
        for (int j = 0; j < nbits; j++)
            if (eval(b, f, UINT64_C(1) << j) != *c0) {
                *w |= UINT64_C(1) << j;
                expect = bdd_xor(b, expect, position[j]);
            }
        if (*c0) expect = bdd_not(b, expect);
        parity = expect == f && !bdd_overflowed(b);
    }
    free(words);
    free(known);
    bdd_free(b);
    return parity;
}

bool rule_two_swap_out(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    (void)out;
    IrBody *b = s->body;
    if (b->nparams != 1 || b->params[0]->log_len != 1 || b->nresults != 1 || s->nres != 1)
        return false;
    IrStmt *build;
    const IrVal *c = swapped_pairs(r, b, &build);
    uint64_t w;
    int c0;
    if (!c || !position_only(c, SWAP_EQUAL_DEPTH) || !parity_of_block(b, c, s->k, &w, &c0))
        return false;
    rw_fired(r, s);
    int ns = b->results[0]->elem->nslots;
    for (int k = 0; k < ns; k++) {
        IrStmt *lo = build->args[k]->def;
        rw_set_arg(r, build, ns + k, lo->args[2]);
        rw_set_arg(r, build, k, lo->args[1]);
    }
    int n = s->res[0]->log_len;
    IrVal *old = s->res[0];
    s->res[0] = ir_new_val(r->p, n, old->elem);
    s->res[0]->def = s;
    rw_grow(r);
    IrStmt *swap = rw_detached(r, IR_BMMC, s->loc, s->res[0]);
    swap->res = NEW_ARRAY(r->p->arena, IrVal *, 1);
    swap->res[0] = old;
    swap->nres = 1;
    old->def = swap;
    F2Mat m = f2_identity(n);
    m.row[0] |= w << 1;
    rw_set_matrix(r, swap, NULL, &m);
    swap->compl = (uint64_t)(c0 ^ 1);
    rw_list_push(after, swap);
    return true;
}
