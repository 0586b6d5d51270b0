/* opt_rewrite.c: the engine of the rewrite rules, which applies a table of
 * them (opt_rules.c) to a fixed point.
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
 * statement or a body result reads goes through rw_set_arg, rw_set_result,
 * rw_replace or rw_kill, which keep uses[] equal to the reads of live
 * statements and body results; a statement whose results lose their last
 * read is killed at once, and a body drops its killed statements before its
 * statement's rules look at it.
 *
 * This file holds the helpers that the rules share (opt_rewrite.h), the
 * walk, which tries the table's rules of a statement's op in the table's
 * order, and the rounds. It knows no rule by name: the families of rules
 * (opt_basic.c, opt_blocks.c, opt_licm.c, opt_lengths.c, opt_index.c) sit
 * above it, and opt_rules.c's table above them. */
#include "opt_rewrite.h"

#include <stdlib.h>
#include <string.h>

/* Each round reaches the fixed point of every nest; rounds only repeat for
 * opportunities that a rewrite further down a body opens further up it. */
#define MAX_ROUNDS 100

void rw_list_push(StmtList *l, IrStmt *s) {
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->items = realloc(l->items, sizeof(IrStmt *) * (size_t)l->cap);
        if (!l->items) diag_fatal("out of memory in the optimiser");
    }
    l->items[l->n++] = s;
}

void rw_grow(Rewriter *r) {
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

IrVal *rw_resolve(Rewriter *r, IrVal *v) {
    while (v->id < r->cap && r->subst[v->id]) v = r->subst[v->id];
    return v;
}

int rw_uses(Rewriter *r, const IrVal *v) { return v->id < r->cap ? r->uses[v->id] : 0; }

void rw_fired_as(Rewriter *r, const char *rule, const IrStmt *s) {
    r->changed = true;
    if (r->firing == 1) {
        r->rule = rule;
        r->rule_stmt = s;
        r->rule_id = s->res[0]->id;
    }
    if (!r->trace) return;
    fprintf(r->trace, "rule %s", rule);
    if (s->loc.src) fprintf(r->trace, " at %s:%d:%d", s->loc.src->name, s->loc.line, s->loc.col);
    fprintf(r->trace, " on %%%d\n", s->res[0]->id);
}

void rw_fired(Rewriter *r, const IrStmt *s) { rw_fired_as(r, r->trying->name, s); }

/* ---- exact use counts ---- */

void rw_add_use(Rewriter *r, IrVal *v) {
    rw_grow(r);
    r->uses[v->id]++;
}

static bool all_unused(Rewriter *r, const IrStmt *s) {
    for (int k = 0; k < s->nres; k++)
        if (rw_uses(r, s->res[k])) return false;
    return true;
}

/* Marks s dead; its reads are dropped by rw_drain(). */
void rw_kill(Rewriter *r, IrStmt *s) {
    if (s->dead) return;
    s->dead = true;
    rw_list_push(&r->dying, s);
}

void rw_drop_use(Rewriter *r, IrVal *v) {
    r->uses[v->id]--;
    if (v->def && !v->def->dead && all_unused(r, v->def)) rw_kill(r, v->def);
}

/* A dying body's statements die with it; each drops its reads once. */
static bool kill_nested(IrWalk *w, IrStmt *s) {
    (void)w;
    if (s->dead) return false;
    s->dead = true;
    return true;
}

static void drop_read(IrWalk *w, IrVal **v) { rw_drop_use(w->ctx, *v); }

static void drop_body(Rewriter *r, IrBody *b) {
    IrWalk w = {.stmt = kill_nested, .read = drop_read, .ctx = r};
    ir_walk(&w, b);
}

/* Drops the reads of every killed statement, killing in turn what only they
 * read; a worklist, so that a long dead chain needs no deep recursion. */
void rw_drain(Rewriter *r) {
    while (r->dying.n) {
        IrStmt *s = r->dying.items[--r->dying.n];
        for (int a = 0; a < s->nargs; a++) rw_drop_use(r, s->args[a]);
        if (s->body) drop_body(r, s->body);
    }
}

/* The read in slot (a statement's argument or a body's result) becomes a
 * read of what v stands for now; the old value's uses follow. */
static void set_read(Rewriter *r, IrVal **slot, IrVal *v) {
    v = rw_resolve(r, v);
    rw_add_use(r, v);
    IrVal *old = *slot;
    *slot = v;
    rw_drop_use(r, old);
    rw_drain(r);
}

void rw_set_arg(Rewriter *r, IrStmt *s, int a, IrVal *v) { set_read(r, &s->args[a], v); }

void rw_set_result(Rewriter *r, IrBody *b, int i, IrVal *v) { set_read(r, &b->results[i], v); }

/* Every read of old becomes a read of with; old's statement dies. The
 * reads move to what with stands for now: a rule may replace a value that
 * a statement it emitted was itself replaced by (half-bmmc on one element
 * emits a half, half-join replaces that half's value by a join's operand),
 * and counting them on with, which nothing reads any more, would let the
 * operand's statement die while old still resolves to it. */
void rw_replace(Rewriter *r, IrStmt *s, IrVal *old, IrVal *with) {
    rw_grow(r);
    with = rw_resolve(r, with);
    r->subst[old->id] = with;
    r->uses[with->id] += r->uses[old->id];
    r->uses[old->id] = 0;
    rw_kill(r, s);
    rw_drain(r);
}

/* A new statement reading args.. (its reads counted on what they stand for
 * now, as in rw_replace), not yet in any body (rw_emit places it, or the
 * rule inserts it). */
IrStmt *rw_detached_n(Rewriter *r, IrOp op, Loc loc, int nargs, IrVal *const *args) {
    IrStmt *s = NEW(r->p->arena, IrStmt);
    s->op = op;
    s->loc = loc;
    s->alu = OP_COUNT;
    s->nargs = nargs;
    s->args = NEW_ARRAY(r->p->arena, IrVal *, nargs > 0 ? nargs : 1);
    for (int a = 0; a < nargs; a++) {
        s->args[a] = rw_resolve(r, args[a]);
        rw_add_use(r, s->args[a]);
    }
    return s;
}

/* A new statement reading x, not yet in any body. */
IrStmt *rw_detached(Rewriter *r, IrOp op, Loc loc, IrVal *x) {
    return rw_detached_n(r, op, loc, 1, &x);
}

void rw_compact(IrBody *b) {
    int kept = 0;
    for (int i = 0; i < b->nstmts; i++)
        if (!b->stmts[i]->dead) b->stmts[kept++] = b->stmts[i];
    b->nstmts = kept;
}

/* The statement defining v, when it may be rewritten together with s:
 * s's read is v's only use. */
IrStmt *rw_sole_def(Rewriter *r, IrVal *v, IrOp op) {
    IrStmt *d = v->def;
    if (!d || d->dead || d->op != op || d->nres != 1 || rw_uses(r, v) != 1) return NULL;
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
            rw_add_use(sub->r, sub->to[k]);
        }
}

