/* opt_rules.c: the rewrite rules, applied to a fixed point.
 *
 * The rewriting is linear in the program, not one level of nesting per
 * round: a round walks every body once, inner bodies first, so that a body
 * has reached its fixed point before the rules of its parent look into it,
 * and tries the rules on each statement until none fires. Statements a rule
 * creates (a hoisted stage, a map moved before a permutation) are rewritten
 * the same way where they are placed. Rounds repeat only for what a later
 * statement enables in an earlier one (a use that disappears); a nest of any
 * depth takes a few rounds.
 *
 * The single-use conditions need exact use counts at every step, since a
 * statement may now change many times in a round. Every change to what a
 * statement or a body result reads goes through set_arg, set_result,
 * replace or kill, which keep uses[] equal to the reads of live statements
 * and body results; a statement whose results lose their last read is
 * killed at once, and a body drops its killed statements before its
 * statement's rules look at it. docs/ir.md lists the rules. */
#include "opt.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    IrStmt **items;
    int n, cap;
} StmtList;

typedef struct {
    IrProgram *p;
    IrVal **subst;      /* by id: the value that replaces it */
    int *uses;          /* by id: reads by live statements and body results */
    int *mark;          /* by id: scratch for reads_marked */
    int epoch;
    int cap;
    int round;          /* bodies rewritten in this round carry it */
    IrBody *top;        /* the body of the entry being rewritten */
    StmtList dying;     /* killed statements whose reads are still counted */
    bool changed;
    FILE *trace;
} Rewriter;

/* Each round reaches the fixed point of every nest; rounds only repeat for
 * opportunities that a rewrite further down a body opens further up it. */
#define MAX_ROUNDS 100

static void list_push(StmtList *l, IrStmt *s) {
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->items = realloc(l->items, sizeof(IrStmt *) * (size_t)l->cap);
        if (!l->items) diag_fatal("out of memory in the optimiser");
    }
    l->items[l->n++] = s;
}

static void grow(Rewriter *r) {
    if (r->p->next_id <= r->cap) return;
    int cap = r->p->next_id * 2;
    r->subst = realloc(r->subst, sizeof(IrVal *) * (size_t)cap);
    r->uses = realloc(r->uses, sizeof(int) * (size_t)cap);
    r->mark = realloc(r->mark, sizeof(int) * (size_t)cap);
    if (!r->subst || !r->uses || !r->mark) diag_fatal("out of memory in the optimiser");
    memset(r->subst + r->cap, 0, sizeof(IrVal *) * (size_t)(cap - r->cap));
    memset(r->uses + r->cap, 0, sizeof(int) * (size_t)(cap - r->cap));
    memset(r->mark + r->cap, 0, sizeof(int) * (size_t)(cap - r->cap));
    r->cap = cap;
}

static IrVal *resolve(Rewriter *r, IrVal *v) {
    while (v->id < r->cap && r->subst[v->id]) v = r->subst[v->id];
    return v;
}

static int uses(Rewriter *r, const IrVal *v) { return v->id < r->cap ? r->uses[v->id] : 0; }

static void fired(Rewriter *r, const char *rule, const IrStmt *s) {
    r->changed = true;
    if (!r->trace) return;
    fprintf(r->trace, "rule %s", rule);
    if (s->loc.src) fprintf(r->trace, " at %s:%d:%d", s->loc.src->name, s->loc.line, s->loc.col);
    fprintf(r->trace, " on %%%d\n", s->res[0]->id);
}

/* ---- exact use counts ---- */

static void add_use(Rewriter *r, IrVal *v) {
    grow(r);
    r->uses[v->id]++;
}

static bool all_unused(Rewriter *r, const IrStmt *s) {
    for (int k = 0; k < s->nres; k++)
        if (uses(r, s->res[k])) return false;
    return true;
}

/* Marks s dead; its reads are dropped by drain(). */
static void kill(Rewriter *r, IrStmt *s) {
    if (s->dead) return;
    s->dead = true;
    list_push(&r->dying, s);
}

static void drop_use(Rewriter *r, IrVal *v) {
    r->uses[v->id]--;
    if (v->def && !v->def->dead && all_unused(r, v->def)) kill(r, v->def);
}

/* A dying body's statements die with it; each drops its reads once. */
static bool kill_nested(IrWalk *w, IrStmt *s) {
    (void)w;
    if (s->dead) return false;
    s->dead = true;
    return true;
}

static void drop_read(IrWalk *w, IrVal **v) { drop_use(w->ctx, *v); }

static void drop_body(Rewriter *r, IrBody *b) {
    IrWalk w = {.stmt = kill_nested, .read = drop_read, .ctx = r};
    ir_walk(&w, b);
}

/* Drops the reads of every killed statement, killing in turn what only they
 * read; a worklist, so that a long dead chain needs no deep recursion. */
static void drain(Rewriter *r) {
    while (r->dying.n) {
        IrStmt *s = r->dying.items[--r->dying.n];
        for (int a = 0; a < s->nargs; a++) drop_use(r, s->args[a]);
        if (s->body) drop_body(r, s->body);
    }
}

static void set_arg(Rewriter *r, IrStmt *s, int a, IrVal *v) {
    v = resolve(r, v);
    add_use(r, v);
    IrVal *old = s->args[a];
    s->args[a] = v;
    drop_use(r, old);
    drain(r);
}

static void set_result(Rewriter *r, IrBody *b, int i, IrVal *v) {
    add_use(r, v);
    IrVal *old = b->results[i];
    b->results[i] = v;
    drop_use(r, old);
    drain(r);
}

/* Every read of old becomes a read of with; old's statement dies. */
static void replace(Rewriter *r, IrStmt *s, IrVal *old, IrVal *with) {
    grow(r);
    r->subst[old->id] = with;
    r->uses[with->id] += r->uses[old->id];
    r->uses[old->id] = 0;
    kill(r, s);
    drain(r);
}

/* A new statement reading x, not yet in any body (emit places it). */
static IrStmt *detached(Rewriter *r, IrOp op, Loc loc, IrVal *x) {
    IrStmt *s = NEW(r->p->arena, IrStmt);
    s->op = op;
    s->loc = loc;
    s->alu = OP_COUNT;
    s->nargs = 1;
    s->args = NEW_ARRAY(r->p->arena, IrVal *, 1);
    s->args[0] = x;
    add_use(r, x);
    return s;
}

static void compact(IrBody *b) {
    int kept = 0;
    for (int i = 0; i < b->nstmts; i++)
        if (!b->stmts[i]->dead) b->stmts[kept++] = b->stmts[i];
    b->nstmts = kept;
}

/* The statement defining v, when it may be rewritten together with s:
 * s's read is v's only use. */
static IrStmt *sole_def(Rewriter *r, IrVal *v, IrOp op) {
    IrStmt *d = v->def;
    if (!d || d->dead || d->op != op || d->nres != 1 || uses(r, v) != 1) return NULL;
    return d;
}

/* ---- bodies ---- */

typedef struct {
    Rewriter *r;
    IrVal *const *from, *const *to;
    int n;
} Substitution;

static void substitute_read(IrWalk *w, IrVal **v) {
    Substitution *sub = w->ctx;
    for (int k = 0; k < sub->n; k++)
        if (*v == sub->from[k]) {
            *v = sub->to[k];
            add_use(sub->r, sub->to[k]);
        }
}

/* Every read of from[k] in b, at any depth, becomes a read of to[k]. */
static void substitute(Rewriter *r, IrBody *b, IrVal *const *from, IrVal *const *to, int n) {
    Substitution sub = {r, from, to, n};
    IrWalk w = {.read = substitute_read, .ctx = &sub};
    ir_walk(&w, b);
}

/* b1 then b2, where b2's params are b1's results: b1 grows into the joined
 * body (b2's statements are appended, so a chain of joins costs what it
 * appends). b1's results stop being results; what only they read dies. */
static IrBody *compose(Rewriter *r, IrBody *b1, IrBody *b2) {
    substitute(r, b2, b2->params, b1->results, b2->nparams);
    for (int i = 0; i < b2->nstmts; i++) ir_body_push(r->p, b1, b2->stmts[i]);
    IrVal **old = b1->results;
    int nold = b1->nresults;
    b1->results = b2->results;
    b1->nresults = b2->nresults;
    for (int i = 0; i < nold; i++) drop_use(r, old[i]);
    drain(r);
    compact(b1);
    return b1;
}

/* The body is one statement of kind op on the parameter, which nothing
 * inside that statement's own body reads. */
static bool body_is_single(Rewriter *r, const IrBody *b, IrOp op) {
    return b->nstmts == 1 && b->stmts[0]->op == op && b->stmts[0]->args[0] == b->params[0] &&
           b->nresults == 1 && b->results[0] == b->stmts[0]->res[0] && uses(r, b->params[0]) == 1;
}

