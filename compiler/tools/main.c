/* main.c: the command line of parmc. `parmc test` and `parmc bench` have
 * their own (testcmd.c, benchcmd.c); everything else is one Options for the
 * driver. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchcmd.h"
#include "diag.h"
#include "driver.h"
#include "opt.h"
#include "schedule.h"
#include "testcmd.h"
#include "version.h"


static const char usage[] =
    "usage: parmc [options] FILE.parm [-o OUT]\n"
    "       parmc test [options] FILE.parm...\n"
    "       parmc bench [options] FILE.parm\n"
    "\n"
    "Compile a parm program of GPU array combinators.\n"
    "\n"
    "actions (at most one; the default compiles every entry):\n"
    "  --interpret          run the entry on the CPU reference interpreter,\n"
    "                       reading its input from stdin and writing the result\n"
    "  --check              check every entry (or the entry -e) as far as a\n"
    "                       compile goes, back-end limits included; no output\n"
    "  --report             per kernel of every entry (or the entry -e):\n"
    "                       elements moved, global passes, 32-byte sectors per\n"
    "                       warp access against the minimum, shared-memory bank\n"
    "                       congestion\n"
    "  --dump-ir[=STAGE]    print the IR of STAGE: specialised, normalised,\n"
    "                       rewritten or optimised (the default); `--dump-ir\n"
    "                       STAGE` also works\n"
    "  --dump-plan          print the back end's plan of every entry (or the\n"
    "                       entry -e): phases, buffers, tiles, swizzles,\n"
    "                       register rounds, permutation kernels\n"
    "  --dump-after PASS    stop after the pass PASS and print what it hands on:\n"
    "                       the IR after an IR pass, the plans after a planning\n"
    "                       pass (--dump-plan is --dump-after place-tables)\n"
    "  --passes             list the passes, in order, with the stage each hands\n"
    "                       on, and exit\n"
    "  --list-rules         list the rewrite rules, in the order they are tried:\n"
    "                       name, the op each is tried on, and exit\n"
    "  --random-input[=SEED]  print random input for the entry -e (default\n"
    "                       main), the same for the same SEED (default 1); for\n"
    "                       an entry over a size range SEED picks the size\n"
    "  test                 run the test cases in the files' `-- ==` blocks\n"
    "                       (parmc test --help)\n"
    "  bench                time the file's entries on random input\n"
    "                       (parmc bench --help)\n"
    "\n"
    "options (a value can follow as `--opt=V`, `--opt V`, `-xV` or `-x V`):\n"
    "  -e, --entry NAME     the entry to compile, run, check, report or dump\n"
    "                       (default: main; every entry for a compile, --check,\n"
    "                       --report and --dump-plan); a compile of one entry\n"
    "                       writes a header and manifest of that entry only\n"
    "  -I, --include DIR    look for imported files in DIR; repeatable, the\n"
    "                       directories are searched in order, then the stdlib\n"
    "  -o, --output OUT     the output file of a compile (default FILE.cu, or\n"
    "                       FILE.c with --target c); its API header OUT.h and\n"
    "                       manifest OUT.json (docs/manifest.md) are written\n"
    "                       beside it\n"
    "  --prefix NAME        the prefix of the API's names: NAME_ctx_create,\n"
    "                       NAME_ENTRY, NAME_OK, ... (default: the output's file\n"
    "                       name without its extension, '_' for characters that\n"
    "                       cannot be in a C identifier, p_ before a digit)\n"
    "  --target cuda|c      emit CUDA (the default) or portable C11 with the\n"
    "                       same API over host pointers; with --check and\n"
    "                       --dump-plan, that target's plans and limits\n"
    "  --gpus G             compile for G GPUs (a power of two up to 64; default\n"
    "                       1): each holds 1/G of the array, exchanges through\n"
    "                       NCCL (CUDA) or copies between the ranks' slices,\n"
    "                       simulated in one process (C); with --check and\n"
    "                       --dump-plan, the plans for G GPUs\n"
    "  --emit-main          add a main that runs the entry -e (default main)\n"
    "                       on values from stdin; `-r N` times N more runs\n"
    "  --stage STAGE        with --interpret: run the IR of STAGE (default\n"
    "                       specialised, the reference semantics)\n"
    "  --compare-stages     with --interpret: also run every later stage and\n"
    "                       fail unless all results are identical\n"
    "  --strict             with --report: exit 1 when some access is not\n"
    "                       minimal or not conflict-free\n"
    "  --special-floats     with --random-input: a quarter of the floats are\n"
    "                       NaN, infinities, -0, 0, subnormals or extremes\n"
    "  --trace-rules        print each rewrite rule as it is applied (stderr)\n"
    "  -h, --help           show this help and exit\n"
    "  --version            show the version and exit\n"
    "\n"
    "tuning options (how kernels are scheduled, not what they compute; with a\n"
    "compile, --check, --report or --dump-plan):\n"
    "  --tile-bytes B[K]    shared memory for one kernel's tile, in bytes (or\n"
    "                       KB with K), 16K to 227K (default: chosen per program,\n"
    "                       at most 64K); bigger tiles hold more stages, so\n"
    "                       sorts take fewer passes\n"
    "  --exchange-pieces N  with --gpus: cut every exchange between the GPUs into\n"
    "                       N pieces (a power of two up to 32), each packed,\n"
    "                       sent and unpacked while the next are (default:\n"
    "                       pieces of at least 2^20 elements per GPU, at most 4)\n"
    "  --segment-bytes B    the bytes of a plane that every warp access to\n"
    "                       global memory reads or writes whole, 32, 64 or 128\n"
    "                       (default); smaller segments leave more of a tile to\n"
    "                       the stages, so some programs take fewer passes\n"
    "  --vector-copies      kernels read and write their tiles in global memory\n"
    "                       in 16-byte vectors where the layout allows, for\n"
    "                       fields of any size (the default for 1 and 2 bytes)\n"
    "  --narrow-copies      kernels copy tiles of 1- and 2-byte fields one\n"
    "                       element a thread, not 16-byte vectors (to measure\n"
    "                       the vectors against; --report --strict fails)\n"
    "  --narrow-permutes    permutation kernels move one element a thread, not\n"
    "                       16-byte vectors (to measure the vectors against;\n"
    "                       --report --strict fails)\n"
    "  --register-bytes B   tile elements a kernel's thread holds in registers,\n"
    "                       in bytes: 128 (the default: 32 i32) or 256 (64 i32:\n"
    "                       fewer shared-memory rounds, half the threads)\n"
    "  --tile-buffers N     kernels of N shared tile buffers (2 or 3; default\n"
    "                       1): each block sorts several tiles and loads the\n"
    "                       next ones (cp.async) while it works on one\n"
    "  --cluster-blocks N   tiles of clusters of N blocks (1, 2, 4 or 8; sm_90),\n"
    "                       each tile N times a block's, held in the blocks'\n"
    "                       distributed shared memory (default 1)\n"
    "\n"
    "An option that the action does not use is a usage error, and so are two\n"
    "actions. exit status: 0 on success, 1 on an error in the program or its\n"
    "input, 2 on a usage error.\n";

enum {
    USE_COMPILE = 1 << ACTION_COMPILE,
    USE_CHECK = 1 << ACTION_CHECK,
    USE_INTERPRET = 1 << ACTION_INTERPRET,
    USE_DUMP = 1 << ACTION_DUMP_IR,
    USE_REPORT = 1 << ACTION_REPORT,
    USE_RANDOM = 1 << ACTION_RANDOM_INPUT,
    USE_PLAN = 1 << ACTION_DUMP_PLAN
};

typedef enum {
    OPT_ENTRY,
    OPT_INCLUDE,
    OPT_OUTPUT,
    OPT_PREFIX,
    OPT_TARGET,
    OPT_GPUS,
    OPT_EMIT_MAIN,
    OPT_STAGE,
    OPT_COMPARE,
    OPT_STRICT,
    OPT_TRACE,
    OPT_TILE_BYTES,
    OPT_EXCHANGE_PIECES,
    OPT_SEGMENT_BYTES,
    OPT_VECTOR_COPIES,
    OPT_NARROW_PERMUTES,
    OPT_NARROW_COPIES,
    OPT_REGISTER_BYTES,
    OPT_TILE_BUFFERS,
    OPT_CLUSTER_BLOCKS,
    OPT_INTERPRET,
    OPT_CHECK,
    OPT_REPORT,
    OPT_DUMP_IR,
    OPT_DUMP_PLAN,
    OPT_DUMP_AFTER,
    OPT_RANDOM,
    OPT_SPECIAL_FLOATS,
    OPT_HELP,
    OPT_VERSION,
    OPT_PASSES,
    OPT_LIST_RULES,
    OPT_COUNT
} OptId;

typedef struct {
    const char *name; /* long form */
    char letter;      /* short form, or 0 */
    enum { FLAG, VALUE, OPTIONAL } arg;
    unsigned used_by;  /* the actions that use the option (USE_*); 0 for actions */
    const char *where; /* for the error when the action does not use it */
} OptSpec;

