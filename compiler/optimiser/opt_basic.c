/* opt_basic.c: the basic rewrite rules, part of the rewrite pass
 * (opt_rewrite.h): permutations fuse and move towards the output, past maps,
 * scans, reductions and expands; maps join; twos merge, peel into stages,
 * lift to whole-array stages and change their element type at the entry's
 * level. docs/ir.md lists them. */
#include "opt_basic.h"

#include <string.h>

/* b1 then b2, where b2's params are b1's results: b1 grows into the joined
 * body (b2's statements are appended, so a chain of joins costs what it
 * appends). b1's results stop being results; what only they read dies. */
static IrBody *compose(Rewriter *r, IrBody *b1, IrBody *b2) {
    rw_substitute(r, b2, b2->params, b1->results, b2->nparams);
    for (int i = 0; i < b2->nstmts; i++) ir_body_push(r->p, b1, b2->stmts[i]);
    IrVal **old = b1->results;
    int nold = b1->nresults;
    b1->results = b2->results;
    b1->nresults = b2->nresults;
    for (int i = 0; i < nold; i++) rw_drop_use(r, old[i]);
    rw_drain(r);
    rw_compact(b1);
    return b1;
}

/* The body is one statement of kind op on the parameter, which nothing
 * inside that statement's own body reads. */
static bool body_is_single(Rewriter *r, const IrBody *b, IrOp op) {
    return b->nstmts == 1 && b->stmts[0]->op == op && b->stmts[0]->args[0] == b->params[0] &&
           b->nresults == 1 && b->results[0] == b->stmts[0]->res[0] &&
           rw_uses(r, b->params[0]) == 1;
}

bool rule_bmmc_identity(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (s->compl || !f2_is_identity(s->mat)) return false;
    rw_fired(r, s);
    rw_replace(r, s, s->res[0], s->args[0]);
    return true;
}

/* bmmc (A,c) ∘ bmmc (B,d) = bmmc (AB, Ad ⊕ c) */
bool rule_bmmc_fuse(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = rw_sole_def(r, s->args[0], IR_BMMC);
    if (!d) return false;
    rw_fired(r, s);
    F2Mat m = f2_mul(s->mat, d->mat);
    s->compl = f2_apply(s->mat, d->compl ) ^ s->compl ;
    rw_set_matrix(r, s, d, &m);
    rw_set_arg(r, s, 0, d->args[0]);
    return true;
}

bool rule_bmmc_replicate(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (!s->args[0]->def || s->args[0]->def->op != IR_REPLICATE) return false;
    rw_fired(r, s);
    rw_replace(r, s, s->res[0], s->args[0]);
    return true;
}

bool rule_reduce_bmmc(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (!s->commutative) return false;
    IrVal *xs = s->args[s->nargs - 1];
    if (!xs->def || xs->def->op != IR_BMMC) return false;
    rw_fired(r, s);
    rw_set_arg(r, s, s->nargs - 1, xs->def->args[0]);
    return true;
}

/* A bmmc (A, c) on 2^n elements that keeps every block of 2^r in place
 * (output bit i >= r is input bit i): rows r.. are unit rows and c has no
 * bits there. It permutes the elements of each block among themselves,
 * since for fixed high bits the low ones go through an invertible map. */
static bool keeps_blocks(const F2Mat *m, uint64_t compl, int r) {
    if (compl >> r) return false;
    for (int i = r; i < m->n; i++)
        if (m->row[i] != UINT64_C(1) << i) return false;
    return true;
}

/* reduceblocks r op z ∘ bmmc (A,c) = reduceblocks r op z, for a commutative
 * built-in op and a bmmc that keeps each block of 2^r in place: every block
 * is the same multiset. */
bool rule_reduceblocks_bmmc(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (!s->commutative) return false;
    IrVal *xs = s->args[s->nargs - 1];
    if (!xs->def || xs->def->op != IR_BMMC || !keeps_blocks(xs->def->mat, xs->def->compl, s->k))
        return false;
    rw_fired(r, s);
    rw_set_arg(r, s, s->nargs - 1, xs->def->args[0]);
    return true;
}

