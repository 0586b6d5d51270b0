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
 * i = B⁻¹·2p. parm's half is two's block, so its POS need nothing. A
 * column of neighbours between two shifts, and a map over an array zipped
 * with its shifts that compares pairs at a distance, become masked columns
 * first (opt_neighbours.c, opt_stencil.c). */
#include "opt.h"
#include "opt_neighbours.h"
#include "opt_stencil.h"

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

/* The matrices of parm m and col m on 2^n elements and their inverses,
 * shared by every statement with the same (op, n, m): a nest of a large
 * sort or a ranged entry has hundreds of thousands of parms but few distinct
 * ones, and a matrix takes half a kilobyte. Shared matrices are not the
 * statements' own (IrStmt.own_mat), so rewrites copy them before a change. */
typedef struct {
    IrOp op;
    int n;
    uint64_t mask;
    F2Mat *fwd, *inv;
} MatPair;

typedef struct {
    MatPair *slots; /* open addressing; fwd == NULL marks a free slot */
    int cap, count;
} MatCache;

static unsigned mat_hash(IrOp op, int n, uint64_t mask, int cap) {
    uint64_t h = (mask * UINT64_C(0x9E3779B97F4A7C15)) ^ ((uint64_t)n << 8 | (uint64_t)op);
    h ^= h >> 29;
    return (unsigned)(h * UINT64_C(0xBF58476D1CE4E5B9) >> 32) & (unsigned)(cap - 1);
}

static MatPair *mat_slot(MatCache *c, IrOp op, int n, uint64_t mask) {
    unsigned i = mat_hash(op, n, mask, c->cap);
    while (c->slots[i].fwd &&
           !(c->slots[i].op == op && c->slots[i].n == n && c->slots[i].mask == mask))
        i = (i + 1) & (unsigned)(c->cap - 1);
    return &c->slots[i];
}

/* The table lives in the arena: an error on the way leaks nothing. */
static MatPair *mat_pair(IrProgram *p, MatCache *c, IrOp op, int n, uint64_t mask) {
    if (2 * (c->count + 1) > c->cap) {
        MatCache bigger = {NEW_ARRAY(p->arena, MatPair, c->cap ? 2 * c->cap : 64),
                           c->cap ? 2 * c->cap : 64, 0};
        for (int i = 0; i < c->cap; i++)
            if (c->slots[i].fwd)
                *mat_slot(&bigger, c->slots[i].op, c->slots[i].n, c->slots[i].mask) = c->slots[i];
        bigger.count = c->count;
        *c = bigger;
    }
    MatPair *e = mat_slot(c, op, n, mask);
    if (!e->fwd) {
        e->op = op;
        e->n = n;
        e->mask = mask;
        e->fwd = NEW(p->arena, F2Mat);
        e->inv = NEW(p->arena, F2Mat);
        *e->fwd = op == IR_PARM ? opt_parm_matrix(n, mask) : opt_col_matrix(n, mask);
        f2_invert(e->fwd, e->inv);
        c->count++;
    }
    return e;
}

static IrStmt *new_bmmc(IrProgram *p, IrBody *b, Loc loc, IrVal *x, F2Mat *m, IrVal *result) {
    IrStmt *s = ir_append(p, b, IR_BMMC, loc, 1, &x);
    s->mat = m;
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
static void expand(IrProgram *p, MatCache *c, IrBody *out, IrStmt *s) {
    IrVal *x = s->args[0], *y = s->res[0];
    int n = x->log_len;
    MatPair *m = mat_pair(p, c, s->op, n, s->mask);
    if (s->op == IR_COL) positions_from_blocks(s->body, m->inv);
    IrStmt *in = new_bmmc(p, out, s->loc, x, m->fwd, NULL);
    IrStmt *two = ir_append(p, out, IR_TWO, s->loc, 1, in->res);
    two->k = s->op == IR_PARM ? 1 : n - 1;
    two->body = s->body;
    IrVal *mid = ir_add_result(p, two, n, y->elem);
    new_bmmc(p, out, s->loc, mid, m->inv, y);
}

static void normalise_body(IrProgram *p, MatCache *c, IrBody *b) {
    opt_neighbour_columns(p, b);
    opt_stencil_columns(p, b);
    IrStmt **old = b->stmts;
    int count = b->nstmts;
    b->stmts = NULL;
    b->nstmts = b->cap = 0;
    for (int i = 0; i < count; i++) {
        IrStmt *s = old[i];
        if (s->body) normalise_body(p, c, s->body);
        if (s->op == IR_PARM || s->op == IR_COL) expand(p, c, b, s);
        else ir_body_push(p, b, s);
    }
}

void opt_normalise(IrProgram *p) {
    MatCache c = {0};
    for (int i = 0; i < p->nfuncs; i++) normalise_body(p, &c, p->funcs[i]->body);
}
