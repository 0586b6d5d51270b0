/* driver.c: the pipeline, stage by stage. Every stage reports errors through
 * diag, which longjmps back here; the arena is then freed in one place. */
#include "driver.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parse.h"
#include "imports.h"
#include "io.h"
#include "ir.h"
#include "emit.h"
#include "manifest.h"
#include "names.h"
#include "opt.h"
#include "entry_plan.h"
#include "schedule.h"
#include "table_place.h"
#include "randinput.h"
#include "plan_print.h"
#include "simulate.h"
#include "specialise.h"

/* The plans of every specialisation compiled, and the sizes refused. */
typedef struct {
    EntryPlan *plans;
    int nplans;
    RefusedSize *refused;
    int nrefused;
} Schedules;

struct Compilation {
    Arena arena;
    char *input;             /* owned: interpreter input */
    Buf **inputs, **results; /* owned: interpreter buffers, NULL-terminated */
    Program program;
    const char *entry; /* the entry specialised; NULL = every entry */
    IrProgram ir;
    Schedules plans;        /* from the planning passes */
    SchedOptions sched;     /* for the back end: --tile-bytes, --vector-copies, --register-bytes */
    bool target_c;          /* --target c: host memory, no GPU's limit to warn of */
    FILE *writing;          /* an output file being written */
    const char *written[3]; /* the output files begun: all removed if an error stops one */
    int nwritten;
};

/* Source text in memory, for driver_run_source. */
typedef struct {
    const char *name, *text;
    size_t len;
} MemSource;

static void free_bufs(Buf **bufs) {
    if (!bufs) return;
    for (int i = 0; bufs[i]; i++) buf_free(bufs[i]);
    free(bufs);
}

/* NAME.cu -> NAME.h, NAME.json: the file beside the output with extension ext */
static char *beside(Arena *a, const char *output, const char *ext) {
    const char *slash = strrchr(output, '/');
    const char *dot = strrchr(output, '.');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - output) : strlen(output);
    return arena_printf(a, "%.*s%s", (int)stem, output, ext);
}

