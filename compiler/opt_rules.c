/* opt_rules.c: the rewrite rules, applied to a fixed point.
 *
 * Each round walks every body (inner bodies first), resolves replaced values,
 * tries the rules on each statement, then drops dead statements. A statement
 * changes at most once per round and never reads a statement changed in the
 * same round, so the use counts taken at the start of the round stay valid
 * for the single-use conditions. docs/ir.md lists the rules. */
#include "opt.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    IrProgram *p;
    IrVal **subst;      /* by id: the value that replaces it */
    int *uses;          /* by id, counted at the start of the round */
    int *mark;          /* by id: scratch for reads_marked */
    int epoch;
    IrStmt *after;      /* a statement a rule wants right after the current one */
    int cap;
    bool changed;
    FILE *trace;
    long applied;
} Rewriter;

#define MAX_ROUNDS 10000

static void grow(Rewriter *r) {
    if (r->p->next_id <= r->cap) return;
    int cap = r->p->next_id * 2;
    r->subst = realloc(r->subst, sizeof(IrVal *) * (size_t)cap);
    r->uses = realloc(r->uses, sizeof(int) * (size_t)cap);
    r->mark = realloc(r->mark, sizeof(int) * (size_t)cap);
    if (!r->subst || !r->uses || !r->mark) diag_fatal("out of memory in the optimiser");
    memset(r->subst + r->cap, 0, sizeof(IrVal *) * (size_t)(cap - r->cap));
    memset(r->mark + r->cap, 0, sizeof(int) * (size_t)(cap - r->cap));
    r->cap = cap;
}

static IrVal *resolve(Rewriter *r, IrVal *v) {
    while (v->id < r->cap && r->subst[v->id]) v = r->subst[v->id];
    return v;
}

/* The uses of old become uses of with: a single-use condition on with must
 * see them (a map read twice through a replaced bmmc is not single-use). */
static void replace(Rewriter *r, IrVal *old, IrVal *with) {
    grow(r);
    r->subst[old->id] = with;
    r->uses[with->id] += r->uses[old->id];
}

static void fired(Rewriter *r, const char *rule, const IrStmt *s) {
    r->changed = true;
    r->applied++;
    if (!r->trace) return;
    fprintf(r->trace, "rule %s", rule);
    if (s->loc.src) fprintf(r->trace, " at %s:%d:%d", s->loc.src->name, s->loc.line, s->loc.col);
    fprintf(r->trace, " on %%%d\n", s->res[0]->id);
}

static int uses(Rewriter *r, const IrVal *v) { return v->id < r->cap ? r->uses[v->id] : 0; }

/* Counting also applies pending replacements, so the counts are of the
 * values the statements will really read. */
static void count_uses(Rewriter *r, IrBody *b) {
    for (int i = 0; i < b->nstmts; i++) {
        IrStmt *s = b->stmts[i];
        for (int a = 0; a < s->nargs; a++) {
            s->args[a] = resolve(r, s->args[a]);
            r->uses[s->args[a]->id]++;
        }
        if (s->body) count_uses(r, s->body);
    }
    for (int i = 0; i < b->nresults; i++) {
        b->results[i] = resolve(r, b->results[i]);
        r->uses[b->results[i]->id]++;
    }
}

/* The statement defining v, when it may be rewritten together with s:
 * it exists, has not changed this round, and s is v's only use. */
static IrStmt *sole_def(Rewriter *r, IrVal *v, IrOp op) {
    IrStmt *d = v->def;
    if (!d || d->op != op || d->nres != 1 || uses(r, v) != 1 || d->changed) return NULL;
    return d;
}

/* ---- bodies ---- */

/* b1 then b2, where b2's params are b1's results: one body. */
static IrBody *compose(Rewriter *r, IrBody *b1, IrBody *b2) {
    IrBody *b = ir_new_body(r->p);
    b->nparams = b1->nparams;
    b->params = b1->params;
    for (int i = 0; i < b2->nparams; i++) replace(r, b2->params[i], b1->results[i]);
    for (int i = 0; i < b1->nstmts; i++) ir_body_push(r->p, b, b1->stmts[i]);
    for (int i = 0; i < b2->nstmts; i++) ir_body_push(r->p, b, b2->stmts[i]);
    b->nresults = b2->nresults;
    b->results = b2->results;
    return b;
}

/* The body is one statement of kind op on the parameter, which nothing
 * inside that statement's own body reads. */