/* Every read of from[k] in b, at any depth, becomes a read of to[k]. */
void rw_substitute(Rewriter *r, IrBody *b, IrVal *const *from, IrVal *const *to, int n) {
    Substitution sub = {r, from, to, n};
    IrWalk w = {.read = substitute_read, .ctx = &sub};
    ir_walk(&w, b);
}

bool rw_reads_position(const IrBody *b) {
    for (int i = 0; i < b->nstmts; i++)
        if (b->stmts[i]->op == IR_POS) return true;
    return false;
}

/* Whether v is marked with the current epoch. */
bool rw_marked(const Rewriter *r, const IrVal *v) {
    return v->id < r->cap && r->mark[v->id] == r->epoch;
}

static void stop_at_marked(IrWalk *w, IrVal **v) {
    const Rewriter *r = *(const Rewriter **)w->ctx;
    w->stop |= rw_marked(r, *v);
}

/* Whether b, or a body in it, reads a value marked with the current epoch. */
bool rw_reads_marked(const Rewriter *r, const IrBody *b) {
    IrWalk w = {.read = stop_at_marked, .ctx = &r};
    ir_walk(&w, b);
    return w.stop;
}

static void mark_read(IrWalk *w, IrVal **v) {
    Rewriter *r = w->ctx;
    r->mark[(*v)->id] = r->epoch;
}

/* Marks with the current epoch every value that b, or a body in it, reads. */
void rw_mark_reads(Rewriter *r, const IrBody *b) {
    IrWalk w = {.read = mark_read, .ctx = r};
    ir_walk(&w, b);
}

/* Where s's new matrix m goes: s's own matrix, else that of `dying` (a
 * statement that dies in the same rewrite), else a new one. Reusing them
 * keeps a chain of fusions from allocating a matrix at every step. */