/* Whether v is marked with the current epoch. */
static bool marked(const Rewriter *r, const IrVal *v) { return v->id < r->cap && r->mark[v->id] == r->epoch; }

static void stop_at_marked(IrWalk *w, IrVal **v) {
    const Rewriter *r = *(const Rewriter **)w->ctx;
    w->stop |= marked(r, *v);
}

/* Whether b, or a body in it, reads a value marked with the current epoch. */
static bool reads_marked(const Rewriter *r, const IrBody *b) {
    IrWalk w = {.read = stop_at_marked, .ctx = &r};
    ir_walk(&w, b);
    return w.stop;
}

/* Where s's new matrix m goes: s's own matrix, else that of `dying` (a
 * statement that dies in the same rewrite), else a new one. Reusing them
 * keeps a chain of fusions from allocating a matrix at every step. */
static void set_matrix(Rewriter *r, IrStmt *s, IrStmt *dying, const F2Mat *m) {
    if (!s->own_mat) {
        s->mat = dying && dying->own_mat ? dying->mat : NEW(r->p->arena, F2Mat);
        s->own_mat = true;
        if (dying) dying->own_mat = false;
    }
    *s->mat = *m;
}

/* ---- the rules; each returns true when it fired ---- */

static void emit(Rewriter *r, IrBody *out, IrStmt *s);
static void resolve_args(Rewriter *r, IrStmt *s);

static bool rule_bmmc_identity(Rewriter *r, IrStmt *s) {
    if (s->op != IR_BMMC || s->compl || !f2_is_identity(s->mat)) return false;
    fired(r, "bmmc-identity", s);
    replace(r, s, s->res[0], s->args[0]);
    return true;
}

/* bmmc (A,c) ∘ bmmc (B,d) = bmmc (AB, Ad ⊕ c) */
static bool rule_bmmc_fuse(Rewriter *r, IrStmt *s) {
    IrStmt *d = s->op == IR_BMMC ? sole_def(r, s->args[0], IR_BMMC) : NULL;
    if (!d) return false;
    fired(r, "bmmc-bmmc", s);
    F2Mat m = f2_mul(s->mat, d->mat);
    s->compl = f2_apply(s->mat, d->compl) ^ s->compl;
    set_matrix(r, s, d, &m);
    set_arg(r, s, 0, d->args[0]);
    return true;
}

static bool rule_bmmc_replicate(Rewriter *r, IrStmt *s) {
    if (s->op != IR_BMMC || !s->args[0]->def || s->args[0]->def->op != IR_REPLICATE) return false;
    fired(r, "bmmc-replicate", s);
    replace(r, s, s->res[0], s->args[0]);
    return true;
}