static bool body_is_single(Rewriter *r, const IrBody *b, IrOp op) {
    return b->nstmts == 1 && b->stmts[0]->op == op && b->stmts[0]->args[0] == b->params[0] &&
           b->nresults == 1 && b->results[0] == b->stmts[0]->res[0] && uses(r, b->params[0]) == 1;
}

static bool reads_marked(const Rewriter *r, const IrBody *b) {
    for (int i = 0; i < b->nstmts; i++) {
        const IrStmt *s = b->stmts[i];
        for (int a = 0; a < s->nargs; a++)
            if (s->args[a]->id < r->cap && r->mark[s->args[a]->id] == r->epoch) return true;
        if (s->body && reads_marked(r, s->body)) return true;
    }
    for (int i = 0; i < b->nresults; i++)
        if (b->results[i]->id < r->cap && r->mark[b->results[i]->id] == r->epoch) return true;
    return false;
}

/* Whether statement `inner` of body b reads a value that a statement before
 * it in b defines (in its own body: it could not move out of b). */
static bool reads_earlier(Rewriter *r, const IrBody *b, const IrStmt *inner) {
    if (!inner->body) return false;
    grow(r);
    r->epoch++;
    int defined = 0;
    for (int i = 0; i < b->nstmts && b->stmts[i] != inner; i++)
        for (int k = 0; k < b->stmts[i]->nres; k++, defined++) r->mark[b->stmts[i]->res[k]->id] = r->epoch;
    return defined > 0 && reads_marked(r, inner->body);
}

/* ---- the rules; each returns true when it fired ---- */

static bool rule_bmmc_identity(Rewriter *r, IrStmt *s) {
    if (s->op != IR_BMMC || s->compl || !f2_is_identity(s->mat)) return false;
    fired(r, "bmmc-identity", s);
    replace(r, s->res[0], s->args[0]);
    return true;
}

/* bmmc (A,c) ∘ bmmc (B,d) = bmmc (AB, Ad ⊕ c) */
static bool rule_bmmc_fuse(Rewriter *r, IrStmt *s) {
    IrStmt *d = s->op == IR_BMMC ? sole_def(r, s->args[0], IR_BMMC) : NULL;
    if (!d) return false;
    fired(r, "bmmc-bmmc", s);
    F2Mat *m = NEW(r->p->arena, F2Mat);
    *m = f2_mul(s->mat, d->mat);
    s->compl = f2_apply(s->mat, d->compl) ^ s->compl;
    s->mat = m;
    s->args[0] = d->args[0];
    return true;
}

static bool rule_bmmc_replicate(Rewriter *r, IrStmt *s) {
    if (s->op != IR_BMMC || !s->args[0]->def || s->args[0]->def->op != IR_REPLICATE) return false;
    fired(r, "bmmc-replicate", s);
    replace(r, s->res[0], s->args[0]);
    return true;
}

static bool rule_reduce_bmmc(Rewriter *r, IrStmt *s) {
    if (s->op != IR_REDUCE || !s->commutative) return false;
    IrVal *xs = s->args[s->nargs - 1];
    if (!xs->def || xs->def->op != IR_BMMC) return false;
    fired(r, "reduce-bmmc", s);
    s->args[s->nargs - 1] = xs->def->args[0];
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
    IrStmt *m = ir_append(r->p, out, IR_MAP, s->loc, 1, d->args);
    m->body = s->body;
    IrVal *mapped = ir_add_result(r->p, m, s->res[0]->log_len, s->res[0]->elem);
    s->op = IR_BMMC;
    s->body = NULL;
    s->mat = d->mat;
    s->compl = d->compl;
    s->args[0] = mapped;
    return true;
}

static bool rule_map_map(Rewriter *r, IrStmt *s) {
    IrStmt *d = s->op == IR_MAP ? sole_def(r, s->args[0], IR_MAP) : NULL;
    if (!d) return false;
    fired(r, "map-map", s);
    s->body = compose(r, d->body, s->body);
    s->args[0] = d->args[0];
    d->body = NULL;     /* d is dead; its statements now belong to s */
    return true;
}

static bool rule_two_identity(Rewriter *r, IrStmt *s) {
    if (s->op != IR_TWO || s->body->nstmts || s->body->results[0] != s->body->params[0]) return false;
    fired(r, "two-identity", s);
    replace(r, s->res[0], s->args[0]);
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
    s->body = compose(r, d->body, s->body);
    s->args[0] = d->args[0];
    d->body = NULL;
    return true;
}