/* Whether name has only the characters of a C identifier. */
static bool c_identifier(const char *name) {
    for (const char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_') return false;
    return true;
}

const char *driver_prefix_problem(const char *prefix) {
    if (!*prefix || isdigit((unsigned char)*prefix))
        return "is not a C identifier (it must start with a letter or '_')";
    if (!c_identifier(prefix)) return "is not a C identifier (letters, digits and '_')";
    if (emit_prefix_reserved(prefix))
        return "is reserved: the emitted code's own names start with parm_ and PARM_";
    if (*prefix == '_' || strstr(prefix, "__"))
        return "is reserved in C and C++ (a name that starts with '_' or holds '__')";
    return NULL;
}

/* The API prefix of output path OUT: its file name without the extension
 * (the header's name without .h), with every run of characters that cannot
 * be in a C identifier, and of '_', made one '_', and "p_" in front of one
 * that starts with a digit or is reserved ("p" in front of a leading '_';
 * "p" for an empty name). */
static const char *default_prefix(Arena *a, const char *output) {
    const char *slash = strrchr(output, '/');
    const char *base = slash ? slash + 1 : output;
    const char *dot = strrchr(base, '.');
    size_t len = dot ? (size_t)(dot - base) : strlen(base);
    char *name = arena_printf(a, "%.*s", (int)len, base), *to = name;
    for (const char *c = name; *c; c++) {
        char k = isalnum((unsigned char)*c) ? *c : '_';
        if (k != '_' || to == name || to[-1] != '_') *to++ = k;
    }
    *to = 0;
    if (!*name || !strcmp(name, "_")) return "p";
    if (!driver_prefix_problem(name)) return name;
    return arena_printf(a, "%s%s", *name == '_' ? "p" : "p_", name);
}

/* An entry whose exported name would be one of the API's own or no C
 * identifier, or whose code's names would be another entry's (a ranged
 * entry's specialisation NAME_n and an entry called NAME_n): the code's
 * names in a table, so that 100,000 entries take linear time. */
static void check_entry_names(Arena *arena, const EntryPlan *plans, int n, const char *prefix) {
    NameTable code = {0};
    for (int i = 0; i < n; i++) {
        const IrFunc *f = plans[i].func;
        if (!c_identifier(f->entry))
            diag_error(f->loc,
                       "entry '%s' would be exported as %s_%s, which is not a C identifier "
                       "(letters, digits and '_'); rename the entry",
                       f->entry, prefix, f->entry);
        if (emit_api_name_taken(prefix, f->entry))
            diag_error(
                f->loc,
                "entry '%s' would be exported as %s_%s, a name of the API's own (docs/api.md); "
                "rename the entry",
                f->entry, prefix, f->entry);
        const EntryPlan *other = name_find(&code, f->name);
        if (!other) name_add(arena, &code, f->name, (void *)&plans[i]);
        if (other && strcmp(other->func->entry, f->entry) != 0) {
            const IrFunc *g = other->func, *ranged = f->size_param >= 0 ? f : g;
            diag_error(f == ranged ? g->loc : f->loc,
                       "entry '%s' has the name that the code of the ranged entry '%s' takes "
                       "for one of its sizes (%s, docs/language.md 7); rename one of them",
                       (f == ranged ? g : f)->entry, ranged->entry, f->name);
        }
    }
}

/* Whether paths a and b name one file: the same text, or the same file on
 * disk. */
static bool same_file(const char *a, const char *b) {
    if (strcmp(a, b) == 0) return true;
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* A compile writes the output, its header and its manifest: none may be
 * the input or another of them (a program written over its own source). */
static void check_outputs(const char *input, const char *const *paths, const char *const *what,
                          int n) {
    for (int i = 0; i < n; i++) {
        if (same_file(paths[i], input))
            diag_fatal("the %s '%s' would be written over the input '%s'; give -o another "
                       "name",
                       what[i], paths[i], input);
        for (int j = 0; j < i; j++)
            if (same_file(paths[i], paths[j]))
                diag_fatal("the %s and the %s would both be '%s'; give -o a name with an "
                           "extension such as .cu or .c",
                           what[j], what[i], paths[i]);
    }
}

/* What a compile writes: the program, its header and its manifest. */
typedef struct {
    const EmitInput *emit;
    bool target_c;
    const ManifestInput *manifest;
} Outputs;

static void write_file(Compilation *c, const char *path, void (*write)(FILE *, const Outputs *),
                       const Outputs *o) {
    if (c->nwritten == (int)(sizeof c->written / sizeof c->written[0]))
        diag_fatal("internal error: too many output files");
    FILE *f = fopen(path, "w");
    if (!f) diag_fatal("cannot write '%s': %s", path, strerror(errno));
    c->writing = f;
    c->written[c->nwritten++] = path;
    write(f, o);
    c->writing = NULL;
    if (fclose(f) != 0) diag_fatal("cannot write '%s': %s", path, strerror(errno));
}

static void write_program(FILE *f, const Outputs *o) {
    emit_program(f, o->emit, o->target_c ? &target_c : &target_cuda);
}

static void write_header(FILE *f, const Outputs *o) {
    emit_header(f, o->emit, o->target_c ? &target_c : &target_cuda);
}

static void write_manifest(FILE *f, const Outputs *o) { manifest_write(f, o->manifest); }

/* The size range of entry `entry` (`(n : 0..3)`). */
static const EntryParam *size_range(const Program *p, const char *entry) {
    for (int i = 0; i < p->entries.len; i++) {
        const Entry *e = p->entries.items[i];
        if (strcmp(e->name, entry) != 0) continue;
        for (int j = 0; j < e->params.len; j++) {
            const EntryParam *param = e->params.items[j];
            if (!param->type) return param;
        }
    }
    return NULL;
}

/* Whether values a and b (of two sizes of an entry) take the same planes:
 * both scalars, or both arrays, of one element type. */
static bool same_planes(const IrVal *a, const IrVal *b) {
    return ir_is_scalar(a) == ir_is_scalar(b) && elem_equal(a->elem, b->elem);
}

/* The API has one function per entry, with a pointer per field of each
 * array (docs/api.md): a size of a ranged entry whose parameters or results
 * have other element types than the entry's first size cannot share it. */
static const char *signature_refusal(Compilation *c, const IrFunc *f) {
    const IrFunc *first = NULL;
    for (int i = 0; i < c->ir.nfuncs && !first; i++)
        if (strcmp(c->ir.funcs[i]->entry, f->entry) == 0) first = c->ir.funcs[i];
    const IrBody *a = first->body, *b = f->body;
    bool same = a->nparams == b->nparams && a->nresults == b->nresults;
    for (int i = 0; same && i < a->nparams; i++) same = same_planes(a->params[i], b->params[i]);
    for (int i = 0; same && i < a->nresults; i++) same = same_planes(a->results[i], b->results[i]);
    if (same) return NULL;
    return arena_printf(&c->arena,
                        "its element types differ from those at %s = %d, which the entry's one API "
                        "function takes",
                        size_range(&c->program, f->entry)->name, first->size_param);
}

/* Why the back end leaves size f of a ranged entry out; NULL: it does not. */
static const char *size_refusal(Compilation *c, const IrFunc *f) {
    Loc where;
    const char *why = entry_plan_refusal(&c->arena, f, &c->sched, &where);
    return why ? why : signature_refusal(c, f);
}

static bool some_size_compiles(Compilation *c, const IrFunc *f) {
    for (int i = 0; i < c->ir.nfuncs; i++) {
        const IrFunc *g = c->ir.funcs[i];
        if (g != f && strcmp(g->entry, f->entry) == 0 && !size_refusal(c, g)) return true;
    }
    return false;
}

/* A GPU with more memory than this is not made yet (the largest have 192 to
 * 288 GB); an entry that needs more per GPU cannot run anywhere, and a
 * compile says so rather than emit it without a word. */
#define GPU_MEMORY_WARN_LOG 38 /* 2^38 bytes = 256 GiB */

/* The bytes that one call of the plan's entry needs in GPU memory: its
 * array parameters and results, and the scratch of the plan. */
static unsigned long long entry_bytes(const EntryPlan *e) {
    const IrBody *b = e->func->body;
    unsigned long long bytes = e->chain_off + e->chain_bytes;
    for (int i = 0; i < b->nparams + b->nresults; i++) {
        const IrVal *v = i < b->nparams ? b->params[i] : b->results[i - b->nparams];
        if (v->log_len >= 0)
            bytes += (1ULL << v->log_len) * (unsigned long long)elem_bytes(v->elem);
    }
    return bytes;
}

/* The warning for an entry too large for any GPU; of a ranged entry, the
 * first size that is (the sizes are planned in increasing order). */
static void check_memory(Compilation *c, const EntryPlan *plans, int n) {
    const EntryPlan *e = &plans[n];
    int gpu_log = c->sched.gpu_log;
    unsigned long long bytes = entry_bytes(e) >> gpu_log, limit = 1ULL << GPU_MEMORY_WARN_LOG;
    if (c->target_c || bytes <= limit) return;
    if (n > 0 && strcmp(plans[n - 1].func->entry, e->func->entry) == 0 &&
        entry_bytes(&plans[n - 1]) >> gpu_log > limit)
        return;
    const EntryParam *range = e->func->size_param >= 0 ? size_range(&c->program, e->func->entry)
                                                       : NULL;
    const char *size = range ? arena_printf(&c->arena, " for %s = %d", range->name,
                                            e->func->size_param)
                             : "";
    diag_warning(e->func->loc,
                 "entry '%s'%s needs %llu bytes (%.0f GiB) of GPU memory%s for its arrays and "
                 "scratch, more than any GPU has (this warning starts above 2^%d bytes, 256 GiB)",
                 e->func->entry, size, bytes, (double)bytes / (1024.0 * 1024.0 * 1024.0),
                 gpu_log ? " per GPU" : "", GPU_MEMORY_WARN_LOG);
}

/* The pass "schedule": plans every specialisation. A size of a ranged
 * entry that the back end refuses whole (fewer elements than --gpus) is
 * left out with a warning when another size compiles, and recorded in
 * refused: the emitted function returns NAME_ERROR_LENGTH for the lengths
 * that fall on it. */
static void schedule_pass(Compilation *c, const Options *opt) {
    (void)opt;
    Schedules *s = &c->plans;
    *s = (Schedules){NEW_ARRAY(&c->arena, EntryPlan, c->ir.nfuncs + 1), 0,
                     NEW_ARRAY(&c->arena, RefusedSize, c->ir.nfuncs + 1), 0};
    EntryPlan *out = s->plans;
    int n = 0;
    for (int i = 0; i < c->ir.nfuncs; i++) {
        const IrFunc *f = c->ir.funcs[i];
        const char *refusal = f->size_param >= 0 ? size_refusal(c, f) : NULL;
        const EntryParam *range = refusal ? size_range(&c->program, f->entry) : NULL;
        if (range && some_size_compiles(c, f)) {
            diag_warning(range->loc,
                         "entry '%s' is not compiled for %s = %d (%s); it returns the "
                         "ERROR_LENGTH status for that length",
                         f->entry, range->name, f->size_param, refusal);
            s->refused[s->nrefused++] = (RefusedSize){f, refusal, entry_plan_api_n(f), n};
            continue;
        }
        entry_plan(&c->arena, f, &c->sched, &out[n]);
        /* the API dispatches on n, the first array's length (an entry of
         * any length on the shape); the sizes of an entry are specialised
         * one after another */
        for (int j = n - 1; f->pad_param < 0 && j >= 0 && strcmp(out[j].func->entry, f->entry) == 0;
             j--)
            if (out[j].n == out[n].n)
                diag_error(
                    f->loc,
                    "the back end tells the sizes of a ranged entry apart by the length of its "
                    "first "
                    "array, which is 2^%d for two of the sizes of '%s'",
                    out[n].n, f->entry);
        check_memory(c, out, n);
        n++;
    }
    s->nplans = n;
}

/* The pass "place-tables": the program's tables in constant memory stay
 * within its budget (table_place.h). */
static void place_tables_pass(Compilation *c, const Options *opt) {
    (void)opt;
    table_place_budget(&c->arena, c->plans.plans, c->plans.nplans);
}

static void specialise_pass(Compilation *c, const Options *opt) {
    specialise_program(&c->arena, &c->program, c->entry, &opt->import_path, &c->ir);
}

static void normalise_pass(Compilation *c, const Options *opt) {
    (void)opt;
    opt_normalise(&c->ir);
}

static void rewrite_pass(Compilation *c, const Options *opt) {
    opt_optimise(&c->ir, opt->trace_rules ? stderr : NULL);
}

static void tabulate_pass(Compilation *c, const Options *opt) {
    (void)opt;
    opt_tabulate(&c->ir);
}

/* The verifiers run in the sanitizer and fuzzer builds (PARMC_VERIFY, the
 * Makefile's SANFLAGS and FUZZFLAGS) after every pass, on what the pass
 * hands on, and name the pass that broke it; tests/unit/test_driver_verifies.c
 * proves that they run. */
static void verify_ir(Compilation *c, const Pass *pass) {
#ifdef PARMC_VERIFY
    ir_verify_program(&c->ir, pass->made);
#else
    (void)c, (void)pass;
#endif
}

static void verify_plans(Compilation *c, const Pass *pass) {
#ifdef PARMC_VERIFY
    for (int i = 0; i < c->plans.nplans; i++) {
        const char *why = plan_verify_entry(&c->arena, &c->plans.plans[i]);
        if (why)
            diag_fatal("internal error: the plan of '%s' after %s: %s",
                       c->plans.plans[i].func->name, pass->name, why);
    }
#else
    (void)c, (void)pass;
#endif
}

static void dump_ir(FILE *out, const Compilation *c) { ir_print_program(out, &c->ir); }

static void dump_plans(FILE *out, const Compilation *c) {
    for (int i = 0; i < c->plans.nplans; i++) plan_print_entry(out, &c->plans.plans[i]);
}

/* The middle and back end, in order: one pass per Stage, which names what
 * the pass hands on. A pass reads what the one before it made; the IR
 * passes hand on the IR (ir.h), the planning passes the plans (plan.h).
 * docs/internals.md ("Passes") says how to add one. */
const Pass driver_passes[STAGE_COUNT] = {
    [STAGE_SPECIALISED] = {"specialise", "specialised", "specialise",
                           "static evaluation of the AST into the IR", specialise_pass, verify_ir,
                           dump_ir},
    [STAGE_NORMALISED] = {"normalise", "normalised", "opt_normalise",
                          "parm and col into bmmc, two and bmmc", normalise_pass, verify_ir,
                          dump_ir},
    [STAGE_REWRITTEN] = {"rewrite", "rewritten", "opt_rules", "the rewrite rules, to a fixed point",
                         rewrite_pass, verify_ir, dump_ir},
    [STAGE_OPTIMISED] = {"tabulate", "optimised", "opt_tables",
                         "position-only subexpressions into tables", tabulate_pass, verify_ir,
                         dump_ir},
    [STAGE_SCHEDULED] = {"schedule", "scheduled", "entry_plan",
                         "the plan of every entry: nodes, phases, kernels", schedule_pass,
                         verify_plans, dump_plans},
    [STAGE_PLACED] = {"place-tables", "placed", "table_place",
                      "tables out of constant memory past its budget", place_tables_pass,
                      verify_plans, dump_plans},
};

/* Runs the passes after stage `from` (already reached; -1: none) up to
 * stage `to`, each followed by its verifier. */
static void run_passes(Compilation *c, const Options *opt, int from, Stage to) {
    for (int s = from + 1; s <= (int)to; s++) {
        const Pass *pass = &driver_passes[s];
        pass->run(c, opt);
        pass->verify(c, pass);
    }
}

/* Differential check of the middle end: the entry's results after every
 * later IR stage must equal the specialised program's, bit for bit. */
static void compare_stages(Compilation *c, const Options *opt, const IrFunc *f) {
    for (Stage s = STAGE_NORMALISED; s <= STAGE_LAST_IR; s++) {
        run_passes(c, opt, (int)s - 1, s);
        Buf **results = ir_eval_func(&c->ir, f, c->inputs);
        long bad = -1;
        int which = 0;
        for (int r = 0; r < f->body->nresults && bad < 0; r++) {
            bad = buf_first_difference(c->results[r], results[r]);
            which = r;
        }
        for (int r = 0; results[r]; r++) buf_free(results[r]);
        free(results);
        if (bad >= 0)
            diag_fatal("the %s program differs from the specialised one: result %d, element %ld",
                       driver_passes[s].made, which, bad);
    }
}

static void interpret(Compilation *c, const Options *opt, FILE *in, FILE *out) {
    long len = 0;
    c->input = io_slurp(in, &len);
    if (!c->input) diag_fatal("cannot read standard input: %s", strerror(errno));
    IoShape shape;
    const IrFunc *f = io_read_inputs(&c->ir, c->entry, "<stdin>", c->input, len, &c->inputs,
                                     &shape);
    c->results = ir_eval_func(&c->ir, f, c->inputs);
    if (opt->compare_stages) compare_stages(c, opt, f);
    io_write_results(out, f, c->inputs, c->results, shape);
}

/* The back end: write OUT, its header and its manifest, from the plans of
 * the specialisations that were compiled. */
static void compile(Compilation *c, const Options *opt) {
    const char *output = opt->output;
    if (!output) {
        const char *dot = strrchr(opt->input, '.');
        size_t stem = dot ? (size_t)(dot - opt->input) : strlen(opt->input);
        output = arena_printf(&c->arena, "%.*s%s", (int)stem, opt->input,
                              opt->target_c ? ".c" : ".cu");
    }
    const char *header = beside(&c->arena, output, ".h");
    const char *slash = strrchr(header, '/');
    EmitInput in = {.source_name = opt->input,
                    .header_name = slash ? slash + 1 : header,
                    .emit_main = opt->emit_main,
                    .gpu_log = opt->gpu_log,
                    .main_entry = opt->entry ? opt->entry : "main",
                    .prefix = opt->prefix ? opt->prefix : default_prefix(&c->arena, output)};
    in.plans = c->plans.plans;
    in.nplans = c->plans.nplans;
    in.refused = c->plans.refused;
    in.nrefused = c->plans.nrefused;
    check_entry_names(&c->arena, in.plans, in.nplans, in.prefix);
    const IrFunc **funcs = NEW_ARRAY(&c->arena, const IrFunc *, in.nplans + 1);
    for (int i = 0; i < in.nplans; i++) funcs[i] = in.plans[i].func;
    ManifestInput manifest = {.source = opt->input,
                              .target = opt->target_c ? "c" : "cuda",
                              .prefix = in.prefix,
                              .header = in.header_name,
                              .program = &c->program,
                              .funcs = funcs,
                              .nfuncs = in.nplans,
                              .gpus = 1 << opt->gpu_log};
    Outputs o = {&in, opt->target_c, &manifest};
    const char *paths[] = {output, header, beside(&c->arena, output, ".json")};
    static const char *const what[] = {"output", "header", "manifest"};
    check_outputs(opt->input, paths, what, 3);
    write_file(c, paths[0], write_program, &o);
    write_file(c, paths[1], write_header, &o);
    write_file(c, paths[2], write_manifest, &o);
}

/* --check: what a compile would refuse is an error too, at the construct,
 * like one of the language (the prefix is the one a compile of the input
 * to the default output would take). */
static void check_back_end(Compilation *c, const Options *opt) {
    const char *prefix = opt->prefix ? opt->prefix : default_prefix(&c->arena, opt->input);
    check_entry_names(&c->arena, c->plans.plans, c->plans.nplans, prefix);
}

/* --report: the access simulator over the schedule of every entry. With
 * --strict it exits 1 when some access is not minimal, so scripts can assert
 * it; otherwise a report is a success. */
static void report(Compilation *c, const Options *opt) {
    FILE *out = opt->out ? opt->out : stdout;
    bool ok = true;
    for (int i = 0; i < c->plans.nplans; i++) ok &= simulate_report(out, &c->plans.plans[i]);
    if (!ok && opt->strict)
        diag_fatal(
            "some kernel access is not minimal, not conflict-free or narrower than the layout "
            "allows (see the report)");
}

/* An unknown entry name is an error for every action, with notes at the
 * entries there are (a plain compile would otherwise ignore it). */
static void check_entry(const Program *p, const char *entry) {
    if (!entry || p->entries.len == 0) return; /* specialise reports a program without entries */
    for (int i = 0; i < p->entries.len; i++)
        if (!strcmp(((const Entry *)p->entries.items[i])->name, entry)) return;
    spec_no_entry(p, entry);
}

static void run_pipeline(Compilation *c, const Options *opt, const MemSource *mem) {
    FILE *out = opt->out ? opt->out : stdout;
    const Source *src = mem ? source_copy(&c->arena, mem->name, mem->text, mem->len)
                            : source_load(&c->arena, opt->input);
    parse_source(&c->arena, src, &c->program);
    imports_resolve(&c->arena, &c->program, &opt->import_path, mem ? NULL : opt->input);
    if (opt->action == ACTION_LIST_ENTRIES) {
        for (int i = 0; i < c->program.entries.len; i++)
            fprintf(out, "%s\n", ((const Entry *)c->program.entries.items[i])->name);
        return;
    }
    c->entry = opt->entry;
    if (!c->entry && (opt->action == ACTION_INTERPRET || opt->action == ACTION_DUMP_IR ||
                      opt->action == ACTION_RANDOM_INPUT || opt->action == ACTION_INPUT_BOUND))
        c->entry = "main";
    check_entry(&c->program, opt->emit_main && !c->entry ? "main" : c->entry);
    /* a compile without -e compiles every entry (a --emit-main runs main);
     * an action that writes or reports the back end's work runs every pass,
     * a --check or a dump those up to its stage (main.c: every pass for the
     * command line's --check) */
    bool back_end = opt->action == ACTION_COMPILE || opt->action == ACTION_REPORT;
    Stage target = back_end              ? STAGE_COUNT - 1
                   : opt->compare_stages ? STAGE_SPECIALISED
                                         : opt->stage;
    run_passes(c, opt, -1, target);
    switch (opt->action) {
    case ACTION_CHECK:
        if (target == STAGE_COUNT - 1) check_back_end(c, opt);
        break;
    case ACTION_DUMP_IR:
    case ACTION_DUMP_PLAN: driver_passes[target].dump(out, c); break;
    case ACTION_INTERPRET: interpret(c, opt, opt->in ? opt->in : stdin, out); break;
    case ACTION_COMPILE: compile(c, opt); break;
    case ACTION_REPORT: report(c, opt); break;
    case ACTION_RANDOM_INPUT:
        randinput_write(out, randinput_pick(&c->ir, c->entry, opt->seed), opt->seed,
                        opt->special_floats);
        break;
    case ACTION_INPUT_BOUND: {
        double elements,
            bytes = randinput_bound(randinput_pick(&c->ir, c->entry, opt->seed), &elements);
        fprintf(out, "%.0f %.0f\n", elements, bytes);
        break;
    }
    case ACTION_LIST_ENTRIES: break;
    }
}

static int run(const Options *opt, const MemSource *mem) {
    Compilation *c = calloc(1, sizeof *c);
    if (!c) return 1;
    c->ir.arena = &c->arena;
    c->sched.tile_bytes = opt->tile_bytes;
    c->sched.segment_bytes = opt->segment_bytes;
    c->sched.vector_copies = opt->vector_copies;
    c->sched.narrow_permutes = opt->narrow_permutes;
    c->sched.narrow_copies = opt->narrow_copies;
    c->sched.register_bytes = opt->register_bytes;
    c->sched.tile_buffers = opt->tile_buffers;
    c->sched.cluster_log = opt->cluster_log;
    c->sched.gpu_log = opt->gpu_log;
    c->sched.tiles_in_scratch = opt->target_c;
    c->target_c = opt->target_c;
    c->sched.exchange_pieces = opt->exchange_pieces;
    jmp_buf handler;
    diag_handler = &handler;
    int status = setjmp(handler) == 0 ? (run_pipeline(c, opt, mem), 0) : 1;
    diag_handler = NULL;
    if (c->writing) fclose(c->writing);
    for (int i = 0; status != 0 && i < c->nwritten; i++)
        remove(c->written[i]); /* no partial output */
    fflush(opt->out ? opt->out : stdout);
    free_bufs(c->inputs);
    free_bufs(c->results);
    free(c->input);
    arena_free(&c->arena);
    free(c);
    return status;
}

int driver_run(const Options *opt) { return run(opt, NULL); }

int driver_run_source(const Options *opt, const char *name, const char *text, size_t len) {
    MemSource mem = {name, text, len};
    return run(opt, &mem);
}