static bool rule_reduce_bmmc(Rewriter *r, IrStmt *s) {
    if (s->op != IR_REDUCE || !s->commutative) return false;
    IrVal *xs = s->args[s->nargs - 1];
    if (!xs->def || xs->def->op != IR_BMMC) return false;
    fired(r, "reduce-bmmc", s);
    set_arg(r, s, s->nargs - 1, xs->def->args[0]);
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
static bool rule_reduceblocks_bmmc(Rewriter *r, IrStmt *s) {
    if (s->op != IR_REDUCEBLOCKS || !s->commutative) return false;
    IrVal *xs = s->args[s->nargs - 1];
    if (!xs->def || xs->def->op != IR_BMMC || !keeps_blocks(xs->def->mat, xs->def->compl, s->k)) return false;
    fired(r, "reduceblocks-bmmc", s);
    set_arg(r, s, s->nargs - 1, xs->def->args[0]);
    return true;
}

/* A bmmc (A, c) that moves whole blocks of 2^k and keeps the order inside
 * each: rows 0..k-1 are unit rows, rows k.. read no bit below k, and c has
 * none there, so an element at offset j of a block lands at offset j of
 * another. */
static bool moves_blocks(const F2Mat *m, uint64_t compl, int k) {
    uint64_t low = f2_mask(k);
    if (compl & low) return false;
    for (int i = 0; i < m->n; i++)
        if (i < k ? m->row[i] != UINT64_C(1) << i : (m->row[i] & low) != 0) return false;
    return true;
}

/* scan k op z ∘ bmmc = bmmc ∘ scan k op z, for a bmmc that moves whole
 * blocks of 2^k in order (moves_blocks): each block scans to the same
 * values wherever it lies, so the permutation moves towards the outputs,
 * where it meets the next one, as past a map. */
static bool rule_scan_bmmc(Rewriter *r, IrStmt *s, IrBody *out) {
    int last = s->nargs - 1;
    IrStmt *d = s->op == IR_SCAN ? sole_def(r, s->args[last], IR_BMMC) : NULL;
    if (!d || !moves_blocks(d->mat, d->compl, s->k)) return false;
    fired(r, "scan-bmmc", s);
    IrStmt *m = detached(r, IR_SCAN, s->loc, d->args[0]);
    IrVal **args = NEW_ARRAY(r->p->arena, IrVal *, s->nargs);
    for (int a = 0; a < last; a++) {
        args[a] = s->args[a];
        add_use(r, args[a]);
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
    s->compl = d->compl;
    s->args = NEW_ARRAY(r->p->arena, IrVal *, 1);
    s->args[0] = scanned;
    s->nargs = 1;
    add_use(r, scanned);
    for (int a = 0; a <= last; a++) drop_use(r, old[a]);
    drain(r);
    emit(r, out, m);
    return true;
}

/* bmmc (A,c) ∘ expand r ys = expand r (bmmc (A_hh, c_h) ys) when output bits
 * r.. read input bits r.. alone (A_hh: those rows shifted down r bits, c_h:
 * c >> r): the copies of ys[j] are the indices with high bits j, which the
 * bmmc sends to high bits A_hh·j ⊕ c_h. The permutation then moves 2^r
 * times fewer elements, or vanishes when A_hh is the identity. */
static bool rule_bmmc_expand(Rewriter *r, IrStmt *s, IrBody *out) {
    IrStmt *d = s->op == IR_BMMC ? sole_def(r, s->args[0], IR_EXPAND) : NULL;
    if (!d) return false;
    int k = d->k, n = s->mat->n;
    for (int i = k; i < n; i++)
        if (s->mat->row[i] & f2_mask(k)) return false;
    fired(r, "bmmc-expand", s);
    F2Mat high = {.n = n - k};
    for (int i = 0; i < n - k; i++) high.row[i] = s->mat->row[i + k] >> k;
    IrStmt *m = detached(r, IR_BMMC, s->loc, d->args[0]);
    set_matrix(r, m, s, &high);
    m->compl = s->compl >> k;
    ir_add_result(r->p, m, d->args[0]->log_len, d->args[0]->elem);
    s->op = IR_EXPAND;
    s->k = k;
    s->mat = NULL;
    s->own_mat = false;
    s->compl = 0;
    set_arg(r, s, 0, m->res[0]);
    emit(r, out, m);
    return true;
}

/* map f ∘ bmmc = bmmc ∘ map f: permutations move towards the outputs, where
 * they meet the next permutation. An element at x before the bmmc was at
 * A·x ⊕ c when f saw its position, so f's POS statements are rewritten. */
static bool rule_map_bmmc(Rewriter *r, IrStmt *s, IrBody *out) {
    IrStmt *d = s->op == IR_MAP ? sole_def(r, s->args[0], IR_BMMC) : NULL;
    if (!d) return false;
    fired(r, "map-bmmc", s);
    for (int i = 0; i < s->body->nstmts; i++)
        if (s->body->stmts[i]->op == IR_POS) ir_pos_substitute(s->body->stmts[i], d->mat->row, d->mat->n, d->compl);
    IrStmt *m = detached(r, IR_MAP, s->loc, d->args[0]);
    m->body = s->body;
    IrVal *mapped = ir_add_result(r->p, m, s->res[0]->log_len, s->res[0]->elem);
    s->op = IR_BMMC;
    s->body = NULL;
    s->mat = d->mat;
    s->own_mat = d->own_mat;
    d->own_mat = false;
    s->compl = d->compl;
    set_arg(r, s, 0, mapped);
    emit(r, out, m);
    return true;
}

/* map f ∘ expand r = expand r ∘ map f, for an f that does not read its
 * position: f runs once per element of ys instead of once per copy. */
static bool rule_map_expand(Rewriter *r, IrStmt *s, IrBody *out) {
    IrStmt *d = s->op == IR_MAP ? sole_def(r, s->args[0], IR_EXPAND) : NULL;
    if (!d) return false;
    for (int i = 0; i < s->body->nstmts; i++)
        if (s->body->stmts[i]->op == IR_POS) return false;
    fired(r, "map-expand", s);
    IrStmt *m = detached(r, IR_MAP, s->loc, d->args[0]);
    m->body = s->body;
    IrVal *mapped = ir_add_result(r->p, m, d->args[0]->log_len, s->res[0]->elem);
    s->op = IR_EXPAND;
    s->body = NULL;
    s->k = d->k;
    set_arg(r, s, 0, mapped);
    emit(r, out, m);
    return true;
}

/* d's body joins s's; d dies without its body (s has it now). */
static void join_into(Rewriter *r, IrStmt *s, IrStmt *d) {
    s->body = compose(r, d->body, s->body);
    d->body = NULL;
    set_arg(r, s, 0, d->args[0]);
}

static bool rule_map_map(Rewriter *r, IrStmt *s) {
    IrStmt *d = s->op == IR_MAP ? sole_def(r, s->args[0], IR_MAP) : NULL;
    if (!d) return false;
    fired(r, "map-map", s);
    join_into(r, s, d);
    return true;
}

static bool rule_two_identity(Rewriter *r, IrStmt *s) {
    if (s->op != IR_TWO || s->body->nstmts || s->body->results[0] != s->body->params[0]) return false;
    fired(r, "two-identity", s);
    replace(r, s, s->res[0], s->args[0]);
    return true;
}

/* two k (two l f) = two (k+l) f */
static bool rule_two_two(Rewriter *r, IrStmt *s) {
    if (s->op != IR_TWO || !body_is_single(r, s->body, IR_TWO)) return false;
    fired(r, "two-two", s);
    IrStmt *inner = s->body->stmts[0];
    s->k += inner->k;
    s->body = inner->body;
    return true;
}

/* two k (map f) = map f */
static bool rule_two_map(Rewriter *r, IrStmt *s) {
    if (s->op != IR_TWO || !body_is_single(r, s->body, IR_MAP)) return false;
    fired(r, "two-map", s);
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
static bool rule_two_fuse(Rewriter *r, IrStmt *s) {
    IrStmt *d = s->op == IR_TWO ? sole_def(r, s->args[0], IR_TWO) : NULL;
    if (!d || d->k != s->k || !body_is_local(d->body) || !body_is_local(s->body)) return false;
    fired(r, "two-two-fuse", s);
    join_into(r, s, d);
    return true;
}

/* t, a statement of s's body reading only its parameter, becomes a stage
 * before s (emitted in `out`): t itself moves, reading s's argument, and its
 * result in the body becomes the parameter. The caller takes t out of the
 * body. Moving t, not a copy, keeps the many hoists of a deep nest from
 * allocating. */
static void hoist(Rewriter *r, IrStmt *s, IrStmt *t, IrBody *out) {
    resolve_args(r, s);         /* the stage hoisted before may have been replaced */
    fired(r, t->op == IR_BMMC ? "two-bmmc-out" : t->op == IR_TWO ? "two-two-out" : "two-map-out", s);
    int n = s->args[0]->log_len;
    IrBody *b = s->body;
    b->params[0] = t->res[0];
    b->params[0]->def = NULL;
    t->res[0] = ir_new_val(r->p, n, b->params[0]->elem);
    t->res[0]->def = t;
    t->k += s->k;
    if (t->op == IR_BMMC) {
        F2Mat m = f2_embed(t->mat, n, 0);
        set_matrix(r, t, NULL, &m);
    }
    t->args[0] = s->args[0];    /* the old parameter's read goes with it */
    add_use(r, t->args[0]);
    set_arg(r, s, 0, t->res[0]);
    emit(r, out, t);
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
static bool rule_two_hoist(Rewriter *r, IrStmt *s, IrBody *out) {
    if (s->op != IR_TWO) return false;
    IrBody *b = s->body;
    bool any = false, blocked = false;
    int kept = 0;
    grow(r);
    r->epoch++;
    for (int i = 0; i < b->nstmts; i++) {
        IrStmt *t = b->stmts[i];
        if (t->dead) continue;
        if (!blocked) {
            IrVal *param = b->params[0];
            bool reads = false;
            for (int a = 0; a < t->nargs; a++) reads |= t->args[a] == param;
            if (!reads) {
                grow(r);
                for (int k = 0; k < t->nres; k++) r->mark[t->res[k]->id] = r->epoch;
            } else if (uses(r, param) == 1 && t->nargs == 1 &&
                       (t->op == IR_BMMC || t->op == IR_TWO || t->op == IR_MAP) &&
                       !(t->body && reads_marked(r, t->body))) {
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
static bool liftable(const Rewriter *r, const IrStmt *t) {
    /* half and join with a mask over the block's bits are the same on the
       whole array: the block's number, above, moves down one bit with the
       sub-index (and up one in join); a shift keeps its blocks */
    bool array_stage = t->op == IR_MAP || t->op == IR_TWO || t->op == IR_BMMC || t->op == IR_ZIP ||
                       t->op == IR_UNZIP || t->op == IR_REPLICATE || t->op == IR_REDUCEBLOCKS || t->op == IR_SCAN ||
                       t->op == IR_EXPAND || t->op == IR_HALF || t->op == IR_JOIN || t->op == IR_SHIFT;
    bool scalar_code = t->op == IR_CONST || ir_op_is_alu(t->op) || t->op == IR_SELECT || t->op == IR_CONVERT;
    if (!array_stage && !scalar_code) return false;
    if (scalar_code)
        for (int a = 0; a < t->nargs; a++)
            if (!ir_is_scalar(t->args[a])) return false;
    return !(t->body && reads_marked(r, t->body));
}

/* Whether v is an array that a two's body reads from outside (rule_two_lift
 * marked the body's own). */
static bool outside_array(const Rewriter *r, const IrVal *v) {
    return !ir_is_scalar(v) && !marked(r, v);
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
    IrStmt *e = detached(r, IR_EXPAND, loc, c);
    e->k = k;
    ir_add_result(r->p, e, n, c->elem);
    for (int bit = 0; bit < n; bit++) perm[bit] = bit < j ? bit + k : bit - j;
    F2Mat m = f2_from_bitperm(n, perm);
    IrStmt *t = detached(r, IR_BMMC, loc, e->res[0]);
    set_matrix(r, t, NULL, &m);
    ir_add_result(r->p, t, n, c->elem);
    grow(r);
    *expand = e;
    return t;
}

/* t on the whole array of a `two k`: its arrays are 2^k times as long, a
 * two works on k more bits of blocks, a bmmc leaves the top k bits alone,
 * a half or join keeps its mask, and reduceblocks, scans, shifts and expand
 * keep their blocks, which never cross the two's. Positions need nothing: a map's element and an inner two's block
 * stay the low bits of what they become. */
static void lift_stmt(Rewriter *r, IrStmt *t, int k) {
    for (int i = 0; i < t->nres; i++)
        if (!ir_is_scalar(t->res[i])) t->res[i]->log_len += k;
    if (t->op == IR_TWO || t->op == IR_REPLICATE) t->k += k;
    if (t->op == IR_BMMC) {
        F2Mat m = f2_embed(t->mat, t->res[0]->log_len, 0);
        set_matrix(r, t, NULL, &m);
    }
}

/* two k f = f on the whole array, when f is array code alone (each of its
 * statements liftable): its statements move before s, lifted, reading s's
 * argument for the parameter, and s's result is f's (scalars that are the
 * same for every block move with them). A body larger than a
 * thread's registers then runs as whole-array stages, and zips and unzips
 * of a block become the free renamings they are at the entry's level. */
static bool rule_two_lift(Rewriter *r, IrStmt *s, IrBody *out) {
    if (s->op != IR_TWO) return false;
    IrBody *b = s->body;
    grow(r);
    r->epoch++;
    r->mark[b->params[0]->id] = r->epoch;
    for (int i = 0; i < b->nstmts; i++) {
        IrStmt *t = b->stmts[i];
        if (t->dead) continue;
        if (!liftable(r, t)) return false;
        grow(r);
        for (int k = 0; k < t->nres; k++)
            if (!ir_is_scalar(t->res[k])) r->mark[t->res[k]->id] = r->epoch;
    }
    IrVal *res = b->results[0];
    if (res == b->params[0] || ir_is_scalar(res)) return false;
    fired(r, "two-lift", s);
    /* the arrays read from outside, tiled, and the parameter, s's argument */
    int nread = 2;
    for (int i = 0; i < b->nstmts; i++)
        if (!b->stmts[i]->dead) nread += b->stmts[i]->nargs;
    IrVal **from = NEW_ARRAY(r->p->arena, IrVal *, nread), **to = NEW_ARRAY(r->p->arena, IrVal *, nread);
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
        int before = uses(r, to[k]);
        substitute(r, b, &from[k], &to[k], 1);
        if (k) r->uses[from[k]->id] -= uses(r, to[k]) - before;
    }
    for (int k = 2; k < 2 * n; k++) emit(r, out, tiles[k]);
    res = resolve(r, b->results[0]);
    for (int i = 0; i < b->nstmts; i++)
        if (!b->stmts[i]->dead) lift_stmt(r, b->stmts[i], s->k);
    s->body = NULL;             /* its statements move out, its result's read goes */
    replace(r, s, s->res[0], res);
    drop_use(r, res);
    drain(r);
    for (int i = 0; i < b->nstmts; i++)
        if (!b->stmts[i]->dead) emit(r, out, b->stmts[i]);
    return true;
}

/* ---- per-block reductions as whole-array stages ---- */

/* The most elements of type t that element code holds in a thread's
 * registers, log2, at the scheduler's default of 128 bytes
 * (elem_register_log). A two's body on a larger block runs only as
 * whole-array stages. */
static int register_elems_log(const ElemType *t) { return elem_register_log(t, ELEM_REGISTER_BYTES_LOG); }

/* Whether b has a half, join or shift of more than 2^3 elements, which
 * element code does not take (lengths-build builds them up to 2^3). */
static bool wide_length_change(const IrBody *b) {
    for (int i = 0; i < b->nstmts; i++) {
        const IrStmt *t = b->stmts[i];
        bool length = t->op == IR_HALF || t->op == IR_JOIN || t->op == IR_SHIFT;
        if (!t->dead && length && (t->args[t->nargs - 1]->log_len > 3 || t->res[0]->log_len > 3)) return true;
    }
    return false;
}

/* Whether a two's body runs as element code: its block fits a thread's
 * registers and it changes no length beyond 2^3; else only as whole-array
 * stages. */
static bool element_sized(const IrStmt *two) {
    const IrBody *b = two->body;
    return two->args[0]->log_len - two->k <= register_elems_log(b->params[0]->elem) && !wide_length_change(b);
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
static bool plain_scalar(const IrBody *b, const IrVal *v) {
    if (!ir_is_scalar(v)) return false;
    if (!defined_in(b, v)) return true;
    const IrStmt *d = v->def;
    if (!d || d->op == IR_CONST) return d != NULL;
    if (!ir_op_is_alu(d->op) && d->op != IR_SELECT && d->op != IR_CONVERT) return false;
    for (int a = 0; a < d->nargs; a++)
        if (!plain_scalar(b, d->args[a])) return false;
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
            rest_plain &= total || plain_scalar(b, t->args[a]);
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
        replicable &= total || plain_scalar(b, t->args[a]);
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
        grow(r);
        if (block_totals(t)) {
            IrVal *xs = t->args[t->nargs - 1];
            if (!marked(r, xs) || (t->body && reads_marked(r, t->body)))
                return false;
            Totals T = totals_of(r, b, i);
            for (int j = i + 1; j < b->nstmts; j++)
                if (total_reader(b, b->stmts[j], &T) < 0) return false;
            for (int k = 0; k < b->nresults; k++)
                if (total_index(&T, b->results[k]) >= 0) return false;
            reduces++;
            continue;
        }
        if (!liftable(r, t)) return false;
        for (int k = 0; k < t->nres; k++)
            if (!ir_is_scalar(t->res[k])) r->mark[t->res[k]->id] = r->epoch;
    }
    return reduces > 0;
}

/* A new statement of op on args, appended to b. */
static IrStmt *body_stmt(Rewriter *r, IrBody *b, IrOp op, Loc loc, int nargs, IrVal **args) {
    IrStmt *t = ir_append(r->p, b, op, loc, nargs, args);
    for (int a = 0; a < nargs; a++) add_use(r, args[a]);
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

/* replicate j s.. (s.. computed from the totals) becomes map f (expand j
 * rb), f computing s.. from the totals; the expand goes to b. */
static void replicate_reads_totals(Rewriter *r, IrBody *b, IrStmt *t, const Totals *T, IrVal *rb) {
    bool exact = t->nargs == T->ntotals;
    for (int a = 0; exact && a < t->nargs; a++) exact = t->args[a] == T->vals[a];
    if (exact) {                /* the totals themselves: an expand */
        for (int a = 0; a < t->nargs; a++) r->uses[t->args[a]->id]--;
        t->op = IR_EXPAND;
        t->nargs = 1;
        t->args = NEW_ARRAY(r->p->arena, IrVal *, 1);
        t->args[0] = rb;
        add_use(r, rb);
        return;
    }
    IrVal *wide = expanded(r, b, T, rb, t->k);
    IrBody *f = ir_new_body(r->p);
    IrVal **params = NEW_ARRAY(r->p->arena, IrVal *, T->ntotals);
    for (int k = 0; k < T->ntotals; k++) params[k] = ir_body_add_param(r->p, f, -1, T->vals[k]->elem);
    IrVal **copies = total_copies(r, T, params);
    for (int a = 0; a < t->nargs; a++) {
        IrVal *v = copy_total(r, f, T, copies, t->args[a]);
        ir_body_add_result(r->p, f, v);
        add_use(r, v);
        IrVal *old = t->args[a];
        r->uses[old->id]--;
        if (total_index(T, old) < 0 && old->def && old->def->op == IR_CONST && !uses(r, old)) old->def->dead = true;
    }
    t->op = IR_MAP;
    t->k = 0;
    t->nargs = 1;
    t->args = NEW_ARRAY(r->p->arena, IrVal *, 1);
    t->args[0] = wide;
    add_use(r, wide);
    t->body = f;
}

/* Every read of from in body b becomes a read of to. */
static void reread_body(Rewriter *r, IrBody *b, IrVal *from, IrVal *to) {
    int before = uses(r, to);
    substitute(r, b, &from, &to, 1);
    r->uses[from->id] -= uses(r, to) - before;
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
static void reread_from_params(Rewriter *r, IrBody *f, const Totals *T, IrVal **params, IrBody *pre) {
    IrVal **copies = total_copies(r, T, params);
    for (int i = 0; i < T->n; i++) {
        if (!body_reads_totals(f, &(Totals){.red = T->red, .vals = T->vals + i, .defs = T->defs + i, .n = 1, .ntotals = 0}))
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
    for (int k = 0; k < T->ntotals; k++) params[k] = ir_body_add_param(r->p, t->body, -1, T->vals[k]->elem);
    reread_from_params(r, t->body, T, params, ir_new_body(r->p));
    set_arg(r, t, 0, zipped);
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
    set_arg(r, t, 0, zipped);
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
    for (int k = 0; k < nt; k++) {   /* z's totals: any value, never read */
        IrStmt *c = body_stmt(r, b, IR_CONST, t->loc, 0, NULL);
        args[ns + k] = ir_add_result(r->p, c, -1, T->vals[k]->elem);
        add_use(r, args[ns + k]);
    }
    args[ns + nt] = zipped;
    add_use(r, zipped);
    drop_use(r, t->args[ns]);
    t->args = args;
    t->nargs = ns + nt + 1;
    /* params (a.., ca.., b.., cb..): the totals' after each operand's slots */
    IrBody *f = t->body;
    IrVal **params = NEW_ARRAY(r->p->arena, IrVal *, 2 * (ns + nt)), **cb = NEW_ARRAY(r->p->arena, IrVal *, nt);
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
        add_use(r, cb[k]);
        ir_add_result(r->p, t, -1, T->vals[k]->elem);
    }
}

/* T's scalar code is read by nothing now: it dies, with constants only it
 * read (their reads are dropped here, not through kill, since the totals'
 * statement is no longer what defined them). */
static void drop_total_code(Rewriter *r, const Totals *T) {
    for (int i = T->n - 1; i >= T->ntotals; i--) {
        IrStmt *d = T->defs[i];
        d->dead = true;
        for (int a = 0; a < d->nargs; a++) {
            IrVal *v = d->args[a];
            r->uses[v->id]--;
            if (total_index(T, v) < 0 && v->def && v->def->op == IR_CONST && !uses(r, v)) v->def->dead = true;
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

static IrStmt *slot_map(Rewriter *r, Loc loc, IrVal *x, int from, int count, const ElemType *zeros,
                        const ElemType *to);

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
        IrStmt *map = slot_map(r, ix->loc, ys, ix->slot, 1, NULL, slot);
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

/* A two's body that is not element code (element_sized: larger than a
 * thread's registers, or with a half, join or shift of more than 2^3
 * elements) that reduces its block (or reads an element of it at a static
 * position) and reads the totals only
 * through replicates and maps, all else being liftable (two-lift):
 *   two k (\ys -> .. replicate j (reduce op z ys) ..)  = two k (\ys -> .. expand j (reduceblocks m op z ys) ..)
 *   two k (\ys -> .. map (f (reduce op z ys)) xs ..) = two k (\ys -> .. map f' (zip xs (expand j (reduceblocks m ..))) ..)
 *   ys ! a                                           = the one element of m halves of ys (index_as_array)
 * for blocks of 2^m: the body becomes array code, which two-lift runs as
 * whole-array stages (reduceblocks m of the whole array, halves and
 * expand). Bodies that fit registers stay element code, which does it in
 * one pass. */
static bool rule_two_reduce_blocks(Rewriter *r, IrStmt *s) {
    if (s->op != IR_TWO) return false;
    IrBody *b = s->body;
    if (element_sized(s)) return false;
    grow(r);
    r->epoch++;
    r->mark[b->params[0]->id] = r->epoch;
    if (!lifts_with_totals(r, b)) return false;
    fired(r, "two-reduce-blocks", s);
    for (int i = 0; i < b->nstmts; i++)
        if (!b->stmts[i]->dead && block_totals(b->stmts[i])) totals_as_array(r, b, i);
    return true;
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
        if (marked(r, t->args[a])) return true;
    return t->body && reads_marked(r, t->body);
}

static void mark_reads(Rewriter *r, const IrBody *b);

/* Marks what t reads, at any depth, with the current epoch. */
static void mark_stmt_reads(Rewriter *r, const IrStmt *t) {
    for (int a = 0; a < t->nargs; a++) r->mark[t->args[a]->id] = r->epoch;
    if (t->body) mark_reads(r, t->body);
}

/* The statements of b between i and j that read statement i's results, at
 * any remove (after[k] set), when none of them is one that statement j
 * reads, at any remove: those go after the reduction that replaces both. */
static bool after_both(Rewriter *r, const IrBody *b, int i, int j, bool *after) {
    grow(r);
    r->epoch++;
    for (int k = 0; k < b->stmts[i]->nres; k++) r->mark[b->stmts[i]->res[k]->id] = r->epoch;
    for (int k = i + 1; k < j; k++)
        if ((after[k] = !b->stmts[k]->dead && stmt_reads_marked(r, b->stmts[k])))
            for (int v = 0; v < b->stmts[k]->nres; v++) r->mark[b->stmts[k]->res[v]->id] = r->epoch;
    r->epoch++;
    mark_stmt_reads(r, b->stmts[j]);
    for (int k = j - 1; k > i; k--) {
        bool feeds = false;
        for (int v = 0; v < b->stmts[k]->nres; v++) feeds |= marked(r, b->stmts[k]->res[v]);
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
    add_use(r, zipped);
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

/* Two reductions of a two's block (not element code: element_sized) whose
 * totals scalar code combines, of arrays of one length:
 *   reduce op1 z1 xs, reduce op2 z2 ys = reduce op (z1, z2) (zip xs ys)
 * with op (a1, a2) (b1, b2) = (op1 a1 b1, op2 a2 b2): the same tree of each,
 * so the same bits. It takes the later one's place; what reads the earlier
 * one's totals in between moves after it (when the later one reads none of
 * that). The scalar code then reads the totals of one reduction, which
 * two-reduce-blocks runs as a whole-array stage. */
static bool rule_two_reduce_zip(Rewriter *r, IrStmt *s) {
    if (s->op != IR_TWO || element_sized(s)) return false;
    IrBody *b = s->body;
    int i = 0, j = 0;
    if (!meeting_reductions(b, &i, &j)) return false;
    bool *after = calloc((size_t)b->nstmts, sizeof(bool));
    if (!after) diag_fatal("out of memory in the optimiser");
    if (!after_both(r, b, i, j, after)) {
        free(after);
        return false;
    }
    IrStmt *r1 = b->stmts[i], *r2 = b->stmts[j];
    fired(r, "two-reduce-zip", r1);
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
                if (after[m]) stmts[n++] = b->stmts[m];
        } else if (k != i && !(k < j && after[k])) {
            stmts[n++] = b->stmts[k];
        }
    }
    free(after);
    b->stmts = stmts;
    b->nstmts = b->cap = n;
    return true;
}

/* The result of a two's body is a bmmc used nowhere else: it moves after the
 * two as a block-diagonal bmmc: two k (bmmc B ∘ f) = bmmc (I ⊕ B) ∘ two k f.
 * The bmmc itself moves, onto `after`, to be emitted after s; what it read
 * becomes the body's result, and its result the one s had. */
static bool rule_two_sink(Rewriter *r, IrStmt *s, StmtList *after) {
    if (s->op != IR_TWO) return false;
    IrBody *b = s->body;
    IrVal *res = b->results[0];
    IrStmt *t = res->def;
    if (!t || t->dead || t->op != IR_BMMC || uses(r, res) != 1) return false;
    int at = b->nstmts - 1;     /* t is usually the body's last statement */
    while (at >= 0 && b->stmts[at] != t) at--;
    if (at < 0) return false;
    fired(r, "two-bmmc-out", s);
    memmove(b->stmts + at, b->stmts + at + 1, sizeof(IrStmt *) * (size_t)(b->nstmts - at - 1));
    b->nstmts--;
    b->results[0] = t->args[0];         /* the read moves from t to the result */
    int n = s->res[0]->log_len;
    IrVal *old = s->res[0];
    s->res[0] = ir_new_val(r->p, n, t->args[0]->elem);
    s->res[0]->def = s;
    t->args[0] = s->res[0];
    add_use(r, s->res[0]);
    t->res[0] = old;
    old->def = t;
    F2Mat m = f2_embed(t->mat, n, 0);
    set_matrix(r, t, NULL, &m);
    list_push(after, t);
    return true;
}

/* A bmmc that acts on the low n-k bits only, between two `two k`: it moves
 * into the joined body: two k g ∘ bmmc (I ⊕ B) ∘ two k f = two k (g ∘ bmmc B ∘ f). */
static bool block_diagonal(const F2Mat *m, uint64_t compl, int low) {
    uint64_t low_mask = f2_mask(low);
    if (compl & ~low_mask) return false;
    for (int i = 0; i < m->n; i++) {
        if (i < low && (m->row[i] & ~low_mask)) return false;
        if (i >= low && m->row[i] != UINT64_C(1) << i) return false;
    }
    return true;
}

static bool rule_two_pull_in(Rewriter *r, IrStmt *s) {
    IrStmt *perm = s->op == IR_TWO ? sole_def(r, s->args[0], IR_BMMC) : NULL;
    if (!perm) return false;
    int n = s->args[0]->log_len, low = n - s->k;
    IrStmt *d = sole_def(r, perm->args[0], IR_TWO);
    if (!d || d->k != s->k || !block_diagonal(perm->mat, perm->compl, low) || !body_is_local(d->body) ||
        !body_is_local(s->body))
        return false;
    fired(r, "two-bmmc-in", s);
    IrBody *first = d->body;
    IrStmt *inner = ir_append(r->p, first, IR_BMMC, perm->loc, 1, first->results);
    add_use(r, first->results[0]);
    F2Mat m = {.n = low};
    memcpy(m.row, perm->mat->row, sizeof(uint64_t) * (size_t)low);
    set_matrix(r, inner, perm, &m);
    inner->compl = perm->compl;
    set_result(r, first, 0, ir_add_result(r->p, inner, low, first->results[0]->elem));
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
static bool rule_map_replicate(Rewriter *r, IrStmt *s) {
    if (s->op != IR_MAP) return false;
    IrStmt *z = sole_def(r, s->args[0], IR_ZIP);
    if (!z || z->nargs != 2) return false;
    int rep = -1;
    for (int a = 1; a >= 0; a--) {
        IrStmt *d = z->args[a]->def;
        if (d && !d->dead && d->op == IR_REPLICATE) rep = a;
    }
    if (rep < 0) return false;
    IrStmt *d = z->args[rep]->def;
    int width = z->args[rep]->elem->nslots, off = rep == 0 ? 0 : z->args[0]->elem->nslots;
    if (d->nargs != width || s->body->nparams != z->args[0]->elem->nslots + z->args[1]->elem->nslots) return false;
    fired(r, "map-replicate", s);
    IrVal **with = NEW_ARRAY(r->p->arena, IrVal *, width);
    for (int k = 0; k < width; k++) with[k] = constant_into(r, s->body, d->args[k]);
    substitute(r, s->body, s->body->params + off, with, width);
    memmove(s->body->params + off, s->body->params + off + width,
            sizeof(IrVal *) * (size_t)(s->body->nparams - off - width));
    s->body->nparams -= width;
    set_arg(r, s, 0, z->args[1 - rep]);
    return true;
}

/* map f (replicate k c..) = replicate k (f c..), for an f that does not read
 * its position: f runs once, as scalar statements before s, and the array
 * is written once and never read (docs/ir.md). */
static bool rule_map_of_replicate(Rewriter *r, IrStmt *s, IrBody *out) {
    IrStmt *d = s->op == IR_MAP ? s->args[0]->def : NULL;
    if (!d || d->dead || d->op != IR_REPLICATE || d->nargs != s->body->nparams) return false;
    IrBody *b = s->body;
    for (int i = 0; i < b->nstmts; i++)
        if (b->stmts[i]->op == IR_POS || b->stmts[i]->body) return false;
    fired(r, "map-of-replicate", s);
    substitute(r, b, b->params, d->args, b->nparams);
    for (int i = 0; i < b->nstmts; i++)
        if (!b->stmts[i]->dead) ir_body_push(r->p, out, b->stmts[i]);
    int k = d->k;
    IrVal *old_arg = s->args[0];
    s->op = IR_REPLICATE;
    s->k = k;
    s->body = NULL;
    s->nargs = b->nresults;
    s->args = b->results;       /* the results' reads become the replicate's */
    drop_use(r, old_arg);
    drain(r);
    return true;
}

/* A map of 2^n elements over x's slots (its body's parameters), whose
 * result is the slots numbered from `from` for `count` (of x's element),
 * then a zero for each slot of `zeros` (NULL: none), of type `to`. */
static IrStmt *slot_map(Rewriter *r, Loc loc, IrVal *x, int from, int count, const ElemType *zeros,
                        const ElemType *to) {
    IrStmt *m = detached(r, IR_MAP, loc, x);
    IrBody *b = m->body = ir_new_body(r->p);
    for (int k = 0; k < x->elem->nslots; k++) ir_body_add_param(r->p, b, -1, elem_prim(elem_slot_prim(x->elem, k)));
    for (int k = from; k < from + count; k++) {
        ir_body_add_result(r->p, b, b->params[k]);
        add_use(r, b->params[k]);
    }
    for (int k = 0; zeros && k < zeros->nslots; k++) {
        Prim prim = elem_slot_prim(zeros, k);
        IrStmt *c = ir_append(r->p, b, IR_CONST, loc, 0, NULL);
        c->cval = prim_is_float(prim) ? scalar_from_double(prim, 0) : scalar_from_int(prim, 0);
        IrVal *zero = ir_add_result(r->p, c, -1, elem_prim(prim));
        ir_body_add_result(r->p, b, zero);
        add_use(r, zero);
    }
    ir_add_result(r->p, m, x->log_len, to);
    return m;
}

/* A two at the entry's level whose function changes the element type from
 * T to U (which a tile, of one element type, cannot hold) works on (T, U)
 * instead, a type it keeps:
 *   two k f = map snd ∘ two k (\ps -> let (ts, _) = unzip ps in zip ts (f ts)) ∘ map (\t -> (t, 0))
 * The maps join the stages around (map-map), and the zip and unzip of a
 * block are renamings in its element code. Nested twos need none of this:
 * element code changes types freely. */
static bool rule_two_retype(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    if (s->op != IR_TWO || out != r->top || elem_equal(s->args[0]->elem, s->res[0]->elem)) return false;
    fired(r, "two-retype", s);
    IrVal *xs = s->args[0], *ys = s->res[0];
    const ElemType *t = xs->elem, *u = ys->elem, *pair = elem_tuple(r->p->arena, 2, (const ElemType *[]){t, u});
    IrStmt *in = slot_map(r, s->loc, xs, 0, t->nslots, u, pair);
    emit(r, out, in);
    set_arg(r, s, 0, in->res[0]);
    /* the body: its parameter unzipped, its result zipped with the T half */
    IrBody *b = s->body;
    IrVal *old = b->params[0], *param = ir_new_val(r->p, old->log_len, pair);
    IrStmt *unzip = ir_append(r->p, b, IR_UNZIP, s->loc, 1, &param);
    memmove(b->stmts + 1, b->stmts, sizeof(IrStmt *) * (size_t)(b->nstmts - 1));
    b->stmts[0] = unzip;
    add_use(r, param);
    IrVal *ts = ir_add_result(r->p, unzip, old->log_len, t);
    ir_add_result(r->p, unzip, old->log_len, u);
    substitute(r, b, &old, &ts, 1);
    b->params[0] = param;
    IrVal *halves[2] = {ts, b->results[0]};
    IrStmt *zip = ir_append(r->p, b, IR_ZIP, s->loc, 2, halves);
    add_use(r, ts);
    add_use(r, halves[1]);
    set_result(r, b, 0, ir_add_result(r->p, zip, old->log_len, pair));
    /* s's result becomes (T, U); a map after it gives ys its U half */
    s->res[0] = ir_new_val(r->p, ys->log_len, pair);
    s->res[0]->def = s;
    IrStmt *back = slot_map(r, s->loc, s->res[0], t->nslots, u->nslots, NULL, u);
    back->res[0] = ys;
    ys->def = back;
    list_push(after, back);
    return true;
}

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

static void mark_read(IrWalk *w, IrVal **v) {
    Rewriter *r = w->ctx;
    r->mark[(*v)->id] = r->epoch;
}

/* Marks with the current epoch every value that b, or a body in it, reads. */
static void mark_reads(Rewriter *r, const IrBody *b) {
    IrWalk w = {.read = mark_read, .ctx = r};
    ir_walk(&w, b);
}

/* Which statements of b vary with its instance: those that read a parameter
 * or what varies (in their own bodies too), and positions. */
static bool *varying_stmts(Rewriter *r, const IrBody *b) {
    bool *varies = calloc((size_t)b->nstmts + 1, sizeof(bool));
    if (!varies) diag_fatal("out of memory in the optimiser");
    grow(r);
    r->epoch++;
    for (int i = 0; i < b->nparams; i++) r->mark[b->params[i]->id] = r->epoch;
    for (int i = 0; i < b->nstmts; i++) {
        const IrStmt *t = b->stmts[i];
        bool v = t->dead || t->op == IR_POS || (t->body && reads_marked(r, t->body));
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
        if (t->body) mark_reads(r, t->body);
    }
    return leaves;
}

/* Every read of `from` in t (its body included) becomes a read of `to`. */
static void reread(Rewriter *r, IrStmt *t, IrVal *from, IrVal *to) {
    IrBody one = {.nstmts = 1, .stmts = &t};
    int before = uses(r, to);
    substitute(r, &one, &from, &to, 1);
    r->uses[from->id] -= uses(r, to) - before;
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
static bool rule_hoist_invariant(Rewriter *r, IrStmt *s, IrBody *out) {
    if (!s->body) return false;
    IrBody *b = s->body;
    bool *varies = varying_stmts(r, b), *leaves = leaving_stmts(r, b, varies);
    bool any = false;
    for (int i = 0; i < b->nstmts && !any; i++) any = leaves[i];
    if (any) {
        fired(r, "hoist-invariant", s);
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
            if (!uses(r, c->res[0])) kill(r, c);
            drain(r);
        }
        for (int i = 0; i < b->nstmts; i++)
            if (!leaves[i] && !b->stmts[i]->dead) b->stmts[kept++] = b->stmts[i];
        b->nstmts = kept;
        for (int m = 0; m < nmoved; m++) emit(r, out, moved[m]);
    }
    free(varies);
    free(leaves);
    return any;
}

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
static bool rule_shift_zero(Rewriter *r, IrStmt *s) {
    if (s->op != IR_SHIFT || s->dist != 0) return false;
    fired(r, "shift-zero", s);
    replace(r, s, s->res[0], s->args[s->nargs - 1]);
    return true;
}

/* shift d x xs = replicate n x when |d| >= 2^k, its blocks' length: no
 * element is inside */
static bool rule_shift_out(Rewriter *r, IrStmt *s) {
    if (s->op != IR_SHIFT) return false;
    int n = s->res[0]->log_len;
    if (s->dist < (INT64_C(1) << s->k) && s->dist > -(INT64_C(1) << s->k)) return false;
    fired(r, "shift-out", s);
    IrVal *xs = s->args[s->nargs - 1];
    s->op = IR_REPLICATE;
    s->k = n;
    s->nargs--;
    drop_use(r, xs);
    drain(r);
    return true;
}

/* shift d x (shift e x xs) = shift (d + e) x xs when d and e have one sign,
 * the blocks are the same and the fills are the same values: an element
 * that the inner shift filled moves further out with the outer one, so it
 * is x either way */
static bool rule_shift_shift(Rewriter *r, IrStmt *s) {
    IrStmt *d = s->op == IR_SHIFT ? sole_def(r, s->args[s->nargs - 1], IR_SHIFT) : NULL;
    int64_t sum;
    if (!d || d->k != s->k || (s->dist > 0) != (d->dist > 0) || __builtin_add_overflow(s->dist, d->dist, &sum))
        return false;
    for (int k = 0; k < s->nargs - 1; k++)
        if (!same_scalar(s->args[k], d->args[k])) return false;
    fired(r, "shift-shift", s);
    s->dist = sum;
    set_arg(r, s, s->nargs - 1, d->args[d->nargs - 1]);
    return true;
}

/* half m b (join m ys zs) = ys or zs */
static bool rule_half_join(Rewriter *r, IrStmt *s) {
    IrStmt *d = s->op == IR_HALF ? s->args[0]->def : NULL;
    if (!d || d->dead || d->op != IR_JOIN || d->mask != s->mask) return false;
    fired(r, "half-join", s);
    replace(r, s, s->res[0], d->args[s->k]);
    return true;
}

/* join m (half m 0 xs) (half m 1 xs) = xs */
static bool rule_join_half(Rewriter *r, IrStmt *s) {
    if (s->op != IR_JOIN) return false;
    IrStmt *lo = s->args[0]->def, *hi = s->args[1]->def;
    if (!lo || !hi || lo->dead || hi->dead || lo->op != IR_HALF || hi->op != IR_HALF || lo->mask != s->mask ||
        hi->mask != s->mask || lo->k != 0 || hi->k != 1 || lo->args[0] != hi->args[0])
        return false;
    fired(r, "join-half", s);
    replace(r, s, s->res[0], lo->args[0]);
    return true;
}

/* half m b ∘ map f = map f ∘ half m b when f does not read its position:
 * f runs on half the elements */
static bool rule_half_map(Rewriter *r, IrStmt *s, IrBody *out) {
    IrStmt *d = s->op == IR_HALF ? sole_def(r, s->args[0], IR_MAP) : NULL;
    if (!d) return false;
    for (int i = 0; i < d->body->nstmts; i++)
        if (d->body->stmts[i]->op == IR_POS) return false;
    fired(r, "half-map", s);
    IrStmt *h = detached(r, IR_HALF, s->loc, d->args[0]);
    h->mask = s->mask;
    h->k = s->k;
    IrVal *halved = ir_add_result(r->p, h, s->res[0]->log_len, d->args[0]->elem);
    s->op = IR_MAP;
    s->body = d->body;
    d->body = NULL;
    set_arg(r, s, 0, halved);
    emit(r, out, h);
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
static bool rule_half_bmmc(Rewriter *r, IrStmt *s, IrBody *out) {
    IrStmt *d = s->op == IR_HALF ? sole_def(r, s->args[0], IR_BMMC) : NULL;
    if (!d) return false;
    fired(r, "half-bmmc", s);
    const F2Mat *a = d->mat;
    int n = a->n, low = __builtin_ctzll(s->mask);
    uint64_t m2 = 0;
    for (int i = 0; i < n; i++)
        if (s->mask >> i & 1) m2 ^= a->row[i];
    int b2 = s->k ^ f2_parity(s->mask & d->compl), low2 = __builtin_ctzll(m2);
    IrStmt *h = detached(r, IR_HALF, s->loc, d->args[0]);
    h->mask = m2;
    h->k = b2;
    IrVal *halved = ir_add_result(r->p, h, n - 1, s->res[0]->elem);
    if (n == 1) {   /* one element kept: no permutation of it */
        emit(r, out, h);
        replace(r, s, s->res[0], halved);
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
    set_matrix(r, s, NULL, &moved);
    set_arg(r, s, 0, halved);
    emit(r, out, h);
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

static bool rule_join_bmmc(Rewriter *r, IrStmt *s, IrBody *out) {
    if (s->op != IR_JOIN || s->args[0] == s->args[1]) return false;
    IrStmt *d0 = sole_def(r, s->args[0], IR_BMMC), *d1 = sole_def(r, s->args[1], IR_BMMC);
    if (!d0 || !d1 || !f2_equal(d0->mat, d1->mat)) return false;
    fired(r, "join-bmmc", s);
    int n = s->res[0]->log_len;
    uint64_t c[2] = {d0->compl, d1->compl}, q = join_bmmc_image(s, d0->mat, c, 0);
    F2Mat moved = f2_zero(n);
    for (int t = 0; t < n; t++) {
        uint64_t col = join_bmmc_image(s, d0->mat, c, UINT64_C(1) << t) ^ q;
        for (int i = 0; i < n; i++) moved.row[i] |= (col >> i & 1) << t;
    }
    IrStmt *j = detached(r, IR_JOIN, s->loc, d0->args[0]);
    j->mask = s->mask;
    j->nargs = 2;
    j->args = NEW_ARRAY(r->p->arena, IrVal *, 2);
    j->args[0] = d0->args[0];
    j->args[1] = d1->args[0];
    add_use(r, d1->args[0]);
    IrVal *joined = ir_add_result(r->p, j, n, s->res[0]->elem);
    s->op = IR_BMMC;
    s->mask = 0;
    s->compl = q;
    s->own_mat = false;
    set_matrix(r, s, NULL, &moved);
    IrVal *second = s->args[1];
    s->nargs = 1;
    drop_use(r, second);
    set_arg(r, s, 0, joined);
    emit(r, out, j);
    return true;
}

/* The argument and element that element i of a half, join or shift reads
 * (ir.h); -1 for a shift's fill. */
static int length_source(const IrStmt *s, int64_t i, int64_t *at) {
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

/* ---- an element read at a static position ---- */

/* The live statement of op that defines the array the index s reads. */
static IrStmt *index_source(IrStmt *s, IrOp op) {
    IrStmt *d = s->op == IR_INDEX ? s->args[0]->def : NULL;
    return d && !d->dead && d->op == op ? d : NULL;
}

/* (bmmc (A,c) xs) ! k = xs ! A⁻¹(k ⊕ c): element x of xs is element A·x ⊕ c
 * of the result, so one element needs no permutation. */
static bool rule_index_bmmc(Rewriter *r, IrStmt *s) {
    IrStmt *d = index_source(s, IR_BMMC);
    F2Mat inv;
    if (!d || !f2_invert(d->mat, &inv)) return false;
    fired(r, "index-bmmc", s);
    s->at = (int64_t)f2_apply(&inv, (uint64_t)s->at ^ d->compl);
    set_arg(r, s, 0, d->args[0]);
    return true;
}

/* (build s..) ! i = its slot of element i, the value built there */
static bool rule_index_build(Rewriter *r, IrStmt *s) {
    IrStmt *d = index_source(s, IR_BUILD);
    if (!d) return false;
    fired(r, "index-build", s);
    replace(r, s, s->res[0], d->args[s->at * s->args[0]->elem->nslots + s->slot]);
    return true;
}

/* (replicate k x) ! i = x; (expand r ys) ! i = ys ! (i >> r) */
static bool rule_index_replicate(Rewriter *r, IrStmt *s) {
    IrStmt *d = index_source(s, IR_REPLICATE), *e = index_source(s, IR_EXPAND);
    if (d && d->nargs == s->args[0]->elem->nslots) {
        fired(r, "index-replicate", s);
        replace(r, s, s->res[0], d->args[s->slot]);
        return true;
    }
    if (!e) return false;
    fired(r, "index-replicate", s);
    s->at >>= e->k;
    set_arg(r, s, 0, e->args[0]);
    return true;
}

/* (half m b xs) ! i, (join m ys zs) ! i, (shift d x xs) ! i: the element of
 * the array it names (length_source), or the shift's fill. */
static bool rule_index_lengths(Rewriter *r, IrStmt *s) {
    IrStmt *d = index_source(s, IR_HALF);
    if (!d) d = index_source(s, IR_JOIN);
    if (!d) d = index_source(s, IR_SHIFT);
    if (!d) return false;
    fired(r, "index-lengths", s);
    int64_t at;
    int from = length_source(d, s->at, &at);
    if (from < 0) {
        replace(r, s, s->res[0], d->args[s->slot]);
        return true;
    }
    s->at = at;
    set_arg(r, s, 0, d->args[from]);
    return true;
}

/* (zip xs ys ..) ! i reads the array of its slot; ((unzip zs) field k) ! i
 * reads zs at that field's slot. */
static bool rule_index_zip(Rewriter *r, IrStmt *s) {
    IrStmt *z = index_source(s, IR_ZIP), *u = index_source(s, IR_UNZIP);
    if (z) {
        int a = 0, slot = s->slot;
        while (slot >= z->args[a]->elem->nslots) slot -= z->args[a++]->elem->nslots;
        fired(r, "index-zip", s);
        s->slot = slot;
        set_arg(r, s, 0, z->args[a]);
        return true;
    }
    if (!u) return false;
    int offset = 0;
    for (int k = 0; u->res[k] != s->args[0]; k++) offset += u->res[k]->elem->nslots;
    fired(r, "index-zip", s);
    s->slot += offset;
    set_arg(r, s, 0, u->args[0]);
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
        if (!c->to[k] && k < nparams) {    /* a parameter: its slot of element `at` */
            IrStmt *ix = detached(r, IR_INDEX, c->loc, c->xs);
            ix->at = c->at;
            ix->slot = k;
            c->to[k] = ir_add_result(r->p, ix, -1, v->elem);
            list_push(&c->made, ix);
        }
        v = c->to[k];
        break;
    }
    add_use(r, v);              /* else from outside the function */
    return v;
}

/* (map f xs) ! i = f (xs ! i) when f is scalar code (no function of its
 * own) on elements of one slot: f's statements are copied to `out` for
 * element i, its positions constants there, so one element needs no map of
 * the array. One slot, so that one element read stays one (a two's body
 * on a large block reads each as a gather, two-reduce-blocks, and two
 * reads whose values meet would stop it). */
static bool rule_index_map(Rewriter *r, IrStmt *s, IrBody *out) {
    IrStmt *d = index_source(s, IR_MAP);
    if (!d || d->args[0]->elem->nslots != 1) return false;
    IrBody *f = d->body;
    int n = f->nparams;
    for (int i = 0; i < f->nstmts; i++) {
        if (f->stmts[i]->body) return false;
        n += f->stmts[i]->nres;
    }
    fired(r, "index-map", s);
    ElementCopy c = {NEW_ARRAY(r->p->arena, IrVal *, n), NEW_ARRAY(r->p->arena, IrVal *, n), 0, d->args[0], s->at,
                     s->loc, {0}};
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
        if (t->op == IR_POS) {  /* the element's position: a constant */
            copy->op = IR_CONST;
            copy->mat = NULL;
            copy->cval = (Scalar){.i = (int64_t)(f2_apply(t->mat, (uint64_t)s->at) ^ t->compl)};
        }
        for (int k = 0; k < t->nres; k++) {
            c.from[c.n] = t->res[k];
            c.to[c.n++] = ir_add_result(r->p, copy, t->res[k]->log_len, t->res[k]->elem);
        }
        list_push(&c.made, copy);
    }
    IrVal *v = copied(r, &c, f->results[s->slot], f->nparams);
    for (int i = 0; i < c.made.n; i++) emit(r, out, c.made.items[i]);
    free(c.made.items);
    v = resolve(r, v);
    replace(r, s, s->res[0], v);
    drop_use(r, v);
    drain(r);
    return true;
}

/* Whether a function's body works on blocks of at most 2^3 elements (or
 * on scalars): element code on them fits one thread's registers. */
static bool small_body(const IrBody *b) {
    for (int i = 0; i < b->nparams; i++)
        if (b->params[i]->log_len > 3) return false;
    return true;
}

/* In a function's body on small blocks, a half, join or shift on arrays of
 * at most 2^3 elements = the build of the elements it reads (index), which
 * element code keeps in registers (2^3 elements of any type fit one
 * thread's); at the entry's level, and in bodies on larger blocks, they
 * stay whole-array statements (which two-lift lifts). */
static bool rule_lengths_build(Rewriter *r, IrStmt *s, IrBody *out) {
    if ((s->op != IR_HALF && s->op != IR_JOIN && s->op != IR_SHIFT) || out == r->top || !small_body(out) ||
        s->args[s->nargs - 1]->log_len > 3 || s->res[0]->log_len > 3)
        return false;
    fired(r, "lengths-build", s);
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
            int from = length_source(s, i, &at);
            IrVal *v = from < 0 ? s->args[k] : NULL;
            if (from >= 0) {
                IrStmt *ix = detached(r, IR_INDEX, s->loc, s->args[from]);
                ix->at = at;
                ix->slot = k;
                v = ir_add_result(r->p, ix, -1, elem_prim(elem_slot_prim(res->elem, k)));
                add_use(r, v);  /* the build's read, counted before rules see ix */
                emit(r, out, ix);
            } else {
                add_use(r, v);
            }
            build->args[i * ns + k] = v;
        }
    IrVal *built = ir_add_result(r->p, build, res->log_len, res->elem);
    emit(r, out, build);
    replace(r, s, s->res[0], built);
    return true;
}

/* ---- the walk ---- */

static bool try_rules(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    return rule_hoist_invariant(r, s, out) || rule_shift_zero(r, s) || rule_shift_out(r, s) ||
           rule_shift_shift(r, s) || rule_index_bmmc(r, s) || rule_index_replicate(r, s) || rule_index_build(r, s) ||
           rule_index_lengths(r, s) ||
           rule_index_zip(r, s) || rule_index_map(r, s, out) || rule_half_join(r, s) || rule_join_half(r, s) || rule_half_map(r, s, out) ||
           rule_half_bmmc(r, s, out) || rule_join_bmmc(r, s, out) || rule_lengths_build(r, s, out) ||
           rule_bmmc_identity(r, s) || rule_bmmc_fuse(r, s) || rule_bmmc_replicate(r, s) ||
           rule_reduce_bmmc(r, s) || rule_reduceblocks_bmmc(r, s) || rule_bmmc_expand(r, s, out) ||
           rule_map_bmmc(r, s, out) || rule_scan_bmmc(r, s, out) || rule_map_expand(r, s, out) || rule_map_map(r, s) || rule_map_replicate(r, s) ||
           rule_map_of_replicate(r, s, out) || rule_two_fuse(r, s) ||
           rule_two_pull_in(r, s) || rule_two_identity(r, s) || rule_two_two(r, s) || rule_two_map(r, s) ||
           rule_two_hoist(r, s, out) || rule_two_reduce_zip(r, s) || rule_two_reduce_blocks(r, s) || rule_two_lift(r, s, out) || rule_two_retype(r, s, out, after) || rule_two_sink(r, s, after);
}

static void rewrite_body(Rewriter *r, IrBody *b);

static void resolve_args(Rewriter *r, IrStmt *s) {
    for (int a = 0; a < s->nargs; a++) s->args[a] = resolve(r, s->args[a]);
}

/* Rewrite s (its body first) until no rule fires, then append it to out,
 * followed by the statements that rules moved after it, last moved first
 * (each reads the result of the one moved before it). */
static void emit(Rewriter *r, IrBody *out, IrStmt *s) {
    StmtList after = {0};
    resolve_args(r, s);
    if (s->body) rewrite_body(r, s->body);
    while (!s->dead && try_rules(r, s, out, &after)) resolve_args(r, s);
    if (!s->dead) ir_body_push(r->p, out, s);
    for (int i = after.n - 1; i >= 0; i--) emit(r, out, after.items[i]);
    free(after.items);
}

/* Once per round: a body that moves (into a hoisted stage, a joined map)
 * keeps what it reached. */
static void rewrite_body(Rewriter *r, IrBody *b) {
    if (b->rewritten == r->round) return;
    b->rewritten = r->round;
    IrStmt **old = b->stmts;
    int count = b->nstmts;
    b->stmts = NULL;
    b->nstmts = b->cap = 0;
    for (int i = 0; i < count; i++)
        if (!old[i]->dead) emit(r, b, old[i]);
    compact(b);
    for (int i = 0; i < b->nresults; i++) b->results[i] = resolve(r, b->results[i]);
}

/* ---- rounds ---- */

/* Counting also applies pending replacements, so the counts are of the
 * values the statements really read. */
static void resolve_read(IrWalk *w, IrVal **v) { *v = resolve(w->ctx, *v); }

static void count_uses(Rewriter *r, IrBody *b) {
    IrWalk w = {.read = resolve_read, .ctx = r};
    ir_walk(&w, b);
    ir_count_uses(b, r->uses, r->cap, 1);
}

/* Statements whose results are all unused are killed (the IR is pure). */
static void kill_unused(Rewriter *r, IrBody *b) {
    for (int i = b->nstmts - 1; i >= 0; i--) {
        IrStmt *s = b->stmts[i];
        if (!s->dead && all_unused(r, s)) {
            kill(r, s);
            drain(r);
        }
        if (!s->dead && s->body) kill_unused(r, s->body);
    }
    compact(b);
}

/* Returns false when the rounds ran out. */
static bool optimise_func(Rewriter *r, IrFunc *f) {
    r->top = f->body;
    for (int round = 0; round < MAX_ROUNDS; round++) {
        grow(r);
        memset(r->uses, 0, sizeof(int) * (size_t)r->cap);
        count_uses(r, f->body);
        kill_unused(r, f->body);
        r->round++;
        r->changed = false;
        rewrite_body(r, f->body);
        if (!r->changed) return true;
    }
    return false;
}

void opt_optimise(IrProgram *p, FILE *trace) {
    Rewriter r = {.p = p, .trace = trace};
    const IrFunc *stuck = NULL;
    for (int i = 0; i < p->nfuncs && !stuck; i++)
        if (!optimise_func(&r, p->funcs[i])) stuck = p->funcs[i];
    free(r.subst);
    free(r.uses);
    free(r.mark);
    free(r.dying.items);
    if (stuck)
        diag_fatal("internal error: the optimiser did not reach a fixed point for entry '%s' within %d rounds",
                   stuck->name, MAX_ROUNDS);
}
