/* testcmd.c: `parmc test FILE...`, the in-source test cases of
 * docs/testing.md.
 *
 * A file's `-- ==` blocks are read here; each block names the entry it
 * tests (one of the file's or one it adds) and lists cases. The program
 * (the file plus the added entry) goes through the driver as it would from
 * the command line: --check, --interpret for every case, --target c
 * --emit-main compiled with $CC (or cc), and, where nvcc and a GPU are
 * present, CUDA compiled with nvcc. Every case prints one line; the last
 * line counts them. */
#include "testcmd.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "driver.h"
#include "proc.h"
#include "subcmd.h"

#define RUN_TIMEOUT_S 600

typedef enum { CASE_OUTPUT, CASE_ERROR, CASE_RANDOM, CASE_COMPILE_ERROR } CaseKind;

typedef struct {
    CaseKind kind;
    int line;
    char *input;             /* CASE_OUTPUT, CASE_ERROR: the values */
    char *expect;            /* the expected values, or the text the error contains */
    unsigned long long seed; /* CASE_RANDOM */
} Case;

typedef struct {
    char *name;
    int line;
    char *decl; /* `entry ...` added to the program, or NULL */
    /* the directive's line, the columns right of the first where its
     * `entry` stands, and the program's line that holds the entry: the
     * directive's, or one after the file where that line lies inside a
     * declaration (block_program) */
    int decl_line, decl_shift, program_line;
    char *entry; /* the entry the cases run */
    Case *cases;
    int ncases, cap;
} Block;

typedef struct {
    const char *path;
    const char *text;        /* the file */
    const char *const *dirs; /* -I */
    int ndirs;
    const char *exe;
    bool c, cuda; /* back ends to run besides the interpreter */
    char *tmp;    /* scratch directory */
    int passed, failed;
} Tester;

/* ---- reading the blocks ---- */