/* A bmmc (A, c) that moves whole blocks of 2^k and keeps the order inside
 * each: rows 0..k-1 are unit rows, rows k.. read no bit below k, and c has
 * none there, so an element at offset j of a block lands at offset j of
 * another. */
static bool moves_blocks(const F2Mat *m, uint64_t compl, int k) {
    uint64_t low = f2_mask(k);
    if (compl &low) return false;
    for (int i = 0; i < m->n; i++)
        if (i < k ? m->row[i] != UINT64_C(1) << i : (m->row[i] & low) != 0) return false;
    return true;
}

/* scan k op z ∘ bmmc = bmmc ∘ scan k op z, for a bmmc that moves whole
 * blocks of 2^k in order (moves_blocks): each block scans to the same
 * values wherever it lies, so the permutation moves towards the outputs,
 * where it meets the next one, as past a map. */
bool rule_scan_bmmc(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    int last = s->nargs - 1;
    IrStmt *d = rw_sole_def(r, s->args[last], IR_BMMC);
    if (!d || !moves_blocks(d->mat, d->compl, s->k)) return false;
    rw_fired(r, s);
    IrStmt *m = rw_detached(r, IR_SCAN, s->loc, d->args[0]);
    IrVal **args = NEW_ARRAY(r->p->arena, IrVal *, s->nargs);
    for (int a = 0; a < last; a++) {
        args[a] = s->args[a];
        rw_add_use(r, args[a]);
    }
    args[last] = d->args[0];
    m->args = args;
    m->nargs = s->nargs;
    m->k = s->k;
    m->exclusive = s->exclusive;
    m->commutative = s->commutative;
    m->body = s->body;
    IrVal *scanned = ir_add_result(r->p, m, s->res[0]->log_len, s->res[0]->elem);
    IrVal **old = s->args;
    s->op = IR_BMMC;
    s->body = NULL;
    s->k = 0;
    s->exclusive = s->commutative = false;
    s->mat = d->mat;
    s->own_mat = d->own_mat;
    d->own_mat = false;
    s->compl = d->compl ;
    s->args = NEW_ARRAY(r->p->arena, IrVal *, 1);
    s->args[0] = scanned;
    s->nargs = 1;
    rw_add_use(r, scanned);
    for (int a = 0; a <= last; a++) rw_drop_use(r, old[a]);
    rw_drain(r);
    rw_emit(r, out, m);
    return true;
}

/* bmmc (A,c) ∘ expand r ys = expand r (bmmc (A_hh, c_h) ys) when output bits
 * r.. read input bits r.. alone (A_hh: those rows shifted down r bits, c_h:
 * c >> r): the copies of ys[j] are the indices with high bits j, which the
 * bmmc sends to high bits A_hh·j ⊕ c_h. The permutation then moves 2^r
 * times fewer elements, or vanishes when A_hh is the identity. */
bool rule_bmmc_expand(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = rw_sole_def(r, s->args[0], IR_EXPAND);
    if (!d) return false;
    int k = d->k, n = s->mat->n;
    for (int i = k; i < n; i++)
        if (s->mat->row[i] & f2_mask(k)) return false;
    rw_fired(r, s);
    F2Mat high = {.n = n - k};
    for (int i = 0; i < n - k; i++) high.row[i] = s->mat->row[i + k] >> k;
    IrStmt *m = rw_detached(r, IR_BMMC, s->loc, d->args[0]);
    rw_set_matrix(r, m, s, &high);
    m->compl = s->compl >> k;
    ir_add_result(r->p, m, d->args[0]->log_len, d->args[0]->elem);
    s->op = IR_EXPAND;
    s->k = k;
    s->mat = NULL;
    s->own_mat = false;
    s->compl = 0;
    rw_set_arg(r, s, 0, m->res[0]);
    rw_emit(r, out, m);
    return true;
}

/* map f ∘ bmmc = bmmc ∘ map f: permutations move towards the outputs, where
 * they meet the next permutation. An element at x before the bmmc was at
 * A·x ⊕ c when f saw its position, so f's POS statements are rewritten. */
