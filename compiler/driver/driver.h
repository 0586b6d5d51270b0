/* driver.h: one compilation, from source text to the requested output.
 * main.c turns the command line into Options; the driver runs the pipeline. */
#ifndef PARMC_DRIVER_H
#define PARMC_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "imports.h"

typedef enum {
    ACTION_COMPILE,
    ACTION_CHECK,
    ACTION_INTERPRET,
    ACTION_DUMP_IR,
    ACTION_REPORT,
    ACTION_RANDOM_INPUT,
    ACTION_LIST_ENTRIES, /* the entry names, one a line (for parmc bench) */
    ACTION_DUMP_PLAN,    /* the back end's plans (plan_print.c) */
    ACTION_INPUT_BOUND /* "ELEMENTS BYTES": --random-input's most (randinput_bound), for parmc bench
                                   and parmc test */
} Action;

/* What each pass of the driver's table (driver_passes, below) hands on, in
 * pipeline order: the IR stages up to STAGE_LAST_IR, then the plan's. */
typedef enum {
    STAGE_SPECIALISED,
    STAGE_NORMALISED,
    STAGE_REWRITTEN,
    STAGE_OPTIMISED,
    STAGE_SCHEDULED,
    STAGE_PLACED,
    STAGE_COUNT
} Stage;
#define STAGE_LAST_IR STAGE_OPTIMISED

typedef struct {
    Action action;
    const char *input;  /* the .parm file */
    const char *output; /* -o */
    const char *entry;  /* -e; NULL = every entry (compile) or main */
    Stage stage;        /* the last pass run by --check, --dump-ir=STAGE, --dump-plan, --dump-after,
                                   --stage STAGE for --interpret */
    bool trace_rules;   /* --trace-rules: print each rule application to stderr */
    bool compare_stages;     /* --compare-stages: interpret every stage, fail if they differ */
    bool target_c;           /* --target=c: portable C instead of CUDA */
    int gpu_log;             /* --gpus 2^gpu_log (plan.h, "Ranks") */
    bool emit_main;          /* --emit-main: a standalone main for the entry -e (default main) */
    const char *prefix;      /* --prefix: of the API's names; NULL = from the output's name */
    unsigned long long seed; /* --random-input=SEED */
    /* --special-floats: --random-input mixes in NaN, infinities, -0, subnormals */
    bool special_floats;
    bool strict;          /* --strict: --report fails unless every access is minimal */
    int tile_bytes;       /* --tile-bytes: shared memory for a tile; 0 = the scheduler's default */
    int segment_bytes;    /* --segment-bytes: 32, 64 or 128 (0 = 128) */
    bool vector_copies;   /* --vector-copies: tile copies in 16-byte vectors */
    bool narrow_permutes; /* --narrow-permutes: permutation kernels without vectors */
    bool narrow_copies;   /* --narrow-copies: tile copies of narrow fields without vectors */
    int exchange_pieces;  /* --exchange-pieces: 0 = the scheduler's choice */
    int register_bytes;   /* --register-bytes: a thread's elements in registers; 0 = the default */
    int tile_buffers;     /* --tile-buffers: shared tile buffers per block; 0 = one */
    int cluster_log;      /* --cluster-blocks, log2: 0 = a block per tile */
    ImportPath import_path; /* -I DIR and the stdlib, for `import` */
    FILE *out;              /* IR dumps and results; NULL = stdout */
    FILE *in;               /* the interpreter's input; NULL = stdin */
} Options;

/* One compilation, private to driver.c. */
typedef struct Compilation Compilation;

/* A pass of the middle or back end: its entry in driver_passes. */
typedef struct Pass Pass;
struct Pass {
    const char *name; /* --dump-after NAME */
    const char *made; /* the stage it hands on: --dump-ir=STAGE, --stage, the verifiers' messages */
    /* the compiler/ module that does its work (tests/tools/passes.py checks the
     * order against compiler/stages, the Makefile and docs/internals.md) */
    const char *module;
    const char *what; /* one line for --passes */
    void (*run)(Compilation *c, const Options *opt);
    void (*verify)(Compilation *c, const Pass *pass); /* PARMC_VERIFY builds; a no-op otherwise */
    void (*dump)(FILE *out, const Compilation *c);
};

/* The pipeline after the front end, one pass per Stage, in order. */
extern const Pass driver_passes[STAGE_COUNT];

/* Why `prefix` cannot be the API's prefix (--prefix), or NULL when it can. */
const char *driver_prefix_problem(const char *prefix);

/* Returns the process exit code: 0, or 1 after a diagnostic. */
int driver_run(const Options *opt);
/* The same, compiling the len bytes at text (named `name` in messages)
 * instead of the file opt->input; for tools such as the fuzzer. */
int driver_run_source(const Options *opt, const char *name, const char *text, size_t len);

#endif
