/* opt_lengths.c: the rules on arrays that change length (half, join and
 * shift), part of the rewrite pass (opt_rewrite.h): they cancel, combine,
 * trade places with maps and permutations, and in element code on small
 * blocks become builds of the elements they read (lengths-build); on large
 * blocks a shift whose fill the block computes becomes a shift and a map
 * that writes the fill (shift-fill-map). */
#include "opt_lengths.h"

/* ---- arrays that change length (half, join, shift) ---- */

static uint64_t insert_zero_bit(uint64_t x, int bit) {
    uint64_t below = (UINT64_C(1) << bit) - 1;
    return ((x & ~below) << 1) | (x & below);
}

static uint64_t delete_bit(uint64_t x, int bit) {
    uint64_t below = (UINT64_C(1) << bit) - 1;
    return ((x >> (bit + 1)) << bit) | (x & below);
}

/* One value, or two constants of the same bits. */
static bool same_scalar(const IrVal *a, const IrVal *b) {
    if (a == b) return true;
    const IrStmt *da = a->def, *db = b->def;
    return da && db && da->op == IR_CONST && db->op == IR_CONST && a->elem->prim == b->elem->prim &&
           scalar_equal(a->elem->prim, da->cval, db->cval);
}

/* shift 0 x = id */
bool rule_shift_zero(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (s->dist != 0) return false;
    rw_fired(r, s);
    rw_replace(r, s, s->res[0], s->args[s->nargs - 1]);
    return true;
}

/* shift d x xs = replicate n x when |d| >= 2^k, its blocks' length: no
 * element is inside */
bool rule_shift_out(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    int n = s->res[0]->log_len;
    if (s->dist < (INT64_C(1) << s->k) && s->dist > -(INT64_C(1) << s->k)) return false;
    rw_fired(r, s);
    IrVal *xs = s->args[s->nargs - 1];
    s->op = IR_REPLICATE;
    s->k = n;
    s->nargs--;
    rw_drop_use(r, xs);
    rw_drain(r);
    return true;
}

/* shift d x (shift e x xs) = shift (d + e) x xs when d and e have one sign,
 * the blocks are the same and the fills are the same values: an element
 * that the inner shift filled moves further out with the outer one, so it
 * is x either way */
bool rule_shift_shift(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = rw_sole_def(r, s->args[s->nargs - 1], IR_SHIFT);
    int64_t sum;
    if (!d || d->k != s->k || (s->dist > 0) != (d->dist > 0) ||
        __builtin_add_overflow(s->dist, d->dist, &sum))
        return false;
    for (int k = 0; k < s->nargs - 1; k++)
        if (!same_scalar(s->args[k], d->args[k])) return false;
    rw_fired(r, s);
    s->dist = sum;
    rw_set_arg(r, s, s->nargs - 1, d->args[d->nargs - 1]);
    return true;
}

/* half m b (join m ys zs) = ys or zs */
bool rule_half_join(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = s->args[0]->def;
    if (!d || d->dead || d->op != IR_JOIN || d->mask != s->mask) return false;
    rw_fired(r, s);
    rw_replace(r, s, s->res[0], d->args[s->k]);
    return true;
}

/* Where the join m of the halves m' of xs (half k_0 first, k_1 = 1 - k_0)
 * puts element x of xs: x is in half b = parity(x & m') at sub-index j =
 * x without bit lsb(m'), that half is the join's argument h = b ⊕ k_0,
 * and the join puts it at j with bit lsb(m) inserted so that
 * parity(i & m) = h. Affine in x. */
static uint64_t join_half_image(uint64_t m, uint64_t m2, int k0, uint64_t x) {
    int low = __builtin_ctzll(m), h = f2_parity(x & m2) ^ k0;
    uint64_t j = insert_zero_bit(delete_bit(x, __builtin_ctzll(m2)), low);
    return j | (uint64_t)(f2_parity(j & m) ^ h) << low;
}

/* join m (half m' b xs) (half m' (1-b) xs) = bmmc (A,c) xs: every element of
 * xs is in one of the halves, so the join only moves them, by the affine
 * bijection join_half_image (read off the images of 0 and each e_t); xs
 * itself when m' = m and b = 0. A swap of halves is a permutation, which
 * chains of stages take (one GPU's and several GPUs'), not a gather pass
 * of its own. */