static const OptSpec specs[OPT_COUNT] = {
    [OPT_ENTRY] = {"entry", 'e', VALUE,
                   USE_COMPILE | USE_CHECK | USE_INTERPRET | USE_DUMP | USE_REPORT | USE_RANDOM |
                       USE_PLAN,
                   ""},
    [OPT_INCLUDE] = {"include", 'I', VALUE, ~0u, ""},
    [OPT_OUTPUT] = {"output", 'o', VALUE, USE_COMPILE, "a compile"},
    [OPT_PREFIX] = {"prefix", 0, VALUE, USE_COMPILE | USE_CHECK, "a compile or --check"},
    [OPT_TARGET] = {"target", 0, VALUE, USE_COMPILE | USE_CHECK | USE_PLAN,
                    "a compile, --check or --dump-plan"},
    [OPT_GPUS] = {"gpus", 0, VALUE, USE_COMPILE | USE_CHECK | USE_PLAN,
                  "a compile, --check or --dump-plan"},
    [OPT_EMIT_MAIN] = {"emit-main", 0, FLAG, USE_COMPILE, "a compile"},
    [OPT_STAGE] = {"stage", 0, VALUE, USE_INTERPRET, "--interpret"},
    [OPT_COMPARE] = {"compare-stages", 0, FLAG, USE_INTERPRET, "--interpret"},
    [OPT_STRICT] = {"strict", 0, FLAG, USE_REPORT, "--report"},
    [OPT_TRACE] =
        {"trace-rules", 0, FLAG,
         USE_COMPILE | USE_CHECK | USE_INTERPRET | USE_DUMP | USE_REPORT | USE_PLAN,
         "an action that optimises (a compile, --check, --report, --dump-ir, --dump-plan, "
         "--interpret)"},
    [OPT_TILE_BYTES] = {"tile-bytes", 0, VALUE, USE_COMPILE | USE_CHECK | USE_REPORT | USE_PLAN,
                        "an action that schedules (a compile, --check, --report, --dump-plan)"},
    [OPT_EXCHANGE_PIECES] = {"exchange-pieces", 0, VALUE, USE_COMPILE | USE_CHECK | USE_PLAN,
                             "a compile, --check or --dump-plan"},
    [OPT_SEGMENT_BYTES] = {"segment-bytes", 0, VALUE,
                           USE_COMPILE | USE_CHECK | USE_REPORT | USE_PLAN,
                           "an action that schedules (a compile, --check, --report, --dump-plan)"},
    [OPT_VECTOR_COPIES] = {"vector-copies", 0, FLAG,
                           USE_COMPILE | USE_CHECK | USE_REPORT | USE_PLAN,
                           "an action that schedules (a compile, --check, --report, --dump-plan)"},
    [OPT_NARROW_PERMUTES] =
        {"narrow-permutes", 0, FLAG, USE_COMPILE | USE_CHECK | USE_REPORT | USE_PLAN,
         "an action that schedules (a compile, --check, --report, --dump-plan)"},
    [OPT_NARROW_COPIES] = {"narrow-copies", 0, FLAG,
                           USE_COMPILE | USE_CHECK | USE_REPORT | USE_PLAN,
                           "an action that schedules (a compile, --check, --report, --dump-plan)"},
    [OPT_REGISTER_BYTES] = {"register-bytes", 0, VALUE,
                            USE_COMPILE | USE_CHECK | USE_REPORT | USE_PLAN,
                            "an action that schedules (a compile, --check, --report, --dump-plan)"},
    [OPT_TILE_BUFFERS] = {"tile-buffers", 0, VALUE, USE_COMPILE | USE_CHECK | USE_REPORT | USE_PLAN,
                          "an action that schedules (a compile, --check, --report, --dump-plan)"},
    [OPT_CLUSTER_BLOCKS] = {"cluster-blocks", 0, VALUE,
                            USE_COMPILE | USE_CHECK | USE_REPORT | USE_PLAN,
                            "an action that schedules (a compile, --check, --report, --dump-plan)"},
    [OPT_INTERPRET] = {"interpret", 0, FLAG, 0, NULL},
    [OPT_CHECK] = {"check", 0, FLAG, 0, NULL},
    [OPT_REPORT] = {"report", 0, FLAG, 0, NULL},
    [OPT_DUMP_IR] = {"dump-ir", 0, OPTIONAL, 0, NULL},
    [OPT_DUMP_PLAN] = {"dump-plan", 0, FLAG, 0, NULL},
    [OPT_DUMP_AFTER] = {"dump-after", 0, VALUE, 0, NULL},
    [OPT_RANDOM] = {"random-input", 0, OPTIONAL, 0, NULL},
    [OPT_SPECIAL_FLOATS] = {"special-floats", 0, FLAG, USE_RANDOM, "--random-input"},
    [OPT_HELP] = {"help", 'h', FLAG, ~0u, ""},
    [OPT_VERSION] = {"version", 0, FLAG, ~0u, ""},
    [OPT_PASSES] = {"passes", 0, FLAG, ~0u, ""},
    [OPT_LIST_RULES] = {"list-rules", 0, FLAG, ~0u, ""},
};

