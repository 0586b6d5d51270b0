/* entry_plan.c: an entry's body cut into the nodes of plan.h ("The entry
 * graph"). Statements are visited in order. Array statements (parm, two,
 * col, bmmc, map) grow chains: a chain extends while the next statement
 * reads its last result and nothing else does; any other reader, or a
 * result of the entry, closes it, and the chain is scheduled then as a
 * function of one array (schedule_func). zip, unzip and constants only
 * rename planes. Runs of scalar statements become SERIAL nodes, reduce and
 * reduceblocks a REDUCE node, replicate a FILL node, expand an EXPAND
 * node. A value that something reads gets
 * planes once: an entry result's where it is one, else temporaries; a
 * result whose planes are taken (a parameter, a value returned twice) is
 * copied at the end. An entry of any length pads its parameter into
 * temporaries first and cuts its results of that length last (plan.h,
 * EntryPlan.pad), unless one chain alone reads the parameter: that chain
 * reads the caller's shape itself, as a one-chain entry does (Schedule.pad,
 * pad_in_only), and the copy is dropped (close_chain). */
#include "entry_plan.h"

#include "host_plan.h"
#include "kernel_plan.h"
#include "plan_live_rows.h"

#include <string.h>

#include "schedule.h"

/* A node being built: planes by id until locations are known; `fused`: no
 * node of its own (an expand that the node reading it loads in place,
 * fuse_planes; a COPY_PAD whose chain reads the caller's shape itself). */
typedef struct {
    PlanNode node;
    int *in, *out, *args, *partial;
    const IrVal **arg_vals;
    int nin, nout, nargs, npartial;
    bool fused;
} Build;

typedef struct {
    const IrVal *input, *tail;
    const IrStmt **stmts;
    int nstmts, cap;
    bool open;
} Chain;

typedef struct {
    Arena *arena;
    const IrFunc *f;
    const SchedOptions *sched; /* for the chains */
    EntryPlan *out;
    int min_id, nids;
    int **planes;      /* by id - min_id: the plane ids of an entry-level value */
    int *uses;         /* by id - min_id: readers at entry level (statements, bodies, results) */
    bool *entry_level; /* by id - min_id */
    PlaneRef *plane;   /* every plane; kind is set once located */
    bool *located;
    int nplanes, plane_cap;
    Build *builds; /* each holds a whole PlanNode (2 KB), so they grow from room for one */
    int nbuilds, build_cap;
    Chain *chains;
    int nchains, chain_cap;
    const IrStmt **group; /* the open run of scalar statements */
    int ngroup, group_cap;
    /* an entry of any length: its padded parameter, the planes of the
     * caller's shape, and the COPY_PAD build that fills its value's planes
     * from them (pad_param) */
    const IrVal *pad_val;
    const int *pad_shaped;
    int pad_copy;
} Graph;

#define GROW_FROM(arena, ptr, count, cap, type, first) \
    do { \
        if ((count) == (cap)) { \
            int grown_cap = (cap) ? 2 * (cap) : (first); \
            type *grown = NEW_ARRAY(arena, type, grown_cap); \
            if (count) memcpy(grown, ptr, sizeof(type) * (size_t)(count)); \
            (ptr) = grown; \
            (cap) = grown_cap; \
        } \
    } while (0)
#define GROW(arena, ptr, count, cap, type) GROW_FROM(arena, ptr, count, cap, type, 16)

static int idx(const Graph *g, const IrVal *v) {
    int i = v->id - g->min_id;
    return i >= 0 && i < g->nids ? i : -1;
}

static bool is_entry_val(const Graph *g, const IrVal *v) {
    int i = idx(g, v);
    return i >= 0 && g->entry_level[i];
}

static int new_plane(Graph *g, int log_len, Prim prim) {
    if (g->nplanes == g->plane_cap) {
        int cap = g->plane_cap ? 2 * g->plane_cap : 64;
        PlaneRef *p = NEW_ARRAY(g->arena, PlaneRef, cap);
        bool *l = NEW_ARRAY(g->arena, bool, cap);
        if (g->nplanes) {
            memcpy(p, g->plane, sizeof(PlaneRef) * (size_t)g->nplanes);
            memcpy(l, g->located, sizeof(bool) * (size_t)g->nplanes);
        }
        g->plane = p;
        g->located = l;
        g->plane_cap = cap;
    }
    g->plane[g->nplanes] = (PlaneRef){.log_len = log_len < 0 ? 0 : log_len, .prim = prim};
    return g->nplanes++;
}

/* Fresh planes for v, one per field, not yet located. */
static int *new_planes(Graph *g, const IrVal *v) {
    int ns = v->elem->nslots;
    int *ids = NEW_ARRAY(g->arena, int, ns > 0 ? ns : 1);
    for (int k = 0; k < ns; k++) ids[k] = new_plane(g, v->log_len, elem_slot_prim(v->elem, k));
    g->planes[idx(g, v)] = ids;
    return ids;
}

static void locate(Graph *g, int p, PlaneKind kind, int index, const IrVal *val) {
    g->plane[p].kind = kind;
    g->plane[p].index = index;
    g->plane[p].val = val;
    g->located[p] = true;
}

/* A scalar known without memory: an entry scalar parameter or a constant. */
static void value_plane(Graph *g, const IrVal *v) {
    int *ids = new_planes(g, v);
    locate(g, ids[0], LOC_VALUE, 0, v);
}

static noreturn void refuse(const Graph *g, const IrStmt *s, const char *what) {
    diag_error(s ? s->loc : g->f->loc,
               "the back end does not support %s in entry '%s' yet; use --interpret", what,
               g->f->entry);
}

static const int *planes_of(Graph *g, const IrStmt *s, const IrVal *v) {
    int i = idx(g, v);
    if (i < 0 || !g->planes[i]) refuse(g, s, "a value computed where the back end cannot keep it");
    return g->planes[i];
}

/* ---- uses ---- */

typedef struct {
    Graph *g;
    const IrVal ***vals;
    int *n, *cap;
} Reads;

static void add_read(IrWalk *w, IrVal **v) {
    Reads *r = w->ctx;
    if (!is_entry_val(r->g, *v)) return;
    for (int j = 0; j < *r->n; j++)
        if ((*r->vals)[j] == *v) return;
    GROW(r->g->arena, *r->vals, *r->n, *r->cap, const IrVal *);
    (*r->vals)[(*r->n)++] = *v;
}

/* The entry-level values a body reads, once each, into vals. */
static void body_reads(Graph *g, const IrBody *b, const IrVal ***vals, int *n, int *cap) {
    Reads r = {g, vals, n, cap};
    IrWalk w = {.read = add_read, .ctx = &r};
    ir_walk(&w, b);
}

/* The readers of each entry-level value: a statement of the entry's body
 * counts once for each argument and once for each value its body reads
 * (however often), a result of the body once. Not ir_count_uses, which
 * counts every read: a chain grows while one statement reads its end. */
static void count_readers(Graph *g) {
    const IrBody *body = g->f->body;
    int lo = 0, hi = -1;
    for (int i = 0; i < body->nparams; i++) {
        int id = body->params[i]->id;
        if (hi < lo || id < lo) lo = id;
        if (id > hi) hi = id;
    }
    for (int i = 0; i < body->nstmts; i++)
        for (int r = 0; r < body->stmts[i]->nres; r++) {
            int id = body->stmts[i]->res[r]->id;
            if (hi < lo || id < lo) lo = id;
            if (id > hi) hi = id;
        }
    g->min_id = lo;
    g->nids = hi - lo + 1 > 0 ? hi - lo + 1 : 1;
    g->planes = NEW_ARRAY(g->arena, int *, g->nids);
    g->uses = NEW_ARRAY(g->arena, int, g->nids);
    g->entry_level = NEW_ARRAY(g->arena, bool, g->nids);
    for (int i = 0; i < body->nparams; i++) g->entry_level[idx(g, body->params[i])] = true;
    for (int i = 0; i < body->nstmts; i++)
        for (int r = 0; r < body->stmts[i]->nres; r++)
            g->entry_level[idx(g, body->stmts[i]->res[r])] = true;
    for (int i = 0; i < body->nstmts; i++) {
        const IrStmt *s = body->stmts[i];
        for (int a = 0; a < s->nargs; a++)
            if (is_entry_val(g, s->args[a])) g->uses[idx(g, s->args[a])]++;
        if (!s->body) continue;
        const IrVal **vals = NULL;
        int n = 0, cap = 0;
        body_reads(g, s->body, &vals, &n, &cap);
        for (int j = 0; j < n; j++) g->uses[idx(g, vals[j])]++;
    }
    for (int r = 0; r < body->nresults; r++) g->uses[idx(g, body->results[r])]++;
}

/* ---- nodes ---- */

