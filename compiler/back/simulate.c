/* simulate.c: --report. Replays the memory accesses of every kernel the CUDA
 * back end emits, warp by warp, and measures them against the machine model:
 * 32-byte sectors touched per global warp access (against the fewest
 * possible) and shared-memory bank congestion per warp access, both as
 * access_model.h defines them. The first and the last block are replayed;
 * the others differ from them by an XOR of high address bits, which moves whole
 * segments and whole bank rows. */
#include "simulate.h"

#include <stdlib.h>
#include <string.h>

#include "access_model.h"
#include "bmmc_plan.h"
#include "machine.h"

typedef struct {
    int sectors, sectors_min; /* worst global access and its minimum */
    int congestion;           /* worst shared access */
    long accesses;
} Tally;

/* Global access of `lanes` elements of `bytes` each at element indices x. */
static void global_access(Tally *t, const uint64_t *x, int lanes, int bytes) {
    int got = access_sectors(x, lanes, bytes), min = access_sectors_min(lanes, bytes);
    if (got - min > t->sectors - t->sectors_min || t->accesses == 0) {
        t->sectors = got;
        t->sectors_min = min;
    }
    t->accesses++;
}

/* Shared access at tile slots u (access_model.h). */
static void shared_access(Tally *t, const uint64_t *u, int lanes, int bytes) {
    int c = access_congestion(u, lanes, bytes);
    if (c > t->congestion) t->congestion = c;
}

/* The lanes of each warp of 2^t threads, and the warps. */
static int warp_lanes(int t) { return t < MACHINE_WARP_LOG ? 1 << t : MACHINE_WARP; }
static unsigned warps(int t) { return t < MACHINE_WARP_LOG ? 1u : 1u << (t - MACHINE_WARP_LOG); }

static uint64_t block_origin(const Phase *p, uint64_t b) {
    return f2_combine(p->block_cols, p->block_log, b);
}

/* One side of the global copies of a LOCAL kernel, element by element:
 * thread tid, iteration i handles tile element (or, writing into the next
 * layout, output coordinate) tid | i << t; a halved write (plan.h) has
 * 2^out_tile_log of them, and the threads beyond write nothing. */
static void replay_elements(const Phase *p, const Slice *slice, uint64_t b, int global_bytes,
                            int bytes, bool next_layout, Tally *g, Tally *sh) {
    int span = next_layout ? p->out_tile_log : p->tile_log;
    int t = p->threads_log < span ? p->threads_log : span, lanes = warp_lanes(t);
    uint64_t x[MACHINE_WARP], u[MACHINE_WARP];
    for (unsigned w = 0; w < warps(t); w++)
        for (unsigned i = 0; i < 1u << (span - t); i++) {
            for (int l = 0; l < lanes; l++) {
                uint64_t sigma = (w * MACHINE_WARP + (unsigned)l) | (uint64_t)i << t;
                if (next_layout) {
                    x[l] = p->write_compl ^ f2_combine(p->out_block_cols, p->block_log, b) ^
                           f2_combine(p->out_cols, span, sigma);
                    u[l] = plan_slot(p, p->src_const ^ f2_combine(p->src_cols, span, sigma));
                } else {
                    x[l] = block_origin(p, b) ^ f2_combine(p->tile_cols, p->tile_log, sigma);
                    u[l] = plan_slot(p, sigma);
                }
            }
            /* a slice read in place loads from the array it is of */
            for (int l = 0; slice && l < lanes; l++) x[l] = plan_slice_index(slice, x[l]);
            global_access(g, x, lanes, global_bytes);
            shared_access(sh, u, lanes, bytes);
        }
}

/* One side of the copies in 16-byte vectors (Phase.vec_log): thread tid,
 * iteration i moves the vector of tile elements (or, writing into the next
 * layout, output coordinates) j | tid << v | i << (t + v), a 16-byte global
 * access, and each element j to or from its slot, a shared access of one
 * element per lane. */