static int usage_error(const char *fmt, const char *a, const char *b)
    __attribute__((format(printf, 1, 0)));
static int usage_error(const char *fmt, const char *a, const char *b) {
    fprintf(stderr, "parmc: error: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n(run 'parmc --help' for usage)\n");
    return 2;
}

/* The name in the pass table's column `made` (a stage) or `name` (a pass)
 * of stage s. */
static const char *pass_field(Stage s, bool stage) {
    return stage ? driver_passes[s].made : driver_passes[s].name;
}

/* A usage error for `typed`, not a stage (a pass) from `first` to `last`:
 * the closest name when it is a likely typo, else the names there are. */
static int unknown_pass(const char *what, const char *typed, Stage first, Stage last, bool stage) {
    const char *best = NULL;
    int best_distance = 0;
    for (Stage s = first; s <= last; s++) {
        const char *name = pass_field(s, stage);
        if (!diag_similar(typed, name)) continue;
        int d = diag_edit_distance(typed, name, 64);
        if (!best || d < best_distance) best = name, best_distance = d;
    }
    fprintf(stderr, "parmc: error: unknown %s '%s'", what, typed);
    if (best) {
        fprintf(stderr, "; did you mean '%s'?", best);
    } else {
        fprintf(stderr, " (");
        for (Stage s = first; s <= last; s++)
            fprintf(stderr, "%s%s",
                    s == first  ? ""
                    : s == last ? " or "
                                : ", ",
                    pass_field(s, stage));
        fprintf(stderr, ")");
    }
    fprintf(stderr, "\n(run 'parmc --passes' for the passes and their stages)\n");
    return 2;
}

