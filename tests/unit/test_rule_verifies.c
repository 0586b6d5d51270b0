/* test_rule_verifies.c: proves that the sanitizer build checks the IR after
 * each rule of the rewrite pass (opt_rewrite.c's fire, through
 * ir_verify_body), and that a rule that drops a value still read stops the
 * compilation with the rule's name, before the pass ends and the verifier
 * after it would name only the pass.
 *
 * Linked with -Wl,--wrap for rw_replace and ir_verify_body (Makefile): the
 * rules of opt_lengths.c call rw_replace through the wrapper, which can
 * drop the value a rule returns (as half-bmmc and half-join once did, issue
 * 41 item 0), and the rewriter's checks land in a wrapper that counts them.
 *
 * Prints failures and finally "rule_verifies: N passed, M failed". */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "diag.h"
#include "driver.h"
#include "opt_rewrite.h"

void __real_rw_replace(Rewriter *r, IrStmt *s, IrVal *old, IrVal *with);
void __wrap_rw_replace(Rewriter *r, IrStmt *s, IrVal *old, IrVal *with);
const char *__real_ir_verify_body(const IrProgram *p, const char *func, const IrBody *b,
                                  IrVerifyResolve resolve, void *ctx);
const char *__wrap_ir_verify_body(const IrProgram *p, const char *func, const IrBody *b,
                                  IrVerifyResolve resolve, void *ctx);

static bool drop_replacement; /* rw_replace kills the statement of the value that replaces */
static int checks;            /* the rewriter's calls of ir_verify_body */

void __wrap_rw_replace(Rewriter *r, IrStmt *s, IrVal *old, IrVal *with) {
    __real_rw_replace(r, s, old, with);
    if (drop_replacement && with->def && !with->def->dead) {
        rw_kill(r, with->def);
        rw_drain(r);
    }
}

const char *__wrap_ir_verify_body(const IrProgram *p, const char *func, const IrBody *b,
                                  IrVerifyResolve resolve, void *ctx) {
    checks++;
    return __real_ir_verify_body(p, func, b, resolve, ctx);
}

/* half-join fires once, on the half, at the entry's level, and returns the
 * join's second operand, the map's value. */
static const char program[] =
    "entry main (xs : [2^3]i32) = half 1 1 (join 1 xs (map (\\x -> x + 1) xs))\n";

typedef struct {
    int status;
    char *err; /* the diagnostics, malloc'd */
} Run;

static Run run(void) {
    Run r = {0};
    size_t len = 0;
    FILE *err = open_memstream(&r.err, &len);
    FILE *out = fopen("/dev/null", "w");
    diag_set_stream(err);
    checks = 0;
    Options opt = {.action = ACTION_DUMP_IR,
                   .input = "rule.parm",
                   .stage = STAGE_LAST_IR,
                   .out = out};
    r.status = driver_run_source(&opt, "rule.parm", program, strlen(program));
    diag_set_stream(NULL);
    fclose(out);
    fclose(err);
    return r;
}

static void each_rule_checked(void) {
    CheckMark mark = check_mark();
    Run r = run();
    check(r.status == 0, "the program passes: %s", r.err);
    check(checks == 1, "one check for the one rule that fires, got %d", checks);
    free(r.err);
    check_group(mark, "the rewriter checks the IR after each rule");
}

static void dropped_value_names_rule(void) {
    CheckMark mark = check_mark();
    drop_replacement = true;
    Run r = run();
    drop_replacement = false;
    check(r.status == 1, "a rule that drops its value exits 1, got %d", r.status);
    check(strstr(r.err, "internal error: the rule half-join at rule.parm:1:30 on %") &&
              strstr(r.err, "broke the IR of 'main': a body reads %") &&
              strstr(r.err, "which is not defined before it"),
          "the rule that dropped the value is named, got '%s'", r.err);
    check(!strstr(r.err, "rewritten IR"), "the rule's check stops it before the pass's, got '%s'",
          r.err);
    free(r.err);
    check_group(mark, "a rule that drops a value still read is reported with its name");
}

int main(void) {
    each_rule_checked();
    dropped_value_names_rule();
    return check_summary("rule_verifies");
}