void rw_set_matrix(Rewriter *r, IrStmt *s, IrStmt *dying, const F2Mat *m) {
    if (!s->own_mat) {
        s->mat = dying && dying->own_mat ? dying->mat : NEW(r->p->arena, F2Mat);
        s->own_mat = true;
        if (dying) dying->own_mat = false;
    }
    *s->mat = *m;
}

/* ---- the walk ---- */

static void free_rewriter(Rewriter *r);

/* What the walk has in hand, on the C stack: a body being rewritten, whose
 * statements old[next + 1..count) are still to come (old[next] is in a
 * statement's frame), or a statement being rewritten, not yet placed in
 * its body, and the statements that rules moved after it, emitted last
 * first: after->items[left - 1..0] once it is placed and emits
 * items[left], all of them before. */
typedef struct RwFrame {
    struct RwFrame *up;
    IrBody *body;
    IrStmt **old;
    int next, count;
    IrStmt *s;
    bool placed;
    StmtList *after;
    int left;
} RwFrame;


/* The table's rules of s's op, in the table's order, until one fires. A
 * rule may rewrite other statements as it goes (rw_emit), trying rules on
 * them: the rule in hand is restored for its own rw_fired. */
static bool try_rules(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    const Rule *outer = r->trying;
    bool fired = false;
    for (int i = 0; i < r->nrules && !fired; i++) {
        r->trying = &r->rules[i];
        if (r->trying->op == RULE_ANY_OP || r->trying->op == (int)s->op)
            fired = r->trying->fn(r, s, out, after);
    }
    r->trying = outer;
    return fired;
}

static void rewrite_body(Rewriter *r, IrBody *b);

#ifdef PARMC_VERIFY
static const IrVal *resolve_for_verifier(void *ctx, const IrVal *x) {
    return rw_resolve(ctx, (IrVal *)x);
}

static void push_live(StmtList *l, IrStmt *s) {
    if (!s->dead) rw_list_push(l, s);
}

/* The statements of the body of frame f as they will stand, from those
 * placed so far to those still to come: the statement frames inside f, up
 * to the next body's (`inner`, innermost first), hold the statement being
 * rewritten and the statements moved after each. */
static void frame_view(RwFrame *f, RwFrame *inner, StmtList *view) {
    for (int i = 0; i < f->body->nstmts; i++) push_live(view, f->body->stmts[i]);
    for (RwFrame *e = inner; e != f; e = e->up) {
        if (!e->placed) push_live(view, e->s);
        for (int i = (e->placed ? e->left : e->after->n) - 1; i >= 0; i--)
            push_live(view, e->after->items[i]);
    }
    for (int i = f->next + 1; i < f->count; i++) push_live(view, f->old[i]);
}

/* The sanitizer build's check after each rule that the walk tried (not
 * those that a rule's own rewrites set off, in the middle of it): the IR
 * verifier on the whole entry as it stands, each open body seen as
 * frame_view shows it, so that a rule that drops a value still read, or
 * reads one out of scope, stops the compilation with its name. */
static void verify_rule(Rewriter *r) {
    int nbodies = 0;
    for (RwFrame *f = r->open; f; f = f->up) nbodies += f->body != NULL;
    struct Saved {
        IrBody *b;
        IrStmt **stmts;
        int n;
        StmtList view;
    } *saved = calloc((size_t)nbodies, sizeof *saved);
    if (!saved) diag_fatal("out of memory in the optimiser");
    int k = 0;
    RwFrame *inner = r->open;
    for (RwFrame *f = r->open; f; f = f->up) {
        if (!f->body) continue;
        struct Saved *sv = &saved[k++];
        *sv = (struct Saved){f->body, f->body->stmts, f->body->nstmts, {0}};
        frame_view(f, inner, &sv->view);
        inner = f->up;
    }
    for (k = 0; k < nbodies; k++) {
        saved[k].b->stmts = saved[k].view.items;
        saved[k].b->nstmts = saved[k].view.n;
    }
    const char *why = ir_verify_body(r->p, r->func, r->top, resolve_for_verifier, r);
    for (k = 0; k < nbodies; k++) {
        saved[k].b->stmts = saved[k].stmts;
        saved[k].b->nstmts = saved[k].n;
        free(saved[k].view.items);
    }
    free(saved);
    if (!why) return;
    const IrStmt *s = r->rule_stmt;
    const char *at = s->loc.src ? arena_printf(r->p->arena, " at %s:%d:%d", s->loc.src->name,
                                               s->loc.line, s->loc.col)
                                : "";
    int id = r->rule_id;
    const char *rule = r->rule, *func = r->func;
    free_rewriter(r);
    diag_fatal("internal error: the rule %s%s on %%%d broke the IR of '%s': %s", rule, at, id, func,
               why);
}
#endif