/* --stage, --dump-ir: an IR stage. */
static int parse_stage(const char *name, Stage *out) {
    for (Stage s = 0; s <= STAGE_LAST_IR; s++)
        if (strcmp(name, driver_passes[s].made) == 0) {
            *out = s;
            return 0;
        }
    return unknown_pass("IR stage", name, 0, STAGE_LAST_IR, true);
}

static bool is_stage(const char *name) {
    for (Stage s = 0; s <= STAGE_LAST_IR; s++)
        if (strcmp(name, driver_passes[s].made) == 0) return true;
    return false;
}

/* --dump-after PASS: the stage PASS makes, dumped as IR or as plans. */
static int parse_dump_after(const char *name, Options *opt) {
    for (Stage s = 0; s < STAGE_COUNT; s++) {
        if (strcmp(name, driver_passes[s].made) == 0 && strcmp(name, driver_passes[s].name) != 0) {
            fprintf(
                stderr,
                "parmc: error: --dump-after takes a pass; '%s' is the stage that pass '%s' hands "
                "on\n"
                "(run 'parmc --passes' for the passes and their stages)\n",
                name, driver_passes[s].name);
            return 2;
        }
        if (strcmp(name, driver_passes[s].name) == 0) {
            opt->stage = s;
            return 0;
        }
    }
    return unknown_pass("pass", name, 0, STAGE_COUNT - 1, false);
}

/* --passes: the driver's table, in order. */
static void print_passes(void) {
    printf("%-14s%-13s%-15s%s\n", "PASS", "HANDS ON", "MODULE", "WHAT IT DOES");
    for (Stage s = 0; s < STAGE_COUNT; s++) {
        const Pass *p = &driver_passes[s];
        printf("%-14s%-13s%-15s%s\n", p->name, p->made, p->module, p->what);
    }
}