static Build *new_build(Graph *g, NodeKind kind, int n) {
    GROW_FROM(g->arena, g->builds, g->nbuilds, g->build_cap, Build, 1);
    Build *b = &g->builds[g->nbuilds++];
    memset(b, 0, sizeof *b);
    b->node.kind = kind;
    b->node.n = n;
    return b;
}

static void add_ids(Graph *g, int **list, int *n, const int *ids, int count) {
    int *grown = NEW_ARRAY(g->arena, int, *n + count + 1);
    if (*n) memcpy(grown, *list, sizeof(int) * (size_t)*n);
    memcpy(grown + *n, ids, sizeof(int) * (size_t)count);
    *list = grown;
    *n += count;
}

/* A function that reads a whole array of the entry would run its work on
 * it once per element. A map whose function reduces the array (`map (\x ->
 * reduce op z (map (\y -> ...) ys)) xs`) gets a note with the form that
 * compiles: every element paired with the whole array in one array of rows
 * (row i: xs[i] with each element of ys), reduced row by row. */
static noreturn void refuse_array_read(const Graph *g, const IrStmt *s, const IrVal *v) {
    diag_report(
        s->loc,
        "the back end does not support a function that reads a whole array of the entry in entry "
        "'%s' yet; use --interpret",
        g->f->entry);
    if (s->op == IR_MAP && ir_count_stmts(s->body, IR_REDUCE) > 0) {
        int n = s->res[0]->log_len, m = v->log_len;
        diag_note(
            s->loc,
            "to reduce a whole array for each element, pair the elements with it in one array and "
            "reduce its rows: `reduceblocks %d op z (map (\\(x, y) -> ...) (zip (expand %d xs) "
            "(transpose %d %d (expand %d ys))))` for the 2^%d elements xs and the array ys of 2^%d "
            "(transpose: import \"perm\"; row_sum and the other reductions of rows: import "
            "\"rows\")",
            m, m, m, n, n, n, m);
    }
    diag_abort();
}

/* Scalars that element code reads: arrays from outside are refused. */
static void add_args(Graph *g, Build *b, const IrStmt *s, const IrVal *const *vals, int n) {
    for (int i = 0; i < n; i++) {
        const IrVal *v = vals[i];
        if (!ir_is_scalar(v)) refuse_array_read(g, s, v);
        bool seen = false;
        for (int j = 0; j < b->nargs && !seen; j++) seen = b->arg_vals[j] == v;
        if (seen) continue;
        const IrVal **grown = NEW_ARRAY(g->arena, const IrVal *, b->nargs + 1);
        if (b->nargs) memcpy(grown, b->arg_vals, sizeof(IrVal *) * (size_t)b->nargs);
        grown[b->nargs] = v;
        b->arg_vals = grown;
        add_ids(g, &b->args, &b->nargs, planes_of(g, s, v), 1);
    }
}

static void add_body_args(Graph *g, Build *b, const IrStmt *s) {
    if (!s->body) return;
    const IrVal **vals = NULL;
    int n = 0, cap = 0;
    body_reads(g, s->body, &vals, &n, &cap);
    add_args(g, b, s, vals, n);
}

static bool chain_op(IrOp op) {
    return op == IR_PARM || op == IR_TWO || op == IR_COL || op == IR_BMMC || op == IR_MAP;
}

/* half, join and shift: a GATHER node at the entry's level. */
static bool gather_op(IrOp op) { return op == IR_HALF || op == IR_JOIN || op == IR_SHIFT; }

static bool serial_op(IrOp op) {
    return ir_op_is_alu(op) || op == IR_SELECT || op == IR_CONVERT || op == IR_INDEX ||
           op == IR_BUILD;
}

static void visit(Graph *g, const IrStmt *s);

/* Whether the chain reads the caller's shape itself (Schedule.pad): it
 * starts at the padded parameter, which nothing else reads. */
static bool reads_shape(const Graph *g, const Chain *c) {
    return g->pad_val && c->input == g->pad_val && g->uses[idx(g, c->input)] == 1;
}

/* The chain's first `count` statements as a function of one array (and the
 * scalars their bodies read, b's args), scheduled by schedule_func into b;
 * over the caller's shape where it reads it (reads_shape), when that takes a
 * phase that loads it (else the COPY_PAD node's planes). */
static void schedule_chain(Graph *g, const Chain *c, int count, Build *b) {
    for (int i = 0; i < count; i++) add_body_args(g, b, c->stmts[i]);
    IrBody *body = NEW(g->arena, IrBody);
    body->nparams = 1 + b->nargs;
    body->params = NEW_ARRAY(g->arena, IrVal *, body->nparams);
    body->params[0] = (IrVal *)c->input;
    for (int i = 0; i < b->nargs; i++) body->params[1 + i] = (IrVal *)b->arg_vals[i];
    body->nstmts = body->cap = count;
    body->stmts = (IrStmt **)c->stmts;
    body->nresults = 1;
    body->results = NEW_ARRAY(g->arena, IrVal *, 1);
    body->results[0] = c->stmts[count - 1]->res[0];
    IrFunc *fn = NEW(g->arena, IrFunc);
    *fn = *g->f;
    fn->body = body;
    fn->pad_param = reads_shape(g, c) ? 0 : -1;
    const char *why = schedule_refusal(g->arena, fn);
    if (why) refuse(g, c->stmts[0], arena_printf(g->arena, "this stage (%s)", why));
    Schedule *s = &b->node.chain;
    schedule_func(g->arena, fn, g->sched, s);
    if (s->pad && s->nphases == 0) { /* a chain that only renames copies: the padded planes */
        fn->pad_param = -1;
        schedule_func(g->arena, fn, g->sched, s);
    }
    s->pad_in_only = s->pad != NULL;
    if (s->pad && g->out->segments) {
        s->segments = true;
        s->seg_starts_prim = g->out->seg_starts_prim;
        s->seg_lens_prim = g->out->seg_lens_prim;
    }
    if (s->pad_in_only) kernel_plan(s); /* its launch bounds */
}

/* How many of the chain's statements its node takes: all, unless the plan
 * cannot fuse all its halves into its last write (Schedule.half_refused):
 * then those up to the last half it can (half_fit), else up to the half
 * before its last, else those before its one half (a GATHER then). */
static int chain_length(Graph *g, const Chain *c) {
    int count = c->nstmts;
    for (;;) {
        Build trial = {.node.kind = NODE_CHAIN};
        schedule_chain(g, c, count, &trial);
        const Schedule *s = &trial.node.chain;
        if (!s->half_refused) return count;
        int fit_end = 0, last = -1, before_last = -1, seen = 0;
        for (int i = 0; i < count; i++) {
            if (c->stmts[i]->op != IR_HALF) continue;
            if (++seen == s->half_fit) fit_end = i + 1;
            before_last = last;
            last = i;
        }
        if (fit_end > 0 && fit_end < count) count = fit_end;
        else if (before_last >= 0) count = before_last + 1;
        else count = last;
    }
}

/* A chain as one node (chain_length): the statements after those it takes
 * are visited again, after it. */
static void close_chain(Graph *g, Chain *c) {
    c->open = false;
    int count = chain_length(g, c);
    Build *b = new_build(g, NODE_CHAIN, c->input->log_len);
    schedule_chain(g, c, count, b);
    const IrVal *tail = c->stmts[count - 1]->res[0];
    const int *in = planes_of(g, c->stmts[0], c->input);
    if (b->node.chain.pad_in_only) { /* the caller's shape itself: no COPY_PAD (fused: no node) */
        in = g->pad_shaped;
        g->builds[g->pad_copy].fused = true;
    }
    add_ids(g, &b->in, &b->nin, in, c->input->elem->nslots);
    add_ids(g, &b->out, &b->nout, new_planes(g, tail), tail->elem->nslots);
    const IrStmt **rest = c->stmts + count;
    int nrest = c->nstmts - count;
    c->nstmts = count;
    c->tail = tail;
    for (int i = 0; i < nrest; i++) visit(g, rest[i]); /* c may move: g->chains grows */
}

/* The open chain whose last result is v is closed: v gets its planes. */
static void close_tail(Graph *g, const IrVal *v) {
    for (int i = 0; i < g->nchains; i++)
        if (g->chains[i].open && g->chains[i].tail == v) close_chain(g, &g->chains[i]);
}

static void chain_stmt(Graph *g, const IrStmt *s) {
    if (s->nargs != 1 || s->nres != 1 || ir_is_scalar(s->args[0]))
        refuse(g, s, arena_printf(g->arena, "this form of %s", ir_op_name(s->op)));
    const IrVal *v = s->args[0];
    for (int i = 0; i < g->nchains; i++) {
        Chain *c = &g->chains[i];
        if (!c->open || c->tail != v) continue;
        if (g->uses[idx(g, v)] != 1) {
            close_tail(g, v); /* with the chains that closing c starts (close_chain) */
            break;
        }
        GROW(g->arena, c->stmts, c->nstmts, c->cap, const IrStmt *);
        c->stmts[c->nstmts++] = s;
        c->tail = s->res[0];
        return;
    }
    GROW(g->arena, g->chains, g->nchains, g->chain_cap, Chain);
    Chain *c = &g->chains[g->nchains++];
    memset(c, 0, sizeof *c);
    c->input = v;
    c->tail = s->res[0];
    c->open = true;
    planes_of(g, s, v);
    GROW(g->arena, c->stmts, c->nstmts, c->cap, const IrStmt *);
    c->stmts[c->nstmts++] = s;
}