bool rule_map_bmmc(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = rw_sole_def(r, s->args[0], IR_BMMC);
    if (!d) return false;
    rw_fired(r, s);
    for (int i = 0; i < s->body->nstmts; i++)
        if (s->body->stmts[i]->op == IR_POS)
            ir_pos_substitute(s->body->stmts[i], d->mat->row, d->mat->n, d->compl );
    IrStmt *m = rw_detached(r, IR_MAP, s->loc, d->args[0]);
    m->body = s->body;
    IrVal *mapped = ir_add_result(r->p, m, s->res[0]->log_len, s->res[0]->elem);
    s->op = IR_BMMC;
    s->body = NULL;
    s->mat = d->mat;
    s->own_mat = d->own_mat;
    d->own_mat = false;
    s->compl = d->compl ;
    rw_set_arg(r, s, 0, mapped);
    rw_emit(r, out, m);
    return true;
}

/* map f ∘ expand r = expand r ∘ map f, for an f that does not read its
 * position: f runs once per element of ys instead of once per copy. */
bool rule_map_expand(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = rw_sole_def(r, s->args[0], IR_EXPAND);
    if (!d || rw_reads_position(s->body)) return false;
    rw_fired(r, s);
    IrStmt *m = rw_detached(r, IR_MAP, s->loc, d->args[0]);
    m->body = s->body;
    IrVal *mapped = ir_add_result(r->p, m, d->args[0]->log_len, s->res[0]->elem);
    s->op = IR_EXPAND;
    s->body = NULL;
    s->k = d->k;
    rw_set_arg(r, s, 0, mapped);
    rw_emit(r, out, m);
    return true;
}

/* d's body joins s's; d dies without its body (s has it now). */
static void join_into(Rewriter *r, IrStmt *s, IrStmt *d) {
    s->body = compose(r, d->body, s->body);
    d->body = NULL;
    rw_set_arg(r, s, 0, d->args[0]);
}

bool rule_map_map(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = rw_sole_def(r, s->args[0], IR_MAP);
    if (!d) return false;
    rw_fired(r, s);
    join_into(r, s, d);
    return true;
}

bool rule_two_identity(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (s->body->nstmts || s->body->results[0] != s->body->params[0]) return false;
    rw_fired(r, s);
    rw_replace(r, s, s->res[0], s->args[0]);
    return true;
}

/* two k (two l f) = two (k+l) f */
bool rule_two_two(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (!body_is_single(r, s->body, IR_TWO)) return false;
    rw_fired(r, s);
    IrStmt *inner = s->body->stmts[0];
    s->k += inner->k;
    s->body = inner->body;
    return true;
}

/* two k (map f) = map f */
bool rule_two_map(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (!body_is_single(r, s->body, IR_MAP)) return false;
    rw_fired(r, s);
    s->op = IR_MAP;
    s->body = s->body->stmts[0]->body;
    return true;
}

/* A body of element work only: scalar statements on small arrays. */
static bool body_is_local(const IrBody *b) {
    for (int i = 0; i < b->nstmts; i++)
        if (b->stmts[i]->body || b->stmts[i]->op == IR_BMMC) return false;
    return true;
}

/* two k f ∘ two k g = two k (f ∘ g), for element work: bodies that hold
 * combinators are peeled apart instead (rule_two_hoist), and joining them
 * back would undo that. */
bool rule_two_fuse(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = rw_sole_def(r, s->args[0], IR_TWO);
    if (!d || d->k != s->k || !body_is_local(d->body) || !body_is_local(s->body)) return false;
    rw_fired(r, s);
    join_into(r, s, d);
    return true;
}

/* t, a statement of s's body reading only its parameter, becomes a stage
 * before s (emitted in `out`): t itself moves, reading s's argument, and its
 * result in the body becomes the parameter. The caller takes t out of the
 * body. Moving t, not a copy, keeps the many hoists of a deep nest from
 * allocating. */
