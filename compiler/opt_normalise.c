/* opt_normalise.c: parm and col in terms of bmmc and two.
 *
 *   parm m f = bmmc A⁻¹ ∘ two 1 f ∘ bmmc A
 *   col m f  = bmmc B⁻¹ ∘ two (n-1) f ∘ bmmc B
 *
 * A sends index bit parity(i & m) to the top bit and i without bit lsb(m) to
 * the low bits, which is parm's definition; B sends each pair {i, i ^ m} to
 * adjacent positions (2p, 2p+1) with the lower index first, so `two (n-1)`
 * hands f exactly col's pairs. After this pass only bmmc and two remain, and
 * the rewrite rules can move the permutations around. A POS in col's body
 * (coli) gave the pair's lower index i; in the two it gets the block p, and
 * i = B⁻¹·2p. parm's half is two's block, so its POS need nothing. */
#include "opt.h"

F2Mat opt_parm_matrix(int n, uint64_t m) {
    F2Mat a = f2_zero(n);
    int low = __builtin_ctzll(m);
    for (int j = 0; j < n - 1; j++) a.row[j] = UINT64_C(1) << (j < low ? j : j + 1);
    a.row[n - 1] = m;
    return a;
}

/* Output bit 0 is bit hb(m) of the input; the other output bits are the
 * other input bits, each corrected so that B·m = e0 (parity(row & m) = 0). */
F2Mat opt_col_matrix(int n, uint64_t m) {
    F2Mat b = f2_zero(n);
    int hb = f2_top_bit(m);
    b.row[0] = UINT64_C(1) << hb;
    int out = 1;
    for (int src = 0; src < n; src++) {
        if (src == hb) continue;
        uint64_t row = UINT64_C(1) << src;
        if (m >> src & 1) row |= UINT64_C(1) << hb;
        b.row[out++] = row;
    }
    return b;
}

static IrStmt *new_bmmc(IrProgram *p, IrBody *b, Loc loc, IrVal *x, const F2Mat *m, IrVal *result) {
    IrStmt *s = ir_append(p, b, IR_BMMC, loc, 1, &x);
    s->mat = NEW(p->arena, F2Mat);
    *s->mat = *m;
    if (result) {
        s->res = NEW_ARRAY(p->arena, IrVal *, 1);
        s->res[0] = result;
        s->nres = 1;
        result->def = s;
    } else {
        ir_add_result(p, s, x->log_len, x->elem);
    }
    return s;
}

static void positions_from_blocks(IrBody *body, const F2Mat *col_inv) {
    uint64_t rows[F2_MAX];
    for (int j = 0; j < col_inv->n; j++) rows[j] = col_inv->row[j] >> 1;
    for (int i = 0; i < body->nstmts; i++)
        if (body->stmts[i]->op == IR_POS) ir_pos_substitute(body->stmts[i], rows, col_inv->n, 0);
}

/* Replace `y = parm/col m f x` by bmmc, two, bmmc appended to `out`. The
 * result value y keeps its identity, so its uses need no rewriting. */
static void expand(IrProgram *p, IrBody *out, IrStmt *s) {
    IrVal *x = s->args[0], *y = s->res[0];
    int n = x->log_len;
    F2Mat a = s->op == IR_PARM ? opt_parm_matrix(n, s->mask) : opt_col_matrix(n, s->mask);
    F2Mat inv;
    f2_invert(&a, &inv);
    if (s->op == IR_COL) positions_from_blocks(s->body, &inv);
    IrStmt *in = new_bmmc(p, out, s->loc, x, &a, NULL);
    IrStmt *two = ir_append(p, out, IR_TWO, s->loc, 1, in->res);
    two->k = s->op == IR_PARM ? 1 : n - 1;
    two->body = s->body;
    IrVal *mid = ir_add_result(p, two, n, y->elem);
    new_bmmc(p, out, s->loc, mid, &inv, y);
}

static void normalise_body(IrProgram *p, IrBody *b) {
    IrStmt **old = b->stmts;
    int count = b->nstmts;
    b->stmts = NULL;
    b->nstmts = b->cap = 0;
    for (int i = 0; i < count; i++) {
        IrStmt *s = old[i];
        if (s->body) normalise_body(p, s->body);
        if (s->op == IR_PARM || s->op == IR_COL) expand(p, b, s);
        else ir_body_push(p, b, s);
    }
}

void opt_normalise(IrProgram *p) {
    for (int i = 0; i < p->nfuncs; i++) normalise_body(p, p->funcs[i]->body);
}
