/* opt_rules.h: internal to the rewrite pass (opt_optimise, opt.h). The
 * rewriter's state, the helpers that its files share (they carry rw_) and
 * the rules that opt_rules.c's rule table tries from the other files:
 *   opt_rules.c    the helpers, the basic rules, the rule table, the walk
 *                  and the rounds
 *   opt_blocks.c   per-block reductions as whole-array stages
 *                  (two-reduce-blocks, two-reduce-zip)
 *   opt_licm.c     loop-invariant code motion (hoist-invariant)
 *   opt_lengths.c  arrays that change length (half, join, shift rules)
 *   opt_index.c    an element read at a static position (index-* rules)
 * Every change to what a statement reads goes through these helpers, which
 * keep the use counts exact (opt_rules.c says why). */
#ifndef PARMC_OPT_RULES_H
#define PARMC_OPT_RULES_H

#include "opt.h"

typedef struct {
    IrStmt **items;
    int n, cap;
} StmtList;

typedef struct {
    IrProgram *p;
    IrVal **subst;      /* by id: the value that replaces it */
    int *uses;          /* by id: reads by live statements and body results */
    int *mark;          /* by id: scratch for rw_reads_marked */
    int epoch;
    int cap;
    int round;          /* bodies rewritten in this round carry it */
    IrBody *top;        /* the body of the entry being rewritten */
    StmtList dying;     /* killed statements whose reads are still counted */
    bool changed;
    FILE *trace;
    /* what the walk has in hand, innermost first, and the rules in progress
     * (opt_rules.c: the sanitizer build checks the entry after each rule) */
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
/* Records that a rule changed s (a line of --trace-rules). */
void rw_fired(Rewriter *r, const char *rule, const IrStmt *s);

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

/* The rules of the other files; each returns true when it fired. */
bool rule_two_reduce_start(Rewriter *r, IrStmt *s);
bool rule_two_sink_scalars(Rewriter *r, IrStmt *s);
bool rule_two_reduce_blocks(Rewriter *r, IrStmt *s);                /* opt_blocks.c */
bool rule_two_reduce_zip(Rewriter *r, IrStmt *s);
bool rule_hoist_invariant(Rewriter *r, IrStmt *s, IrBody *out);     /* opt_licm.c */
bool rule_shift_zero(Rewriter *r, IrStmt *s);                       /* opt_lengths.c */
bool rule_shift_out(Rewriter *r, IrStmt *s);
bool rule_shift_shift(Rewriter *r, IrStmt *s);
bool rule_half_join(Rewriter *r, IrStmt *s);
bool rule_join_half(Rewriter *r, IrStmt *s);
bool rule_half_map(Rewriter *r, IrStmt *s, IrBody *out);
bool rule_half_bmmc(Rewriter *r, IrStmt *s, IrBody *out);
bool rule_join_bmmc(Rewriter *r, IrStmt *s, IrBody *out);
bool rule_shift_fill_map(Rewriter *r, IrStmt *s, IrBody *out);
bool rule_lengths_build(Rewriter *r, IrStmt *s, IrBody *out);
bool rule_index_bmmc(Rewriter *r, IrStmt *s);                       /* opt_index.c */
bool rule_index_build(Rewriter *r, IrStmt *s);
bool rule_build_bmmc(Rewriter *r, IrStmt *s);
bool rule_index_replicate(Rewriter *r, IrStmt *s);
bool rule_index_lengths(Rewriter *r, IrStmt *s);
bool rule_index_zip(Rewriter *r, IrStmt *s);
bool rule_index_map(Rewriter *r, IrStmt *s, IrBody *out);

#endif