static void hoist(Rewriter *r, IrStmt *s, IrStmt *t, IrBody *out) {
    rw_resolve_args(r, s); /* the stage hoisted before may have been replaced */
    rw_fired_as(r,
                t->op == IR_BMMC  ? "two-bmmc-out"
                : t->op == IR_TWO ? "two-two-out"
                                  : "two-map-out",
                s);
    int n = s->args[0]->log_len;
    IrBody *b = s->body;
    b->params[0] = t->res[0];
    b->params[0]->def = NULL;
    t->res[0] = ir_new_val(r->p, n, b->params[0]->elem);
    t->res[0]->def = t;
    t->k += s->k;
    if (t->op == IR_BMMC) {
        F2Mat m = f2_embed(t->mat, n, 0);
        rw_set_matrix(r, t, NULL, &m);
    }
    t->args[0] = s->args[0]; /* the old parameter's read goes with it */
    rw_add_use(r, t->args[0]);
    rw_set_arg(r, s, 0, t->res[0]);
    rw_emit(r, out, t);
}

/* The statements of a two's body that read its parameter, in turn, while
 * each is the parameter's only use and an array combinator that can run
 * outside:
 *   two k (f ∘ bmmc B)   = two k f ∘ bmmc (I ⊕ B)
 *   two k (f ∘ two l g)  = two k f ∘ two (k+l) g
 *   two k (f ∘ map g)    = two k f ∘ map g
 * Peeling bodies from the front flattens nests into a sequence of stages;
 * one pass peels every stage it can. A statement must not read what the
 * body computes before it and keeps (a POS of the outer two, say): outside
 * the body those values do not exist. */
bool rule_two_hoist(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrBody *b = s->body;
    bool any = false, blocked = false;
    int kept = 0;
    rw_grow(r);
    r->epoch++;
    for (int i = 0; i < b->nstmts; i++) {
        IrStmt *t = b->stmts[i];
        if (t->dead) continue;
        if (!blocked) {
            IrVal *param = b->params[0];
            bool reads = false;
            for (int a = 0; a < t->nargs; a++) reads |= t->args[a] == param;
            if (!reads) {
                rw_grow(r);
                for (int k = 0; k < t->nres; k++) r->mark[t->res[k]->id] = r->epoch;
            } else if (rw_uses(r, param) == 1 && t->nargs == 1 &&
                       (t->op == IR_BMMC || t->op == IR_TWO || t->op == IR_MAP) &&
                       !(t->body && rw_reads_marked(r, t->body))) {
                hoist(r, s, t, out);
                any = true;
                continue;
            } else {
                blocked = true;
            }
        }
        b->stmts[kept++] = t;
    }
    b->nstmts = kept;
    return any;
}

/* Whether t, a statement of a two's body, has a whole-array form: an array
 * stage, zip, unzip, replicate, reduceblocks, scan, expand, half, join or
 * shift reading the body's arrays (marked) and any
 * scalars, with a body of its own that reads none of those arrays; or scalar
 * code that does not depend on the block (no position, no element). */
bool rw_liftable(const Rewriter *r, const IrStmt *t) {
    /* half and join with a mask over the block's bits are the same on the
       whole array: the block's number, above, moves down one bit with the
       sub-index (and up one in join); a shift keeps its blocks */
    bool array_stage = t->op == IR_MAP || t->op == IR_TWO || t->op == IR_BMMC || t->op == IR_ZIP ||
                       t->op == IR_UNZIP || t->op == IR_REPLICATE || t->op == IR_REDUCEBLOCKS ||
                       t->op == IR_SCAN || t->op == IR_EXPAND || t->op == IR_HALF ||
                       t->op == IR_JOIN || t->op == IR_SHIFT;
    bool scalar_code = t->op == IR_CONST || ir_op_is_alu(t->op) || t->op == IR_SELECT ||
                       t->op == IR_CONVERT;
    if (!array_stage && !scalar_code) return false;
    if (scalar_code)
        for (int a = 0; a < t->nargs; a++)
            if (!ir_is_scalar(t->args[a])) return false;
    return !(t->body && rw_reads_marked(r, t->body));
}

