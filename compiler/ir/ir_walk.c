/* ir_walk.c: the one traversal of IR bodies (ir.h, IrWalk), and the use
 * count built on it. A pass that needs every statement, read or definition
 * at every depth gives callbacks instead of writing its own recursion, so a
 * new kind of statement with a body is walked everywhere at once. */
#include "ir.h"

static void walk_body(IrWalk *w, const IrBody *b);

/* A statement: its callback, its reads, its body, then its results. */
static void walk_stmt(IrWalk *w, const IrBody *b, IrStmt *s) {
    if (w->stmt && !w->stmt(w, s)) return;
    for (int a = 0; a < s->nargs && !w->stop; a++)
        if (w->read) w->read(w, &s->args[a]);
    if (s->body && !w->stop) {
        w->depth++;
        walk_body(w, s->body);
        w->depth--;
    }
    for (int r = 0; r < s->nres && !w->stop; r++)
        if (w->def) w->def(w, b, s->res[r]);
}

static void walk_body(IrWalk *w, const IrBody *b) {
    for (int i = 0; i < b->nparams && !w->stop; i++)
        if (w->def) w->def(w, b, b->params[i]);
    for (int i = 0; i < b->nstmts && !w->stop; i++) walk_stmt(w, b, b->stmts[i]);
    for (int i = 0; i < b->nresults && !w->stop; i++)
        if (w->read) w->read(w, &b->results[i]);
}

void ir_walk(IrWalk *w, const IrBody *b) {
    w->stop = false;
    w->depth = 0;
    walk_body(w, b);
}

typedef struct {
    int *uses;
    int cap, delta;
} UseCount;

static void count_read(IrWalk *w, IrVal **v) {
    UseCount *u = w->ctx;
    if ((*v)->id < u->cap) u->uses[(*v)->id] += u->delta;
}

void ir_count_uses(const IrBody *b, int *uses, int cap, int delta) {
    UseCount u = {uses, cap, delta};
    IrWalk w = {.read = count_read, .ctx = &u};
    ir_walk(&w, b);
}

typedef struct {
    IrOp op;
    int n;
} OpCount;

static bool count_op(IrWalk *w, IrStmt *s) {
    OpCount *c = w->ctx;
    c->n += s->op == c->op;
    return true;
}

int ir_count_stmts(const IrBody *b, IrOp op) {
    OpCount c = {op, 0};
    IrWalk w = {.stmt = count_op, .ctx = &c};
    ir_walk(&w, b);
    return c.n;
}