static char *dup_range(const char *s, size_t n) {
    char *d = malloc(n + 1);
    if (!d) {
        fputs("parmc: error: out of memory\n", stderr);
        exit(1);
    }
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* printf into a heap string of the length it needs. */
static char *message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *message(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *m = malloc(n < 0 ? 1 : (size_t)n + 1);
    if (!m) {
        fputs("parmc: error: out of memory\n", stderr);
        exit(1);
    }
    m[0] = 0;
    va_start(ap, fmt);
    vsnprintf(m, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return m;
}

/* Appends " text" to *acc (a heap string or NULL). */
static void append(char **acc, const char *text, size_t n) {
    size_t old = *acc ? strlen(*acc) : 0;
    char *grown = realloc(*acc, old + n + 2);
    if (!grown) {
        fputs("parmc: error: out of memory\n", stderr);
        exit(1);
    }
    if (old) grown[old++] = ' ';
    memcpy(grown + old, text, n);
    grown[old + n] = 0;
    *acc = grown;
}

static Case *new_case(Block *b, CaseKind kind, int line) {
    if (b->ncases == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 8;
        Case *grown = realloc(b->cases, sizeof *grown * (size_t)b->cap);
        if (!grown) {
            fputs("parmc: error: out of memory\n", stderr);
            exit(1);
        }
        b->cases = grown;
    }
    Case *c = &b->cases[b->ncases++];
    *c = (Case){kind, line, NULL, NULL, 0};
    return c;
}

static void free_block(Block *b) {
    for (int i = 0; i < b->ncases; i++) {
        free(b->cases[i].input);
        free(b->cases[i].expect);
    }
    free(b->cases);
    free(b->name);
    free(b->decl);
    free(b->entry);
    *b = (Block){0};
}

static void syntax_error(Tester *t, int line, const char *msg, const char *word, size_t n) {
    printf("FAIL %s:%d: the test block cannot be read: %s '%.*s'\n", t->path, line, msg, (int)n,
           word);
    t->failed++;
}

/* The case an `input` line continues: the last one, while it has no
 * expectation yet. */
static Case *open_input(Block *b, int line) {
    Case *last = b->ncases ? &b->cases[b->ncases - 1] : NULL;
    if (last && last->input && !last->expect && last->kind == CASE_OUTPUT) return last;
    return new_case(b, CASE_OUTPUT, line);
}

/* One directive line of a block (after `-- `, `shift` columns right of
 * the line's first). False on a syntax error. */
static bool directive(Tester *t, Block *b, int line, int shift, const char *s, size_t n) {
    size_t w = 0;
    while (w < n && !isspace((unsigned char)s[w])) w++;
    const char *arg = s + w;
    size_t an = n - w;
    while (an && isspace((unsigned char)*arg)) arg++, an--;
    while (an && isspace((unsigned char)arg[an - 1])) an--;
    Case *last = b->ncases ? &b->cases[b->ncases - 1] : NULL;
    if (w == 5 && !strncmp(s, "entry", 5)) {
        const char *name = arg;
        size_t nn = 0;
        while (nn < an && (isalnum((unsigned char)name[nn]) || name[nn] == '_' || name[nn] == '\''))
            nn++;
        if (b->decl || nn == 0) {
            syntax_error(t, line,
                         b->decl ? "a block adds one entry; a second" : "an entry needs a name:", s,
                         n);
            return false;
        }
        b->decl = dup_range(s, n);
        b->decl_line = line;
        b->decl_shift = shift;
        free(b->entry);
        b->entry = dup_range(name, nn);
    } else if (w == 3 && !strncmp(s, "run", 3)) {
        free(b->entry);
        b->entry = dup_range(arg, an);
    } else if (w == 5 && !strncmp(s, "input", 5)) {
        append(&open_input(b, line)->input, arg, an);
    } else if (w == 6 && !strncmp(s, "output", 6)) {
        if (!last || !last->input || last->kind != CASE_OUTPUT) {
            syntax_error(t, line, "an output needs an input before it:", s, n);
            return false;
        }
        append(&last->expect, arg, an);
    } else if (w == 5 && !strncmp(s, "error", 5)) {
        if (last && last->input && !last->expect && last->kind == CASE_OUTPUT)
            last->kind = CASE_ERROR;
        else last = new_case(b, CASE_COMPILE_ERROR, line);
        last->expect = dup_range(arg, an);
    } else if (w == 6 && !strncmp(s, "random", 6)) {
        char *end;
        errno = 0;
        unsigned long count = strtoul(arg, &end, 10);
        if (an == 0 || end != arg + an || errno || count == 0 || count > 1000) {
            syntax_error(t, line, "random needs a count from 1 to 1000:", s, n);
            return false;
        }
        for (unsigned long k = 1; k <= count; k++) new_case(b, CASE_RANDOM, line)->seed = k;
    } else {
        syntax_error(t, line,
                     "unknown test directive (entry, run, input, output, error or random):", s, w);
        return false;
    }
    return true;
}

/* ---- running the program through the driver ---- */

typedef struct {
    int status;
    char *out, *err; /* heap: what the run wrote, and its diagnostics */
} Result;

static void free_result(Result *r) {
    free(r->out);
    free(r->err);
}

/* The block's added entry stands where its directive does, or after the
 * file, `entry` moved to the first column (block_program): the places of
 * its diagnostics in err (heap, taken) move back to the directive's line
 * and columns. */
static char *directive_columns(const Tester *t, const Block *b, char *err) {
    if (!b->decl || (b->program_line == b->decl_line && !b->decl_shift)) return err;
    char *at = message("%s:%d:", t->path, b->program_line), *fixed = NULL;
    size_t at_len = strlen(at), len = 0;
    FILE *out = open_memstream(&fixed, &len);
    if (!out) {
        free(at);
        return err;
    }
    for (const char *s = err; *s;) {
        const char *hit = strstr(s, at);
        if (!hit) {
            fputs(s, out);
            break;
        }
        fwrite(s, 1, (size_t)(hit - s), out);
        fprintf(out, "%s:%d:", t->path, b->decl_line);
        s = hit + at_len;
        char *end;
        long col = strtol(s, &end, 10);
        if (end != s && *end == ':') {
            fprintf(out, "%ld", col + b->decl_shift);
            s = end;
        }
    }
    fclose(out);
    free(at);
    if (!fixed) return err;
    free(err);
    return fixed;
}

/* Runs the driver on block b's program text with opt (input, entry and
 * action set by the caller), capturing its output and diagnostics. */
static Result drive(const Tester *t, const Block *b, Options *opt, const char *program,
                    const char *input) {
    Result r = {1, NULL, NULL};
    size_t out_len = 0, err_len = 0;
    FILE *out = open_memstream(&r.out, &out_len), *err = open_memstream(&r.err, &err_len);
    FILE *in = input ? fmemopen((void *)input, strlen(input), "r") : NULL;
    if (out && err && (in || !input)) {
        opt->out = out;
        opt->in = in;
        opt->input = t->path;
        opt->import_path = (ImportPath){t->dirs, t->ndirs, t->exe};
        diag_set_stream(err);
        r.status = driver_run_source(opt, t->path, program, strlen(program));
        diag_set_stream(NULL);
    }
    if (in) fclose(in);
    if (out) fclose(out);
    if (err) fclose(err);
    if (!r.out) r.out = dup_range("", 0);
    r.err = r.err ? directive_columns(t, b, r.err) : dup_range("", 0);
    return r;
}

/* First difference between two texts as whitespace-separated values, in
 * words (NULL: equal); heap. */
static char *difference(const char *got, const char *want) {
    for (int k = 1;; k++) {
        while (isspace((unsigned char)*got)) got++;
        while (isspace((unsigned char)*want)) want++;
        size_t g = strcspn(got, " \t\r\n"), w = strcspn(want, " \t\r\n");
        if (!g && !w) return NULL;
        int gs = g > 40 ? 40 : (int)g, ws = w > 40 ? 40 : (int)w;
        if (!g) return message("the output ends at value %d, expected '%.*s'", k, ws, want);
        if (!w)
            return message("the output has more values than expected: value %d is '%.*s'", k, gs,
                           got);
        if (g != w || strncmp(got, want, g))
            return message("value %d is '%.*s', expected '%.*s'", k, gs, got, ws, want);
        got += g;
        want += w;
    }
}

/* The line of a diagnostic for a one-line report: its first error's (a
 * diagnostic may open with the calls that led to it), else its first. */
static char *report_line(const char *text) {
    const char *error = strstr(text, ": error: ");
    const char *at = text;
    if (error) {
        at = error;
        while (at > text && at[-1] != '\n') at--;
    }
    return dup_range(at, strcspn(at, "\n"));
}

/* ---- compiled programs ---- */

typedef struct {
    const char *label; /* "C" or "CUDA" */
    char *exe;         /* the compiled program, or NULL */
    char *why;         /* why it could not be built */
} Binary;

static char *spawn_error(const char *what, char **argv, int status, const char *err_path) {
    if (status < 0) return message("cannot run %s '%s': %s", what, argv[0], strerror(errno));
    char *err = proc_read_file(err_path);
    char *line = report_line(err ? err : "");
    char *msg = message("%s '%s' failed (exit %d): %s", what, argv[0], status, line);
    free(line);
    free(err);
    return msg;
}

/* Emits the program for `entry` with a standalone main and compiles it. */
static Binary build(const Tester *t, const Block *b, const char *program, bool cuda) {
    Binary bin = {cuda ? "CUDA" : "C", NULL, NULL};
    char *src = proc_tmp_path(t->tmp, cuda ? "prog.cu" : "prog.c");
    char *exe = proc_tmp_path(t->tmp, cuda ? "prog_cuda" : "prog_c");
    char *err_path = proc_tmp_path(t->tmp, "build.err");
    /* the compile's header and manifest, beside the program (driver.c) */
    free(proc_tmp_path(t->tmp, "prog.h"));
    free(proc_tmp_path(t->tmp, "prog.json"));
    Options opt = {.action = ACTION_COMPILE,
                   .output = src,
                   .entry = b->entry,
                   .emit_main = true,
                   .target_c = !cuda};
    Result r = drive(t, b, &opt, program, NULL);
    if (r.status) {
        char *line = report_line(r.err);
        bin.why = message("parmc: %s", line);
        free(line);
    } else {
        const char *c_args[] = {"-std=c11", "-O1", src, "-o", exe, "-lm", NULL};
        const char *cu_args[] = {"-O2", "-arch=native", src, "-o", exe, NULL};
        char **argv = cuda ? proc_command("NVCC", "nvcc", cu_args)
                           : proc_command("CC", "cc", c_args);
        int status = argv ? proc_run(argv, NULL, NULL, err_path, RUN_TIMEOUT_S) : -1;
        if (status == 0) bin.exe = exe, exe = NULL;
        else
            bin.why = spawn_error(cuda ? "the CUDA compiler" : "the C compiler", argv, status,
                                  err_path);
        proc_free_argv(argv);
    }
    free_result(&r);
    free(src);
    free(exe);
    free(err_path);
    return bin;
}

/* Runs a compiled program on input; its output on success, else NULL and
 * *why. */
static char *run_binary(const Tester *t, const Binary *bin, const char *input, int *status,
                        char **why) {
    char *in = proc_tmp_path(t->tmp, "case.in"), *out = proc_tmp_path(t->tmp, "case.out");
    char *err = proc_tmp_path(t->tmp, "case.err");
    char *argv[] = {bin->exe, NULL};
    char *result = NULL;
    *why = NULL;
    if (!proc_write_file(in, input)) {
        *why = dup_range("cannot write the input file", 27);
        *status = -1;
    } else {
        *status = proc_run(argv, in, out, err, RUN_TIMEOUT_S);
        if (*status == 0) result = proc_read_file(out);
        else *why = spawn_error("the compiled program", argv, *status, err);
    }
    free(in);
    free(out);
    free(err);
    return result;
}

/* ---- cases ---- */

static void report(Tester *t, const Block *b, const Case *c, int index, const char *backends,
                   const char *why) {
    const char *what = c->kind == CASE_RANDOM          ? "random input"
                       : c->kind == CASE_COMPILE_ERROR ? "compile error"
                       : c->kind == CASE_ERROR         ? "input error"
                                                       : "input";
    printf("%s %s:%d: %s: %s %d", why ? "FAIL" : "ok  ", t->path, c->line, b->name, what, index);
    if (c->kind == CASE_RANDOM) printf(" (seed %llu)", c->seed);
    if (why) printf(": %s\n", why);
    else printf(" [%s]\n", backends);
    if (why) t->failed++;
    else t->passed++;
}

/* "WHAT lacks 'TEXT': FIRST LINE OF ERR" */
static char *lacks(const char *what, const char *text, const char *err) {
    char *line = report_line(err), *m = message("%s lacks '%s': ", what, text),
         *all = message("%s%s", m, line);
    free(line);
    free(m);
    return all;
}

/* The interpreter's result for a case: *ref is its output (NULL when the case
 * expects it to fail). Returns why the case fails, or NULL. */
static char *interpret_case(Tester *t, const Block *b, const Case *c, const char *program,
                            char *input, char **ref) {
    Options opt = {.action = ACTION_INTERPRET, .entry = b->entry};
    Result r = drive(t, b, &opt, program, input);
    char *why = NULL;
    *ref = NULL;
    if (c->kind == CASE_ERROR) {
        if (r.status == 0) why = dup_range("the interpreter accepted the input", 34);
        else if (!strstr(r.err, c->expect))
            why = lacks("the interpreter's error", c->expect, r.err);
    } else if (r.status) {
        char *line = report_line(r.err);
        why = message("interpreter: %s", line);
        free(line);
    } else if (c->kind == CASE_OUTPUT) {
        char *d = difference(r.out, c->expect);
        if (d) why = message("interpreter: %s", d);
        free(d);
    }
    if (!why && c->kind != CASE_ERROR) *ref = r.out, r.out = NULL;
    free_result(&r);
    return why;
}

/* A compiled program on the case: the same output as the interpreter, or a
 * failure where the interpreter failed. */
static char *compiled_case(Tester *t, const Case *c, const Binary *bin, const char *input,
                           const char *ref) {
    if (!bin->exe) return message("%s: %s", bin->label, bin->why);
    int status;
    char *why = NULL, *out = run_binary(t, bin, input, &status, &why);
    char *result = NULL;
    if (c->kind == CASE_ERROR) {
        if (status == 0)
            result = message("%s: the compiled program accepted the input", bin->label);
    } else if (!out) {
        result = message("%s: %s", bin->label, why);
    } else {
        char *d = difference(out, ref);
        if (d) result = message("%s: %s", bin->label, d);
        free(d);
    }
    free(why);
    free(out);
    return result;
}

/* Why the scratch directory has no room for the case's random input, which
 * the compiled programs read from a file there, or NULL. Asked before the
 * input is made. */
static char *no_room(Tester *t, const Block *b, const char *program, unsigned long long seed) {
    if (!t->tmp) return NULL;
    Options opt = {.action = ACTION_INPUT_BOUND, .entry = b->entry, .seed = seed};
    Result r = drive(t, b, &opt, program, NULL);
    double elements, bytes;
    char *why = NULL;
    if (!r.status && sscanf(r.out, "%lf %lf", &elements, &bytes) == 2) {
        char *lack = proc_no_room(t->tmp, bytes);
        if (lack) why = message("the input (%.0f elements) %s", elements, lack);
        free(lack);
    }
    free_result(&r);
    return why;
}

/* Random input for the case, or NULL and *why. */
static char *random_input(Tester *t, const Block *b, const char *program, unsigned long long seed,
                          char **why) {
    if ((*why = no_room(t, b, program, seed))) return NULL;
    Options opt = {.action = ACTION_RANDOM_INPUT, .entry = b->entry, .seed = seed};
    Result r = drive(t, b, &opt, program, NULL);
    char *input = r.status ? NULL : r.out;
    if (r.status) {
        char *line = report_line(r.err);
        *why = message("cannot make a random input: %s", line);
        free(line);
        free(r.out);
    }
    free(r.err);
    return input;
}

static void run_case(Tester *t, const Block *b, const Case *c, int index, const char *program,
                     Binary *bins, int nbins) {
    char *ref = NULL, *why = NULL;
    char *input = c->kind == CASE_RANDOM ? random_input(t, b, program, c->seed, &why)
                                         : dup_range(c->input, strlen(c->input));
    if (input) why = interpret_case(t, b, c, program, input, &ref);
    char *backends = message("interpreter");
    for (int i = 0; i < nbins && !why; i++) {
        why = compiled_case(t, c, &bins[i], input, ref);
        char *more = message("%s, %s", backends, bins[i].label);
        free(backends);
        backends = more;
    }
    report(t, b, c, index, backends, why);
    free(backends);
    free(why);
    free(ref);
    free(input);
}

/* A compile-error case: --check must fail with the text. */
static void run_compile_error(Tester *t, const Block *b, const Case *c, int index,
                              const char *program) {
    Options opt = {.action = ACTION_CHECK};
    Result r = drive(t, b, &opt, program, NULL);
    char *why = NULL;
    if (r.status == 0) why = dup_range("the program compiled", 20);
    else if (!strstr(r.err, c->expect)) why = lacks("the error", c->expect, r.err);
    report(t, b, c, index, "check", why);
    free(why);
    free_result(&r);
}

/* Whether the line after `line` that is neither blank nor a comment starts
 * in the first column (a declaration), or there is none: a declaration put
 * at `line` then splits none. */
static bool between_declarations(const char *text, int line) {
    int at = 1;
    for (const char *s = text; *s; at++) {
        size_t n = strcspn(s, "\n");
        size_t lead = strspn(s, " \t\r");
        bool blank = lead >= n,
             comment = !blank && n - lead >= 2 && s[lead] == '-' && s[lead + 1] == '-';
        if (at > line && !blank && !comment) return lead == 0;
        s += n + (s[n] == '\n');
    }
    return true;
}

/* The file with the block's added entry: on its directive's line, `entry`
 * in the first column, so that its diagnostics name that line
 * (directive_columns gives back the columns), where that line lies between
 * declarations; else on a line of its own after the file. */
static char *block_program(const Tester *t, Block *b) {
    if (!b->decl) return message("%s\n\n", t->text);
    b->program_line = b->decl_line;
    if (!between_declarations(t->text, b->decl_line)) {
        /* after the file's lines and a line break: the newlines + 2nd */
        b->program_line = 2;
        for (const char *c = t->text; *c; c++) b->program_line += *c == '\n';
        return message("%s\n%s\n", t->text, b->decl);
    }
    char *program = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&program, &len);
    if (!out) {
        fputs("parmc: error: out of memory\n", stderr);
        exit(1);
    }
    int at = 1;
    for (const char *s = t->text; *s; at++) {
        size_t n = strcspn(s, "\n");
        if (at == b->decl_line) fputs(b->decl, out);
        else fwrite(s, 1, n, out);
        fputc('\n', out);
        s += n + (s[n] == '\n');
    }
    fclose(out);
    return program;
}

static void run_block(Tester *t, Block *b) {
    if (!b->entry) b->entry = dup_range("main", 4);
    char *program = block_program(t, b);
    bool expect_compile_error = b->ncases > 0 && b->cases[0].kind == CASE_COMPILE_ERROR;
    Binary bins[2];
    int nbins = 0;
    if (!expect_compile_error) {
        if (t->c) bins[nbins++] = build(t, b, program, false);
        if (t->cuda) bins[nbins++] = build(t, b, program, true);
    }
    if (b->ncases == 0) {
        printf("FAIL %s:%d: %s: the block has no cases\n", t->path, b->line, b->name);
        t->failed++;
    }
    for (int i = 0; i < b->ncases; i++) {
        if (b->cases[i].kind == CASE_COMPILE_ERROR)
            run_compile_error(t, b, &b->cases[i], i + 1, program);
        else run_case(t, b, &b->cases[i], i + 1, program, bins, nbins);
    }
    for (int i = 0; i < nbins; i++) {
        free(bins[i].exe);
        free(bins[i].why);
    }
    free(program);
}

/* Reads the file's blocks and runs each as it ends. Returns whether the file
 * has any. */
static bool test_file(Tester *t) {
    bool any = false;
    Block b = {0};
    bool in_block = false, broken = false;
    int line = 0;
    for (const char *s = t->text; *s;) {
        size_t n = strcspn(s, "\n");
        line++;
        bool comment = n >= 2 && s[0] == '-' && s[1] == '-';
        const char *body = s + 2;
        size_t bn = comment ? n - 2 : 0;
        while (bn && (body[bn - 1] == ' ' || body[bn - 1] == '\r')) bn--;
        if (bn && body[0] == ' ') body++, bn--;
        bool opens = comment && bn >= 2 && body[0] == '=' && body[1] == '=';
        if (in_block && (!comment || bn == 0 || opens)) {
            if (!broken) run_block(t, &b);
            free_block(&b);
            in_block = false;
        }
        if (opens) {
            in_block = any = true;
            broken = false;
            b.line = line;
            const char *name = body + 2;
            size_t nn = bn - 2;
            while (nn && *name == ' ') name++, nn--;
            b.name = nn ? dup_range(name, nn) : message("block at line %d", line);
        } else if (in_block && !broken) {
            broken = !directive(t, &b, line, (int)(body - s), body, bn);
        }
        s += n + (s[n] == '\n');
    }
    if (in_block && !broken) run_block(t, &b);
    free_block(&b);
    return any;
}

static const char test_usage[] =
    "usage: parmc test [options] FILE.parm...\n"
    "\n"
    "Run the test cases in the files' `-- ==` comment blocks (docs/testing.md)\n"
    "through the interpreter, the C back end ($CC, else cc) and, when nvcc and\n"
    "a GPU are present, CUDA ($NVCC, else nvcc; PARMC_CUDA=0 or 1 overrides the\n"
    "check). One line per case, then \"N passed, M failed\", which says when CUDA\n"
    "did not run and why (\"(CUDA not run: no GPU, ...)\").\n"
    "\n"
    "options:\n"
    "  -I, --include DIR    look for imported files in DIR (repeatable)\n"
    "  --no-c               skip the C back end\n"
    "  --no-cuda            skip CUDA even with a GPU\n"
    "  -h, --help           show this help and exit\n"
    "\n"
    "exit status: 0 when every case passed, 1 when some failed, 2 on a usage\n"
    "error.\n";

static int test_usage_error(const char *fmt, const char *arg) __attribute__((format(printf, 1, 0)));
static int test_usage_error(const char *fmt, const char *arg) {
    return subcmd_usage_error("test", fmt, arg);
}

int test_main(int argc, char **argv, const char *exe) {
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs),
               **files = calloc((size_t)argc + 1, sizeof *files);
    int ndirs = 0, nfiles = 0, status = -1;
    bool c = true, cuda = true;
    if (!dirs || !files) status = 1;
    for (int i = 1; i < argc && status < 0; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) fputs(test_usage, stdout), status = 0;
        else if (!strcmp(a, "--no-c")) c = false;
        else if (!strcmp(a, "--no-cuda")) cuda = false;
        else if ((v = subcmd_value(argc, argv, &i, 'I', "include", &missing))) dirs[ndirs++] = v;
        else if (missing) status = test_usage_error("option '%s' needs a value", a);
        else if (a[0] == '-' && a[1]) status = test_usage_error("unknown option '%s'", a);
        else files[nfiles++] = a;
    }
    if (status < 0 && nfiles == 0) status = test_usage_error("%s", "no input file");
    Tester t = {.dirs = dirs, .ndirs = ndirs, .exe = exe, .c = c};
    if (status < 0 && (c || cuda)) {
        t.tmp = proc_tmpdir();
        if (!t.tmp) status = 1;
    }
    /* why CUDA is left out although the user did not ask it (--no-cuda) */
    const char *cuda_missing = status < 0 && cuda ? proc_cuda_missing() : NULL;
    t.cuda = status < 0 && cuda && !cuda_missing;
    for (int i = 0; i < nfiles && status < 0; i++) {
        char *text = proc_read_file(files[i]);
        t.path = files[i];
        if (!text) {
            printf("FAIL %s: cannot read the file: %s\n", files[i], strerror(errno));
            t.failed++;
            continue;
        }
        t.text = text;
        if (!test_file(&t)) printf("note: %s has no test blocks\n", files[i]);
        fflush(stdout);
        free(text);
    }
    if (status < 0) {
        printf("%d passed, %d failed", t.passed, t.failed);
        if (cuda_missing) printf(" (CUDA not run: %s)", cuda_missing);
        putchar('\n');
        status = t.failed ? 1 : 0;
    }
    proc_rmdir(t.tmp);
    free(dirs);
    free(files);
    return status;
}