/* An unknown long option: the usage error, with the closest option's name
 * when it is a likely typo ("--tile-byte" -> "--tile-bytes"). */
static int unknown_option(const char *a) {
    const char *eq = strchr(a, '=');
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    char typed[64];
    const char *best = NULL;
    if (a[1] == '-' && len - 2 < sizeof typed) {
        memcpy(typed, a + 2, len - 2);
        typed[len - 2] = 0;
        int best_distance = 0;
        for (int k = 0; k < OPT_COUNT; k++) {
            if (!diag_similar(typed, specs[k].name)) continue;
            int d = diag_edit_distance(typed, specs[k].name, (int)sizeof typed);
            if (!best || d < best_distance) best = specs[k].name, best_distance = d;
        }
    }
    if (best) return usage_error("unknown option '%s'; did you mean '--%s'?", a, best);
    return usage_error("unknown option '%s'%s", a, "");
}

static bool is_number(const char *s) { return *s && strspn(s, "0123456789") == strlen(s); }

/* The command line as parsed: which options were given (by their spelling,
 * for messages) and the action's spelling. */
typedef struct {
    const char *given[OPT_COUNT];
    const char *action;
} Seen;

/* Recognises argv[*i] as an option: its id, and its value (consuming the next
 * argument where the value is separate). Returns 0 or a usage exit code. */
static int match_option(int argc, char **argv, int *i, OptId *id, const char **value) {
    const char *a = argv[*i];
    const char *inline_value = NULL;
    int found = -1;
    if (a[1] == '-') {
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        for (int k = 0; k < OPT_COUNT && found < 0; k++)
            if (strlen(specs[k].name) == len && !strncmp(a + 2, specs[k].name, len)) found = k;
        if (eq) inline_value = eq + 1;
    } else {
        for (int k = 0; k < OPT_COUNT && found < 0; k++)
            if (specs[k].letter && specs[k].letter == a[1]) found = k;
        if (found >= 0 && a[2]) inline_value = a + 2;
    }
    if (found < 0) return unknown_option(a);
    *id = (OptId)found;
    const OptSpec *s = &specs[found];
    if (s->arg == FLAG && inline_value) return usage_error("option '%s' takes no value%s", a, "");
    *value = inline_value;
    if (s->arg == VALUE && !inline_value) {
        if (*i + 1 >= argc) return usage_error("option '%s' needs a value%s", a, "");
        *value = argv[++*i];
    }
    /* `--dump-ir STAGE`, `--random-input SEED`: the optional value may follow
       as its own argument */
    if (!inline_value && *i + 1 < argc &&
        ((found == OPT_DUMP_IR && is_stage(argv[*i + 1])) ||
         (found == OPT_RANDOM && is_number(argv[*i + 1]))))
        *value = argv[++*i];
    return 0;
}

/* --tile-bytes: B or BK (KB), within the scheduler's range. */
static int parse_tile_bytes(const char *value, int *out) {
    size_t digits = strspn(value, "0123456789");
    bool kb = value[digits] == 'K' || value[digits] == 'k';
    long bytes = digits && digits <= 7 && value[digits + kb] == 0
                     ? strtol(value, NULL, 10) * (kb ? 1024 : 1)
                     : -1;
    if (bytes < SCHED_MIN_TILE_BYTES || bytes > SCHED_MAX_TILE_BYTES)
        return usage_error("--tile-bytes '%s': expected bytes (or KB with K) from 16K to 227K%s",
                           value, "");
    *out = (int)bytes;
    return 0;
}

static int set_action(Options *opt, Seen *seen, Action action, const char *spelling) {
    if (seen->action && (opt->action != action || strcmp(seen->action, spelling) != 0))
        return usage_error("'%s' and '%s' cannot be combined (each selects what parmc does)",
                           seen->action, spelling);
    seen->action = spelling;
    opt->action = action;
    return 0;
}