static void replay_vectors(const Phase *p, uint64_t b, int bytes, bool next_layout, Tally *g,
                           Tally *sh) {
    int t = p->threads_log, v = p->vec_log, lanes = warp_lanes(t);
    int span = next_layout ? p->out_tile_log : p->tile_log;
    uint64_t x[MACHINE_WARP], u[MACHINE_WARP];
    for (unsigned w = 0; w < warps(t); w++)
        for (unsigned i = 0; i < 1u << (span - t - v); i++) {
            uint64_t el[MACHINE_WARP];
            for (int l = 0; l < lanes; l++) {
                el[l] = (uint64_t)(w * MACHINE_WARP + (unsigned)l) << v | (uint64_t)i << (t + v);
                x[l] = next_layout
                           ? p->write_compl ^ f2_combine(p->out_block_cols, p->block_log, b) ^
                                 f2_combine(p->out_cols, span, el[l])
                           : block_origin(p, b) ^ f2_combine(p->tile_cols, p->tile_log, el[l]);
                x[l] >>= v;
            }
            global_access(g, x, lanes, MACHINE_VECTOR_BYTES);
            for (unsigned j = 0; j < 1u << v; j++) {
                for (int l = 0; l < lanes; l++)
                    u[l] = plan_slot(p, next_layout ? p->src_const ^
                                                          f2_combine(p->src_cols, span, el[l] | j)
                                                    : el[l] | j);
                shared_access(sh, u, lanes, bytes);
            }
        }
}

/* The global copies of a LOCAL kernel: the load (element by element with
 * cp.async in a kernel of several tile buffers, or through a load map, of
 * the input's type), and the write-back in place or into the next layout. */
static void replay_local_global(const Schedule *s, const Phase *p, uint64_t b, int bytes, Tally *g,
                                Tally *sh, Tally *sh_out) {
    if (plan_vector_load(s, p)) replay_vectors(p, b, bytes, false, g, sh);
    else
        replay_elements(p, p->src == BUF_IN && s->in_slice.log ? &s->in_slice : NULL, b,
                        elem_max_slot_bytes(p->in_elem), bytes, false, g, sh);
    if (p->vec_log && (p->writes_in_place || p->vec_write))
        replay_vectors(p, b, bytes, !p->writes_in_place, g, sh_out);
    else
        replay_elements(p, p->dst == BUF_OUT && s->out_slice.log ? &s->out_slice : NULL, b,
                        elem_max_slot_bytes(plan_out_elem(p)), bytes, !p->writes_in_place, g,
                        sh_out);
}

/* Each round loads its registers in its layout and stores them in the
 * next round's (the phase's after the last). */
static void replay_rounds(const Phase *p, int bytes, Tally *sh) {
    int t = p->threads_log, lanes = warp_lanes(t);
    for (int r = 0; r < p->nrounds; r++) {
        const Round *rd = &p->rounds[r];
        uint64_t u[MACHINE_WARP];
        for (int side = 0; side < 2; side++) {
            const uint64_t *slots = side == 0            ? rd->slots
                                    : r + 1 < p->nrounds ? p->rounds[r + 1].slots
                                                         : p->slot_cols;
            for (unsigned w = 0; w < warps(t); w++)
                for (unsigned j = 0; j < 1u << rd->reg_log; j++) {
                    for (int l = 0; l < lanes; l++)
                        u[l] = f2_combine(slots, p->tile_log,
                                          f2_combine(rd->threads, t,
                                                     w * MACHINE_WARP + (unsigned)l) ^
                                              f2_combine(rd->regs, rd->reg_log, j));
                    shared_access(sh, u, lanes, bytes);
                }
        }
    }
}

/* The tables that element code reads (opt_tables.c): how many, their
 * entries and bytes, and how many the kernel reads from each place (the
 * scheduler's TablePlace). Tables that share a number are counted once,
 * at the place of their first read. */
#define PLACES 3
typedef struct {
    int count, at[PLACES];
    long entries, bytes;
    int *seen; /* the numbers counted, count of them, cap allocated */
    int cap;
} Tables;

static void count_tables(Tables *t, const TableUse *uses, int n) {
    for (int i = 0; i < n; i++) {
        const IrStmt *s = uses[i].table;
        bool again = false;
        for (int j = 0; j < t->count; j++) again |= t->seen[j] == s->index;
        if (again) continue;
        if (t->count == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 16;
            t->seen = realloc(t->seen, sizeof(int) * (size_t)t->cap);
            if (!t->seen) diag_fatal("out of memory");
        }
        t->seen[t->count++] = s->index;
        t->at[uses[i].place]++;
        t->entries += 1L << s->k;
        t->bytes += (1L << s->k) * (prim_bits(s->res[0]->elem->prim) / 8);
    }
}

