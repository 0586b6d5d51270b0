/* host_plan.c: the host program of an entry (plan.h, "The host program"):
 * the one layout of NAME_run's scratch and the actions it runs in order.
 * The emitters print both as they are; plan_verify.c checks them. */
#include "host_plan.h"

#include <string.h>

#include "diag.h"

/* Within a tile's work memory, 64 bytes (a cache line) apart. */
static unsigned long long work_align(unsigned long long bytes) { return (bytes + 63) & ~63ULL; }

static unsigned long long slot_bytes(const ElemType *t, int k, int log_len) {
    return (unsigned long long)(prim_bits(elem_slot_prim(t, k)) / 8) << log_len;
}

/* The program under construction, its arrays allocated for the most it
 * can hold (host_plan counts them). */
typedef struct {
    Arena *arena;
    HostProgram *host;
    int region_cap, action_cap;
} Builder;

static int add_region(Builder *b, RegionKind kind, int node, int index, unsigned long long off,
                      unsigned long long bytes) {
    HostProgram *h = b->host;
    if (h->nregions == b->region_cap)
        diag_fatal("internal error: more scratch regions than counted");
    h->regions[h->nregions] = (ScratchRegion){kind, node, index, off, bytes};
    return h->nregions++;
}

static void add_action(Builder *b, HostAction a) {
    HostProgram *h = b->host;
    if (h->nactions == b->action_cap) diag_fatal("internal error: more host actions than counted");
    h->actions[h->nactions++] = a;
}

/* The work memory of a LOCAL phase on the C target: the tile's offsets
 * (8 bytes an element), then each slot's plane. Returns its bytes. */
static unsigned long long lay_out_tile(Phase *p) {
    unsigned long long at = work_align(8ULL << p->tile_log);
    for (int k = 0; k < p->elem->nslots; k++) {
        p->work_tile_off[k] = at;
        at += work_align(slot_bytes(p->elem, k, p->tile_log));
    }
    p->work_tile_bytes = at;
    return at;
}

/* The exchanges' buffers (with ranks): one plane per slot of the widest
 * exchanged element, each as large as the largest slice it holds. */
static int exchange_planes(const Schedule *s, unsigned long long *bytes) {
    int most = 0;
    for (int i = 0; i < s->nphases; i++) {
        const Phase *p = &s->phases[i];
        if (p->kind != PHASE_EXCHANGE) continue;
        for (int k = 0; k < p->elem->nslots; k++) {
            unsigned long long b = slot_bytes(p->elem, k, s->n - s->gpu_log);
            if (k >= most) bytes[most++] = 0;
            if (b > bytes[k]) bytes[k] = b;
        }
    }
    return most;
}

/* The host's steps of an exchange (plan.h, ExchangeStep): where nothing
 * crosses, the unpack alone; else the chunks' pieces packed and sent in one
 * loop, and received and unpacked in a second, so that the kernels of later
 * pieces overlap the transfers of earlier ones. */
static void plan_exchange_steps(Arena *arena, Phase *p) {
    p->xsteps = NEW_ARRAY(arena, ExchangeStep, 16);
    int n = 0;
#define STEP(k, loop) (p->xsteps[n++] = (ExchangeStep){(k), (loop)})
    if (!p->crosses) {
        STEP(XSTEP_UNPACK, false);
        p->nxsteps = n;
        return;
    }
    STEP(XSTEP_TABLES, false);
    STEP(XSTEP_FORK, false);
    if (!p->packs) STEP(XSTEP_KEEP_COPY, false);
    STEP(XSTEP_PIECES, false);
    if (p->packs) {
        STEP(XSTEP_PACK, true);
        STEP(XSTEP_PACKED, true);
    }
    STEP(XSTEP_SEND_RECV, true);
    STEP(XSTEP_RECEIVED, true);
    STEP(XSTEP_END, true);
    STEP(XSTEP_PIECES, false);
    STEP(XSTEP_WAIT_RECEIVED, true);
    if (p->unpacks) STEP(XSTEP_UNPACK, true);
    STEP(XSTEP_END, true);
#undef STEP
    p->nxsteps = n;
}

/* Blocks of 256 threads over 2^log_len elements, one each, up to 65536
 * blocks (then each thread takes several). */
static unsigned long long loop_blocks(int log_len) {
    unsigned long long blocks = (1ULL << log_len) / 256;
    return blocks ? (blocks > 65536 ? 65536 : blocks) : 1;
}

/* The whole arrays of a chain too small to split (Schedule.whole_log), at
 * `at` in its scratch: the input's planes, then the output's. Returns
 * where they end. */
