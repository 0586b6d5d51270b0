/* benchcmd.c: `parmc bench FILE`, the entries timed on random input.
 *
 * Each entry is compiled with --emit-main (CUDA where nvcc and a GPU are
 * present, else C with $CC -O2) and its program run PROCESSES times with
 * `-r RUNS`: the emitted main runs the entry once untimed (the warm-up), then
 * RUNS times, timed with CUDA events on the GPU and the wall clock on the
 * CPU, and prints the median. The report gives the median of those medians
 * and their range (the spread between processes). Each step says so on
 * stderr; the input's room on the disk is checked before anything is
 * written, and the scratch directory goes on every exit (proc.h). */
#include "benchcmd.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "proc.h"
#include "subcmd.h"

#define PROCESSES 5
#define TIMEOUT_S 600
#define SEED 1 /* --random-input=1 */

typedef struct {
    const char *file;
    const char *const *dirs;
    int ndirs;
    const char *exe;
    const char *only; /* -e */
    int runs;
    bool json, cuda;
    char *tmp;
} Bench;

/* The driver on the file, its output into out_path (NULL: into *text, a
 * heap string, when text is not NULL). */
static int drive(const Bench *b, Options opt, const char *out_path, char **text) {
    size_t len = 0;
    FILE *out = out_path ? fopen(out_path, "w") : text ? open_memstream(text, &len) : NULL;
    if ((out_path || text) && !out) {
        fprintf(stderr, "parmc bench: error: cannot write '%s': %s\n",
                out_path ? out_path : "memory", strerror(errno));
        return 1;
    }
    opt.input = b->file;
    opt.out = out;
    opt.import_path = (ImportPath){b->dirs, b->ndirs, b->exe};
    int status = driver_run(&opt);
    if (out) fclose(out);
    return status;
}