static void report_tables(FILE *out, const Tables *t) {
    if (!t->count) return;
    fprintf(out, "  tables: %d, %ld entries, %ld bytes", t->count, t->entries, t->bytes);
    const char *sep = "; ";
    for (int place = 0; place < PLACES; place++) {
        if (!t->at[place]) continue;
        fprintf(out, "%s%d in %s", sep, t->at[place], plan_table_place_name((TablePlace)place));
        sep = ", ";
    }
    fputc('\n', out);
}

static bool report_local(FILE *out, const Schedule *s, const Phase *p) {
    Tally g = {0}, sh_in = {0}, sh_rounds = {0}, sh_out = {0};
    int bytes = elem_max_slot_bytes(p->elem);
    replay_local_global(s, p, 0, bytes, &g, &sh_in, &sh_out);
    replay_local_global(s, p, (UINT64_C(1) << p->block_log) - 1, bytes, &g, &sh_in, &sh_out);
    replay_rounds(p, bytes, &sh_rounds);
    int rounds = p->nrounds;
    int worst = sh_in.congestion;
    if (sh_rounds.congestion > worst) worst = sh_rounds.congestion;
    if (sh_out.congestion > worst) worst = sh_out.congestion;
    long tile = (long)elem_bytes(p->elem) << p->tile_log;
    fprintf(out,
            "  local: tile 2^%d (%ld %s of shared memory, 2^%d threads), %d %s%s, %d step%s in %d "
            "register "
            "round%s, writes %s\n",
            p->tile_log, tile % 1024 ? tile : tile / 1024, tile % 1024 ? "bytes" : "KB",
            p->threads_log, 1 << p->block_log, p->cluster_log ? "cluster" : "block",
            p->block_log ? "s" : "", p->nsteps, p->nsteps == 1 ? "" : "s", rounds,
            rounds == 1 ? "" : "s",
            p->writes_in_place ? "in place"
            : p->half_log      ? "the kept part in the next layout"
                               : "in the next layout");
    if (p->cluster_log) {
        int remote = 0;
        for (int r = 0; r < p->nrounds; r++) remote += p->rounds[r].remote;
        fprintf(
            out,
            "  cluster: %d blocks of 2^%d threads, each holding 2^%d of the tile (%d KB); %d of "
            "the rounds "
            "remote (through the cluster's shared memory)%s\n",
            1 << p->cluster_log, plan_block_threads_log(p), plan_block_tile_log(p),
            p->tile_bytes / 1024, remote, p->writes_in_place ? "" : ", and the write");
    }
    if (p->buffers > 1)
        fprintf(
            out,
            "  overlap: %d tile buffers (%ld KB), persistent blocks that load their next tile%s "
            "with cp.async "
            "(element by element) while they work on one\n",
            p->buffers, (tile * p->buffers) / 1024, p->buffers > 2 ? "s" : "");
    /* the copies in vectors: a load through cp.async is element by element */
    const char *load = plan_vector_load(s, p) ? "the tile load" : "";
    const char *store = p->writes_in_place ? "write-back" : p->vec_write ? "write" : NULL;
    if (p->vec_log && (*load || store))
        fprintf(out,
                "  vectors: %s%s%s in 16-byte vectors of 2^%d elements (sectors counted in "
                "vectors, shared accesses by element)\n",
                load,
                !store  ? ""
                : *load ? " and the "
                        : "the ",
                store ? store : "", p->vec_log);
    fprintf(out,
            "  global: %d sectors per warp access (minimum %d); shared: bank congestion %d "
            "(tile store %d, register rounds %d, tile load %d)\n",
            g.sectors, g.sectors_min, worst, sh_in.congestion, sh_rounds.congestion,
            sh_out.congestion);
    if (p->copies_narrowed)
        fprintf(
            out,
            "  narrow: the tile copies of %d-byte fields move one element a thread where 16-byte "
            "vectors fit "
            "the layout\n",
            elem_max_slot_bytes(p->elem));
    if (p->map) {
        fputs("  load map: ", out);
        ir_print_stmt_brief(out, p->map);
        fputs(" on each element as it is loaded (one pass less)\n", out);
    }
    if (p->store_map) {
        fputs("  store map: ", out);
        ir_print_stmt_brief(out, p->store_map);
        fputs(" on each element as it is stored (one pass less)\n", out);
    }
    Tables t = {0};
    count_tables(&t, p->map_tables, p->nmap_tables);
    for (int i = 0; i < p->nsteps; i++) count_tables(&t, p->steps[i].tables, p->steps[i].ntables);
    report_tables(out, &t);
    free(t.seen);
    return g.sectors == g.sectors_min && worst <= 1 && !p->copies_narrowed;
}