bool rule_join_half(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *lo = s->args[0]->def, *hi = s->args[1]->def;
    if (!lo || !hi || lo->dead || hi->dead || lo->op != IR_HALF || hi->op != IR_HALF ||
        lo->mask != hi->mask || lo->k == hi->k || lo->args[0] != hi->args[0])
        return false;
    rw_fired(r, s);
    IrVal *xs = lo->args[0];
    if (lo->mask == s->mask && lo->k == 0) {
        rw_replace(r, s, s->res[0], xs);
        return true;
    }
    int n = s->res[0]->log_len;
    uint64_t c = join_half_image(s->mask, lo->mask, lo->k, 0);
    F2Mat moved = f2_zero(n);
    for (int t = 0; t < n; t++) {
        uint64_t col = join_half_image(s->mask, lo->mask, lo->k, UINT64_C(1) << t) ^ c;
        for (int i = 0; i < n; i++) moved.row[i] |= (col >> i & 1) << t;
    }
    s->op = IR_BMMC;
    s->mask = 0;
    s->k = 0;
    s->compl = c;
    s->own_mat = false;
    rw_set_matrix(r, s, NULL, &moved);
    IrVal *second = s->args[1];
    s->nargs = 1;
    rw_drop_use(r, second);
    rw_set_arg(r, s, 0, xs);
    return true;
}

/* half m b ∘ map f = map f ∘ half m b when f does not read its position:
 * f runs on half the elements */
bool rule_half_map(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = rw_sole_def(r, s->args[0], IR_MAP);
    if (!d || rw_reads_position(d->body)) return false;
    rw_fired(r, s);
    IrStmt *h = rw_detached(r, IR_HALF, s->loc, d->args[0]);
    h->mask = s->mask;
    h->k = s->k;
    IrVal *halved = ir_add_result(r->p, h, s->res[0]->log_len, d->args[0]->elem);
    s->op = IR_MAP;
    s->body = d->body;
    d->body = NULL;
    rw_set_arg(r, s, 0, halved);
    rw_emit(r, out, h);
    return true;
}

/* half m b ∘ bmmc (A,c) = bmmc (A',c') ∘ half m' b', for every invertible
 * A: the element y = A·x ⊕ c is kept when parity(y & m) = b, that is when
 * parity(x & m') = b' with m' the sum of the rows of A that m selects and
 * b' = b ⊕ parity(m & c); x is then x' (its sub-index) with bit lsb(m')
 * inserted, affine in x', and y's sub-index is y with bit lsb(m) deleted,
 * linear in y: so the kept elements move by an affine bijection (A', c')
 * of the sub-indices, computed here column by column. The permutation
 * moves towards the output, on half the elements. */
bool rule_half_bmmc(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = rw_sole_def(r, s->args[0], IR_BMMC);
    if (!d) return false;
    rw_fired(r, s);
    const F2Mat *a = d->mat;
    int n = a->n, low = __builtin_ctzll(s->mask);
    uint64_t m2 = 0;
    for (int i = 0; i < n; i++)
        if (s->mask >> i & 1) m2 ^= a->row[i];
    int b2 = s->k ^ f2_parity(s->mask & d->compl ), low2 = __builtin_ctzll(m2);
    IrStmt *h = rw_detached(r, IR_HALF, s->loc, d->args[0]);
    h->mask = m2;
    h->k = b2;
    IrVal *halved = ir_add_result(r->p, h, n - 1, s->res[0]->elem);
    if (n == 1) { /* one element kept: no permutation of it */
        rw_emit(r, out, h);
        rw_replace(r, s, s->res[0], halved);
        return true;
    }
    F2Mat moved = f2_zero(n - 1);
    for (int j = 0; j < n - 1; j++) {
        uint64_t x = insert_zero_bit(UINT64_C(1) << j, low2);
        x |= (uint64_t)f2_parity(x & m2) << low2;
        uint64_t y = delete_bit(f2_apply(a, x), low);
        for (int i = 0; i < n - 1; i++) moved.row[i] |= (y >> i & 1) << j;
    }
    s->op = IR_BMMC;
    s->mask = 0;
    s->k = 0;
    s->compl = delete_bit(f2_apply(a, (uint64_t)b2 << low2) ^ d->compl, low);
    s->own_mat = false;
    rw_set_matrix(r, s, NULL, &moved);
    rw_set_arg(r, s, 0, halved);
    rw_emit(r, out, h);
    return true;
}

/* join m (bmmc (P,c0) ys) (bmmc (P,c1) zs) = bmmc (Q,q) (join m ys zs): the
 * element of the inner join at i' (half h = parity(i' & m), sub-index j' =
 * i' without bit lsb(m)) is at j = P·j' ⊕ c_h of half h in the outer one,
 * that is at i = j with bit lsb(m) inserted so that parity(i & m) = h:
 * affine in i', so (Q, q) is read off the images of 0 and of each e_t. */
