/* fuzz_parmc.c: the libFuzzer target of parmc (`make fuzz SECONDS=N`;
 * docs/robustness.md).
 *
 * Each input is a parm source file. It goes through the whole compiler
 * short of external tools, as the command line would run it:
 *
 *   1. --check of the specialised stage: parse, check and specialise every entry;
 *   2. unless the program is big (more than MAX_OPT_STMTS IR statements),
 *      --check of the last stage, which runs every pass of the middle and
 *      back end on every entry;
 *   3. --dump-ir=STAGE for every IR stage, on the first entry (the rewritten
 *      and optimised stages only when the program is not big);
 *   4. unless the program is big, code generation (CUDA, and C with
 *      --emit-main for the first entry) into a scratch directory, and
 *      --report, the access simulator;
 *   5. --interpret --compare-stages of the first entry on a deterministic
 *      input derived from the fuzz data, when that entry takes at most
 *      MAX_INPUT values and the interpretation is cheap (see stmt_cost).
 *      When the comparison fails but the plain interpretation succeeds, a
 *      later stage computes something else than the specialised program:
 *      the target aborts, so the fuzzer keeps the input as a crash.
 *      Big programs are interpreted without --compare-stages.
 *
 * Steps 2 to 5 need the program's size and the first entry's name and
 * parameter types, so the target also parses and specialises the program
 * itself. Every step specialises the program again, so steps 2 to 5 are
 * skipped when that is heavy (its arena grows past HEAVY_ARENA bytes):
 * programs close to the specialiser's limits would otherwise run past the
 * fuzzer's timeout. The middle end is linear in the program, but all the
 * steps on a program of thousands of statements (such as examples/sort.parm,
 * with a size of 2^20) take seconds under the sanitizers, which would slow
 * the fuzzer down on every mutation of such seeds; hence MAX_OPT_STMTS.
 *
 * `import "NAME"` finds stdlib/NAME.parm: run the fuzzer from the top of the
 * source tree (make fuzz does).
 *
 * Output goes to /dev/null and diagnostics to a buffer, which is checked
 * for "parmc: error: internal error": the compiler reports broken
 * invariants that way, and the target aborts on them. Sanitizer reports
 * still reach stderr. */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"
#include "driver.h"
#include "ir.h"
#include "specialise.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
    MAX_INPUT = 4096,    /* values read by the interpreted entry */
    MAX_OPT_STMTS = 500, /* IR statements of a program that is not big */
};
#define MAX_INTERP_COST 4e6            /* elements touched while interpreting */
#define HEAVY_ARENA ((size_t)32 << 20) /* bytes a specialisation may take before it is heavy */

static FILE *null_out;
static FILE *diag_out; /* diagnostics, into diag_text */
static char diag_text[8192];
static const char *const import_dirs[] = {"stdlib"};
static const ImportPath import_path = {import_dirs, 1, NULL};
static char scratch[64]; /* a directory for generated code */
static char out_cu[96], out_h[96], out_c[96];

/* Removes the generated files and, when it is empty, the directory. */
static void remove_scratch(void) {
    unlink(out_cu);
    unlink(out_c);
    unlink(out_h);
    rmdir(scratch);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    null_out = fopen("/dev/null", "w");
    diag_out = fmemopen(diag_text, sizeof diag_text - 1, "w");
    if (!null_out || !diag_out) abort();
    diag_set_stream(diag_out);
    strcpy(scratch,
           access("/dev/shm", W_OK) == 0 ? "/dev/shm/fuzz_parmc.XXXXXX" : "/tmp/fuzz_parmc.XXXXXX");
    if (!mkdtemp(scratch)) abort(); /* a unique name, made for each input that is compiled */
    rmdir(scratch);
    snprintf(out_cu, sizeof out_cu, "%s/fuzz.cu", scratch);
    snprintf(out_c, sizeof out_c, "%s/fuzz.c", scratch);
    snprintf(out_h, sizeof out_h, "%s/fuzz.h", scratch);
    atexit(remove_scratch);
    return 0;
}

/* ---- what the first entry needs ---- */

typedef struct {
    bool heavy;   /* the specialisation took more than HEAVY_ARENA bytes */
    long nstmts;  /* IR statements of every entry, nested ones included */
    char *name;   /* malloc'd; NULL when no entry specialises */
    long nvalues; /* input values of its first specialisation */
    Prim *prims;  /* malloc'd: the primitive of each input value */
    double cost;  /* estimated elements touched by the interpreter */
} FirstEntry;