/* What one step of the bench is doing, on stderr (stdout is the report). */
static void step(const char *entry, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void step(const char *entry, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "parmc bench: %s: ", entry);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Refuses an input that the scratch directory's file system has no room
 * for, before anything is written; *elements is its number of elements. */
static int check_room(const Bench *b, const char *entry, double *elements, double *bytes) {
    char *bound = NULL;
    int status = drive(b, (Options){.action = ACTION_INPUT_BOUND, .entry = entry, .seed = SEED},
                       NULL, &bound);
    if (!status && (!bound || sscanf(bound, "%lf %lf", elements, bytes) != 2)) status = 1;
    free(bound);
    char *why = status ? NULL : proc_no_room(b->tmp, *bytes);
    if (why) {
        fprintf(stderr, "parmc bench: error: the input of entry '%s' (%.0f elements) %s\n", entry,
                *elements, why);
        status = 1;
    }
    free(why);
    return status;
}

/* The emitted program built with the C compiler or nvcc. */
static int build(const Bench *b, const char *entry, const char *src, const char *prog,
                 const char *err) {
    int status = drive(b,
                       (Options){.action = ACTION_COMPILE,
                                 .output = src,
                                 .entry = entry,
                                 .emit_main = true,
                                 .target_c = !b->cuda},
                       NULL, NULL);
    if (status) return status;
    const char *c_args[] = {"-std=c11", "-O2", src, "-o", prog, "-lm", NULL};
    const char *cu_args[] = {"-O3", "-arch=native", src, "-o", prog, NULL};
    char **argv = b->cuda ? proc_command("NVCC", "nvcc", cu_args)
                          : proc_command("CC", "cc", c_args);
    if (argv) step(entry, "building the program with %s", argv[0]);
    int rc = argv ? proc_run(argv, NULL, NULL, err, TIMEOUT_S) : -1;
    if (rc) {
        char *text = rc > 0 ? proc_read_file(err) : NULL;
        fprintf(stderr, "parmc bench: error: compiling '%s' failed: %s\n", src,
                rc < 0 ? strerror(errno)
                : text ? text
                       : "");
        free(text);
        status = 1;
    }
    proc_free_argv(argv);
    return status;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median the emitted main printed ("median X ms over N runs"). */
static bool read_median(const char *path, double *ms) {
    char *text = proc_read_file(path);
    const char *at = text ? strstr(text, "median ") : NULL;
    bool ok = at && sscanf(at, "median %lf ms", ms) == 1;
    if (!ok && text) fprintf(stderr, "parmc bench: error: the compiled program said: %s", text);
    free(text);
    return ok;
}

/* s as a JSON string. */
static void json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

/* The median of each of the PROCESSES runs of the program, sorted. */
static int time_entry(const Bench *b, const char *entry, const char *input, const char *prog,
                      const char *err, double ms[PROCESSES]) {
    char runs[16];
    snprintf(runs, sizeof runs, "%d", b->runs);
    char *run_argv[] = {(char *)prog, "-r", runs, NULL};
    for (int p = 0; p < PROCESSES; p++) {
        step(entry, "timing process %d of %d (%d runs after 1 warm-up)", p + 1, PROCESSES, b->runs);
        int rc = proc_run(run_argv, input, NULL, err, TIMEOUT_S);
        if (rc || !read_median(err, &ms[p])) {
            fprintf(stderr, "parmc bench: error: running entry '%s' failed (exit %d)\n", entry, rc);
            return 1;
        }
    }
    qsort(ms, PROCESSES, sizeof ms[0], compare_double);
    return 0;
}

static void print_result(const Bench *b, const char *entry, bool first,
                         const double ms[PROCESSES]) {
    double median = ms[PROCESSES / 2],
           spread = median > 0 ? (ms[PROCESSES - 1] - ms[0]) / median * 100 : 0;
    const char *target = b->cuda ? "cuda" : "c";
    if (b->json) {
        printf("%s\n  {\"file\": ", first ? "" : ",");
        json_string(b->file);
        printf(", \"entry\": \"%s\", \"target\": \"%s\", \"median_ms\": %.6g, \"min_ms\": %.6g, "
               "\"max_ms\": %.6g, \"processes\": %d, \"runs\": %d, \"warmup\": 1}",
               entry, target, median, ms[0], ms[PROCESSES - 1], PROCESSES, b->runs);
    } else
        printf("%s %s (%s): median %.4g ms, range %.4g..%.4g ms (spread %.1f%%; median of %d "
               "processes, "
               "each the median of %d runs after 1 warm-up)\n",
               b->file, entry, b->cuda ? "CUDA, CUDA events" : "C, wall clock", median, ms[0],
               ms[PROCESSES - 1], spread, PROCESSES, b->runs);
}

/* Compiles the entry and times it; prints one line (or one JSON object).
 * The input's room is checked first, so that nothing is written for an
 * input the disk cannot hold. */
static int bench_entry(const Bench *b, const char *entry, bool first) {
    char *input = proc_tmp_path(b->tmp, "input.txt"),
         *src = proc_tmp_path(b->tmp, b->cuda ? "bench.cu" : "bench.c");
    char *prog = proc_tmp_path(b->tmp, "bench"), *err = proc_tmp_path(b->tmp, "bench.err");
    /* the compile's header and manifest, beside the program (driver.c) */
    free(proc_tmp_path(b->tmp, "bench.h"));
    free(proc_tmp_path(b->tmp, "bench.json"));
    double elements = 0, bytes = 0, ms[PROCESSES];
    int status = check_room(b, entry, &elements, &bytes);
    if (!status) {
        step(entry, "compiling %s to %s", b->file, src);
        status = build(b, entry, src, prog, err);
    }
    if (!status) {
        step(entry, "writing the input, %.0f elements (at most %.0f bytes), to %s", elements, bytes,
             input);
        status = drive(b, (Options){.action = ACTION_RANDOM_INPUT, .entry = entry, .seed = SEED},
                       input, NULL);
    }
    if (!status) status = time_entry(b, entry, input, prog, err, ms);
    if (!status) print_result(b, entry, first, ms);
    free(input);
    free(src);
    free(prog);
    free(err);
    return status;
}

static const char bench_usage[] =
    "usage: parmc bench [options] FILE.parm\n"
    "\n"
    "Time every entry of the file (or the entry -e) on random input: CUDA\n"
    "with CUDA events when nvcc and a GPU are present (PARMC_CUDA=0 or 1\n"
    "overrides the check), else the C back end ($CC, else cc, with -O2) with\n"
    "the wall clock. Each compiled program runs the entry once to warm up and\n"
    "then N times; five such processes give the median and the range.\n"
    "Each step prints a line on stderr. The files go to a fresh directory in\n"
    "$TMPDIR (or /tmp), removed on exit and on SIGINT, SIGTERM and SIGHUP; an\n"
    "input larger than that file system has free is refused before it is\n"
    "written.\n"
    "\n"
    "options:\n"
    "  -e, --entry NAME     time this entry only\n"
    "  -r, --runs N         timed runs per process (default 10)\n"
    "  -I, --include DIR    look for imported files in DIR (repeatable)\n"
    "  --json               one JSON array of results on stdout\n"
    "  -h, --help           show this help and exit\n";

static int bench_usage_error(const char *fmt, const char *arg)
    __attribute__((format(printf, 1, 0)));
static int bench_usage_error(const char *fmt, const char *arg) {
    return subcmd_usage_error("bench", fmt, arg);
}

static int parse_bench_args(int argc, char **argv, Bench *b, const char **dirs) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(bench_usage, stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            b->json = true;
        } else if ((v = subcmd_value(argc, argv, &i, 'e', "entry", &missing))) {
            b->only = v;
        } else if ((v = subcmd_value(argc, argv, &i, 'I', "include", &missing))) {
            dirs[b->ndirs++] = v;
        } else if ((v = subcmd_value(argc, argv, &i, 'r', "runs", &missing))) {
            char *end;
            long runs = strtol(v, &end, 10);
            if (!*v || *end || runs < 1 || runs > 100000)
                return bench_usage_error("'%s' is not a number of runs (1 to 100000)", v);
            b->runs = (int)runs;
        } else if (missing) {
            return bench_usage_error("option '%s' needs a value", a);
        } else if (a[0] == '-' && a[1]) {
            return bench_usage_error("unknown option '%s'", a);
        } else if (b->file) {
            return bench_usage_error("more than one input file ('%s')", a);
        } else {
            b->file = a;
        }
    }
    return b->file ? -1 : bench_usage_error("%s", "no input file");
}