static uint64_t join_bmmc_image(const IrStmt *s, const F2Mat *p, const uint64_t *c, uint64_t i) {
    int low = __builtin_ctzll(s->mask), h = f2_parity(i & s->mask);
    uint64_t j = insert_zero_bit(f2_apply(p, delete_bit(i, low)) ^ c[h], low);
    return j | (uint64_t)(f2_parity(j & s->mask) ^ h) << low;
}

bool rule_join_bmmc(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (s->args[0] == s->args[1]) return false;
    IrStmt *d0 = rw_sole_def(r, s->args[0], IR_BMMC), *d1 = rw_sole_def(r, s->args[1], IR_BMMC);
    if (!d0 || !d1 || !f2_equal(d0->mat, d1->mat)) return false;
    rw_fired(r, s);
    int n = s->res[0]->log_len;
    uint64_t c[2] = {d0->compl, d1->compl }, q = join_bmmc_image(s, d0->mat, c, 0);
    F2Mat moved = f2_zero(n);
    for (int t = 0; t < n; t++) {
        uint64_t col = join_bmmc_image(s, d0->mat, c, UINT64_C(1) << t) ^ q;
        for (int i = 0; i < n; i++) moved.row[i] |= (col >> i & 1) << t;
    }
    IrStmt *j = rw_detached(r, IR_JOIN, s->loc, d0->args[0]);
    j->mask = s->mask;
    j->nargs = 2;
    j->args = NEW_ARRAY(r->p->arena, IrVal *, 2);
    j->args[0] = d0->args[0];
    j->args[1] = d1->args[0];
    rw_add_use(r, d1->args[0]);
    IrVal *joined = ir_add_result(r->p, j, n, s->res[0]->elem);
    s->op = IR_BMMC;
    s->mask = 0;
    s->compl = q;
    s->own_mat = false;
    rw_set_matrix(r, s, NULL, &moved);
    IrVal *second = s->args[1];
    s->nargs = 1;
    rw_drop_use(r, second);
    rw_set_arg(r, s, 0, joined);
    rw_emit(r, out, j);
    return true;
}

/* ---- a shift whose fill a block computes ---- */

/* Whether a function's body works on blocks of at most 2^3 elements (or
 * on scalars): element code on them fits one thread's registers. */
static bool small_body(const IrBody *b) {
    for (int i = 0; i < b->nparams; i++)
        if (b->params[i]->log_len > 3) return false;
    return true;
}

/* A new statement of op on args (their reads counted), appended to b, or
 * detached when b is NULL (rw_emit places it). */
static IrStmt *new_stmt(Rewriter *r, IrBody *b, IrOp op, Loc loc, int nargs, IrVal **args) {
    IrStmt *t = rw_detached_n(r, op, loc, nargs, args);
    if (b) ir_body_push(r->p, b, t);
    return t;
}

static IrVal *constant(Rewriter *r, IrBody *b, Loc loc, Prim p, int64_t v) {
    IrStmt *c = new_stmt(r, b, IR_CONST, loc, 0, NULL);
    c->cval = scalar_from_int(p, v);
    return ir_add_result(r->p, c, -1, elem_prim(p));
}

/* The map that puts the fill back: element i of xs where i's place in its
 * block of 2^k is one a shift by d fills, fill's slots there. */
static IrBody *refill_body(Rewriter *r, const IrStmt *s, const ElemType *elem) {
    int ns = elem->nslots;
    IrBody *f = ir_new_body(r->p);
    IrVal **params = NEW_ARRAY(r->p->arena, IrVal *, ns);
    for (int k = 0; k < ns; k++)
        params[k] = ir_body_add_param(r->p, f, -1, elem_prim(elem_slot_prim(elem, k)));
    IrStmt *pos = new_stmt(r, f, IR_POS, s->loc, 0, NULL);
    pos->mat = NEW(r->p->arena, F2Mat);
    pos->mat->n = s->k;
    for (int bit = 0; bit < s->k; bit++) pos->mat->row[bit] = UINT64_C(1) << bit;
    IrVal *at[2] = {ir_add_result(r->p, pos, -1, elem_prim(PRIM_I64)),
                    constant(r, f, s->loc, PRIM_I64,
                             s->dist > 0 ? s->dist : (INT64_C(1) << s->k) + s->dist)};
    IrStmt *test = new_stmt(r, f, IR_BINARY, s->loc, 2, at);
    test->alu = s->dist > 0 ? OP_LT : OP_GE;
    IrVal *filled = ir_add_result(r->p, test, -1, elem_prim(PRIM_BOOL));
    for (int k = 0; k < ns; k++) {
        IrVal *pick[3] = {filled, s->args[k], params[k]};
        IrStmt *sel = new_stmt(r, f, IR_SELECT, s->loc, 3, pick);
        IrVal *v = ir_add_result(r->p, sel, -1, elem_prim(elem_slot_prim(elem, k)));
        ir_body_add_result(r->p, f, v);
        rw_add_use(r, v);
    }
    return f;
}