static unsigned long long lay_out_whole(Builder *b, Schedule *s, int node, unsigned long long base,
                                        unsigned long long at) {
    for (int x = 0; x < 2; x++) {
        const ElemType *t = x ? s->out_elem : s->in_elem;
        for (int k = 0; k < t->nslots; k++) {
            (x ? s->whole_out_off : s->whole_in_off)[k] = at;
            add_region(b, x ? REGION_WHOLE_OUT : REGION_WHOLE_IN, node, k, base + at,
                       slot_bytes(t, k, s->n));
            at += plan_align(slot_bytes(t, k, s->n));
        }
    }
    return at;
}

/* A chain's scratch after its planes (Schedule.scratch_bytes): the work
 * memory of its LOCAL phases (on a target that holds tiles there), then
 * the exchanges' send and receive buffers; the regions at `base` in the
 * entry's scratch. */
static void lay_out_chain(Builder *b, Schedule *s, int node, unsigned long long base,
                          bool tiles_in_scratch) {
    unsigned long long work = 0, xbytes[SCHED_MAX_SLOTS];
    for (int i = 0; i < s->nphases; i++) {
        Phase *p = &s->phases[i];
        if (p->kind == PHASE_MAP) p->grid_blocks = loop_blocks(p->n - s->gpu_log);
        if (p->kind == PHASE_EXCHANGE) {
            p->grid_blocks = loop_blocks(p->n - s->gpu_log - p->piece_log);
            plan_exchange_steps(b->arena, p);
        }
        if (p->kind != PHASE_LOCAL || !tiles_in_scratch) continue;
        unsigned long long bytes = lay_out_tile(p);
        if (bytes > work) work = bytes;
    }
    if (s->scratch_bytes) add_region(b, REGION_CHAIN, node, -1, base, s->scratch_bytes);
    s->work_off = plan_align(s->scratch_bytes);
    if (work) add_region(b, REGION_WORK, node, -1, base + s->work_off, work);
    unsigned long long at = plan_align(s->work_off + work);
    s->nx = s->gpu_log ? exchange_planes(s, xbytes) : 0;
    for (int x = 0; x < 2; x++)
        for (int k = 0; k < s->nx; k++) {
            unsigned long long *off = x ? s->xr_off : s->xs_off;
            off[k] = at;
            s->x_bytes[k] = xbytes[k];
            add_region(b, x ? REGION_RECV : REGION_SEND, node, k, base + at, xbytes[k]);
            at += plan_align(xbytes[k]);
        }
    if (s->whole_log) at = lay_out_whole(b, s, node, base, at);
    s->chain_scratch_bytes = at;
}

/* The one node of an entry from its parameters' planes to its results', or
 * NULL: a chain (plan_one_chain), whose plan's alias rule holds, or a plain
 * copy (plan_one_copy). With segments, a chain's kernels read the starts and
 * lengths to the last store, which its rule does not see: NULL. */
static const PlanNode *single_node(const EntryPlan *e) {
    if (plan_one_chain(e)) return e->segments ? NULL : &e->nodes[0];
    return plan_one_copy(e) ? &e->nodes[0] : NULL;
}

static AliasRule node_alias(const PlanNode *n) {
    return n->kind == NODE_COPY ? ALIAS_EXACT_OK : n->chain.alias;
}

/* The result plane that parameter plane k may be exactly (the same field
 * of a chain that writes each tile where it read it, or of a copy), or -1. */
static int exact_result(const PlanNode *only, int k) {
    if (!only || node_alias(only) != ALIAS_EXACT_OK) return -1;
    for (int f = 0; f < only->nin && f < only->nout; f++)
        if (only->in[f].index == k) return only->out[f].index;
    return -1;
}

/* Inputs that overlap an output are copied to scratch first (after every
 * other part of it); outputs that overlap each other are an error. */
static void plan_aliasing(Builder *b, EntryPlan *e, unsigned long long end) {
    const PlanNode *only = single_node(e);
    bool tests = !only || node_alias(only) != ALIAS_HARMLESS;
    if (e->nout_planes > 1) add_action(b, (HostAction){HOST_RESULTS_DISJOINT, -1, false, -1, -1});
    for (int k = 0; k < e->nin_planes; k++)
        add_action(b, (HostAction){HOST_ALIAS_TEST, k, tests, exact_result(only, k), -1});
    add_action(b, (HostAction){HOST_SCRATCH, -1, false, -1, -1});
    unsigned long long at = end;
    for (int k = 0; tests && k < e->nin_planes; k++) {
        int r = add_region(b, REGION_COPY, -1, k, at, plan_plane_bytes(&e->in_planes[k]));
        add_action(b, (HostAction){HOST_COPY_INPUT, k, false, -1, r});
        at += plan_align(plan_plane_bytes(&e->in_planes[k]));
    }
    e->host.bytes = end;
    e->host.bytes_copies = at;
}