/* The statement of a two's body that reads its parameter, when it is the
 * parameter's only use and an array combinator that can run outside:
 *   two k (f ∘ bmmc B)   = two k f ∘ bmmc (I ⊕ B)
 *   two k (f ∘ two l g)  = two k f ∘ two (k+l) g
 *   two k (f ∘ map g)    = two k f ∘ map g
 * Peeling bodies from the front flattens nests into a sequence of stages.
 * The statement must not read what the body computes before it (a POS of
 * the outer two, say): outside the body those values do not exist. */
static IrStmt *leading_stmt(Rewriter *r, const IrBody *b) {
    IrVal *param = b->params[0];
    if (uses(r, param) != 1) return NULL;
    for (int i = 0; i < b->nstmts; i++) {
        IrStmt *t = b->stmts[i];
        if (t->nargs == 1 && t->args[0] == param)
            return (t->op == IR_BMMC || t->op == IR_TWO || t->op == IR_MAP) && !reads_earlier(r, b, t) ? t : NULL;
    }
    return NULL;
}

static bool rule_two_hoist(Rewriter *r, IrStmt *s, IrBody *out) {
    IrStmt *t = s->op == IR_TWO ? leading_stmt(r, s->body) : NULL;
    if (!t) return false;
    fired(r, t->op == IR_BMMC ? "two-bmmc-out" : t->op == IR_TWO ? "two-two-out" : "two-map-out", s);
    int n = s->args[0]->log_len;
    IrStmt *hoisted = ir_append(r->p, out, t->op, t->loc, 1, s->args);
    hoisted->body = t->body;
    hoisted->k = t->k + s->k;
    if (t->op == IR_BMMC) {
        hoisted->mat = NEW(r->p->arena, F2Mat);
        *hoisted->mat = f2_embed(t->mat, n, 0);
        hoisted->compl = t->compl;
    }
    s->args[0] = ir_add_result(r->p, hoisted, n, t->res[0]->elem);
    /* t's result becomes the parameter; t itself is left dead. */
    IrBody *b = s->body;
    b->params[0] = t->res[0];
    b->params[0]->def = NULL;
    t->res[0] = ir_new_val(r->p, t->res[0]->log_len, t->res[0]->elem);
    t->res[0]->def = t;
    t->body = NULL;
    return true;
}

/* The result of a two's body is a bmmc used nowhere else: it moves after the
 * two as a block-diagonal bmmc: two k (bmmc B ∘ f) = bmmc (I ⊕ B) ∘ two k f. */
static bool rule_two_sink(Rewriter *r, IrStmt *s) {
    if (s->op != IR_TWO) return false;
    IrVal *res = s->body->results[0];
    IrStmt *t = res->def;
    if (!t || t->op != IR_BMMC || uses(r, res) != 1) return false;
    bool inside = false;
    for (int i = 0; i < s->body->nstmts; i++) inside |= s->body->stmts[i] == t;
    if (!inside) return false;
    fired(r, "two-bmmc-out", s);
    s->body->results[0] = t->args[0];
    int n = s->res[0]->log_len;
    IrVal *old = s->res[0];
    s->res[0] = ir_new_val(r->p, n, t->args[0]->elem);
    s->res[0]->def = s;
    IrStmt *after = NEW(r->p->arena, IrStmt);
    after->op = IR_BMMC;
    after->loc = t->loc;
    after->nargs = 1;
    after->args = NEW_ARRAY(r->p->arena, IrVal *, 1);
    after->args[0] = s->res[0];
    after->mat = NEW(r->p->arena, F2Mat);
    *after->mat = f2_embed(t->mat, n, 0);
    after->compl = t->compl;
    after->res = NEW_ARRAY(r->p->arena, IrVal *, 1);
    after->res[0] = old;
    after->nres = 1;
    old->def = after;
    r->after = after;
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
    inner->mat = NEW(r->p->arena, F2Mat);
    inner->mat->n = low;
    memcpy(inner->mat->row, perm->mat->row, sizeof(uint64_t) * (size_t)low);
    inner->compl = perm->compl;
    first->results[0] = ir_add_result(r->p, inner, low, first->results[0]->elem);
    s->body = compose(r, first, s->body);
    s->args[0] = d->args[0];
    d->body = NULL;
    return true;
}

/* ---- the walk ---- */

/* Rules that look into a body need its use counts, which are only exact
 * when nothing inside changed this round. */