/* In a function's body on large blocks, shift d x xs with x computed from
 * the block (an element, a reduction: not rw_plain_scalar) = the shift with a constant fill,
 * then a map that writes x where the shift filled. The map reads x like
 * any map reading a block's scalar (two-reduce-blocks), so two-lift can
 * run the shift on the whole array, where one fill cannot serve every
 * block. */
bool rule_shift_fill_map(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (out == r->top || small_body(out)) return false;
    int ns = s->nargs - 1;
    bool computed = false;
    for (int k = 0; k < ns && !computed; k++) computed = !rw_plain_scalar(out, s->args[k]);
    if (!computed) return false;
    rw_fired(r, s);
    const IrVal *res = s->res[0];
    IrVal **args = NEW_ARRAY(r->p->arena, IrVal *, ns + 1);
    for (int k = 0; k < ns; k++) {
        IrVal *zero = constant(r, NULL, s->loc, elem_slot_prim(res->elem, k), 0);
        rw_emit(r, out, zero->def);
        args[k] = zero;
    }
    args[ns] = s->args[ns];
    IrStmt *shifted = new_stmt(r, NULL, IR_SHIFT, s->loc, ns + 1, args);
    shifted->dist = s->dist;
    shifted->k = s->k;
    IrVal *plain = ir_add_result(r->p, shifted, res->log_len, res->elem);
    IrStmt *map = new_stmt(r, NULL, IR_MAP, s->loc, 1, &plain);
    map->body = refill_body(r, s, res->elem);
    IrVal *refilled = ir_add_result(r->p, map, res->log_len, res->elem);
    rw_emit(r, out, shifted);
    rw_emit(r, out, map);
    rw_replace(r, s, s->res[0], refilled);
    return true;
}

/* The argument and element that element i of a half, join or shift reads
 * (ir.h); -1 for a shift's fill. */
int rw_length_source(const IrStmt *s, int64_t i, int64_t *at) {
    int low = s->op == IR_SHIFT ? 0 : __builtin_ctzll(s->mask);
    int64_t below = (INT64_C(1) << low) - 1;
    if (s->op == IR_HALF) {
        int64_t j = ((i & ~below) << 1) | (i & below);
        *at = j | (int64_t)(__builtin_parityll((uint64_t)j & s->mask) ^ s->k) << low;
        return 0;
    }
    if (s->op == IR_JOIN) {
        *at = ((i >> (low + 1)) << low) | (i & below);
        return __builtin_parityll((uint64_t)i & s->mask);
    }
    int64_t block = INT64_C(1) << s->k, pos = i & (block - 1);
    bool inside = s->dist >= 0 ? s->dist <= pos : s->dist >= pos - block + 1;
    *at = inside ? i - s->dist : 0;
    return inside ? s->nargs - 1 : -1;
}

/* In a function's body on small blocks, a half, join or shift on arrays of
 * at most 2^3 elements = the build of the elements it reads (index), which
 * element code keeps in registers (2^3 elements of any type fit one
 * thread's); at the entry's level, and in bodies on larger blocks, they
 * stay whole-array statements (which two-lift lifts). */
bool rule_lengths_build(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (out == r->top || !small_body(out) || s->args[s->nargs - 1]->log_len > 3 ||
        s->res[0]->log_len > 3)
        return false;
    rw_fired(r, s);
    const IrVal *res = s->res[0];
    int ns = res->elem->nslots, len = 1 << res->log_len;
    IrStmt *build = NEW(r->p->arena, IrStmt);
    build->op = IR_BUILD;
    build->loc = s->loc;
    build->alu = OP_COUNT;
    build->nargs = len * ns;
    build->args = NEW_ARRAY(r->p->arena, IrVal *, build->nargs);
    for (int i = 0; i < len; i++)
        for (int k = 0; k < ns; k++) {
            int64_t at;
            int from = rw_length_source(s, i, &at);
            IrVal *v = from < 0 ? s->args[k] : NULL;
            if (from >= 0) {
                IrStmt *ix = rw_detached(r, IR_INDEX, s->loc, s->args[from]);
                ix->at = at;
                ix->slot = k;
                v = ir_add_result(r->p, ix, -1, elem_prim(elem_slot_prim(res->elem, k)));
                rw_add_use(r, v); /* the build's read, counted before rules see ix */
                rw_emit(r, out, ix);
            } else {
                rw_add_use(r, v);
            }
            build->args[i * ns + k] = v;
        }
    IrVal *built = ir_add_result(r->p, build, res->log_len, res->elem);
    rw_emit(r, out, build);
    rw_replace(r, s, s->res[0], built);
    return true;
}