static int log2_floor(unsigned long long x) { return 63 - __builtin_clzll(x); }

/* The open chain of maps alone whose last result is v, read by nothing
 * else: its maps go into the loads of the reduction that reads v. */
static Chain *fusable_maps(Graph *g, const IrVal *v) {
    if (g->uses[idx(g, v)] != 1) return NULL;
    for (int i = 0; i < g->nchains; i++) {
        Chain *c = &g->chains[i];
        if (!c->open || c->tail != v) continue;
        for (int j = 0; j < c->nstmts; j++)
            if (c->stmts[j]->op != IR_MAP) return NULL;
        return c;
    }
    return NULL;
}

/* The phase of a chain node that can reduce what it writes for s: the last
 * LOCAL phase, when only permutations follow it (they keep the multiset of
 * elements, which is all a commutative reduce sees), its elements are
 * those s reduces (not a wider tuple that the chain's output leaves
 * fields of out), and s's operator reads nothing from outside (the chain's
 * kernels pass no more scalars); -1 if none. */
static int fusable_phase(Graph *g, const Schedule *chain, const IrStmt *s) {
    const IrVal **vals = NULL;
    int nvals = 0, cap = 0;
    body_reads(g, s->body, &vals, &nvals, &cap);
    if (!s->commutative || nvals || chain->nhalves) return -1; /* halves keep part of the tile */
    for (int i = chain->nphases - 1; i >= 0; i--) {
        if (chain->phases[i].kind == PHASE_LOCAL) /* its tile, not a store map's results */
            return !chain->phases[i].store_map && !chain->phases[i].cluster_log &&
                           elem_equal(chain->phases[i].elem, s->args[s->nres]->elem)
                       ? i
                       : -1; /* a cluster's tile is not in one block to reduce */
        if (chain->phases[i].kind != PHASE_PERMUTE) return -1;
    }
    return -1;
}

/* The chain node that writes v (just closed), or -1. */
static int chain_writing(const Graph *g, const IrVal *v) {
    const int *ids = g->planes[idx(g, v)];
    for (int i = g->nbuilds - 1; i >= 0; i--)
        if (g->builds[i].node.kind == NODE_CHAIN && ids && g->builds[i].nout &&
            g->builds[i].out[0] == ids[0])
            return i;
    return -1;
}

/* A reduce of the result of a chain whose last value-changing phase can
 * reduce its tiles (fusable_phase): that phase writes one partial per block
 * into new planes, and the REDUCE node reduces those instead of the chain's
 * 2^n elements, so the reduction costs no pass over memory of its own.
 * Returns the partial planes, or NULL. */
static const int *fuse_into_chain(Graph *g, const IrStmt *s, const IrVal *xs) {
    int at = chain_writing(g, xs);
    if (at < 0) return NULL;
    Schedule *chain = &g->builds[at].node.chain;
    int phase = chain->reduce ? -1 : fusable_phase(g, chain, s); /* one reduce per chain */
    if (phase < 0) return NULL;
    chain->reduce = s;
    chain->reduce_phase = phase;
    chain->phases[phase].buffers = 1; /* a partial per tile, from the tile left in shared memory */
    kernel_plan(chain);               /* its shared memory and launch bounds, of one buffer */
    kernel_plan_fused_reduce(chain, g->arena);
    int *ids = NEW_ARRAY(g->arena, int, s->nres);
    for (int k = 0; k < s->nres; k++)
        ids[k] = new_plane(g, chain->phases[phase].block_log, elem_slot_prim(xs->elem, k));
    Build *b = &g->builds[at];
    add_ids(g, &b->partial, &b->npartial, ids, s->nres);
    b->node.npartial = s->nres;
    return ids;
}

/* The CUDA shape of a whole-array REDUCE node: 64 bytes of the widest
 * field per thread, 256 threads a block, at most 2^16 blocks (the second
 * kernel's work). */
static void whole_reduce_shape(PlanNode *node, int widest) {
    int n = node->n, per = log2_floor(64 / (unsigned)widest);
    if (per > n) per = n;
    int threads = n - per < 8 ? n - per : 8;
    if (n - per - threads > 16) per = n - threads - 16;
    node->per_thread_log = per;
    node->threads_log = threads;
    node->row_threads_log = threads;
    node->blocks_log = n - per - threads;
    node->grid_log = node->blocks_log;
    node->final_threads_log = node->blocks_log < 8 ? node->blocks_log : 8;
    node->grid_y_log = plan_grid_y_log(node->grid_log);
}

/* The CUDA shape of a reduceblocks node (PlanNode): threads take 64 bytes
 * of the widest field of a row, as a whole reduce's do; a row of at most 32
 * threads' elements is reduced by a warp's shuffles in one kernel, a larger
 * one by blocks of 256 threads and, when one block does not hold it, a
 * second kernel over the blocks' partials of each row. */
static void block_reduce_shape(const IrStmt *s, PlanNode *node, int widest) {
    int n = node->n, r = s->k, per = log2_floor(64 / (unsigned)widest);
    if (per > r) per = r;
    int rem = r - per, threads = n - per < 8 ? n - per : 8;
    node->rows_log = n - r;
    node->per_thread_log = per;
    if (rem <= 5) {
        node->row_threads_log = rem;
        node->threads_log = threads > rem ? threads : rem;
        node->blocks_log = 0;
    } else {
        node->threads_log = node->row_threads_log = rem < 8 ? rem : 8;
        node->blocks_log = rem - node->threads_log;
        if (node->blocks_log > 16) {
            node->per_thread_log += node->blocks_log - 16;
            node->blocks_log = 16;
        }
    }
    node->grid_log = n - node->per_thread_log - node->threads_log;
    node->final_threads_log = node->blocks_log < 8 ? node->blocks_log : 8;
    node->grid_y_log = plan_grid_y_log(node->grid_log);
    node->final_grid_y_log = node->blocks_log ? plan_grid_y_log(node->rows_log) : 0;
}

/* reduce, or reduceblocks (rows of its result's fields): maps in front of
 * it run in its loads; a commutative reduce of a chain's result runs in
 * the chain's last pass where it can (fuse_into_chain). */
static void reduce_stmt(Graph *g, const IrStmt *s) {
    bool rows = s->op == IR_REDUCEBLOCKS;
    int ns = s->nargs - 1;
    const IrVal *xs = s->args[ns], *loaded = xs;
    if (xs->elem->nslots > SCHED_MAX_SLOTS)
        refuse(g, s,
               arena_printf(g->arena, "a %s of elements of more than %d fields", ir_op_name(s->op),
                            SCHED_MAX_SLOTS));
    Chain *maps = fusable_maps(g, xs);
    const int *partials = NULL;
    if (maps && maps->input->elem->nslots <= SCHED_MAX_SLOTS) {
        maps->open = false;
        loaded = maps->input;
    } else {
        maps = NULL;
        close_tail(g, xs);
        if (!rows) partials = fuse_into_chain(g, s, xs);
    }
    int n = partials ? g->plane[partials[0]].log_len : xs->log_len;
    Build *b = new_build(g, NODE_REDUCE, n);
    b->node.stmt = s;
    b->node.pre_elem = loaded->elem;
    if (maps) {
        b->node.pre = maps->stmts;
        b->node.npre = maps->nstmts;
        for (int i = 0; i < maps->nstmts; i++) add_body_args(g, b, maps->stmts[i]);
    }
    add_ids(g, &b->in, &b->nin, partials ? partials : planes_of(g, s, loaded),
            loaded->elem->nslots);
    add_args(g, b, s, (const IrVal *const *)s->args, ns);
    add_body_args(g, b, s);
    if (rows) add_ids(g, &b->out, &b->nout, new_planes(g, s->res[0]), ns);
    else
        for (int r = 0; r < ns; r++) add_ids(g, &b->out, &b->nout, new_planes(g, s->res[r]), 1);
    int widest = elem_max_slot_bytes(xs->elem) > elem_max_slot_bytes(loaded->elem)
                     ? elem_max_slot_bytes(xs->elem)
                     : elem_max_slot_bytes(loaded->elem);
    if (rows) block_reduce_shape(s, &b->node, widest);
    else whole_reduce_shape(&b->node, widest);
    kernel_plan_reduce(&b->node, g->arena);
    if (!plan_reduce_partials(&b->node)) return;
    for (int k = 0; k < ns; k++) {
        int p = new_plane(g, b->node.rows_log + b->node.blocks_log, elem_slot_prim(xs->elem, k));
        add_ids(g, &b->partial, &b->npartial, &p, 1);
    }
    b->node.npartial = ns;
}