static double body_cost(const IrBody *b, double batch);

/* An upper bound on the work of one statement run `batch` times: the
 * elements of its results, plus its nested body run once per element of its
 * array argument (parm, two, col, map and reduce all run it at most that
 * often, on pieces that are no larger). */
static double stmt_cost(const IrStmt *s, double batch) {
    double cost = batch;
    for (int r = 0; r < s->nres; r++)
        if (s->res[r]->log_len > 0)
            cost += batch * (double)s->res[r]->elem->nslots * (double)(1ULL << s->res[r]->log_len);
    if (s->body) {
        const IrVal *arr = s->args[s->nargs - 1];
        double len = arr->log_len > 0 ? (double)(1ULL << arr->log_len) : 1.0;
        cost += len * (double)arr->elem->nslots * batch + body_cost(s->body, batch * len);
    }
    return cost;
}

static double body_cost(const IrBody *b, double batch) {
    double cost = 0;
    for (int i = 0; i < b->nstmts && cost < 1e30; i++) cost += stmt_cost(b->stmts[i], batch);
    return cost;
}

static long count_stmts(const IrBody *b) {
    long n = b->nstmts;
    for (int i = 0; i < b->nstmts; i++)
        if (b->stmts[i]->body) n += count_stmts(b->stmts[i]->body);
    return n;
}

/* Parses the source and specialises every entry. */
static void find_first_entry(const char *text, size_t len, FirstEntry *fe) {
    char *copy = malloc(len + 1);
    if (!copy) abort();
    memcpy(copy, text, len);
    copy[len] = 0;
    Source src = {"fuzz.parm", copy, (int)len};
    Arena arena = {0};
    Program program = {0};
    IrProgram ir = {.arena = &arena};
    jmp_buf handler;
    diag_handler = &handler;
    if (setjmp(handler) == 0) {
        parse_source(&arena, &src, &program);
        imports_resolve(&arena, &program, &import_path, NULL);
        specialise_program(&arena, &program, NULL, &import_path, &ir);
        for (int i = 0; i < ir.nfuncs; i++) fe->nstmts += count_stmts(ir.funcs[i]->body);
        if (ir.nfuncs > 0) {
            const Entry *e = program.entries.items[0];
            const IrBody *body = ir.funcs[0]->body;
            fe->name = strdup(e->name);
            fe->cost = body_cost(body, 1);
            for (int i = 0; i < body->nparams; i++) {
                const IrVal *v = body->params[i];
                long n = v->log_len < 0 ? 1 : v->log_len > 20 ? MAX_INPUT + 1 : 1L << v->log_len;
                fe->nvalues += n * v->elem->nslots;
                if (fe->nvalues > MAX_INPUT) break;
            }
            if (fe->nvalues <= MAX_INPUT) {
                fe->prims = malloc(sizeof(Prim) * (size_t)(fe->nvalues + 1));
                if (!fe->prims) abort();
                long k = 0;
                for (int i = 0; i < body->nparams; i++) {
                    const IrVal *v = body->params[i];
                    long n = v->log_len < 0 ? 1 : 1L << v->log_len;
                    for (long j = 0; j < n; j++)
                        for (int slot = 0; slot < v->elem->nslots; slot++)
                            fe->prims[k++] = elem_slot_prim(v->elem, slot);
                }
            }
        }
    }
    diag_handler = NULL;
    fe->heavy = arena.total > HEAVY_ARENA;
    arena_free(&arena);
    free(copy);
}

/* ---- the interpreter's input ---- */

static uint64_t rng_next(uint64_t *state) {
    /* splitmix64 */
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* One value of p: mostly small, sometimes the extremes of the type. */
static int format_value(char *buf, size_t size, Prim p, uint64_t r) {
    int bits = prim_bits(p);
    int pick = (int)(r & 7);
    uint64_t x = r >> 8;
    if (p == PRIM_BOOL) return snprintf(buf, size, "%s", (x & 1) ? "true" : "false");
    if (prim_is_float(p)) {
        static const char *const special[] = {"0", "-0", "1e30", "-1e30", "1e-40", "0.5"};
        if (pick == 0) return snprintf(buf, size, "%s", special[x % 6]);
        return snprintf(buf, size, "%.3f", (double)(int64_t)(x % 2001) / 8.0 - 125.0);
    }
    if (prim_is_signed(p)) {
        int64_t lo = bits == 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1));
        int64_t hi = bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1;
        int64_t v = pick == 0 ? lo : pick == 1 ? hi : pick == 2 ? -1 : (int64_t)(x % 201) - 100;
        return snprintf(buf, size, "%lld", (long long)v);
    }
    uint64_t hi = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    uint64_t v = pick == 0 ? hi : pick == 1 ? 0 : x % 201;
    return snprintf(buf, size, "%llu", (unsigned long long)v);
}