static bool try_rules(Rewriter *r, IrStmt *s, IrBody *out, bool inner_changed) {
    if (rule_bmmc_identity(r, s) || rule_bmmc_fuse(r, s) || rule_bmmc_replicate(r, s) ||
        rule_reduce_bmmc(r, s) || rule_map_bmmc(r, s, out) || rule_map_map(r, s) ||
        rule_two_fuse(r, s) || rule_two_pull_in(r, s))
        return true;
    if (inner_changed) return false;
    return rule_two_identity(r, s) || rule_two_two(r, s) || rule_two_map(r, s) ||
           rule_two_hoist(r, s, out) || rule_two_sink(r, s);
}

static bool reads_changed(const IrStmt *s) {
    for (int a = 0; a < s->nargs; a++)
        if (s->args[a]->def && s->args[a]->def->changed) return true;
    return false;
}

/* Returns whether anything in b changed. */
static bool rewrite_body(Rewriter *r, IrBody *b) {
    IrStmt **old = b->stmts;
    int count = b->nstmts;
    bool any = false;
    b->stmts = NULL;
    b->nstmts = b->cap = 0;
    for (int i = 0; i < count; i++) {
        IrStmt *s = old[i];
        for (int a = 0; a < s->nargs; a++) s->args[a] = resolve(r, s->args[a]);
        bool inner_changed = s->body && rewrite_body(r, s->body);
        r->after = NULL;
        if (!reads_changed(s) && try_rules(r, s, b, inner_changed)) s->changed = true;
        any |= inner_changed || s->changed;
        ir_body_push(r->p, b, s);
        if (r->after) ir_body_push(r->p, b, r->after);
    }
    for (int i = 0; i < b->nresults; i++) b->results[i] = resolve(r, b->results[i]);
    return any;
}

static void unmark_body(IrBody *b) {
    for (int i = 0; i < b->nstmts; i++) {
        b->stmts[i]->changed = false;
        if (b->stmts[i]->body) unmark_body(b->stmts[i]->body);
    }
}

static void uncount_body(Rewriter *r, const IrBody *b) {
    for (int i = 0; i < b->nstmts; i++) {
        const IrStmt *s = b->stmts[i];
        for (int a = 0; a < s->nargs; a++) r->uses[s->args[a]->id]--;
        if (s->body) uncount_body(r, s->body);
    }
    for (int i = 0; i < b->nresults; i++) r->uses[b->results[i]->id]--;
}

/* Statements whose results are all unused are dropped (the IR is pure).
 * Walking backwards frees the uses of a dead statement before its
 * arguments' definitions are visited. */
static bool remove_dead(Rewriter *r, IrBody *b) {
    bool removed = false;
    int kept = 0;
    for (int i = b->nstmts - 1; i >= 0; i--) {
        IrStmt *s = b->stmts[i];
        bool live = false;
        for (int k = 0; k < s->nres; k++) live |= r->uses[s->res[k]->id] > 0;
        if (!live) {
            for (int a = 0; a < s->nargs; a++) r->uses[s->args[a]->id]--;
            if (s->body) uncount_body(r, s->body);
            b->stmts[i] = NULL;
            removed = true;
            continue;
        }
        if (s->body) removed |= remove_dead(r, s->body);
    }
    for (int i = 0; i < b->nstmts; i++)
        if (b->stmts[i]) b->stmts[kept++] = b->stmts[i];
    b->nstmts = kept;
    return removed;
}

static void recount(Rewriter *r) {
    grow(r);
    memset(r->uses, 0, sizeof(int) * (size_t)r->cap);
    for (int i = 0; i < r->p->nfuncs; i++) count_uses(r, r->p->funcs[i]->body);
}

void opt_optimise(IrProgram *p, FILE *trace) {
    Rewriter r = {.p = p, .trace = trace};
    for (int round = 0; round < MAX_ROUNDS; round++) {
        recount(&r);
        for (int i = 0; i < p->nfuncs; i++) remove_dead(&r, p->funcs[i]->body);
        r.changed = false;
        for (int i = 0; i < p->nfuncs; i++) {
            rewrite_body(&r, p->funcs[i]->body);
            unmark_body(p->funcs[i]->body);
        }
        if (!r.changed) break;
    }
    recount(&r);
    for (int i = 0; i < p->nfuncs; i++)
        while (remove_dead(&r, p->funcs[i]->body)) {}
    free(r.subst);
    free(r.uses);
    free(r.mark);
}
