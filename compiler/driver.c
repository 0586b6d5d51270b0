/* driver.c: the pipeline, stage by stage. Every stage reports errors through
 * diag, which longjmps back here; the arena is then freed in one place. */
#include "driver.h"

#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "io.h"
#include "ir.h"
#include "value.h"

typedef struct {
    Arena arena;
    Source source;
    char *text;                 /* owned: the source file */
    char *input;                /* owned: interpreter input */
    Buf **inputs, **results;    /* owned: interpreter buffers, NULL-terminated */
    Program program;
    IrProgram ir;
} Compilation;

static void load_source(Compilation *c, const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) diag_fatal("cannot open '%s'", path);
    long len = 0;
    c->text = io_slurp(f, &len);
    fclose(f);
    if (!c->text) diag_fatal("cannot read '%s'", path);
    if ((long)strlen(c->text) != len) diag_fatal("'%s' contains a NUL byte; it is not a parm source file", path);
    if (len > (1L << 24)) diag_fatal("'%s' is larger than the limit of 16 MiB", path);
    c->source = (Source){path, c->text, (int)len};
}

static void free_bufs(Buf **bufs) {
    if (!bufs) return;
    for (int i = 0; bufs[i]; i++) buf_free(bufs[i]);
    free(bufs);
}

static void interpret(Compilation *c, const char *entry) {
    long len = 0;
    c->input = io_slurp(stdin, &len);
    if (!c->input) diag_fatal("cannot read standard input");
    const IrFunc *f = io_read_inputs(&c->ir, entry, "<stdin>", c->input, &c->inputs);
    c->results = ir_eval_func(&c->ir, f, c->inputs);
    io_write_results(stdout, f, c->results);
}

static void run_pipeline(Compilation *c, const Options *opt) {
    load_source(c, opt->input);
    parse_source(&c->arena, &c->source, &c->program);
    const char *entry = opt->entry;
    if (!entry && opt->action != ACTION_CHECK && opt->action != ACTION_COMPILE) entry = "main";
    specialise_program(&c->arena, &c->program, entry, &c->ir);
    switch (opt->action) {
    case ACTION_CHECK:
        break;
    case ACTION_DUMP_IR:
        ir_print_program(stdout, &c->ir);
        break;
    case ACTION_INTERPRET:
        interpret(c, entry);
        break;
    case ACTION_COMPILE:
        diag_fatal("code generation is not available yet; use --interpret, --check or --dump-ir");
    }
}

int driver_run(const Options *opt) {
    Compilation *c = calloc(1, sizeof *c);
    if (!c) return 1;
    c->ir.arena = &c->arena;
    jmp_buf handler;
    diag_handler = &handler;
    int status = setjmp(handler) == 0 ? (run_pipeline(c, opt), 0) : 1;
    diag_handler = NULL;
    fflush(stdout);
    free_bufs(c->inputs);
    free_bufs(c->results);
    free(c->input);
    free(c->text);
    arena_free(&c->arena);
    free(c);
    return status;
}
