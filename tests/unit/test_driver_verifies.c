/* test_driver_verifies.c: proves that the sanitizer build's driver runs the
 * IR verifier after every IR pass and the plan verifier after every planning
 * pass of its table (driver_passes), and that a failure of either stops the
 * compilation with the name of the pass or of the stage it made. A pass
 * added to the table is covered without a change here.
 *
 * The verifiers' own checks are tested in test_ir_verify.c and
 * test_plan_verify.c; what this test catches is a driver that never calls
 * them (the IR verifier was once behind an #ifdef no build defined). It is
 * linked with -Wl,--wrap for both entry points (Makefile), so every call the
 * driver makes lands in the __wrap_ functions below, which record it and
 * either pass it on or break what they were given.
 *
 * Prints failures and finally "driver_verifies: N passed, M failed". */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "diag.h"
#include "driver.h"
#include "ir.h"
#include "plan.h"

void __real_ir_verify_program(const IrProgram *p, const char *stage);
void __wrap_ir_verify_program(const IrProgram *p, const char *stage);
const char *__real_plan_verify_entry(Arena *arena, const EntryPlan *e);
const char *__wrap_plan_verify_entry(Arena *arena, const EntryPlan *e);

enum { MAX_CALLS = 64 };
static const char *ir_stages[MAX_CALLS]; /* the stage of each IR verification, in order */
static int ir_calls, plan_calls;
static const char *break_ir_at;   /* a stage whose IR the wrapper breaks first */
static int break_plans_from = -1; /* from this plan verification on (counted from 0), the
                                               verifier reports a broken plan; -1: never */

/* A value that points back to another statement, as a rewrite that moved a
 * result without its definition would leave it. */
static void break_first_result(const IrProgram *p) {
    for (int i = 0; i < p->nfuncs; i++) {
        IrBody *b = p->funcs[i]->body;
        if (b->nstmts > 0 && b->stmts[0]->nres > 0) {
            b->stmts[0]->res[0]->def = NULL;
            return;
        }
    }
}

void __wrap_ir_verify_program(const IrProgram *p, const char *stage) {
    if (ir_calls < MAX_CALLS) ir_stages[ir_calls] = stage;
    ir_calls++;
    if (break_ir_at && !strcmp(stage, break_ir_at)) break_first_result(p);
    __real_ir_verify_program(p, stage);
}

const char *__wrap_plan_verify_entry(Arena *arena, const EntryPlan *e) {
    const char *why = __real_plan_verify_entry(arena, e);
    bool broken = break_plans_from >= 0 && plan_calls >= break_plans_from;
    plan_calls++;
    return broken && !why ? "a phase reads a buffer no earlier phase wrote (broken by the test)"
                          : why;
}

/* Two entries: one chain of stages at two sizes of a ranged entry, and a
 * graph (a value read twice, a reduction). */
static const char program[] =
    "cas [a, b] = if a <= b then [a, b] else [b, a]\n"
    "entry sorted (n : 3..4) (xs : [2^n]i32) = two (vcolumn cas) (map (\\x -> x + 1) xs)\n"
    "entry main (xs : [2^5]u32) = let ys = map (\\x -> x * 3) xs in (reduce (+) 0 ys, two (vcolumn cas) ys)\n";

typedef struct {
    int status;
    char *err; /* the diagnostics, malloc'd */
} Run;

static char output[64]; /* in a directory of the test's own */

static Run run(Action action, Stage stage) {
    Run r = {0};
    size_t len = 0;
    FILE *err = open_memstream(&r.err, &len);
    FILE *out = fopen("/dev/null", "w");
    diag_set_stream(err);
    ir_calls = plan_calls = 0;
    Options opt = {.action = action,
                   .input = "verify.parm",
                   .stage = stage,
                   .out = out,
                   .target_c = true,
                   .output = output};
    r.status = driver_run_source(&opt, "verify.parm", program, strlen(program));
    diag_set_stream(NULL);
    fclose(out);
    fclose(err);
    return r;
}

static bool verified(const char *stage) {
    for (int i = 0; i < ir_calls && i < MAX_CALLS; i++)
        if (!strcmp(ir_stages[i], stage)) return true;
    return false;
}

enum { NPLANS = 3 }; /* the program's plans: two sizes and the graph */