/* Whether a kernel that moves elements could have moved 16-byte vectors: they
 * fit and a conflict-free swizzle exists (bmmc_plan_vectors on a copy; a tile
 * too small for one, such as 2^6 elements of 8 bytes whose sources cross
 * every bank row, is not narrow). An entry of any length guards each element,
 * so it moves elements. */
static bool permute_narrow(const Schedule *s, const BmmcPlan *plan) {
    if (plan->vec_log || s->pad || !bmmc_vectors_fit(plan)) return false;
    BmmcPlan vectors = *plan;
    return bmmc_plan_vectors(&vectors);
}

/* A permutation's kernels, one per field: its accesses, and whether a field
 * moves elements where 16-byte vectors would do (permute_narrow). */
static bool report_permute(FILE *out, const Schedule *s, const Phase *p) {
    bool ok = true;
    for (int k = 0; k < p->elem->nslots; k++) {
        const BmmcPlan *plan = &p->slot_plans[k];
        BmmcSimReport r;
        bmmc_simulate(plan, &r);
        int sectors = r.read_sectors_max > r.write_sectors_max ? r.read_sectors_max
                                                               : r.write_sectors_max;
        int cong = r.store_congestion_max > r.load_congestion_max ? r.store_congestion_max
                                                                  : r.load_congestion_max;
        fprintf(out, "  permutation (field %d): tile 2^%d", k, plan->tile_log);
        if (plan->vec_log)
            fprintf(
                out,
                ", 16-byte vectors of 2^%d elements (sectors counted in vectors; tile stores by "
                "4-byte word, loads by element)",
                plan->vec_log);
        fprintf(out,
                "; global: %d sectors per warp access (minimum %d); shared: bank congestion %d\n",
                sectors, r.sectors_min, cong);
        bool narrow = permute_narrow(s, plan);
        if (narrow)
            fprintf(
                out,
                "  narrow: field %d's %d-byte elements fit 16-byte vectors (a segment of 2^%d, a "
                "tile of 2^%d), "
                "but the kernel moves one element a thread\n",
                k, plan->elem_bytes, plan->seg_log, plan->tile_log);
        ok &= sectors == r.sectors_min && cong <= 1 && !narrow;
    }
    return ok;
}

/* An elementwise kernel: consecutive threads take consecutive elements. */
static bool report_map(FILE *out, const Phase *p) {
    Tally g = {0};
    uint64_t x[MACHINE_WARP];
    for (int l = 0; l < MACHINE_WARP; l++) x[l] = (uint64_t)l;
    int lanes = warp_lanes(p->n);
    global_access(&g, x, lanes, elem_max_slot_bytes(p->in_elem));
    global_access(&g, x, lanes, elem_max_slot_bytes(p->elem));
    fprintf(out, "  elementwise: global: %d sectors per warp access (minimum %d)\n", g.sectors,
            g.sectors_min);
    Tables t = {0};
    count_tables(&t, p->map_tables, p->nmap_tables);
    report_tables(out, &t);
    free(t.seen);
    return g.sectors == g.sectors_min;
}

/* A slice that a kernel reads or writes in place (Schedule.in_slice,
 * out_slice), if any. */
static void report_slice(FILE *out, const char *how, const Slice *sl) {
    if (!sl->log) return;
    fprintf(out, "  slice %s in place: of 2^%d elements, index bits 0x%llx fixed to 0x%llx\n", how,
            sl->log, (unsigned long long)sl->fixed, (unsigned long long)sl->value);
}