/* Whether v is an array that a two's body reads from outside (rule_two_lift
 * marked the body's own). */
static bool outside_array(const Rewriter *r, const IrVal *v) {
    return !ir_is_scalar(v) && !rw_marked(r, v);
}

/* Appends v to from[1..n) when it is an array from outside the body not
 * listed yet; returns the new count. */
static int add_outside(const Rewriter *r, IrVal **from, int n, IrVal *v) {
    for (int k = 1; k < n; k++)
        if (from[k] == v) return n;
    if (outside_array(r, v)) from[n++] = v;
    return n;
}

/* An array c from outside a two's body, which every block reads whole, as
 * the whole array of the two sees it: 2^k copies of c, the block's number
 * on top. Each element repeated (expand k: element x is c[x >> k]), then
 * the copies' bits rotated above c's (a bmmc: x = i·2^k + b goes to
 * b·2^j + i). The two statements are detached: the caller emits them once
 * the body reads the result, so that no rule finds it unused. */
static IrStmt *tiled(Rewriter *r, IrVal *c, int k, Loc loc, IrStmt **expand) {
    int j = c->log_len, n = j + k, perm[F2_MAX];
    IrStmt *e = rw_detached(r, IR_EXPAND, loc, c);
    e->k = k;
    ir_add_result(r->p, e, n, c->elem);
    for (int bit = 0; bit < n; bit++) perm[bit] = bit < j ? bit + k : bit - j;
    F2Mat m = f2_from_bitperm(n, perm);
    IrStmt *t = rw_detached(r, IR_BMMC, loc, e->res[0]);
    rw_set_matrix(r, t, NULL, &m);
    ir_add_result(r->p, t, n, c->elem);
    rw_grow(r);
    *expand = e;
    return t;
}

/* t on the whole array of a `two k`: its arrays are 2^k times as long, a
 * two works on k more bits of blocks, a bmmc leaves the top k bits alone,
 * a half or join keeps its mask, and reduceblocks, scans, shifts and expand
 * keep their blocks, which never cross the two's. Positions need nothing:
 * a map's element and an inner two's block stay the low bits of what they
 * become. */
static void lift_stmt(Rewriter *r, IrStmt *t, int k) {
    for (int i = 0; i < t->nres; i++)
        if (!ir_is_scalar(t->res[i])) t->res[i]->log_len += k;
    if (t->op == IR_TWO || t->op == IR_REPLICATE) t->k += k;
    if (t->op == IR_BMMC) {
        F2Mat m = f2_embed(t->mat, t->res[0]->log_len, 0);
        rw_set_matrix(r, t, NULL, &m);
    }
}

/* two k f = f on the whole array, when f is array code alone (each of its
 * statements liftable): its statements move before s, lifted, reading s's
 * argument for the parameter, and s's result is f's (scalars that are the
 * same for every block move with them). A body larger than a
 * thread's registers then runs as whole-array stages, and zips and unzips
 * of a block become the free renamings they are at the entry's level. */