/* The line after `line` of a text of lines (its end: "" after the last). */
static const char *next_line(const char *line) {
    size_t n = strcspn(line, "\n");
    return line + n + (line[n] != 0);
}

/* Whether `name` is one of the lines of `names`. */
static bool has_entry(const char *names, const char *name) {
    size_t len = strlen(name);
    for (const char *n = names; *n; n = next_line(n))
        if (strcspn(n, "\n") == len && !strncmp(n, name, len)) return true;
    return false;
}

int bench_main(int argc, char **argv, const char *exe) {
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    if (!dirs) return 1;
    Bench b = {.dirs = dirs, .exe = exe, .runs = 10};
    int status = parse_bench_args(argc, argv, &b, dirs);
    char *names = NULL;
    if (status < 0) {
        b.tmp = proc_tmpdir();
        status = b.tmp ? -1 : 1;
    }
    if (status < 0)
        status = drive(&b, (Options){.action = ACTION_LIST_ENTRIES}, NULL, &names) ? 1 : -1;
    if (status < 0 && !*names) {
        /* nothing to time is no success: a run that timed nothing would pass for one */
        fprintf(stderr, "%s: error: the program has no entry point to time\n", b.file);
        status = 1;
    }
    if (status < 0 && b.only && !has_entry(names, b.only)) {
        fprintf(stderr,
                "parmc bench: error: no entry point named '%s'; the file's entries:", b.only);
        for (const char *n = names; *n; n = next_line(n))
            fprintf(stderr, "%s %.*s", n == names ? "" : ",", (int)strcspn(n, "\n"), n);
        fputc('\n', stderr);
        status = 1;
    }
    if (status < 0) {
        b.cuda = proc_have_gpu();
        if (b.json) fputs("[", stdout);
        status = 0;
        bool first = true;
        for (char *save = NULL, *name = strtok_r(names, "\n", &save); name && !status;
             name = strtok_r(NULL, "\n", &save)) {
            if (b.only && strcmp(b.only, name)) continue;
            status = bench_entry(&b, name, first);
            first = false;
            fflush(stdout);
        }
        if (b.json) fputs("\n]\n", stdout);
    }
    free(names);
    proc_rmdir(b.tmp);
    free(dirs);
    return status;
}