/* expand: a node of its own, each output element read from its row's. */
static void expand_stmt(Graph *g, const IrStmt *s) {
    const IrVal *r = s->res[0];
    close_tail(g, s->args[0]);
    if (r->elem->nslots > SCHED_MAX_SLOTS)
        refuse(g, s,
               arena_printf(g->arena, "an expand of elements of more than %d fields",
                            SCHED_MAX_SLOTS));
    Build *b = new_build(g, NODE_EXPAND, r->log_len);
    b->node.stmt = s;
    add_ids(g, &b->in, &b->nin, planes_of(g, s, s->args[0]), r->elem->nslots);
    add_ids(g, &b->out, &b->nout, new_planes(g, r), r->elem->nslots);
}

/* The CUDA shape of a scan node (PlanNode): 256 threads a tile, at most
 * 2^24 tiles (then each thread takes more). A thread takes 128 bytes of an
 * element of one field, at most 64 elements, and 64 bytes of the widest
 * field of several (each field its registers). A whole-array scan of 2^24
 * int32 ran in 1.30 copies with 128 bytes a thread against 1.48 with 64
 * (half as many tiles to look back over, twice the loads in flight) and
 * 1.51 with 64 bytes and 512 threads (bench/results/2026-11-27-h100-s17.md). */
static void scan_shape(PlanNode *node, int widest, int fields) {
    int bytes = fields == 1 ? 128 : 64;
    int n = node->n, per = log2_floor((unsigned)bytes / (unsigned)widest);
    if (per > 6) per = 6;
    if (per > n) per = n;
    int threads = n - per < 8 ? n - per : 8;
    int tiles = n - per - threads;
    if (tiles > 24) {
        per += tiles - 24;
        tiles = 24;
    }
    node->per_thread_log = per;
    node->threads_log = threads;
    node->grid_log = tiles;
}

/* scanblocks, exscanblocks: a node of its own, one pass over the array;
 * its partials hold the tiles' totals and prefixes and their states, which
 * only a scanned block larger than a tile reads (the look-back): a state
 * and its value are one 64-bit word where the element is one field of at
 * most 4 bytes, so that one load reads both. */
static void scan_stmt(Graph *g, const IrStmt *s) {
    int ns = s->nargs - 1;
    const IrVal *xs = s->args[ns];
    close_tail(g, xs);
    if (xs->elem->nslots > SCHED_MAX_SLOTS)
        refuse(g, s,
               arena_printf(g->arena, "a scan of elements of more than %d fields",
                            SCHED_MAX_SLOTS));
    Build *b = new_build(g, NODE_SCAN, xs->log_len);
    b->node.stmt = s;
    add_ids(g, &b->in, &b->nin, planes_of(g, s, xs), ns);
    add_args(g, b, s, (const IrVal *const *)s->args, ns);
    add_body_args(g, b, s);
    add_ids(g, &b->out, &b->nout, new_planes(g, s->res[0]), ns);
    scan_shape(&b->node, elem_max_slot_bytes(xs->elem), ns);
    kernel_plan_scan(&b->node, g->arena);
    /* one field of at most 4 bytes rides in its tile's state word */
    bool packed = ns == 1 && elem_max_slot_bytes(xs->elem) <= 4;
    for (int half = 0; !packed && half < 2; half++)
        for (int k = 0; k < ns; k++) {
            int p = new_plane(g, b->node.grid_log, elem_slot_prim(xs->elem, k));
            add_ids(g, &b->partial, &b->npartial, &p, 1);
        }
    int states = new_plane(g, b->node.grid_log + 1, PRIM_U64);
    add_ids(g, &b->partial, &b->npartial, &states, 1);
    b->node.npartial = packed ? 1 : 2 * ns + 1;
}

static void fill_stmt(Graph *g, const IrStmt *s) {
    const IrVal *r = s->res[0];
    if (r->elem->nslots != s->nargs) refuse(g, s, "this form of replicate");
    Build *b = new_build(g, NODE_FILL, r->log_len);
    b->node.stmt = s;
    add_args(g, b, s, (const IrVal *const *)s->args, s->nargs);
    add_ids(g, &b->out, &b->nout, new_planes(g, r), r->elem->nslots);
}


/* A half, a shift, or a join of an array with itself: element x of the
 * result is one element of one array. */
static bool one_source(const IrStmt *s) {
    return s->op == IR_HALF || s->op == IR_SHIFT || (s->op == IR_JOIN && s->args[0] == s->args[1]);
}

static const IrVal *gather_source(const IrStmt *s) { return s->args[s->nargs - 1]; }

/* Whether s's result goes only into the one-source gather after it, whose
 * kernel then does s's work too (its index map composed). */
static bool fused_gather(const Graph *g, const IrStmt *s) {
    const IrVal *v = s->res[0];
    if (!one_source(s)) return false;
    const IrBody *body = g->f->body;
    for (int i = 0; i < body->nstmts; i++) {
        const IrStmt *t = body->stmts[i];
        int reads = 0; /* a join of v with itself reads it twice */
        for (int a = 0; a < t->nargs; a++) reads += t->args[a] == v;
        if (reads) return reads == g->uses[idx(g, v)] && one_source(t) && gather_source(t) == v;
    }
    return false; /* an entry's result, or read in a function */
}

/* A half of the open chain's result that only it reads goes on the chain,
 * fused into the write of its last phase where the plan allows
 * (Schedule.halves, chain_length); returns whether it went. */
static bool half_into_chain(Graph *g, const IrStmt *s) {
    const IrVal *v = s->args[0];
    if (s->op != IR_HALF || g->uses[idx(g, v)] != 1) return false;
    for (int i = 0; i < g->nchains; i++) {
        Chain *c = &g->chains[i];
        if (!c->open || c->tail != v) continue;
        GROW(g->arena, c->stmts, c->nstmts, c->cap, const IrStmt *);
        c->stmts[c->nstmts++] = s;
        c->tail = s->res[0];
        return true;
    }
    return false;
}

/* half, join or shift, with the one-source ones before it that only it
 * reads (fused_gather): one kernel, reading the arrays they move. */
static void gather_stmt(Graph *g, const IrStmt *s) {
    if (fused_gather(g, s) || half_into_chain(g, s)) return;
    const IrStmt *first = s;
    while (one_source(first) && gather_source(first)->def &&
           gather_op(gather_source(first)->def->op) && fused_gather(g, gather_source(first)->def))
        first = gather_source(first)->def;
    /* its sources: the one array, or a join's two */
    int first_array = one_source(first) ? first->nargs - 1 : 0;
    for (int a = first_array; a < first->nargs; a++) close_tail(g, first->args[a]);
    const IrVal *r = s->res[0];
    Build *b = new_build(g, NODE_GATHER, r->log_len);
    b->node.stmt = s;
    int npre = 0;
    for (const IrStmt *t = s; t != first; t = gather_source(t)->def) npre++;
    const IrStmt **pre = NEW_ARRAY(g->arena, const IrStmt *, npre > 0 ? npre : 1);
    int at = npre;
    for (const IrStmt *t = gather_source(s)->def; at > 0; t = gather_source(t)->def) pre[--at] = t;
    b->node.pre = pre;
    b->node.npre = npre;
    for (int a = first_array; a < first->nargs; a++)
        add_ids(g, &b->in, &b->nin, planes_of(g, first, first->args[a]),
                first->args[a]->elem->nslots);
    for (int i = 0; i <= npre; i++) {
        const IrStmt *t = i < npre ? pre[i] : s;
        if (t->op == IR_SHIFT) add_args(g, b, t, (const IrVal *const *)t->args, t->nargs - 1);
    }
    add_ids(g, &b->out, &b->nout, new_planes(g, r), r->elem->nslots);
}

static bool in_group(const Graph *g, const IrVal *v) {
    for (int i = 0; i < g->ngroup; i++)
        for (int r = 0; r < g->group[i]->nres; r++)
            if (g->group[i]->res[r] == v) return true;
    return false;
}

/* The open run of scalar statements as one SERIAL node: an index of an
 * array from outside is a load (a parameter of the node's body), the
 * scalars from outside are its args, and the values read after the run
 * are its results, stored to their planes. */
