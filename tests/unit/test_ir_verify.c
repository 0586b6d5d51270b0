/* test_ir_verify.c: checks compiler/ir/ir_verify.c.
 *
 * Small programs are built by hand: a well-formed one (a map with a body,
 * a two whose body reads a value of the enclosing body) must pass, and each
 * broken invariant must stop with an internal error that names the stage
 * and says what is wrong: a map without its body (what the optimiser left
 * when it joined a map read twice, issue 11), a read before the definition,
 * a read of a value of another body, a value defined twice, a bmmc whose
 * matrix does not fit, a two whose body has the wrong length; and the type
 * rules of the scalar statements, which emit_elem.c relies on: operands of
 * two types, an operator on a type it does not take, a comparison that
 * makes no bool, a select on a non-bool, a conversion to another type than
 * its result's, an index of a slot of another type.
 *
 * Prints failures and finally "ir_verify: N passed, M failed"; exits 1 on
 * any failure. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "diag.h"
#include "ir.h"

/* Runs the verifier; returns its diagnostic ("" when it passed), malloc'd. */
static char *verify(IrProgram *p) {
    jmp_buf jb;
    char *err = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&err, &len);
    diag_set_stream(f);
    diag_handler = &jb;
    if (setjmp(jb) == 0) ir_verify_program(p, "optimised");
    diag_handler = NULL;
    diag_set_stream(NULL);
    fclose(f);
    return err;
}

static void expect(IrProgram *p, const char *what, const char *label) {
    char *err = verify(p);
    if (!what) check(err[0] == '\0', "%s: expected no error, got '%s'", label, err);
    else
        check(strstr(err, "internal error: the optimised IR of 'main' is malformed") &&
                  strstr(err, what),
              "%s: expected an internal error about '%s', got '%s'", label, what, err);
    free(err);
}

static const ElemType *i32(void) { return elem_prim(PRIM_I32); }

/* entry main (%x : [2^2]i32): ys = map (\e -> e + c) xs, c a constant of
 * the entry body read inside the map's body; zs = two 1 (\h -> h) ys. */
typedef struct {
    IrStmt *c, *map, *sum, *two;
    IrBody *body;
} Sample;

static Sample sample(IrProgram *p) {
    Sample s;
    IrFunc *f = NEW(p->arena, IrFunc);
    f->name = "main";
    f->size_param = -1;
    f->body = s.body = ir_new_body(p);
    p->funcs = NEW_ARRAY(p->arena, IrFunc *, 1);
    p->funcs[0] = f;
    p->nfuncs = 1;
    IrVal *xs = ir_body_add_param(p, s.body, 2, i32());
    s.c = ir_append(p, s.body, IR_CONST, (Loc){0}, 0, NULL);
    IrVal *c = ir_add_result(p, s.c, -1, i32());
    s.map = ir_append(p, s.body, IR_MAP, (Loc){0}, 1, &xs);
    s.map->body = ir_new_body(p);
    IrVal *e = ir_body_add_param(p, s.map->body, -1, i32());
    IrVal *sum_args[2] = {e, c};
    IrStmt *sum = s.sum = ir_append(p, s.map->body, IR_BINARY, (Loc){0}, 2, sum_args);
    sum->alu = OP_ADD;
    ir_body_add_result(p, s.map->body, ir_add_result(p, sum, -1, i32()));
    IrVal *ys = ir_add_result(p, s.map, 2, i32());
    s.two = ir_append(p, s.body, IR_TWO, (Loc){0}, 1, &ys);
    s.two->k = 1;
    s.two->body = ir_new_body(p);
    ir_body_add_result(p, s.two->body, ir_body_add_param(p, s.two->body, 1, i32()));
    ir_body_add_result(p, s.body, ir_add_result(p, s.two, 2, i32()));
    return s;
}