bool rule_two_lift(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrBody *b = s->body;
    rw_grow(r);
    r->epoch++;
    r->mark[b->params[0]->id] = r->epoch;
    for (int i = 0; i < b->nstmts; i++) {
        IrStmt *t = b->stmts[i];
        if (t->dead) continue;
        if (!rw_liftable(r, t)) return false;
        rw_grow(r);
        for (int k = 0; k < t->nres; k++)
            if (!ir_is_scalar(t->res[k])) r->mark[t->res[k]->id] = r->epoch;
    }
    IrVal *res = b->results[0];
    if (res == b->params[0] || ir_is_scalar(res)) return false;
    rw_fired(r, s);
    /* the arrays read from outside, tiled, and the parameter, s's argument */
    int nread = 2;
    for (int i = 0; i < b->nstmts; i++)
        if (!b->stmts[i]->dead) nread += b->stmts[i]->nargs;
    IrVal **from = NEW_ARRAY(r->p->arena, IrVal *, nread),
          **to = NEW_ARRAY(r->p->arena, IrVal *, nread);
    from[0] = b->params[0];
    to[0] = s->args[0];
    int n = 1;
    for (int i = 0; i < b->nstmts; i++)
        for (int a = 0; !b->stmts[i]->dead && a < b->stmts[i]->nargs; a++)
            n = add_outside(r, from, n, b->stmts[i]->args[a]);
    n = add_outside(r, from, n, res);
    IrStmt **tiles = NEW_ARRAY(r->p->arena, IrStmt *, 2 * n);
    for (int k = 1; k < n; k++) {
        tiles[2 * k + 1] = tiled(r, from[k], s->k, s->loc, &tiles[2 * k]);
        to[k] = tiles[2 * k + 1]->res[0];
    }
    for (int k = 0; k < n; k++) {
        int before = rw_uses(r, to[k]);
        rw_substitute(r, b, &from[k], &to[k], 1);
        if (k) r->uses[from[k]->id] -= rw_uses(r, to[k]) - before;
    }
    for (int k = 2; k < 2 * n; k++) rw_emit(r, out, tiles[k]);
    res = rw_resolve(r, b->results[0]);
    for (int i = 0; i < b->nstmts; i++)
        if (!b->stmts[i]->dead) lift_stmt(r, b->stmts[i], s->k);
    s->body = NULL; /* its statements move out, its result's read goes */
    rw_replace(r, s, s->res[0], res);
    rw_drop_use(r, res);
    rw_drain(r);
    for (int i = 0; i < b->nstmts; i++)
        if (!b->stmts[i]->dead) rw_emit(r, out, b->stmts[i]);
    return true;
}

/* The result of a two's body is a bmmc used nowhere else: it moves after the
 * two as a block-diagonal bmmc: two k (bmmc B ∘ f) = bmmc (I ⊕ B) ∘ two k f.
 * The bmmc itself moves, onto `after`, to be emitted after s; what it read
 * becomes the body's result, and its result the one s had. */
bool rule_two_sink(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrBody *b = s->body;
    IrVal *res = b->results[0];
    IrStmt *t = res->def;
    if (!t || t->dead || t->op != IR_BMMC || rw_uses(r, res) != 1) return false;
    int at = b->nstmts - 1; /* t is usually the body's last statement */
    while (at >= 0 && b->stmts[at] != t) at--;
    if (at < 0) return false;
    rw_fired(r, s);
    memmove(b->stmts + at, b->stmts + at + 1, sizeof(IrStmt *) * (size_t)(b->nstmts - at - 1));
    b->nstmts--;
    b->results[0] = t->args[0]; /* the read moves from t to the result */
    int n = s->res[0]->log_len;
    IrVal *old = s->res[0];
    s->res[0] = ir_new_val(r->p, n, t->args[0]->elem);
    s->res[0]->def = s;
    t->args[0] = s->res[0];
    rw_add_use(r, s->res[0]);
    t->res[0] = old;
    old->def = t;
    F2Mat m = f2_embed(t->mat, n, 0);
    rw_set_matrix(r, t, NULL, &m);
    rw_list_push(after, t);
    return true;
}

/* A bmmc that acts on the low n-k bits only, between two `two k`: it moves
 * into the joined body: two k g ∘ bmmc (I ⊕ B) ∘ two k f = two k (g ∘ bmmc B ∘ f). */
static bool block_diagonal(const F2Mat *m, uint64_t compl, int low) {
    uint64_t low_mask = f2_mask(low);
    if (compl &~low_mask) return false;
    for (int i = 0; i < m->n; i++) {
        if (i < low && (m->row[i] & ~low_mask)) return false;
        if (i >= low && m->row[i] != UINT64_C(1) << i) return false;
    }
    return true;
}