/* A check of the program: every IR stage verified, in pipeline order, and
 * every plan after each planning pass. */
static void every_stage_verified(void) {
    CheckMark mark = check_mark();
    Run r = run(ACTION_CHECK, STAGE_COUNT - 1);
    check(r.status == 0, "a valid program passes: %s", r.err);
    int ir_passes = STAGE_LAST_IR + 1, plan_passes = STAGE_COUNT - ir_passes;
    check(ir_passes >= 4 && plan_passes >= 2, "the table has its IR and planning passes");
    check(ir_calls == ir_passes, "%d IR verifications, got %d", ir_passes, ir_calls);
    for (int i = 0; i < ir_passes && i < ir_calls; i++)
        check(!strcmp(ir_stages[i], driver_passes[i].made),
              "verification %d is of the %s IR, got %s", i, driver_passes[i].made, ir_stages[i]);
    check(plan_calls == NPLANS * plan_passes, "%d plan verifications, got %d", NPLANS * plan_passes,
          plan_calls);
    free(r.err);
    check_group(
        mark,
        "the driver verifies the IR after every IR pass and every plan after every planning pass");
}

/* A dump of the IR runs the middle end without the back end. */
static void dump_verified(void) {
    CheckMark mark = check_mark();
    Run r = run(ACTION_DUMP_IR, STAGE_LAST_IR);
    check(r.status == 0, "a dump passes: %s", r.err);
    check(verified("specialised") && verified("optimised"),
          "a dump of the optimised IR verifies its stages");
    check(plan_calls == 0, "a dump of the IR plans nothing, got %d plan verifications", plan_calls);
    free(r.err);
    check_group(mark, "the driver verifies the stages an IR dump reaches");
}

/* A broken IR stops the compilation with an internal error naming the stage. */
static void broken_ir_stops(const char *stage) {
    CheckMark mark = check_mark();
    break_ir_at = stage;
    Run r = run(ACTION_COMPILE, STAGE_COUNT - 1);
    break_ir_at = NULL;
    char want[80];
    snprintf(want, sizeof want, "internal error: the %s IR of ", stage);
    check(r.status == 1, "a broken %s IR exits 1, got %d", stage, r.status);
    check(strstr(r.err, want) && strstr(r.err, "does not point back to its definition"),
          "a broken %s IR is reported as such, got '%s'", stage, r.err);
    check(plan_calls == 0, "nothing is planned after a broken %s IR", stage);
    free(r.err);
    check_group(mark, stage);
}

/* Plans broken from the k-th planning pass on stop the compilation with an
 * internal error naming that pass, at the first plan it verifies. */
static void broken_plan_stops(int k) {
    CheckMark mark = check_mark();
    const char *pass = driver_passes[STAGE_LAST_IR + 1 + k].name;
    break_plans_from = NPLANS * k;
    Run r = run(ACTION_COMPILE, STAGE_COUNT - 1);
    break_plans_from = -1;
    char want[80];
    snprintf(want, sizeof want, "after %s: a phase reads a buffer", pass);
    check(r.status == 1, "a plan broken in pass %s exits 1, got %d", pass, r.status);
    check(strstr(r.err, "internal error: the plan of '") && strstr(r.err, want),
          "a plan broken in pass %s is reported with the pass, got '%s'", pass, r.err);
    check(plan_calls == NPLANS * k + 1, "the verification stops at the first broken plan");
    free(r.err);
    check_group(mark, pass);
}

int main(void) {
    char dir[] = "/tmp/parmc_verifiesXXXXXX";
    if (!mkdtemp(dir)) return 1;
    snprintf(output, sizeof output, "%s/verify.c", dir);
    every_stage_verified();
    dump_verified();
    for (Stage s = 0; s <= STAGE_LAST_IR; s++) broken_ir_stops(driver_passes[s].made);
    for (int k = 0; STAGE_LAST_IR + 1 + k < STAGE_COUNT; k++) broken_plan_stops(k);
    const char *outputs[] = {"verify.c", "verify.h", "verify.json"};
    for (int i = 0; i < 3; i++) {
        char path[96];
        snprintf(path, sizeof path, "%s/%s", dir, outputs[i]);
        remove(path);
    }
    remove(dir);
    return check_summary("driver_verifies");
}