/* Applies option id with its value to opt. Returns 0 or a usage exit code. */
static int apply_option(OptId id, const char *a, const char *value, Options *opt, Seen *seen,
                        const char **dirs) {
    seen->given[id] = a;
    switch (id) {
    case OPT_ENTRY: opt->entry = value; return 0;
    case OPT_INCLUDE: dirs[opt->import_path.ndirs++] = value; return 0;
    case OPT_OUTPUT: opt->output = value; return 0;
    case OPT_PREFIX:
        if (driver_prefix_problem(value))
            return usage_error("prefix '%s' %s", value, driver_prefix_problem(value));
        opt->prefix = value;
        return 0;
    case OPT_TARGET:
        if (strcmp(value, "c") && strcmp(value, "cuda"))
            return usage_error("unknown target '%s' (cuda or c)%s", value, "");
        opt->target_c = !strcmp(value, "c");
        return 0;
    case OPT_GPUS: {
        char *end;
        unsigned long g = is_number(value) ? strtoul(value, &end, 10) : 0;
        if (g < 1 || g > 64 || (g & (g - 1)))
            return usage_error("--gpus takes a power of two from 1 to 64, not '%s'%s", value, "");
        opt->gpu_log = __builtin_ctzl(g);
        return 0;
    }
    case OPT_EMIT_MAIN: opt->emit_main = true; return 0;
    case OPT_STAGE: return parse_stage(value, &opt->stage);
    case OPT_COMPARE: opt->compare_stages = true; return 0;
    case OPT_STRICT: opt->strict = true; return 0;
    case OPT_TRACE: opt->trace_rules = true; return 0;
    case OPT_TILE_BYTES: return parse_tile_bytes(value, &opt->tile_bytes);
    case OPT_SEGMENT_BYTES:
        if (strcmp(value, "32") && strcmp(value, "64") && strcmp(value, "128"))
            return usage_error("--segment-bytes '%s': expected 32, 64 or 128%s", value, "");
        opt->segment_bytes = atoi(value);
        return 0;
    case OPT_VECTOR_COPIES: opt->vector_copies = true; return 0;
    case OPT_NARROW_PERMUTES: opt->narrow_permutes = true; return 0;
    case OPT_NARROW_COPIES: opt->narrow_copies = true; return 0;
    case OPT_EXCHANGE_PIECES: {
        unsigned long pieces = is_number(value) ? strtoul(value, NULL, 10) : 0;
        if (pieces < 1 || pieces > 1u << EXCHANGE_MAX_PIECE_LOG || (pieces & (pieces - 1)))
            return usage_error("--exchange-pieces takes a power of two from 1 to 32, not '%s'%s",
                               value, "");
        opt->exchange_pieces = (int)pieces;
        return 0;
    }
    case OPT_REGISTER_BYTES:
        if (strcmp(value, "128") && strcmp(value, "256"))
            return usage_error("--register-bytes takes 128 or 256, not '%s'%s", value, "");
        opt->register_bytes = atoi(value);
        return 0;
    case OPT_TILE_BUFFERS:
        if (strcmp(value, "1") && strcmp(value, "2") && strcmp(value, "3"))
            return usage_error("--tile-buffers takes 1, 2 or 3, not '%s'%s", value, "");
        opt->tile_buffers = value[0] - '0';
        return 0;
    case OPT_CLUSTER_BLOCKS:
        if (strcmp(value, "1") && strcmp(value, "2") && strcmp(value, "4") && strcmp(value, "8"))
            return usage_error("--cluster-blocks takes 1, 2, 4 or 8, not '%s'%s", value, "");
        opt->cluster_log = __builtin_ctz((unsigned)atoi(value));
        return 0;
    case OPT_INTERPRET: return set_action(opt, seen, ACTION_INTERPRET, "--interpret");
    case OPT_CHECK: return set_action(opt, seen, ACTION_CHECK, "--check");
    case OPT_REPORT: return set_action(opt, seen, ACTION_REPORT, "--report");
    case OPT_DUMP_PLAN:
        opt->stage = STAGE_COUNT - 1;
        return set_action(opt, seen, ACTION_DUMP_PLAN, "--dump-plan");
    case OPT_DUMP_AFTER: {
        int status = parse_dump_after(value, opt);
        if (status) return status;
        return set_action(opt, seen,
                          opt->stage <= STAGE_LAST_IR ? ACTION_DUMP_IR : ACTION_DUMP_PLAN,
                          "--dump-after");
    }
    case OPT_DUMP_IR: {
        int status = set_action(opt, seen, ACTION_DUMP_IR, "--dump-ir");
        return status ? status : parse_stage(value ? value : "optimised", &opt->stage);
    }
    case OPT_RANDOM: {
        int status = set_action(opt, seen, ACTION_RANDOM_INPUT, "--random-input");
        errno = 0;
        opt->seed = value ? strtoull(value, NULL, 10) : 1;
        /* digits alone (strtoull takes a sign and wraps), within 64 bits */
        if (value && (!is_number(value) || errno == ERANGE))
            return usage_error("'%s' is not a seed (an integer from 0 to 2^64 - 1)%s", value, "");
        return status;
    }
    case OPT_SPECIAL_FLOATS: opt->special_floats = true; return 0;
    case OPT_HELP:
    case OPT_VERSION:
    case OPT_PASSES:
    case OPT_LIST_RULES:
    case OPT_COUNT: break;
    }
    return 0;
}