/* try_rules, with the sanitizer build's check after a rule of the walk.
 * Each check costs the entry's size, so a compilation checks rules while
 * their checks have cost under VERIFY_RULES_VALUES values in all, and the
 * rest only after the pass: every program of the tests and of the random
 * and fuzz campaigns is checked after each rule, and the compilations of
 * section 46-compile-scale stay linear. */
#define VERIFY_RULES_VALUES (INT64_C(1) << 22)

static bool fire(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after) {
    r->firing++;
    bool fired = try_rules(r, s, out, after);
    r->firing--;
#ifdef PARMC_VERIFY
    if (fired && !r->firing && r->verified < VERIFY_RULES_VALUES) {
        r->verified += r->p->next_id;
        verify_rule(r);
    }
#endif
    return fired;
}

void rw_resolve_args(Rewriter *r, IrStmt *s) {
    for (int a = 0; a < s->nargs; a++) s->args[a] = rw_resolve(r, s->args[a]);
}

/* Rewrite s (its body first) until no rule fires, then append it to out,
 * followed by the statements that rules moved after it, last moved first
 * (each reads the result of the one moved before it). */
void rw_emit(Rewriter *r, IrBody *out, IrStmt *s) {
    StmtList after = {0};
    RwFrame frame = {.up = r->open, .s = s, .after = &after};
    r->open = &frame;
    rw_resolve_args(r, s);
    if (s->body) rewrite_body(r, s->body);
    while (!s->dead && fire(r, s, out, &after)) rw_resolve_args(r, s);
    if (!s->dead) ir_body_push(r->p, out, s);
    frame.placed = true;
    for (frame.left = after.n - 1; frame.left >= 0; frame.left--)
        rw_emit(r, out, after.items[frame.left]);
    r->open = frame.up;
    free(after.items);
}

/* Once per round: a body that moves (into a hoisted stage, a joined map)
 * keeps what it reached. */
static void rewrite_body(Rewriter *r, IrBody *b) {
    if (b->rewritten == r->round) return;
    b->rewritten = r->round;
    RwFrame frame = {.up = r->open, .body = b, .old = b->stmts, .count = b->nstmts};
    r->open = &frame;
    b->stmts = NULL;
    b->nstmts = b->cap = 0;
    for (frame.next = 0; frame.next < frame.count; frame.next++)
        if (!frame.old[frame.next]->dead) rw_emit(r, b, frame.old[frame.next]);
    r->open = frame.up;
    rw_compact(b);
    for (int i = 0; i < b->nresults; i++) b->results[i] = rw_resolve(r, b->results[i]);
}

/* ---- rounds ---- */

/* Counting also applies pending replacements, so the counts are of the
 * values the statements really read. */
static void resolve_read(IrWalk *w, IrVal **v) { *v = rw_resolve(w->ctx, *v); }

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
            rw_kill(r, s);
            rw_drain(r);
        }
        if (!s->dead && s->body) kill_unused(r, s->body);
    }
    rw_compact(b);
}

/* Returns false when the rounds ran out. */
static bool optimise_func(Rewriter *r, IrFunc *f) {
    r->top = f->body;
    r->func = f->name;
    for (int round = 0; round < MAX_ROUNDS; round++) {
        rw_grow(r);
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

/* Frees what the rewriter malloc'd, the lists of the walk's open frames
 * too (an error in the middle of the walk leaves them). */
static void free_rewriter(Rewriter *r) {
    for (RwFrame *f = r->open; f; f = f->up)
        if (f->after) {
            free(f->after->items);
            f->after->items = NULL;
        }
    r->open = NULL;
    free(r->subst);
    free(r->uses);
    free(r->mark);
    free(r->dying.items);
}

void rw_optimise(IrProgram *p, FILE *trace, const Rule *rules, int nrules) {
    Rewriter r = {.p = p, .rules = rules, .nrules = nrules, .trace = trace};
    const IrFunc *stuck = NULL;
    for (int i = 0; i < p->nfuncs && !stuck; i++)
        if (!optimise_func(&r, p->funcs[i])) stuck = p->funcs[i];
    free_rewriter(&r);
    if (stuck)
        diag_fatal(
            "internal error: the optimiser did not reach a fixed point for entry '%s' within %d "
            "rounds",
            stuck->name, MAX_ROUNDS);
}