bool rule_two_pull_in(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *perm = rw_sole_def(r, s->args[0], IR_BMMC);
    if (!perm) return false;
    int n = s->args[0]->log_len, low = n - s->k;
    IrStmt *d = rw_sole_def(r, perm->args[0], IR_TWO);
    if (!d || d->k != s->k || !block_diagonal(perm->mat, perm->compl, low) ||
        !body_is_local(d->body) || !body_is_local(s->body))
        return false;
    rw_fired(r, s);
    IrBody *first = d->body;
    IrStmt *inner = ir_append(r->p, first, IR_BMMC, perm->loc, 1, first->results);
    rw_add_use(r, first->results[0]);
    F2Mat m = {.n = low};
    memcpy(m.row, perm->mat->row, sizeof(uint64_t) * (size_t)low);
    rw_set_matrix(r, inner, perm, &m);
    inner->compl = perm->compl ;
    rw_set_result(r, first, 0, ir_add_result(r->p, inner, low, first->results[0]->elem));
    join_into(r, s, d);
    return true;
}

/* v as the body b reads it: a copy of v's statement at b's start when v is
 * a constant (element code reads no constants from outside), else v. */
static IrVal *constant_into(Rewriter *r, IrBody *b, IrVal *v) {
    if (!v->def || v->def->op != IR_CONST) return v;
    IrStmt *c = ir_append(r->p, b, IR_CONST, v->def->loc, 0, NULL);
    c->cval = v->def->cval;
    IrVal *copy = ir_add_result(r->p, c, -1, v->elem);
    memmove(b->stmts + 1, b->stmts, sizeof(IrStmt *) * (size_t)(b->nstmts - 1));
    b->stmts[0] = c;
    return copy;
}

/* map f (zip xs (replicate k c..)) = map (f reading c.. for the replicated
 * fields) xs, and the same for a replicate zipped first: the copies never
 * reach memory (the zip is the map's only use; c.. are scalars of the body
 * around the map, or built in it as constants). */
bool rule_map_replicate(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *z = rw_sole_def(r, s->args[0], IR_ZIP);
    if (!z || z->nargs != 2) return false;
    int rep = -1;
    for (int a = 1; a >= 0; a--) {
        IrStmt *d = z->args[a]->def;
        if (d && !d->dead && d->op == IR_REPLICATE) rep = a;
    }
    if (rep < 0) return false;
    IrStmt *d = z->args[rep]->def;
    int width = z->args[rep]->elem->nslots, off = rep == 0 ? 0 : z->args[0]->elem->nslots;
    if (d->nargs != width ||
        s->body->nparams != z->args[0]->elem->nslots + z->args[1]->elem->nslots)
        return false;
    rw_fired(r, s);
    IrVal **with = NEW_ARRAY(r->p->arena, IrVal *, width);
    for (int k = 0; k < width; k++) with[k] = constant_into(r, s->body, d->args[k]);
    rw_substitute(r, s->body, s->body->params + off, with, width);
    memmove(s->body->params + off, s->body->params + off + width,
            sizeof(IrVal *) * (size_t)(s->body->nparams - off - width));
    s->body->nparams -= width;
    rw_set_arg(r, s, 0, z->args[1 - rep]);
    return true;
}

/* map f (replicate k c..) = replicate k (f c..), for an f that does not read
 * its position: f runs once, as scalar statements before s, and the array
 * is written once and never read (docs/ir.md). */
bool rule_map_of_replicate(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    IrStmt *d = s->args[0]->def;
    if (!d || d->dead || d->op != IR_REPLICATE || d->nargs != s->body->nparams) return false;
    IrBody *b = s->body;
    for (int i = 0; i < b->nstmts; i++)
        if (b->stmts[i]->op == IR_POS || b->stmts[i]->body) return false;
    rw_fired(r, s);
    rw_substitute(r, b, b->params, d->args, b->nparams);
    for (int i = 0; i < b->nstmts; i++)
        if (!b->stmts[i]->dead) ir_body_push(r->p, out, b->stmts[i]);
    int k = d->k;
    IrVal *old_arg = s->args[0];
    s->op = IR_REPLICATE;
    s->k = k;
    s->body = NULL;
    s->nargs = b->nresults;
    s->args = b->results; /* the results' reads become the replicate's */
    rw_drop_use(r, old_arg);
    rw_drain(r);
    return true;
}