static void flush_group(Graph *g) {
    if (g->ngroup == 0) return;
    Build *b = new_build(g, NODE_SERIAL, 0);
    IrBody *body = NEW(g->arena, IrBody);
    body->params = NEW_ARRAY(g->arena, IrVal *, g->ngroup);
    body->stmts = NEW_ARRAY(g->arena, IrStmt *, g->ngroup);
    body->results = NEW_ARRAY(g->arena, IrVal *, g->ngroup);
    int64_t *load_index = NEW_ARRAY(g->arena, int64_t, g->ngroup);
    for (int i = 0; i < g->ngroup; i++) {
        const IrStmt *s = g->group[i];
        if (s->op == IR_INDEX && !in_group(g, s->args[0])) {
            const int *ids = planes_of(g, s, s->args[0]);
            load_index[body->nparams] = s->at;
            body->params[body->nparams++] = s->res[0];
            add_ids(g, &b->in, &b->nin, &ids[s->slot], 1);
            continue;
        }
        body->stmts[body->nstmts++] = (IrStmt *)s;
        for (int a = 0; a < s->nargs; a++)
            if (!in_group(g, s->args[a])) add_args(g, b, s, (const IrVal *const *)&s->args[a], 1);
    }
    body->cap = body->nstmts;
    /* results: the values with readers outside the run */
    for (int i = 0; i < g->ngroup; i++) {
        const IrVal *v = g->group[i]->res[0];
        int inside = 0;
        for (int j = 0; j < g->ngroup; j++)
            for (int a = 0; a < g->group[j]->nargs; a++) inside += g->group[j]->args[a] == v;
        if (g->uses[idx(g, v)] <= inside) continue;
        body->results[body->nresults++] = (IrVal *)v;
        add_ids(g, &b->out, &b->nout, planes_of(g, g->group[i], v), v->elem->nslots);
    }
    b->node.serial = body;
    b->node.load_index = load_index;
    g->ngroup = 0;
}

static void group_stmt(Graph *g, const IrStmt *s) {
    if (s->nres != 1) refuse(g, s, ir_op_name(s->op));
    for (int a = 0; a < s->nargs; a++)
        if (!ir_is_scalar(s->args[a])) close_tail(g, s->args[a]);
    if (!ir_is_scalar(s->res[0]) &&
        (s->res[0]->log_len > 6 || s->res[0]->elem->nslots > SCHED_MAX_SLOTS))
        refuse(g, s,
               arena_printf(g->arena, "an array built of more than 64 elements or %d fields",
                            SCHED_MAX_SLOTS));
    new_planes(g, s->res[0]);
    GROW(g->arena, g->group, g->ngroup, g->group_cap, const IrStmt *);
    g->group[g->ngroup++] = s;
}

/* zip: the arguments' planes in turn; unzip: the argument's, field by field. */
static void rename_stmt(Graph *g, const IrStmt *s) {
    for (int a = 0; a < s->nargs; a++) close_tail(g, s->args[a]);
    if (s->op == IR_ZIP) {
        const IrVal *r = s->res[0];
        int *ids = NEW_ARRAY(g->arena, int, r->elem->nslots), at = 0;
        for (int a = 0; a < s->nargs; a++) {
            const int *p = planes_of(g, s, s->args[a]);
            for (int k = 0; k < s->args[a]->elem->nslots; k++) ids[at++] = p[k];
        }
        g->planes[idx(g, r)] = ids;
        return;
    }
    const int *p = planes_of(g, s, s->args[0]);
    for (int r = 0, at = 0; r < s->nres; r++) {
        g->planes[idx(g, s->res[r])] = (int *)p + at;
        at += s->res[r]->elem->nslots;
    }
}

/* Whether s reads a value of the open run of scalar statements (the run
 * goes on past statements that do not, so it stays one node). */
static bool reads_group(Graph *g, const IrStmt *s) {
    for (int a = 0; a < s->nargs; a++)
        if (in_group(g, s->args[a])) return true;
    if (!s->body) return false;
    const IrVal **vals = NULL;
    int n = 0, cap = 0;
    body_reads(g, s->body, &vals, &n, &cap);
    for (int j = 0; j < n; j++)
        if (in_group(g, vals[j])) return true;
    return false;
}

static void visit(Graph *g, const IrStmt *s) {
    if (s->op == IR_CONST) {
        value_plane(g, s->res[0]);
        return;
    }
    if (s->op == IR_ZIP || s->op == IR_UNZIP) {
        if (reads_group(g, s)) flush_group(g); /* its readers do not see the run's values */
        rename_stmt(g, s);
        return;
    }
    if (serial_op(s->op)) {
        group_stmt(g, s);
        return;
    }
    if (reads_group(g, s)) flush_group(g);
    if (chain_op(s->op)) chain_stmt(g, s);
    else if (s->op == IR_REDUCE || s->op == IR_REDUCEBLOCKS) reduce_stmt(g, s);
    else if (s->op == IR_EXPAND) expand_stmt(g, s);
    else if (s->op == IR_SCAN) scan_stmt(g, s);
    else if (s->op == IR_REPLICATE) fill_stmt(g, s);
    else if (gather_op(s->op)) gather_stmt(g, s);
    else refuse(g, s, arena_printf(g->arena, "%s at the entry's level", ir_op_name(s->op)));
}

/* ---- locations ---- */

/* A result that the interpreter cuts to the shape given (io.c): an array
 * of the padded parameter's length, of an entry of any length, or one that
 * the entry's result row length cuts. */
static bool cut_to_shape(const Graph *g, const IrVal *v) {
    return g->f->pad_param >= 0 && !ir_is_scalar(v) &&
           (v->log_len == g->f->body->params[g->f->pad_param]->log_len ||
            ir_cut_row_log(g->f, v) >= 0);
}

/* The row length a shaped result is cut to: the entry's result row length,
 * or 0 for the caller's (PlaneRef.row_cut). */
static long long row_cut(const Graph *g, const IrVal *v) {
    return ir_cut_row_log(g->f, v) >= 0 ? g->f->cut_cols : 0;
}

static int *plane_readers(const Graph *g);

/* A chain that pads its loads (Schedule.pad_in_only) and whose every output
 * plane is a result of the padded length and nothing else (no node reads
 * it, no other result is it) writes the caller's shape itself: its last
 * phase stores only the elements there, as a one-chain entry's does, and
 * no COPY_CUT pass follows (a segmented sort writes its segments). */
static void cut_in_chains(Graph *g) {
    const IrBody *body = g->f->body;
    const int *readers = plane_readers(g);
    int *uses = NEW_ARRAY(g->arena, int, g->nplanes > 0 ? g->nplanes : 1);
    int *flat_of = NEW_ARRAY(g->arena, int, g->nplanes > 0 ? g->nplanes : 1);
    bool *cut = NEW_ARRAY(g->arena, bool, g->nplanes > 0 ? g->nplanes : 1);
    for (int r = 0, flat = 0; r < body->nresults; flat += body->results[r++]->elem->nslots) {
        const IrVal *v = body->results[r];
        const int *ids = planes_of(g, NULL, v);
        for (int k = 0; k < v->elem->nslots; k++) {
            uses[ids[k]]++;
            flat_of[ids[k]] = flat + k;
            cut[ids[k]] = cut_to_shape(g, v) && row_cut(g, v) == 0;
        }
    }
    for (int i = 0; i < g->nbuilds; i++) {
        Build *b = &g->builds[i];
        if (b->node.kind != NODE_CHAIN || !b->node.chain.pad_in_only) continue;
        bool all = true;
        for (int k = 0; k < b->nout; k++) {
            int p = b->out[k];
            all &= !g->located[p] && readers[p] == 0 && uses[p] == 1 && cut[p];
        }
        if (!all) continue;
        for (int k = 0; k < b->nout; k++) {
            locate(g, b->out[k], LOC_RESULT, flat_of[b->out[k]], NULL);
            g->plane[b->out[k]].shaped = true;
        }
        b->node.chain.pad_in_only = false;
        kernel_plan(&b->node.chain); /* its launch bounds, with padded stores */
    }
}

/* Results take the planes of their values where nothing else has; the
 * others are copies, made last (for an entry of any length, a result of
 * its padded length is a copy cut to the shape, unless its chain writes
 * the shape itself: cut_in_chains). */
