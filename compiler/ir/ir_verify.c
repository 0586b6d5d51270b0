/* ir_verify.c: the invariants every stage of the IR must keep.
 *
 * A rewrite that breaks one (a map left without its body, a statement that
 * reads a value defined after it or inside another body) would otherwise
 * show up much later as a crash in the interpreter or a back end. The
 * sanitizer build runs this after every stage (driver.c) and names the
 * stage that broke the invariant.
 *
 * Checked: each op has the arguments, results and body its form in ir.h
 * needs; the scalar statements keep the type rules of docs/ir.md (the
 * element code of emit_elem.c relies on them); every value is defined
 * once; every argument and body result is in scope where it is read (a
 * parameter of an enclosing body, or the result of an earlier statement of
 * an enclosing body); results point back to their statement.
 *
 * The rewrite pass also runs it after each rule (opt_rewrite.c), on the entry
 * as it stands in the middle of the walk: then every read goes through the
 * pass's pending replacements and killed statements are left out. */
#include "ir.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>

#include "diag.h"

typedef struct {
    const IrProgram *p;
    const char *stage;
    const char *func;
    char *defined;           /* by id: defined somewhere already */
    char *in_scope;          /* by id: readable at the current point */
    IrVerifyResolve resolve; /* in the middle of a pass: what a read stands for; NULL after one */
    void *ctx;
    /* in the middle of a pass: broken() leaves its message in why and jumps here */
    jmp_buf *escape;
    const char *why;
} Verifier;