/* A map of 2^n elements over x's slots (its body's parameters), whose
 * result is the slots numbered from `from` for `count` (of x's element),
 * then a zero for each slot of `zeros` (NULL: none), of type `to`. */
IrStmt *rw_slot_map(Rewriter *r, Loc loc, IrVal *x, int from, int count, const ElemType *zeros,
                    const ElemType *to) {
    IrStmt *m = rw_detached(r, IR_MAP, loc, x);
    IrBody *b = m->body = ir_new_body(r->p);
    for (int k = 0; k < x->elem->nslots; k++)
        ir_body_add_param(r->p, b, -1, elem_prim(elem_slot_prim(x->elem, k)));
    for (int k = from; k < from + count; k++) {
        ir_body_add_result(r->p, b, b->params[k]);
        rw_add_use(r, b->params[k]);
    }
    for (int k = 0; zeros && k < zeros->nslots; k++) {
        Prim prim = elem_slot_prim(zeros, k);
        IrStmt *c = ir_append(r->p, b, IR_CONST, loc, 0, NULL);
        c->cval = prim_is_float(prim) ? scalar_from_double(prim, 0) : scalar_from_int(prim, 0);
        IrVal *zero = ir_add_result(r->p, c, -1, elem_prim(prim));
        ir_body_add_result(r->p, b, zero);
        rw_add_use(r, zero);
    }
    ir_add_result(r->p, m, x->log_len, to);
    return m;
}

/* A two at the entry's level whose function changes the element type from
 * T to U (which a tile, of one element type, cannot hold) works on (T, U)
 * instead, a type it keeps:
 *   two k f = map snd
 *             ∘ two k (\ps -> let (ts, _) = unzip ps in zip ts (f ts))
 *             ∘ map (\t -> (t, 0))
 * The maps join the stages around (map-map), and the zip and unzip of a
 * block are renamings in its element code. Nested twos need none of this:
 * element code changes types freely. */
bool rule_two_retype(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (out != r->top || elem_equal(s->args[0]->elem, s->res[0]->elem)) return false;
    rw_fired(r, s);
    IrVal *xs = s->args[0], *ys = s->res[0];
    const ElemType *t = xs->elem, *u = ys->elem,
                   *pair = elem_tuple(r->p->arena, 2, (const ElemType *[]){t, u});
    IrStmt *in = rw_slot_map(r, s->loc, xs, 0, t->nslots, u, pair);
    rw_emit(r, out, in);
    rw_set_arg(r, s, 0, in->res[0]);
    /* the body: its parameter unzipped, its result zipped with the T half */
    IrBody *b = s->body;
    IrVal *old = b->params[0], *param = ir_new_val(r->p, old->log_len, pair);
    IrStmt *unzip = ir_append(r->p, b, IR_UNZIP, s->loc, 1, &param);
    memmove(b->stmts + 1, b->stmts, sizeof(IrStmt *) * (size_t)(b->nstmts - 1));
    b->stmts[0] = unzip;
    rw_add_use(r, param);
    IrVal *ts = ir_add_result(r->p, unzip, old->log_len, t);
    ir_add_result(r->p, unzip, old->log_len, u);
    rw_substitute(r, b, &old, &ts, 1);
    b->params[0] = param;
    IrVal *halves[2] = {ts, b->results[0]};
    IrStmt *zip = ir_append(r->p, b, IR_ZIP, s->loc, 2, halves);
    rw_add_use(r, ts);
    rw_add_use(r, halves[1]);
    rw_set_result(r, b, 0, ir_add_result(r->p, zip, old->log_len, pair));
    /* s's result becomes (T, U); a map after it gives ys its U half */
    s->res[0] = ir_new_val(r->p, ys->log_len, pair);
    s->res[0]->def = s;
    IrStmt *back = rw_slot_map(r, s->loc, s->res[0], t->nslots, u->nslots, NULL, u);
    back->res[0] = ys;
    ys->def = back;
    rw_list_push(after, back);
    return true;
}