static void place_results(Graph *g) {
    cut_in_chains(g);
    const IrBody *body = g->f->body;
    int flat = 0;
    for (int r = 0; r < body->nresults; r++) {
        const IrVal *v = body->results[r];
        const int *ids = planes_of(g, NULL, v);
        int ns = v->elem->nslots, first_copy = -1;
        int *from = NEW_ARRAY(g->arena, int, ns), *to = NEW_ARRAY(g->arena, int, ns), ncopy = 0;
        bool cut = cut_to_shape(g, v);
        /* the padded parameter itself: the caller's shape copied as it lies */
        bool as_lies = cut && v == g->pad_val && !g->out->segments && row_cut(g, v) == 0;
        for (int k = 0; k < ns; k++) {
            int p = ids[k];
            if (g->located[p] && g->plane[p].kind == LOC_RESULT && g->plane[p].index == flat + k)
                continue; /* written by its chain (cut_in_chains) */
            if (!g->located[p] && !cut) {
                locate(g, p, LOC_RESULT, flat + k, NULL);
                continue;
            }
            int dst = new_plane(g, v->log_len, elem_slot_prim(v->elem, k));
            locate(g, dst, LOC_RESULT, flat + k, NULL);
            g->plane[dst].shaped = cut;
            g->plane[dst].row_cut = row_cut(g, v);
            if (g->located[p] && g->plane[p].kind == LOC_VALUE) {
                Build *b = new_build(g, NODE_FILL, 0);
                add_args(g, b, NULL, &g->plane[p].val, 1);
                add_ids(g, &b->out, &b->nout, &dst, 1);
                continue;
            }
            if (first_copy < 0) first_copy = k;
            from[ncopy] = as_lies ? g->pad_shaped[k] : p;
            to[ncopy++] = dst;
        }
        if (ncopy) {
            Build *b = new_build(g, NODE_COPY, v->log_len < 0 ? 0 : v->log_len);
            b->node.copy = as_lies ? COPY_SHAPE : cut ? COPY_CUT : COPY_PLAIN;
            add_ids(g, &b->in, &b->nin, from, ncopy);
            add_ids(g, &b->out, &b->nout, to, ncopy);
        }
        flat += ns;
    }
}


/* ---- planes fused into chains ---- */

/* How many times the nodes read each plane, by plane id. */
static int *plane_readers(const Graph *g) {
    int *count = NEW_ARRAY(g->arena, int, g->nplanes > 0 ? g->nplanes : 1);
    for (int i = 0; i < g->nbuilds; i++) {
        const Build *b = &g->builds[i];
        for (int k = 0; k < b->nin; k++) count[b->in[k]]++;
        for (int k = 0; k < b->nargs; k++) count[b->args[k]]++;
    }
    return count;
}

/* The expand build whose outputs node c alone reads, each once, with its
 * output plane p among them; -1 if none. */
static int expand_read_only_by(const Graph *g, const int *readers, const Build *c, int p) {
    for (int i = 0; i < g->nbuilds; i++) {
        const Build *e = &g->builds[i];
        if (e->node.kind != NODE_EXPAND || e->fused) continue;
        bool writes_p = false, only_c = true;
        for (int k = 0; k < e->nout; k++) {
            int reads_in_c = 0;
            for (int j = 0; j < c->nin; j++) reads_in_c += c->in[j] == e->out[k];
            writes_p |= e->out[k] == p;
            only_c &= !g->located[e->out[k]] && reads_in_c == 1 && readers[e->out[k]] == 1;
        }
        if (writes_p) return only_c ? i : -1;
    }
    return -1;
}

/* Reader b loads its input plane k from the input of expand build e
 * instead of from e's output, which e no longer writes. */
static void read_expand_in_place(Build *b, int k, Build *e) {
    for (int j = 0; j < e->nout; j++)
        if (e->out[j] == b->in[k]) b->in[k] = e->in[j];
    e->fused = true;
}

/* For each input plane k of node b, the expand build that b alone reads it
 * from, or -1; found before any is fused, since fusing one plane of an
 * expand of several moves them all. */
static int *expands_read_by(const Graph *g, const int *readers, const Build *b) {
    int *from = NEW_ARRAY(g->arena, int, b->nin > 0 ? b->nin : 1);
    for (int k = 0; k < b->nin; k++) from[k] = expand_read_only_by(g, readers, b, b->in[k]);
    return from;
}

/* A chain reads an expand in place and leaves unstored the planes that
 * nothing reads, where its plan can (schedule_fuse_planes): the expand's
 * write and the read of its result become a read of 2^-k of the bytes, and
 * a plane nobody reads costs no write (the prefixes of a scan of blocks,
 * a sort whose only reader is a reduce fused into it). */
static void fuse_chain_planes(Graph *g, const int *readers, Build *c) {
    int shift[SCHED_MAX_SLOTS] = {0};
    const int *from = expands_read_by(g, readers, c);
    unsigned unstored = 0;
    for (int k = 0; k < c->nin && k < SCHED_MAX_SLOTS; k++)
        if (from[k] >= 0) shift[k] = g->builds[from[k]].node.stmt->k;
    for (int k = 0; k < c->nout && k < SCHED_MAX_SLOTS; k++)
        if (!g->located[c->out[k]] && readers[c->out[k]] == 0) unstored |= 1u << k;
    Schedule *chain = &c->node.chain;
    schedule_fuse_planes(chain, shift, unstored);
    for (int k = 0; k < c->nin && k < SCHED_MAX_SLOTS; k++)
        if (chain->in_shift[k]) read_expand_in_place(c, k, &g->builds[from[k]]);
    for (int k = 0; k < c->nout && k < SCHED_MAX_SLOTS; k++)
        if (chain->out_unstored >> k & 1) locate(g, c->out[k], LOC_UNSTORED, -1, NULL);
}

/* A reduction loads an expand's input in place (PlanNode.in_shift): its
 * loads are element by element, or a thread's contiguous run of each plane. */
static void fuse_reduce_planes(Graph *g, const int *readers, Build *r) {
    const int *from = expands_read_by(g, readers, r);
    int *shift = NULL;
    for (int k = 0; k < r->nin; k++) {
        if (from[k] < 0) continue;
        if (!shift) shift = NEW_ARRAY(g->arena, int, r->nin);
        shift[k] = g->builds[from[k]].node.stmt->k;
        read_expand_in_place(r, k, &g->builds[from[k]]);
    }
    r->node.in_shift = shift;
}

/* ---- slices read in place ---- */

/* The one node that writes plane p, or -1: none (a parameter's plane), or
 * several (the two chains that write a join's halves, fuse_join). */
static int writer_of(const Graph *g, int p) {
    int found = -1;
    for (int i = 0; i < g->nbuilds; i++) {
        if (g->builds[i].fused) continue;
        for (int k = 0; k < g->builds[i].nout; k++) {
            if (g->builds[i].out[k] != p) continue;
            if (found >= 0 && found != i) return -1;
            found = i;
        }
    }
    return found;
}

/* Whether build b writes exactly planes ids, all its output, in order. */
static bool writes_exactly(const Build *b, const int *ids, int n) {
    if (b->nout != n) return false;
    for (int k = 0; k < n; k++)
        if (b->out[k] != ids[k]) return false;
    return true;
}

/* Whether gather build b cuts a slice (Slice) of its one source: halves by
 * powers of two alone, its fused ones and its own. */
static bool slice_gather(const Build *b) {
    if (b->node.kind != NODE_GATHER || b->fused) return false;
    for (int i = 0; i <= b->node.npre; i++) {
        const IrStmt *t = i < b->node.npre ? b->node.pre[i] : b->node.stmt;
        if (t->op != IR_HALF || (t->mask & (t->mask - 1))) return false;
    }
    return true;
}

/* sl, of the array a half (2^p) b was taken from, made the slice of that
 * half: bit p of the half's source is the p-th bit outside sl's fixed ones. */
static void slice_half(Slice *sl, const IrStmt *half) {
    int p = __builtin_ctzll(half->mask), bit = 0;
    for (int free = -1; bit < sl->log; bit++)
        if (!(sl->fixed >> bit & 1) && ++free == p) break;
    sl->fixed |= UINT64_C(1) << bit;
    sl->value |= (uint64_t)half->k << bit;
}

/* Chain c reads, in place, the array that the slice gathers before it
 * (slice_gather, through any number of them) cut its input from: the
 * gathers' passes go where nothing else reads them (drop_unread), and a
 * slice of the padded parameter reads the caller's shape with the pad,
 * so that pieces of rows of any length cost their own lengths' work. */
static void fuse_slice(Graph *g, Build *c) {
    const Build *path[64];
    int depth = 0, n = c->nin, w;
    const int *planes = c->in;
    /* the gathers, last first, each writing exactly the planes read after it */
    for (; depth < 64; depth++) {
        w = writer_of(g, planes[0]);
        if (w < 0 || !slice_gather(&g->builds[w])) break;
        const Build *b = &g->builds[w];
        if (!writes_exactly(b, planes, n)) break;
        path[depth] = b;
        planes = b->in;
    }
    if (depth == 0) return;
    bool padded = g->pad_val && w == g->pad_copy && writes_exactly(&g->builds[w], planes, n);
    Slice sl = {.log = g->plane[planes[0]].log_len};
    for (int d = depth - 1; d >= 0; d--) {
        for (int i = 0; i < path[d]->node.npre; i++) slice_half(&sl, path[d]->node.pre[i]);
        slice_half(&sl, path[d]->node.stmt);
    }
    if (!schedule_fuse_slice(&c->node.chain, &sl, padded ? g->out : NULL)) return;
    const int *from = padded ? g->pad_shaped : planes;
    for (int k = 0; k < n; k++) c->in[k] = from[k];
}

/* Gathers and the COPY_PAD whose planes nothing reads any more (slices
 * read in place, fuse_slice) make no node, and then neither do those only
 * they read. */