/* The kernels of chain s, named as emitted: `chain`'s phases (plan.h). */
static bool report_chain(FILE *out, Arena *names, const Schedule *s, const char *chain) {
    bool ok = true;
    for (int i = 0; i < s->nphases; i++) {
        const Phase *p = &s->phases[i];
        fprintf(out, "kernel %s: moves 2^%d elements (each read once and %s)\n",
                plan_phase_name(names, chain, i), p->n,
                p->kind == PHASE_LOCAL && p->half_log ? "the part the halves keep written once"
                                                      : "written once");
        if (p->src == BUF_IN) report_slice(out, "read", &s->in_slice);
        if (p->dst == BUF_OUT) report_slice(out, "written", &s->out_slice);
        for (int k = 0; plan_shifted_load(s, p) && k < s->in_elem->nslots; k++)
            if (s->in_shift[k])
                fprintf(out,
                        "  expand read in place: input plane %d, element x at x >> %d (2^-%d of a "
                        "read)\n",
                        k, s->in_shift[k], s->in_shift[k]);
        for (int k = 0; k < p->elem->nslots; k++)
            if (!plan_stores_slot(s, p, k))
                fprintf(out, "  unstored: output plane %d, which nothing reads\n", k);
        switch (p->kind) {
        case PHASE_LOCAL: ok &= report_local(out, s, p); break;
        case PHASE_PERMUTE: ok &= report_permute(out, s, p); break;
        case PHASE_MAP: ok &= report_map(out, p); break;
        case PHASE_EXCHANGE: diag_fatal("internal error: --report of a plan for several GPUs");
        }
    }
    return ok;
}

static const char *plural(int n, const char *one, const char *many) { return n == 1 ? one : many; }

/* "i32, 3 kernels, 3 global passes": a chain's elements and passes. */
static void report_counts(FILE *out, const Schedule *s) {
    elem_print(out, s->in_elem);
    fprintf(out, ", %d kernel%s, %d global pass%s", s->nphases, plural(s->nphases, "", "s"),
            s->nphases, plural(s->nphases, "", "es"));
    if (s->cluster_refused)
        fprintf(out, " (tiles of blocks: clusters refused, %s)", s->cluster_refused);
    fputc('\n', out);
}

/* The nodes that are not chains, "parm_main_n1: reduce, ...": the first
 * few, then how many more, so that a graph of hundreds of nodes gives a line
 * that can be read. */
enum { NODES_SHOWN = 6 };

static void report_other_nodes(FILE *out, Arena *names, const EntryPlan *e, int others) {
    int listed = 0;
    for (int i = 0; i < e->nnodes && listed < NODES_SHOWN; i++)
        if (e->nodes[i].kind != NODE_CHAIN)
            fprintf(out, "%s%s: %s", listed++ ? ", " : "", plan_node_name(names, e, i),
                    plan_node_kind_name(e->nodes[i].kind));
    if (others > listed) fprintf(out, " and %d more", others - listed);
}

/* An entry graph: its chains' kernels, each chain under its node's name;
 * reduce, fill, copy and serial nodes read and write whole planes in order,
 * which the simulator does not model, so they are counted, not simulated. */
static bool report_graph(FILE *out, Arena *names, const EntryPlan *e) {
    int chains = 0, kernels = 0;
    for (int i = 0; i < e->nnodes; i++)
        if (e->nodes[i].kind == NODE_CHAIN) chains++, kernels += e->nodes[i].chain.nphases;
    int others = e->nnodes - chains;
    fprintf(out, "entry %s: graph of %d node%s, %d chain%s of %d kernel%s in all", e->func->name,
            e->nnodes, plural(e->nnodes, "", "s"), chains, plural(chains, "", "s"), kernels,
            plural(kernels, "", "s"));
    if (others) {
        fprintf(out, ", %d step%s not simulated (", others, plural(others, "", "s"));
        report_other_nodes(out, names, e, others);
        fputs("): they read and write whole arrays in order, which needs no simulation", out);
    }
    fputc('\n', out);
    bool ok = true;
    for (int i = 0; i < e->nnodes; i++) {
        const Schedule *s = &e->nodes[i].chain;
        if (e->nodes[i].kind != NODE_CHAIN) continue;
        const char *chain = plan_node_name(names, e, i);
        fprintf(out, "chain %s: 2^%d ", chain, s->n);
        report_counts(out, s);
        ok &= report_chain(out, names, s, chain);
    }
    return ok;
}

bool simulate_report(FILE *out, const EntryPlan *e) {
    Arena names = {0};
    bool ok;
    if (plan_one_chain(e)) {
        const Schedule *s = &e->nodes[0].chain;
        fprintf(out, "entry %s: 2^%d ", e->func->name, s->n);
        report_counts(out, s);
        ok = report_chain(out, &names, s, plan_node_name(&names, e, 0));
    } else {
        ok = report_graph(out, &names, e);
    }
    arena_free(&names);
    fprintf(out, "entry %s: every global access minimal and every shared access congestion 1: %s\n",
            e->func->name, ok ? "yes" : "no");
    return ok;
}