static char *make_input(const FirstEntry *fe, const uint8_t *data, size_t size, size_t *len) {
    uint64_t seed = 1469598103934665603ULL; /* FNV-1a of the data */
    for (size_t i = 0; i < size; i++) seed = (seed ^ data[i]) * 1099511628211ULL;
    size_t cap = (size_t)fe->nvalues * 32 + 2, n = 0;
    char *text = malloc(cap);
    if (!text) abort();
    for (long i = 0; i < fe->nvalues; i++) {
        n += (size_t)format_value(text + n, cap - n - 1, fe->prims[i], rng_next(&seed));
        text[n++] = (i % 8 == 7) ? '\n' : ' ';
    }
    text[n++] = '\n'; /* never empty: fmemopen wants a size above 0 */
    text[n] = 0;
    *len = n;
    return text;
}

/* ---- the target ---- */

/* driver_run_source, aborting on an internal error. */
static int run(const Options *opt, const char *text, size_t size) {
    memset(diag_text, 0, sizeof diag_text);
    rewind(diag_out);
    int status = driver_run_source(opt, "fuzz.parm", text, size);
    fflush(diag_out);
    /* The first line is the error (a source line it quotes comes after). */
    if (strncmp(diag_text, "parmc: error: internal error", 28) == 0) {
        fprintf(stderr, "fuzz_parmc: the compiler reported an internal error:\n%s", diag_text);
        abort();
    }
    return status;
}

static int interpret(Options *opt, const char *text, size_t size, char *input, size_t len) {
    FILE *in = fmemopen(input, len, "r");
    if (!in) abort();
    opt->in = in;
    int status = run(opt, text, size);
    fclose(in);
    opt->in = NULL;
    return status;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    Options opt = {.action = ACTION_CHECK,
                   .input = "fuzz.parm",
                   .import_path = import_path,
                   .out = null_out};
    if (run(&opt, text, size) != 0) return 0;

    FirstEntry fe = {0};
    find_first_entry(text, size, &fe);
    if (!fe.name || fe.heavy) {
        free(fe.prims);
        free(fe.name);
        return 0;
    }
    bool big = fe.nstmts > MAX_OPT_STMTS;
    if (!big) {
        opt.stage = STAGE_COUNT - 1;
        run(&opt, text, size);
    }

    opt.entry = fe.name;
    opt.action = ACTION_DUMP_IR;
    for (int s = 0; s <= (big ? STAGE_NORMALISED : STAGE_LAST_IR); s++) {
        opt.stage = (Stage)s;
        run(&opt, text, size);
    }

    if (!big) {
        mkdir(scratch, 0700);
        opt.action = ACTION_COMPILE;
        opt.output = out_cu;
        run(&opt, text, size);
        opt.output = out_c;
        opt.target_c = true;
        opt.emit_main = true;
        run(&opt, text, size);
        opt.output = NULL;
        opt.target_c = opt.emit_main = false;
        remove_scratch(); /* now: libFuzzer may end with _Exit, skipping atexit */
        opt.action = ACTION_REPORT;
        run(&opt, text, size);
    }

    if (fe.prims && fe.cost <= MAX_INTERP_COST) {
        size_t len;
        char *input = make_input(&fe, data, size, &len);
        opt.action = ACTION_INTERPRET;
        opt.stage = STAGE_SPECIALISED;
        opt.compare_stages = !big;
        if (interpret(&opt, text, size, input, len) != 0 && !big) {
            opt.compare_stages = false;
            if (interpret(&opt, text, size, input, len) == 0) {
                fprintf(stderr,
                        "fuzz_parmc: --compare-stages failed: a later stage computes other results "
                        "than the specialised program on this input:\n%s",
                        input);
                abort();
            }
        }
        free(input);
    }
    free(fe.prims);
    free(fe.name);
    return 0;
}