static void drop_unread(Graph *g) {
    for (bool dropped = true; dropped;) {
        dropped = false;
        const int *readers = plane_readers(g);
        for (int i = 0; i < g->nbuilds; i++) {
            Build *b = &g->builds[i];
            bool copy_pad = g->pad_val && i == g->pad_copy;
            if (b->fused || (b->node.kind != NODE_GATHER && !copy_pad)) continue;
            bool unread = true;
            for (int k = 0; k < b->nout; k++)
                unread &= !g->located[b->out[k]] && readers[b->out[k]] == 0;
            if (!unread) continue;
            b->fused = true;
            b->nin = 0; /* it reads nothing: its sources' readers drop too */
            dropped = true;
        }
    }
}

/* The chain build that alone writes planes ids (all its output, in order)
 * that only one node reads, once each, and that have no place yet; or -1. */
static int sole_chain_writer(const Graph *g, const int *readers, const int *ids, int n) {
    int w = writer_of(g, ids[0]);
    if (w < 0 || g->builds[w].node.kind != NODE_CHAIN || !writes_exactly(&g->builds[w], ids, n))
        return -1;
    for (int k = 0; k < n; k++)
        if (readers[ids[k]] != 1 || g->located[ids[k]]) return -1;
    return w;
}

/* A join by a power of two of two arrays that chains write, each read by
 * the join alone, makes no pass: each chain writes its half of the join's
 * planes in place (Schedule.out_slice), as the top-k's pieces are merged. */
static void fuse_join(Graph *g, const int *readers, Build *j) {
    const IrStmt *s = j->node.stmt;
    if (j->fused || j->node.kind != NODE_GATHER || j->node.npre || s->op != IR_JOIN ||
        s->args[0] == s->args[1] || (s->mask & (s->mask - 1)))
        return;
    int ns = j->nout;
    int lo = sole_chain_writer(g, readers, j->in, ns),
        hi = sole_chain_writer(g, readers, j->in + ns, ns);
    if (lo < 0 || hi < 0 || lo == hi) return;
    Schedule *a = &g->builds[lo].node.chain, *b = &g->builds[hi].node.chain;
    Slice low = {.log = j->node.n, .fixed = s->mask, .value = 0}, high = low;
    high.value = s->mask;
    if (!schedule_takes_out_slice(a, &low) || !schedule_takes_out_slice(b, &high)) return;
    schedule_fuse_out_slice(a, &low);
    schedule_fuse_out_slice(b, &high);
    for (int k = 0; k < ns; k++) g->builds[lo].out[k] = g->builds[hi].out[k] = j->out[k];
    j->fused = true;
    j->nin = 0;
}

/* Chains read the slices that gathers cut of their inputs in place, and
 * write the halves of joins of two arrays in place. */
static void fuse_slices(Graph *g) {
    for (int i = 0; i < g->nbuilds; i++)
        if (g->builds[i].node.kind == NODE_CHAIN && !g->builds[i].fused)
            fuse_slice(g, &g->builds[i]);
    drop_unread(g);
    const int *readers = plane_readers(g);
    for (int i = 0; i < g->nbuilds; i++) fuse_join(g, readers, &g->builds[i]);
}

/* Expands read in place by the one node that reads them, and chains'
 * planes that nothing reads left unstored. */
static void fuse_planes(Graph *g) {
    fuse_slices(g);
    /* a fused expand's reads move to its reader, which reads each of its
       planes only once: the counts of the other planes stay true */
    const int *readers = plane_readers(g);
    for (int i = 0; i < g->nbuilds; i++) {
        Build *b = &g->builds[i];
        if (b->node.kind == NODE_CHAIN) fuse_chain_planes(g, readers, b);
        else if (b->node.kind == NODE_REDUCE) fuse_reduce_planes(g, readers, b);
    }
}

static const PlaneRef *resolve(Graph *g, const int *ids, int n) {
    PlaneRef *refs = NEW_ARRAY(g->arena, PlaneRef, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) {
        if (!g->located[ids[i]])
            diag_fatal("internal error: a plane of entry '%s' without a place", g->f->name);
        refs[i] = g->plane[ids[i]];
    }
    return refs;
}

static void finish_nodes(Graph *g) {
    EntryPlan *e = g->out;
    int temp_cap = 0;
    e->nodes = NEW_ARRAY(g->arena, PlanNode, g->nbuilds);
    for (int i = 0; i < g->nbuilds; i++) {
        Build *b = &g->builds[i];
        if (b->fused) continue;
        PlanNode *n = &e->nodes[e->nnodes++];
        *n = b->node;
        for (int k = 0; k < b->nin + b->nout + b->npartial + b->nargs; k++) {
            int p = k < b->nin             ? b->in[k]
                    : k < b->nin + b->nout ? b->out[k - b->nin]
                    : k < b->nin + b->nout + b->npartial
                        ? b->partial[k - b->nin - b->nout]
                        : b->args[k - b->nin - b->nout - b->npartial];
            if (g->located[p]) continue;
            GROW(g->arena, e->temps, e->ntemps, temp_cap, Temp);
            /* its offset: host_plan.c */
            e->temps[e->ntemps] = (Temp){0, (unsigned long long)(prim_bits(g->plane[p].prim) / 8)
                                                << g->plane[p].log_len};
            locate(g, p, LOC_TEMP, e->ntemps++, NULL);
        }
        n->in = resolve(g, b->in, b->nin);
        n->nin = b->nin;
        n->out = resolve(g, b->out, b->nout);
        n->nout = b->nout;
        n->partial = resolve(g, b->partial, b->npartial);
        n->arg_at = resolve(g, b->args, b->nargs);
        n->args = b->arg_vals;
        n->nargs = b->nargs;
        if (n->kind == NODE_CHAIN) {
            bool *by_ref = NEW_ARRAY(g->arena, bool, n->nargs > 0 ? n->nargs : 1);
            for (int k = 0; k < n->nargs; k++) by_ref[k] = n->arg_at[k].kind != LOC_VALUE;
            n->chain.arg_by_ref = by_ref;
        }
    }
}

int entry_plan_api_n(const IrFunc *f) {
    const IrBody *body = f->body;
    for (int i = 0; i < body->nparams; i++)
        if (!ir_is_scalar(body->params[i])) return body->params[i]->log_len;
    for (int i = 0; i < body->nresults; i++)
        if (!ir_is_scalar(body->results[i])) return body->results[i]->log_len;
    return -1;
}

/* The shapes of the API's planes, and n: the first array's length. */
static void api_planes(Graph *g) {
    EntryPlan *e = g->out;
    const IrBody *body = g->f->body;
    e->n = entry_plan_api_n(g->f);
    for (int pass = 0; pass < 2; pass++) {
        int count = 0;
        PlaneRef *refs = NULL;
        for (int round = 0; round < 2; round++) {
            int at = 0;
            int nv = pass ? body->nresults : body->nparams;
            for (int i = 0; i < nv; i++) {
                const IrVal *v = pass ? body->results[i] : body->params[i];
                if (!pass && ir_is_scalar(v)) continue;
                bool shaped = pass ? cut_to_shape(g, v) : i == g->f->pad_param;
                for (int k = 0; k < v->elem->nslots; k++, at++)
                    if (round)
                        refs[at] = (PlaneRef){pass ? LOC_RESULT : LOC_PARAM,
                                              at,
                                              v->log_len < 0 ? 0 : v->log_len,
                                              elem_slot_prim(v->elem, k),
                                              NULL,
                                              shaped,
                                              pass ? row_cut(g, v) : 0};
            }
            if (!round) {
                count = at;
                refs = NEW_ARRAY(g->arena, PlaneRef, count > 0 ? count : 1);
            }
        }
        if (pass) {
            e->out_planes = refs;
            e->nout_planes = count;
        } else {
            e->in_planes = refs;
            e->nin_planes = count;
        }
    }
}

/* One chain of stages (the shape that schedule_refusal judges alone): one
 * array parameter, a chain of array stages to the one array result (or
 * element code from a 2-element array to a 2-element result, one pair step:
 * a result of another length, such as a replicate of a reduce, is a graph,
 * and so is a result the entry's result row length cuts, which a COPY_CUT
 * node writes). */
