/* opt_rewrite.h: internal to the rewrite pass (opt_optimise, opt.h). The
 * engine that applies rules to a fixed point, below the rules themselves:
 *   opt_rewrite.c  the rewriter's state, the helpers the rules share (they
 *                  carry rw_), the walk and the rounds
 *   opt_basic.c    the basic rules (bmmc, map, two)
 *   opt_blocks.c   per-block reductions as whole-array stages
 *   opt_licm.c     loop-invariant code motion (hoist-invariant)
 *   opt_lengths.c  arrays that change length (half, join, shift rules)
 *   opt_index.c    an element read at a static position (index-* rules)
 *   opt_rules.c    the rule table, which names each family's rules (their
 *                  headers opt_basic.h ... opt_index.h) in the order the
 *                  walk tries them, and opt_optimise
 * The families include this header only; the engine knows no rule but
 * through the table it is handed. Every change to what a statement reads
 * goes through these helpers, which keep the use counts exact
 * (opt_rewrite.c says why). */
#ifndef PARMC_OPT_REWRITE_H
#define PARMC_OPT_REWRITE_H

#include "opt.h"

typedef struct {
    IrStmt **items;
    int n, cap;
} StmtList;

typedef struct Rule Rule;

typedef struct {
    IrProgram *p;
    const Rule *rules; /* the table, tried in order */
    int nrules;
    const Rule *trying; /* the rule being tried, innermost (rw_fired) */
    IrVal **subst;      /* by id: the value that replaces it */
    int *uses;          /* by id: reads by live statements and body results */
    int *mark;          /* by id: scratch for rw_reads_marked */
    int epoch;
    int cap;
    int round;      /* bodies rewritten in this round carry it */
    IrBody *top;    /* the body of the entry being rewritten */
    StmtList dying; /* killed statements whose reads are still counted */
    bool changed;
    FILE *trace;
    /* what the walk has in hand, innermost first, and the rules in progress
     * (opt_rewrite.c: the sanitizer build checks the entry after each rule) */
    struct RwFrame *open;
    int firing;
    const char *func; /* the entry being rewritten */
    const char *rule; /* the outermost rule that fired last, on rule_stmt */
    const IrStmt *rule_stmt;
    int rule_id;      /* rule_stmt's first result when it fired */
    int64_t verified; /* values the checks after rules have visited */
} Rewriter;

void rw_list_push(StmtList *l, IrStmt *s);
/* Makes room in the by-id arrays for every value made so far. */
void rw_grow(Rewriter *r);
/* v after the replacements made so far (rw_replace). */
IrVal *rw_resolve(Rewriter *r, IrVal *v);
/* v's reads by live statements and body results. */
int rw_uses(Rewriter *r, const IrVal *v);
/* Records that the rule being tried changed s (a line of --trace-rules,
 * with the rule's name in the table). */
void rw_fired(Rewriter *r, const IrStmt *s);
/* The same for a rule that reports what it did under another of its names
 * (Rule.also). */
void rw_fired_as(Rewriter *r, const char *name, const IrStmt *s);

/* exact use counts */
void rw_add_use(Rewriter *r, IrVal *v);
/* Marks s dead; rw_drain drops its reads. */
void rw_kill(Rewriter *r, IrStmt *s);
/* One read of v fewer; its statement dies when nothing reads it. */
void rw_drop_use(Rewriter *r, IrVal *v);
/* Drops the reads of the statements killed so far, and what dies of that. */
void rw_drain(Rewriter *r);
/* s reads v as argument a instead. */
void rw_set_arg(Rewriter *r, IrStmt *s, int a, IrVal *v);
/* Every read of old becomes a read of with; s, old's statement, dies. */
void rw_replace(Rewriter *r, IrStmt *s, IrVal *old, IrVal *with);
/* A new statement of op reading x, in no body yet (rw_emit places it). */
IrStmt *rw_detached_n(Rewriter *r, IrOp op, Loc loc, int nargs, IrVal *const *args);
IrStmt *rw_detached(Rewriter *r, IrOp op, Loc loc, IrVal *x);
/* v's statement when it is of op and the read at hand is v's only use. */
IrStmt *rw_sole_def(Rewriter *r, IrVal *v, IrOp op);

/* bodies */
/* Every read of from[k] in b, at any depth, becomes a read of to[k]. */
void rw_substitute(Rewriter *r, IrBody *b, IrVal *const *from, IrVal *const *to, int n);
/* The epoch marks (r->mark): whether v carries the current one, whether b
 * reads such a value at any depth, and marking every value b reads. */
bool rw_marked(const Rewriter *r, const IrVal *v);
/* Whether body b reads its instance's position (a POS statement at its
 * own level). */
bool rw_reads_position(const IrBody *b);
bool rw_reads_marked(const Rewriter *r, const IrBody *b);
void rw_mark_reads(Rewriter *r, const IrBody *b);
/* s's matrix becomes m, reusing s's or that of `dying` where it can. */
void rw_set_matrix(Rewriter *r, IrStmt *s, IrStmt *dying, const F2Mat *m);
/* A map over x's slots: `count` of them from `from`, then a zero for each
 * slot of `zeros` (NULL: none), of element type `to`; detached. */
IrStmt *rw_slot_map(Rewriter *r, Loc loc, IrVal *x, int from, int count, const ElemType *zeros,
                    const ElemType *to);
/* Whether t, a statement of a two's body, has a whole-array form
 * (two-lift). */
bool rw_liftable(const Rewriter *r, const IrStmt *t);
/* Whether scalar v is the same for every instance of body b: a constant, a
 * value from outside b, or b's scalar code on those (opt_blocks.c). */
bool rw_plain_scalar(const IrBody *b, const IrVal *v);
/* The argument, and the element *at of it, that element i of a half, join
 * or shift reads; -1 for a shift's fill (opt_lengths.c). */
int rw_length_source(const IrStmt *s, int64_t i, int64_t *at);

/* the walk: rewrites s until no rule fires, then appends it to out */
void rw_emit(Rewriter *r, IrBody *out, IrStmt *s);

/* Statements that are dead leave b. */
void rw_compact(IrBody *b);
/* b's result i becomes v. */
void rw_set_result(Rewriter *r, IrBody *b, int i, IrVal *v);
/* s's arguments after the replacements made so far. */
void rw_resolve_args(Rewriter *r, IrStmt *s);

/* ---- the rule table ---- */

/* The rules' one signature: s is about to be placed at the end of `out`
 * (the entry's own body when out == r->top: a rule may emit statements
 * there before s, through rw_emit), and what a rule pushes on `after` is
 * emitted after s, last pushed first. True when the rule fired. */
typedef bool RuleFn(Rewriter *r, IrStmt *s, IrBody *out, StmtList *after);

/* A rule is tried on the statements of its op only (it takes the op for
 * granted), RULE_ANY_OP on all. */
#define RULE_ANY_OP (-1)

struct Rule {
    const char *name; /* docs/ir.md's, what --trace-rules prints */
    int op;           /* an IrOp, or RULE_ANY_OP */
    RuleFn *fn;
    const char *also; /* the other names it fires under (rw_fired_as), or NULL */
};

/* Rewrites every entry of p with the rules, to a fixed point. */
void rw_optimise(IrProgram *p, FILE *trace, const Rule *rules, int nrules);

#endif