/* The statement s (NULL: a body's parameters or results) breaks an invariant. */
static noreturn void broken(Verifier *v, const IrStmt *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static noreturn void broken(Verifier *v, const IrStmt *s, const char *fmt, ...) {
    Arena scratch = {0};
    va_list ap;
    va_start(ap, fmt);
    const char *what = arena_vprintf(&scratch, fmt, ap);
    va_end(ap);
    const char *where = s && s->loc.src ? arena_printf(&scratch, " (from %s:%d:%d)",
                                                       s->loc.src->name, s->loc.line, s->loc.col)
                                        : "";
    const char *full = arena_printf(&scratch, "%s %s%s", s ? ir_op_name(s->op) : "a body", what,
                                    where);
    if (v->escape) {
        v->why = arena_printf(v->p->arena, "%s", full);
        arena_free(&scratch);
        longjmp(*v->escape, 1);
    }
    diag_report((Loc){0}, "internal error: the %s IR of '%s' is malformed: %s", v->stage, v->func,
                full);
    arena_free(&scratch);
    diag_abort();
}

static void read_value(Verifier *v, const IrStmt *s, const IrVal *x) {
    if (x && v->resolve) x = v->resolve(v->ctx, x);
    if (!x || x->id < 0 || x->id >= v->p->next_id)
        broken(v, s, "reads a value that does not exist");
    if (!v->in_scope[x->id])
        broken(v, s, "reads %%%d, which is not defined before it in an enclosing body", x->id);
}

static void define_value(Verifier *v, const IrStmt *s, const IrVal *x) {
    if (!x || x->id < 0 || x->id >= v->p->next_id)
        broken(v, s, "defines a value that does not exist");
    if (v->defined[x->id]) broken(v, s, "defines %%%d, which is defined twice", x->id);
    if (x->def != s)
        broken(v, s, "defines %%%d, which does not point back to its definition", x->id);
    v->defined[x->id] = 1;
    v->in_scope[x->id] = 1;
}

static bool needs_body(IrOp op) {
    return op == IR_PARM || op == IR_TWO || op == IR_COL || op == IR_MAP || op == IR_REDUCE ||
           op == IR_REDUCEBLOCKS || op == IR_SCAN;
}

/* The fixed argument counts of ir.h's forms; -1 where any count is fine. */
static int arg_count(IrOp op) {
    switch (op) {
    case IR_CONST:
    case IR_POS: return 0;
    case IR_UNARY:
    case IR_CONVERT:
    case IR_INDEX:
    case IR_TABLE:
    case IR_PARM:
    case IR_TWO:
    case IR_COL:
    case IR_BMMC:
    case IR_MAP:
    case IR_UNZIP:
    case IR_EXPAND:
    case IR_HALF: return 1;
    case IR_BINARY:
    case IR_JOIN: return 2;
    case IR_TERNARY:
    case IR_SELECT: return 3;
    default: return -1;
    }
}

static void shape_error(Verifier *v, const IrStmt *s, const char *what) {
    broken(v, s, "%%%d %s", s->nres ? s->res[0]->id : -1, what);
}

/* REDUCEBLOCKS: z's slots and an array of 2^n elements give one array of
 * 2^(n-k), with an operator on two elements' slots; SCAN: of 2^n, its
 * blocks of 2^k <= 2^n, with an exact operator; EXPAND: 2^n give 2^(n+k). */
static void check_blocks(Verifier *v, const IrStmt *s) {
    const IrVal *xs = s->args[s->nargs - 1], *ys = s->res[0];
    bool ok = s->nres == 1 && xs->log_len >= 0 && elem_equal(xs->elem, ys->elem) && s->k >= 0;
    if (ok && s->op == IR_EXPAND) ok = ys->log_len == xs->log_len + s->k;
    if (ok && s->op == IR_REDUCEBLOCKS)
        ok = ys->log_len == xs->log_len - s->k && s->nargs == xs->elem->nslots + 1 &&
             s->body->nparams == 2 * xs->elem->nslots && s->body->nresults == xs->elem->nslots;
    if (ok && s->op == IR_SCAN)
        ok = ys->log_len == xs->log_len && s->k <= xs->log_len && s->commutative &&
             s->nargs == xs->elem->nslots + 1 && s->body->nparams == 2 * xs->elem->nslots &&
             s->body->nresults == xs->elem->nslots;
    if (!ok) shape_error(v, s, "has arguments, a result or a body of the wrong shape");
}

/* mask over the n index bits of the longer array: 0 < m < 2^n */
static bool mask_fits(uint64_t mask, int n) { return mask && (n >= 64 || mask >> n == 0); }

/* HALF, JOIN, SHIFT: the lengths, element types and attributes of ir.h. */
static void check_length_change(Verifier *v, const IrStmt *s) {
    const IrVal *xs = s->args[s->nargs - 1], *r = s->res[0];
    if (s->op == IR_HALF &&
        (xs->log_len < 1 || r->log_len != xs->log_len - 1 || !mask_fits(s->mask, xs->log_len) ||
         (s->k != 0 && s->k != 1) || !elem_equal(xs->elem, r->elem)))
        shape_error(v, s, "is not a half of its argument");
    if (s->op == IR_JOIN &&
        (ir_is_scalar(s->args[0]) || s->args[0]->log_len != s->args[1]->log_len ||
         !elem_equal(s->args[0]->elem, s->args[1]->elem) || r->log_len != xs->log_len + 1 ||
         !mask_fits(s->mask, r->log_len) || !elem_equal(xs->elem, r->elem)))
        shape_error(v, s, "is not a join of two arrays of one shape");
    if (s->op == IR_SHIFT &&
        (ir_is_scalar(xs) || s->nargs != 1 + xs->elem->nslots || r->log_len != xs->log_len ||
         s->k < 0 || s->k > xs->log_len || !elem_equal(xs->elem, r->elem)))
        shape_error(v, s, "is not a shift of an array with a fill element");
}

static void check_form(Verifier *v, const IrStmt *s) {
    int want = arg_count(s->op);
    if (want >= 0 && s->nargs != want) shape_error(v, s, "has the wrong number of arguments");
    if (s->nres < 1) shape_error(v, s, "has no result");
    if (needs_body(s->op) && !s->body) shape_error(v, s, "has no body");
    if (!needs_body(s->op) && s->body) shape_error(v, s, "has a body it should not have");
    if ((s->op == IR_BMMC || s->op == IR_POS) && !s->mat) shape_error(v, s, "has no matrix");
    if (s->op == IR_BMMC &&
        (s->mat->n != s->args[0]->log_len || s->res[0]->log_len != s->args[0]->log_len))
        shape_error(v, s, "has a matrix or result of the wrong size");
    if (s->op == IR_TABLE &&
        (!s->tab || s->k < 0 || s->k > 62 || s->nres != 1 || !ir_is_scalar(s->res[0]) ||
         s->res[0]->elem->is_tuple || !ir_is_scalar(s->args[0]) || s->args[0]->elem->is_tuple ||
         s->args[0]->elem->prim != PRIM_I64))
        shape_error(v, s, "is not a table of scalars indexed by an i64");
    if (s->op == IR_REDUCEBLOCKS || s->op == IR_EXPAND || s->op == IR_SCAN) check_blocks(v, s);
    if (s->op == IR_HALF || s->op == IR_JOIN || s->op == IR_SHIFT) check_length_change(v, s);
    if (s->op == IR_TWO) {
        int n = s->args[0]->log_len;
        if (s->k < 0 || s->k > n || s->body->nparams != 1 || s->body->nresults != 1 ||
            s->body->params[0]->log_len != n - s->k || s->body->results[0]->log_len != n - s->k)
            shape_error(v, s, "has a body of the wrong shape");
    }
}

static bool is_prim_scalar(const IrVal *x) { return ir_is_scalar(x) && !x->elem->is_tuple; }

static Prim prim_of(const IrVal *x) { return x->elem->prim; }

/* The type rules of the scalar statements (docs/ir.md): a scalar in and out
 * of one primitive type each, an operator applied to a type it takes, a
 * comparison making a bool, a select on a bool between two values of its
 * result's type, a position an i64. */
static void check_scalar_types(Verifier *v, const IrStmt *s) {
    for (int a = 0; a < s->nargs; a++)
        if (!is_prim_scalar(s->args[a]))
            broken(v, s, "reads %%%d, which is not a scalar", s->args[a]->id);
    if (s->nres != 1 || !is_prim_scalar(s->res[0])) shape_error(v, s, "is not one scalar");
    Prim p = prim_of(s->res[0]);
    switch (s->op) {
    case IR_UNARY:
    case IR_BINARY:
    case IR_TERNARY: {
        Prim in = prim_of(s->args[0]);
        for (int a = 1; a < s->nargs; a++)
            if (prim_of(s->args[a]) != in) shape_error(v, s, "has operands of different types");
        if ((unsigned)s->alu >= OP_COUNT || op_info(s->alu)->arity != s->nargs ||
            !op_takes(s->alu, in))
            broken(v, s, "applies %s to %s", op_info(s->alu)->name, prim_name(in));
        Prim want = op_is_comparison(s->alu) ? PRIM_BOOL : in;
        if (p != want)
            broken(v, s, "makes %s of %s operands, expected %s", prim_name(p), prim_name(in),
                   prim_name(want));
        break;
    }
    case IR_SELECT:
        if (prim_of(s->args[0]) != PRIM_BOOL)
            shape_error(v, s, "has a condition that is not a bool");
        if (prim_of(s->args[1]) != p || prim_of(s->args[2]) != p)
            shape_error(v, s, "has alternatives of other types");
        break;
    case IR_CONVERT:
        if (p != s->to) broken(v, s, "converts to %s into a %s", prim_name(s->to), prim_name(p));
        break;
    case IR_POS:
        if (p != PRIM_I64) shape_error(v, s, "is a position that is not an i64");
        break;
    default: break;
    }
}

/* INDEX: one primitive slot of an array element, at an index in range. */
static void check_index(Verifier *v, const IrStmt *s) {
    const IrVal *xs = s->args[0], *r = s->res[0];
    if (ir_is_scalar(xs) || !is_prim_scalar(r) || s->nres != 1)
        shape_error(v, s, "is not an array to a scalar");
    if (s->at < 0 || s->at >> xs->log_len || s->slot < 0 || s->slot >= xs->elem->nslots)
        broken(v, s, "reads element %lld.%d of [2^%d]", (long long)s->at, s->slot, xs->log_len);
    if (elem_slot_prim(xs->elem, s->slot) != prim_of(r))
        shape_error(v, s, "has the type of another slot");
}

static void check_types(Verifier *v, const IrStmt *s) {
    switch (s->op) {
    case IR_CONST:
    case IR_UNARY:
    case IR_BINARY:
    case IR_TERNARY:
    case IR_SELECT:
    case IR_CONVERT:
    case IR_POS: check_scalar_types(v, s); break;
    case IR_INDEX: check_index(v, s); break;
    default: break;
    }
}

static void verify_body(Verifier *v, const IrBody *b);

static void verify_stmt(Verifier *v, const IrStmt *s) {
    check_form(v, s);
    check_types(v, s);
    for (int a = 0; a < s->nargs; a++) read_value(v, s, s->args[a]);
    if (s->body) verify_body(v, s->body);
    for (int k = 0; k < s->nres; k++) define_value(v, s, s->res[k]);
}

/* Values of b go out of scope when b ends; defined[] keeps them, so a value
 * defined again in another body is still caught. */
static void verify_body(Verifier *v, const IrBody *b) {
    for (int i = 0; i < b->nparams; i++) define_value(v, NULL, b->params[i]);
    for (int i = 0; i < b->nstmts; i++) {
        if (!b->stmts[i]) broken(v, NULL, "has an empty statement slot");
        if (!(v->resolve && b->stmts[i]->dead)) verify_stmt(v, b->stmts[i]);
    }
    for (int i = 0; i < b->nresults; i++) read_value(v, NULL, b->results[i]);
    for (int i = 0; i < b->nparams; i++) v->in_scope[b->params[i]->id] = 0;
    for (int i = 0; i < b->nstmts; i++)
        for (int k = 0; k < b->stmts[i]->nres; k++) v->in_scope[b->stmts[i]->res[k]->id] = 0;
}

/* The tables live in the compilation's arena, which the driver frees even
 * when an internal error stops the compilation here. */
void ir_verify_program(const IrProgram *p, const char *stage) {
    Verifier v = {.p = p, .stage = stage};
    v.defined = NEW_ARRAY(p->arena, char, p->next_id + 1);
    v.in_scope = NEW_ARRAY(p->arena, char, p->next_id + 1);
    for (int i = 0; i < p->nfuncs; i++) {
        v.func = p->funcs[i]->name;
        verify_body(&v, p->funcs[i]->body);
    }
}

/* The verifier and its tables are malloc'd: this runs once for each rule
 * that fires, and the arena would keep every copy; and broken() sets why
 * after the setjmp, which a local of this function could not keep. */
const char *ir_verify_body(const IrProgram *p, const char *func, const IrBody *b,
                           IrVerifyResolve resolve, void *ctx) {
    jmp_buf escape;
    Verifier *v = calloc(1, sizeof *v);
    char *tables = calloc(2 * ((size_t)p->next_id + 1), 1);
    if (!v || !tables) diag_fatal("out of memory in the IR verifier");
    *v = (Verifier){.p = p,
                    .func = func,
                    .defined = tables,
                    .in_scope = tables + p->next_id + 1,
                    .resolve = resolve,
                    .ctx = ctx,
                    .escape = &escape};
    if (!setjmp(escape)) verify_body(v, b);
    const char *why = v->why;
    free(tables);
    free(v);
    return why;
}