static bool one_chain_entry(const IrFunc *f) {
    const IrBody *body = f->body;
    if (body->nresults != 1 || ir_is_scalar(body->results[0]) || f->cut_cols) return false;
    const IrVal *in = NULL;
    for (int i = 0; i < body->nparams; i++) {
        if (ir_is_scalar(body->params[i])) continue;
        if (in) return false;
        in = body->params[i];
    }
    if (!in) return false;
    /* a comparator on the whole input: one pair step, which keeps the type */
    if (in->log_len == 1 && body->results[0]->log_len == 1 && body->nparams == 1 &&
        body->nstmts > 0 && body->stmts[0]->op != IR_TWO &&
        elem_equal(in->elem, body->results[0]->elem)) {
        bool element = true;
        for (int i = 0; i < body->nstmts && element; i++)
            element = !chain_op(body->stmts[i]->op) && !gather_op(body->stmts[i]->op) &&
                      body->stmts[i]->op != IR_EXPAND &&
                      (!body->stmts[i]->body || body->stmts[i]->op == IR_REDUCE);
        if (element) return true;
    }
    const IrVal *cur = in;
    for (int i = 0; i < body->nstmts; i++) {
        const IrStmt *s = body->stmts[i];
        if (!chain_op(s->op) || s->nargs != 1 || s->args[0] != cur || s->nres != 1) return false;
        cur = s->res[0];
    }
    return cur == body->results[0];
}

/* An array stage of f whose elements have more fields than a tile holds,
 * located at *where; NULL when none. */
static const char *wide_stage(Arena *arena, const IrFunc *f, Loc *where) {
    const IrBody *body = f->body;
    for (int i = 0; i < body->nstmts; i++) {
        const IrStmt *s = body->stmts[i];
        *where = s->loc;
        for (int r = 0; r < s->nres; r++)
            if (chain_op(s->op) && s->res[r]->elem->nslots > SCHED_MAX_SLOTS)
                return arena_printf(
                    arena,
                    "the back end supports elements of at most %d fields; '%s' has elements "
                    "of %d",
                    SCHED_MAX_SLOTS, f->entry, s->res[r]->elem->nslots);
    }
    return NULL;
}

/* With ranks, each holds a slice of every array parameter and result:
 * the refusal of the first array that has fewer elements than ranks. */
static const char *too_small_for_ranks(Arena *arena, const IrFunc *f, int gpu_log) {
    const IrBody *body = f->body;
    for (int i = 0; i < body->nparams; i++)
        if (!ir_is_scalar(body->params[i]) && body->params[i]->log_len < gpu_log)
            return schedule_gpus_refusal(arena, f, body->params[i]->log_len, gpu_log);
    for (int i = 0; i < body->nresults; i++)
        if (!ir_is_scalar(body->results[i]) && body->results[i]->log_len < gpu_log)
            return arena_printf(arena,
                                "'%s' returns an array of 2^%d elements, but the back end "
                                "compiles an entry for %d GPUs (--gpus) when each holds at "
                                "least 1 of every array",
                                f->entry, body->results[i]->log_len, 1 << gpu_log);
    return NULL;
}

/* A refusal of f as a whole (its shape, fields or a stage's elements), so
 * that a ranged entry can leave that size out (driver.c). */
const char *entry_plan_refusal(Arena *arena, const IrFunc *f, const SchedOptions *opt, Loc *where) {
    const char *wide = wide_stage(arena, f, where);
    if (wide) return wide;
    *where = f->loc;
    const char *too_few = too_small_for_ranks(arena, f, opt ? opt->gpu_log : 0);
    if (too_few) return too_few;
    if (one_chain_entry(f)) return schedule_refusal(arena, f);
    const IrBody *body = f->body;
    /* the API passes a value or pointer per field; C compilers need only
     * accept 127 parameters (a nested zip doubles the fields each time) */
    int fields = 0;
    for (int i = 0; i < body->nparams; i++) fields += body->params[i]->elem->nslots;
    for (int i = 0; i < body->nresults; i++) fields += body->results[i]->elem->nslots;
    if (fields > ENTRY_MAX_API_FIELDS)
        return arena_printf(
            arena, "the API passes one value or pointer per field, at most %d in all; '%s' has %d",
            ENTRY_MAX_API_FIELDS, f->entry, fields);
    bool arrays = false;
    for (int i = 0; i < body->nparams; i++) arrays |= !ir_is_scalar(body->params[i]);
    for (int i = 0; i < body->nresults; i++) arrays |= !ir_is_scalar(body->results[i]);
    if (!arrays && f->size_param >= 0)
        return arena_printf(
            arena, "'%s' has a size range but no array, so its sizes cannot be told apart by n",
            f->entry);
    return NULL;
}

/* The padded parameter v (its API planes from flat on): its value lives in
 * temporaries of its whole length, which a COPY_PAD node fills first from
 * the caller's shape. */
static void pad_param(Graph *g, const IrVal *v, int flat) {
    int ns = v->elem->nslots, *from = NEW_ARRAY(g->arena, int, ns);
    for (int k = 0; k < ns; k++) {
        from[k] = new_plane(g, v->log_len, elem_slot_prim(v->elem, k));
        locate(g, from[k], LOC_PARAM, flat + k, NULL);
        g->plane[from[k]].shaped = true;
    }
    g->pad_val = v;
    g->pad_shaped = from;
    g->pad_copy = g->nbuilds;
    Build *b = new_build(g, NODE_COPY, v->log_len);
    b->node.copy = COPY_PAD;
    add_ids(g, &b->in, &b->nin, from, ns);
    add_ids(g, &b->out, &b->nout, new_planes(g, v), ns);
}

/* The API's input plane of parameter `param` (planes count the arrays' fields). */
static int param_plane(const IrFunc *f, int param) {
    int plane = 0;
    for (int i = 0; i < param; i++)
        if (!ir_is_scalar(f->body->params[i])) plane += f->body->params[i]->elem->nslots;
    return plane;
}

/* An entry with segments: where its starts and lengths are (EntryPlan.segments). */
static void segment_planes(const IrFunc *f, EntryPlan *out) {
    out->segments = true;
    out->seg_starts_plane = param_plane(f, f->seg_starts);
    out->seg_lens_plane = param_plane(f, f->seg_lens);
    out->seg_starts_prim = elem_slot_prim(f->body->params[f->seg_starts]->elem, 0);
    out->seg_lens_prim = elem_slot_prim(f->body->params[f->seg_lens]->elem, 0);
}

/* The graph of f's nodes, planned with opt. */
static void build_graph(Arena *arena, const IrFunc *f, const SchedOptions *opt, EntryPlan *out) {
    memset(out, 0, sizeof *out);
    out->func = f;
    Graph g = {.arena = arena, .f = f, .sched = opt, .out = out};
    int gpu_log = opt ? opt->gpu_log : 0;
    api_planes(&g);
    out->gpu_log = gpu_log;
    if (f->pad_param >= 0) {
        const IrVal *padded = f->body->params[f->pad_param];
        out->pad = f->pad;
        out->pad_elem = padded->elem;
        out->pad_log = padded->log_len;
        out->pad_rows_log = f->pad_rows_log;
        out->pad_cols_log = f->pad_cols_log;
    }
    if (f->seg_starts >= 0) segment_planes(f, out);
    count_readers(&g);
    const IrBody *body = f->body;
    for (int i = 0, flat = 0; i < body->nparams; i++) {
        const IrVal *v = body->params[i];
        if (ir_is_scalar(v)) {
            value_plane(&g, v);
            continue;
        }
        if (i == f->pad_param) {
            pad_param(&g, v, flat);
            flat += v->elem->nslots;
            continue;
        }
        int *ids = new_planes(&g, v);
        for (int k = 0; k < v->elem->nslots; k++) locate(&g, ids[k], LOC_PARAM, flat++, NULL);
    }
    for (int i = 0; i < body->nstmts; i++) visit(&g, body->stmts[i]);
    flush_group(&g);
    for (int i = 0; i < g.nchains; i++)
        if (g.chains[i].open) close_chain(&g, &g.chains[i]);
    place_results(&g);
    fuse_planes(&g);
    finish_nodes(&g);
}

/* With ranks, one chain (or a copy) is planned for them, each rank working
 * on its slices and exchanging what moves between them; any other graph is
 * planned for one GPU and runs whole on every rank (EntryPlan.whole_graph):
 * its arrays are gathered, and each rank keeps its slice of the results. */
void entry_plan(Arena *arena, const IrFunc *f, const SchedOptions *opt, EntryPlan *out) {
    Loc where;
    const char *why = entry_plan_refusal(arena, f, opt, &where);
    if (why) diag_error(where, "%s", why);
    int gpu_log = opt ? opt->gpu_log : 0;
    if (gpu_log && f->pad_param >= 0)
        diag_error(f->loc,
                   "the back end compiles an entry for several GPUs (--gpus) only when its "
                   "arrays have 2^n elements; '%s' takes any length (a pad), which it compiles "
                   "for one GPU only yet",
                   f->entry);
    SchedOptions one = opt ? *opt : (SchedOptions){0};
    one.gpu_log = 0;
    build_graph(arena, f, opt ? &one : NULL, out);
    if (gpu_log && (plan_one_chain(out) || plan_one_copy(out))) {
        build_graph(arena, f, opt, out);
    } else if (gpu_log) {
        out->gpu_log = gpu_log;
        out->whole_graph = true;
    }
    plan_live_rows(out);
    host_plan(arena, out, opt);
}