/* Every option given must be one the action uses. */
static int check_used(const Options *opt, const Seen *seen) {
    const char *action = seen->action ? seen->action : "a compile";
    for (int k = 0; k < OPT_COUNT; k++) {
        if (!seen->given[k] || !specs[k].used_by || (specs[k].used_by >> opt->action & 1)) continue;
        fprintf(stderr,
                "parmc: error: option '%s' has no effect with %s; it applies to %s\n"
                "(run 'parmc --help' for usage)\n",
                seen->given[k], action, specs[k].where);
        return 2;
    }
    if (seen->given[OPT_EXCHANGE_PIECES] && !opt->gpu_log) {
        fprintf(stderr,
                "parmc: error: option '%s' has no effect on one GPU; it applies to --gpus 2 and "
                "more\n(run 'parmc --help' for usage)\n",
                seen->given[OPT_EXCHANGE_PIECES]);
        return 2;
    }
    /* the rewrite rules run only in the pass that makes the rewritten IR */
    bool optimises = opt->action == ACTION_COMPILE || opt->action == ACTION_REPORT ||
                     opt->compare_stages || opt->stage >= STAGE_REWRITTEN;
    if (seen->given[OPT_TRACE] && !optimises)
        fprintf(
            stderr,
            "parmc: warning: --trace-rules prints nothing here: %s stops before the rewritten IR\n",
            action);
    return -1;
}

/* Sets *opt from the command line; the -I directories go to dirs, which has
 * room for one per argument. Returns -1 when the compiler should run, else
 * the exit code. */
static int parse_args(int argc, char **argv, Options *opt, const char **dirs) {
    Seen seen = {{0}, NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == 0) {
            if (opt->input)
                return usage_error("more than one input file ('%s' and '%s')", opt->input, a);
            opt->input = a;
            continue;
        }
        OptId id;
        const char *value = NULL;
        int status = match_option(argc, argv, &i, &id, &value);
        if (status) return status;
        if (id == OPT_HELP) {
            fputs(usage, stdout);
            return 0;
        }
        if (id == OPT_VERSION) {
            printf("parmc %s\n", PARMC_VERSION);
            return 0;
        }
        if (id == OPT_PASSES) {
            print_passes();
            return 0;
        }
        if (id == OPT_LIST_RULES) {
            opt_list_rules(stdout);
            return 0;
        }
        status = apply_option(id, a, value, opt, &seen, dirs);
        if (status) return status;
    }
    if (!opt->input) return usage_error("no input file%s%s", "", "");
    /* --check goes as far as a compile, short of writing (driver.c) */
    if (opt->action == ACTION_CHECK) opt->stage = STAGE_COUNT - 1;
    return check_used(opt, &seen);
}

/* The exit status once everything is printed: what stdout could not take
 * (a full disk, a closed pipe) is an error, or a script would take a cut
 * result for a whole one. */
static int output_done(int status) {
    if (fflush(stdout) == 0 && !ferror(stdout)) return status;
    fprintf(stderr, "parmc: error: cannot write standard output: %s\n", strerror(errno));
    return status ? status : 1;
}

static int run(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "test")) return test_main(argc - 1, argv + 1, argv[0]);
    if (argc > 1 && !strcmp(argv[1], "bench")) return bench_main(argc - 1, argv + 1, argv[0]);
    const char **dirs = malloc(sizeof *dirs * (size_t)argc);
    if (!dirs) return 1;
    /* argv[0] locates the stdlib (imports.c) */
    Options opt = {.action = ACTION_COMPILE, .import_path = {.dirs = dirs, .exe = argv[0]}};
    int status = parse_args(argc, argv, &opt, dirs);
    if (status < 0) status = driver_run(&opt);
    free(dirs);
    return status;
}

int main(int argc, char **argv) { return output_done(run(argc, argv)); }