/* An entry graph that every rank runs whole (EntryPlan.whole_graph): the
 * whole parameters and results at `end`, after the chains' area. The rank
 * gathers each parameter before any node runs, so one that overlaps a
 * result needs no test and no copy: every rank has read it whole before
 * any writes a result; results that overlap each other are an error. */
static void plan_whole_graph(Builder *b, EntryPlan *e, unsigned long long end) {
    if (e->nout_planes > 1) add_action(b, (HostAction){HOST_RESULTS_DISJOINT, -1, false, -1, -1});
    add_action(b, (HostAction){HOST_SCRATCH, -1, false, -1, -1});
    unsigned long long at = end;
    for (int k = 0; k < e->nin_planes; k++) {
        int r = add_region(b, REGION_WHOLE_IN, -1, k, at, plan_plane_bytes(&e->in_planes[k]));
        add_action(b, (HostAction){HOST_GATHER_INPUT, k, false, -1, r});
        at += plan_align(plan_plane_bytes(&e->in_planes[k]));
    }
    for (int k = 0; k < e->nout_planes; k++) {
        add_region(b, REGION_WHOLE_OUT, -1, k, at, plan_plane_bytes(&e->out_planes[k]));
        at += plan_align(plan_plane_bytes(&e->out_planes[k]));
    }
    e->host.bytes = e->host.bytes_copies = at;
}

/* The launch of a node whose kernel loops over its elements: blocks of
 * 256 threads, one element each, up to 65536 blocks (then each thread
 * takes several); a SERIAL node is one thread. */
static void plan_launch(PlanNode *n) {
    bool loops = n->kind == NODE_FILL || n->kind == NODE_EXPAND || n->kind == NODE_GATHER ||
                 (n->kind == NODE_COPY && (n->copy == COPY_PAD || n->copy == COPY_CUT));
    if (n->kind == NODE_SERIAL) {
        n->grid_blocks = 1;
        n->grid_threads = 1;
    } else if (loops) {
        n->grid_blocks = n->n < 8 ? 1 : loop_blocks(n->n);
        n->grid_threads = 256;
    }
}

void host_plan(Arena *arena, EntryPlan *e, const SchedOptions *opt) {
    memset(&e->host, 0, sizeof e->host);
    /* a temporary each; a chain's planes, work, and two exchange planes a
       slot or its whole input and output (of at most a slot's planes
       each); a copy per parameter plane */
    Builder b = {arena, &e->host,
                 e->ntemps + e->nnodes * (2 + 2 * SCHED_MAX_SLOTS) + e->nin_planes + e->nout_planes,
                 2 + 2 * e->nin_planes + e->nnodes + e->nout_planes};
    e->host.regions = NEW_ARRAY(arena, ScratchRegion, b.region_cap);
    e->host.actions = NEW_ARRAY(arena, HostAction, b.action_cap);
    unsigned long long at = 0;
    for (int t = 0; t < e->ntemps; t++) {
        e->temps[t].off = at;
        add_region(&b, REGION_TEMP, -1, t, at, e->temps[t].bytes);
        at += plan_align(e->temps[t].bytes);
    }
    e->chain_off = at;
    e->chain_bytes = 0;
    for (int i = 0; i < e->nnodes; i++) {
        PlanNode *n = &e->nodes[i];
        if (n->kind != NODE_CHAIN) continue;
        lay_out_chain(&b, &n->chain, i, e->chain_off, opt && opt->tiles_in_scratch);
        if (n->chain.chain_scratch_bytes > e->chain_bytes)
            e->chain_bytes = n->chain.chain_scratch_bytes;
    }
    unsigned long long end = plan_align(e->chain_off + e->chain_bytes);
    if (e->whole_graph) plan_whole_graph(&b, e, end);
    else plan_aliasing(&b, e, end);
    for (int i = 0; i < e->nnodes; i++) {
        plan_launch(&e->nodes[i]);
        add_action(&b, (HostAction){HOST_NODE, i, false, -1, -1});
    }
    for (int r = 0; e->whole_graph && r < e->host.nregions; r++) {
        const ScratchRegion *g = &e->host.regions[r];
        if (g->kind == REGION_WHOLE_OUT && g->node < 0)
            add_action(&b, (HostAction){HOST_KEEP_SLICE, g->index, false, -1, r});
    }
}
