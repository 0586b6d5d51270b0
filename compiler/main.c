/* main.c: the command line of parmc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

#define PARMC_VERSION "0.1.0"

static const char usage[] =
    "usage: parmc [options] FILE.parm [-o OUT]\n"
    "\n"
    "Compile a parm program of GPU array combinators.\n"
    "\n"
    "options:\n"
    "  -e, --entry NAME     the entry point to run or dump (default: main)\n"
    "  -I DIR               look for imported files in DIR; repeatable, the\n"
    "                       directories are searched in order, then the stdlib\n"
    "  --interpret          run the entry on the CPU reference interpreter,\n"
    "                       reading its input from stdin and writing the result\n"
    "  --check              parse, check and specialise every entry; no output\n"
    "  --report             per kernel of every entry: elements moved, global\n"
    "                       passes, 32-byte sectors per warp access against the\n"
    "                       minimum, shared-memory bank congestion\n"
    "  --dump-ir[=STAGE]    print the IR after STAGE: specialised, normalised or\n"
    "                       optimised (the default)\n"
    "  --dump-plan          print the back end's plan of every entry (or of -e\n"
    "                       NAME): phases, tiles, swizzles, register rounds,\n"
    "                       buffers, permutation kernels\n"
    "  --trace-rules        print each rewrite rule as it is applied (stderr)\n"
    "  --stage STAGE        with --interpret: run the IR of STAGE (default\n"
    "                       specialised, the reference semantics)\n"
    "  --compare-stages     with --interpret: also run every later stage and\n"
    "                       fail unless all results are identical\n"
    "  -o OUT               the output file (default FILE.cu, or FILE.c with\n"
    "                       --target=c); its API header is written beside it\n"
    "  --target=cuda|c      emit CUDA (the default) or portable C11 with the\n"
    "                       same API over host pointers\n"
    "  --emit-main          add a main that runs the entry -e (default main)\n"
    "                       on values from stdin; `-r N` times N more runs\n"
    "  -h, --help           show this help and exit\n"
    "  --version            show the version and exit\n"
    "\n"
    "exit status: 0 on success, 1 on an error in the program or its input,\n"
    "2 on a usage error.\n";

static int usage_error(const char *fmt, const char *arg) __attribute__((format(printf, 1, 0)));
static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "parmc: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(run 'parmc --help' for usage)\n");
    return 2;
}

static int parse_stage(const char *name, Stage *out) {
    for (int s = 0; s < STAGE_COUNT; s++)
        if (strcmp(name, stage_names[s]) == 0) {
            *out = (Stage)s;
            return 0;
        }
    return usage_error("unknown IR stage '%s' (specialised, normalised or optimised)", name);
}

/* Sets the option at argv[*i], consuming its value if it takes one.
 * Returns 0, or the exit code of a usage error. */
static int parse_option(int argc, char **argv, int *i, Options *opt) {
    const char *a = argv[*i];
    if (!strcmp(a, "-e") || !strcmp(a, "--entry") || !strcmp(a, "-o") || !strcmp(a, "--stage")) {
        if (*i + 1 >= argc) return usage_error("option '%s' needs a value", a);
        const char *value = argv[++*i];
        if (!strcmp(a, "--stage")) return parse_stage(value, &opt->stage);
        if (a[1] == 'o') opt->output = value;
        else opt->entry = value;
        return 0;
    }
    if (!strcmp(a, "--trace-rules")) { opt->trace_rules = true; return 0; }
    if (!strcmp(a, "--emit-main")) { opt->emit_main = true; return 0; }
    if (!strcmp(a, "--report")) { opt->action = ACTION_REPORT; return 0; }
    if (!strcmp(a, "--dump-plan")) { opt->action = ACTION_DUMP_PLAN; return 0; }
    if (!strcmp(a, "--target=c")) { opt->target_c = true; return 0; }
    if (!strcmp(a, "--target=cuda")) { opt->target_c = false; return 0; }
    if (!strcmp(a, "--compare-stages")) { opt->compare_stages = true; return 0; }
    if (!strncmp(a, "--entry=", 8)) { opt->entry = a + 8; return 0; }
    if (!strcmp(a, "--interpret")) { opt->action = ACTION_INTERPRET; return 0; }
    if (!strcmp(a, "--check")) { opt->action = ACTION_CHECK; return 0; }
    if (!strcmp(a, "--dump-ir") || !strncmp(a, "--dump-ir=", 10)) {
        opt->action = ACTION_DUMP_IR;
        return parse_stage(a[9] == '=' ? a + 10 : "optimised", &opt->stage);
    }
    return usage_error("unknown option '%s'", a);
}

/* Sets *opt from the command line; the -I directories go to dirs, which has
 * room for one per argument. Returns -1 when the compiler should run, else
 * the exit code. */
static int parse_args(int argc, char **argv, Options *opt, const char **dirs) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(a, "--version")) {
            printf("parmc %s\n", PARMC_VERSION);
            return 0;
        }
        if (!strncmp(a, "-I", 2)) {
            if (!a[2] && i + 1 >= argc) return usage_error("option '%s' needs a value", a);
            dirs[opt->import_path.ndirs++] = a[2] ? a + 2 : argv[++i];
        } else if (a[0] == '-' && a[1] != 0) {
            int status = parse_option(argc, argv, &i, opt);
            if (status) return status;
        } else if (opt->input) {
            return usage_error("more than one input file ('%s')", a);
        } else {
            opt->input = a;
        }
    }
    if (!opt->input) return usage_error("%s", "no input file");
    return -1;
}

int main(int argc, char **argv) {
    const char **dirs = malloc(sizeof *dirs * (size_t)argc);
    if (!dirs) return 1;
    /* argv[0] locates the stdlib (imports.c) */
    Options opt = {.action = ACTION_COMPILE, .import_path = {.dirs = dirs, .exe = argv[0]}};
    int status = parse_args(argc, argv, &opt, dirs);
    if (status < 0) status = driver_run(&opt);
    free(dirs);
    return status;
}