int main(void) {
    Arena a = {0};
    IrProgram p = {.arena = &a};

    sample(&p);
    expect(&p, NULL, "well-formed");

    p = (IrProgram){.arena = &a};
    Sample s = sample(&p);
    s.map->body = NULL;
    expect(&p, "has no body", "map without its body");

    p = (IrProgram){.arena = &a};
    s = sample(&p);
    s.body->stmts[0] = s.body->stmts[1]; /* the map before the constant it reads */
    s.body->stmts[1] = s.c;
    expect(&p, "which is not defined before it", "read before the definition");

    p = (IrProgram){.arena = &a};
    s = sample(&p);
    s.body->results[0] = s.map->body->results[0]; /* a value of the map's body */
    expect(&p, "which is not defined before it", "read of another body's value");

    p = (IrProgram){.arena = &a};
    s = sample(&p);
    s.two->res[0] = s.map->res[0];
    expect(&p, "defined twice", "value defined twice");

    p = (IrProgram){.arena = &a};
    s = sample(&p);
    IrVal *zs = s.two->res[0];
    IrStmt *perm = ir_append(&p, s.body, IR_BMMC, (Loc){0}, 1, &zs);
    perm->mat = NEW(&a, F2Mat);
    *perm->mat = f2_identity(3);
    ir_add_result(&p, perm, 2, i32());
    expect(&p, "wrong size", "bmmc matrix of the wrong size");

    p = (IrProgram){.arena = &a};
    s = sample(&p);
    s.two->k = 2;
    expect(&p, "body of the wrong shape", "two body of the wrong length");

    /* the type rules */
    p = (IrProgram){.arena = &a};
    s = sample(&p);
    s.c->res[0]->elem = elem_prim(PRIM_F32);
    expect(&p, "has operands of different types", "i32 + f32");

    p = (IrProgram){.arena = &a};
    s = sample(&p);
    s.sum->alu = OP_SQRT;
    expect(&p, "applies sqrt to i32", "a unary operator with two operands, of ints");

    p = (IrProgram){.arena = &a};
    s = sample(&p);
    s.sum->alu = OP_POW;
    expect(&p, "applies", "pow, static only");

    p = (IrProgram){.arena = &a};
    s = sample(&p);
    s.sum->alu = OP_AND;
    expect(&p, "to i32", "&& on ints");

    p = (IrProgram){.arena = &a};
    s = sample(&p);
    s.sum->alu = OP_MOD;
    s.c->res[0]->elem = s.sum->args[0]->elem = s.sum->res[0]->elem = elem_prim(PRIM_F32);
    s.map->body->results[0]->elem = elem_prim(PRIM_F32);
    expect(&p, "to f32", "mod on f32");

    p = (IrProgram){.arena = &a};
    s = sample(&p);
    s.sum->alu = OP_LT;
    expect(&p, "makes i32 of i32 operands, expected bool", "a comparison that makes an i32");

    p = (IrProgram){.arena = &a};
    s = sample(&p);
    IrVal *sel_args[3] = {s.c->res[0], s.c->res[0], s.c->res[0]};
    IrStmt *sel = ir_append(&p, s.body, IR_SELECT, (Loc){0}, 3, sel_args);
    ir_add_result(&p, sel, -1, i32());
    expect(&p, "has a condition that is not a bool", "select on an i32");

    p = (IrProgram){.arena = &a};
    s = sample(&p);
    IrVal *from = s.c->res[0];
    IrStmt *cvt = ir_append(&p, s.body, IR_CONVERT, (Loc){0}, 1, &from);
    cvt->to = PRIM_F64;
    ir_add_result(&p, cvt, -1, elem_prim(PRIM_F32));
    expect(&p, "converts to f64 into a f32", "convert with another result type");

    p = (IrProgram){.arena = &a};
    s = sample(&p);
    IrVal *ys = s.map->res[0];
    IrStmt *ix = ir_append(&p, s.body, IR_INDEX, (Loc){0}, 1, &ys);
    ix->at = 3;
    ir_add_result(&p, ix, -1, elem_prim(PRIM_U8));
    expect(&p, "has the type of another slot", "index with another slot type");
    ix->res[0]->elem = i32();
    ix->at = 4;
    expect(&p, "reads element 4.0 of [2^2]", "index out of range");
    ix->at = 3;
    expect(&p, NULL, "index in range");
    /* expand 1 of the two's result: 2^3 elements, not 2^2 */
    p = (IrProgram){.arena = &a};
    s = sample(&p);
    zs = s.two->res[0];
    IrStmt *expand = ir_append(&p, s.body, IR_EXPAND, (Loc){0}, 1, &zs);
    expand->k = 1;
    ir_add_result(&p, expand, 3, i32());
    expect(&p, NULL, "expand of the right length");
    expand->res[0]->log_len = 2;
    expect(&p, "of the wrong shape", "expand of the wrong length");

    /* reduceblocks 1 (with the map's body as its operator): 2^1 elements */
    p = (IrProgram){.arena = &a};
    s = sample(&p);
    IrVal *rb_args[2] = {s.c->res[0], s.two->res[0]};
    IrStmt *rb = ir_append(&p, s.body, IR_REDUCEBLOCKS, (Loc){0}, 2, rb_args);
    rb->k = 1;
    rb->body = ir_new_body(&p);
    IrVal *l = ir_body_add_param(&p, rb->body, -1, i32()),
          *r = ir_body_add_param(&p, rb->body, -1, i32());
    (void)l;
    ir_body_add_result(&p, rb->body, r);
    ir_add_result(&p, rb, 1, i32());
    expect(&p, NULL, "reduceblocks of the right shape");
    rb->k = 2;
    expect(&p, "of the wrong shape", "reduceblocks to the wrong length");
    rb->k = 1;
    rb->body = NULL;
    expect(&p, "has no body", "reduceblocks without its operator");

    arena_free(&a);
    return check_summary("ir_verify");
}
