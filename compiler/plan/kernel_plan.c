/* kernel_plan.c: the shared memory and launch bounds of a LOCAL phase's
 * CUDA kernel, how a SCAN node's kernel stages its planes through shared
 * memory, and the shared arrays of the REDUCE and SCAN kernels and of a
 * chain's fused reduce (kernel_plan.h). */
#include "kernel_plan.h"

#include "diag.h"

#include "machine.h"

static int field_bytes(const ElemType *t, int k) { return prim_bits(elem_slot_prim(t, k)) / 8; }

/* Where field k's plane starts in a tile buffer: the planes lie widest
 * field first, so that each starts at a multiple of its element size. */
static int plane_offset(const Phase *p, int k) {
    int offset = 0, size = field_bytes(p->elem, k);
    for (int j = 0; j < p->elem->nslots; j++) {
        int other = field_bytes(p->elem, j);
        if (other > size || (other == size && j < k)) offset += other << plan_block_tile_log(p);
    }
    return offset;
}

/* The blocks per SM that the launch bounds ask for. Two: measured 9% faster
 * on the 2^24 sort despite small spills. A kernel that reads or writes an
 * entry of any length computes a guarded address per element, and at 64
 * registers spills 3 times as much: one block per SM took 2^20 padded rows
 * of 2^10 from 12.70 to 7.93 ms on an H100
 * (bench/results/2026-11-23-anylen-launch-bounds.md). Not a chain of an
 * entry graph that pads its loads alone (Schedule.pad_in_only): the top-k
 * of 1024 rows of 50257 float32 took 0.47 ms with one block per SM and 0.38
 * with two (bench/results/2026-11-27-h100-s15.md). A tile above 113 KB
 * (--tile-bytes), or two buffers of 64 KB (--tile-buffers), leave room for
 * one block, and so do 2^11 threads: asking for two would only halve the
 * registers. A persistent kernel (--tile-buffers) asks for the blocks that
 * 128 registers per thread leave room for, at least two: its loop keeps
 * more alive than one tile's code, and without a bound the 2^7 threads of
 * a batched sort's kernel took 168 registers (3 blocks per SM; the kernel
 * of one tile takes 86); at 96 they spill. */
#define PERSISTENT_REGS 128
static int blocks_per_sm(const Schedule *s, const Phase *p) {
    bool padded = s->pad && !s->pad_in_only && (p->src == BUF_IN || p->dst == BUF_OUT);
    int want = padded ? 1 : 2, threads_log = plan_block_threads_log(p);
    if (p->buffers > 1 && MACHINE_SM_REGISTERS / (PERSISTENT_REGS << threads_log) > want)
        want = MACHINE_SM_REGISTERS / (PERSISTENT_REGS << threads_log);
    int fit = MACHINE_SM_SHARED_BYTES / (p->shared_bytes + MACHINE_BLOCK_RESERVED_BYTES);
    if (fit > 1 << (MACHINE_SM_THREADS_LOG - threads_log))
        fit = 1 << (MACHINE_SM_THREADS_LOG - threads_log);
    if (fit > MACHINE_SM_BLOCKS) fit = MACHINE_SM_BLOCKS;
    return want < fit ? want : fit > 0 ? fit : 1;
}

void kernel_plan(Schedule *s) {
    for (int i = 0; i < s->nphases; i++) {
        Phase *p = &s->phases[i];
        if (p->kind != PHASE_LOCAL) continue;
        p->tile_bytes = elem_bytes(p->elem) << plan_block_tile_log(p);
        p->shared_bytes = (p->buffers > 1 ? p->buffers : 1) * p->tile_bytes;
        for (int k = 0; k < p->elem->nslots; k++) p->plane_off[k] = plane_offset(p, k);
        p->blocks_per_sm = blocks_per_sm(s, p);
    }
}

/* A list of shared arrays being planned, of room for `room`. */
typedef struct {
    SharedArray *arrays;
    int n, room, bytes;
} SharedList;

static SharedList shared_list(Arena *a, int room) {
    return (SharedList){NEW_ARRAY(a, SharedArray, room), 0, room, 0};
}

static void shared_add(SharedList *l, SharedRole role, int field, int elem_bytes, int rows,
                       int cols) {
    if (l->n == l->room) diag_fatal("internal error: more shared arrays than planned");
    l->arrays[l->n++] = (SharedArray){role, field, elem_bytes, rows, cols};
    l->bytes += elem_bytes * rows * cols;
}

static SharedPlan shared_plan(const SharedList *l) {
    return (SharedPlan){l->arrays, l->n, l->bytes};
}

static int reduce_fields(const IrStmt *s) { return s->body->nresults; }

static int reduce_field_bytes(const IrStmt *s, int k) {
    return field_bytes(s->args[s->nargs - 1]->elem, k);
}

/* A block of 2^threads_log threads reducing their values: shuffles within
 * each warp, then, past one warp, the warps' totals of every field through
 * shared memory, a slot a warp. */
static SharedPlan block_tree(Arena *a, const IrStmt *s, int threads_log) {
    SharedList l = shared_list(a, reduce_fields(s));
    for (int k = 0; threads_log > MACHINE_WARP_LOG && k < reduce_fields(s); k++)
        shared_add(&l, SHARED_WARP_TOTALS, k, reduce_field_bytes(s, k), 1,
                   1 << (threads_log - MACHINE_WARP_LOG));
    return shared_plan(&l);
}

/* A whole-array reduce: both kernels end in a block's reduction. A
 * reduceblocks: its first kernel where a row spans more than a warp (rows
 * within a warp take shuffles alone), and its second, over the partials of
 * a row, where there is one. */
void kernel_plan_reduce(PlanNode *n, Arena *a) {
    const IrStmt *s = n->stmt;
    bool rows = s->op == IR_REDUCEBLOCKS;
    bool first_tree = !rows || n->row_threads_log >= n->threads_log;
    n->shared = block_tree(a, s, first_tree ? n->threads_log : 0);
    n->final_shared = block_tree(a, s, plan_reduce_partials(n) ? n->final_threads_log : 0);
}

void kernel_plan_fused_reduce(Schedule *s, Arena *a) {
    s->reduce_shared = block_tree(a, s->reduce, s->phases[s->reduce_phase].threads_log);
}

/* A scan's tile: its number when it looks back; the chunk buffer, a row
 * of 32 lanes' most chunks of any plane for each warp; the warps' totals
 * where a scanned block spans warps; and the look-back's tile total and
 * prefix of each field, whether it found one and when to stop. */
static SharedPlan scan_arrays(Arena *a, const PlanNode *n) {
    const IrStmt *s = n->stmt;
    int ns = reduce_fields(s), t = n->threads_log;
    int warps = t > MACHINE_WARP_LOG ? 1 << (t - MACHINE_WARP_LOG) : 1, most = -1;
    bool look_back = plan_scan_looks_back(n);
    SharedList l = shared_list(a, 3 * ns + 4);
    if (look_back) shared_add(&l, SHARED_TILE_NUMBER, -1, 8, 1, 1);
    for (int k = 0; k < ns; k++)
        if (n->chunks_log[k] > most) most = n->chunks_log[k];
    if (most >= 0)
        shared_add(&l, SHARED_CHUNKS, -1, MACHINE_VECTOR_BYTES, warps, MACHINE_WARP << most);
    for (int k = 0; plan_scan_spans_warps(n) && k < ns; k++)
        shared_add(&l, SHARED_WARP_SCANS, k, reduce_field_bytes(s, k), 1, warps);
    for (int k = 0; look_back && k < ns; k++) {
        shared_add(&l, SHARED_TILE_TOTAL, k, reduce_field_bytes(s, k), 1, 1);
        shared_add(&l, SHARED_TILE_PREFIX, k, reduce_field_bytes(s, k), 1, 1);
    }
    if (look_back) {
        shared_add(&l, SHARED_TILE_HAS, -1, 4, 1, 1);
        shared_add(&l, SHARED_LOOK_STOP, -1, 4, 1, 1);
    }
    return shared_plan(&l);
}

/* A plane goes through shared memory when a thread holds 2..8 16-byte
 * chunks of it and the tile has whole warps: each warp access of global
 * memory is then 512 contiguous bytes, not 16 bytes a lane 2^p elements
 * apart (the chunks_log of PlanNode). */
void kernel_plan_scan(PlanNode *n, Arena *a) {
    const ElemType *t = n->stmt->args[n->stmt->nargs - 1]->elem;
    for (int k = 0; k < t->nslots; k++) {
        int bytes_log = n->per_thread_log;
        for (int bits = prim_bits(elem_slot_prim(t, k)); bits > 8; bits /= 2) bytes_log++;
        bool fits = n->threads_log >= MACHINE_WARP_LOG && bytes_log >= 5 && bytes_log <= 7;
        n->chunks_log[k] = fits ? bytes_log - 4 : -1;
    }
    n->shared = scan_arrays(a, n);
}
