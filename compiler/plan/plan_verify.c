/* plan_verify.c: the invariants the readers of a plan rely on (plan.h).
 * The sanitizer build runs it after scheduling (driver.c), so a scheduler
 * change that breaks one fails there, named, instead of as wrong code. */
#include "plan.h"

#include <string.h>

#include "bmmc_plan.h"
#include "kernel_plan.h"
#include "machine.h"
#include "plan_half.h"
#include "plan_rounds.h"
#include "schedule.h"

#define REQUIRE(cond, ...) \
    do { \
        if (!(cond)) return arena_printf(a, __VA_ARGS__); \
    } while (0)

static int span_dim(int n, const uint64_t *v, int count) {
    F2Space s = f2_space_empty(n);
    for (int i = 0; i < count; i++) f2_space_add(&s, v[i]);
    return s.dim;
}

static bool invertible(const F2Mat *m, int n) {
    F2Mat inv;
    return m->n == n && f2_invert(m, &inv);
}

/* Tile and block columns: [W | C] invertible, W starting with e0.. (whole
 * segments), the swizzle P invertible on tile coordinates. */
static const char *verify_tile(Arena *a, const Phase *p) {
    REQUIRE(p->tile_log >= 0 && p->tile_log <= SCHED_MAX_TILE && p->tile_log <= p->n,
            "a tile of 2^%d", p->tile_log);
    REQUIRE(p->block_log == p->n - p->tile_log, "2^%d blocks of 2^%d for 2^%d elements",
            p->block_log, p->tile_log, p->n);
    REQUIRE(p->seg_log >= 0 && p->seg_log <= p->tile_log, "segments of 2^%d in a tile of 2^%d",
            p->seg_log, p->tile_log);
    for (int i = 0; i < p->seg_log; i++)
        REQUIRE(p->tile_cols[i] == UINT64_C(1) << i, "tile column %d is not a segment bit", i);
    uint64_t cols[F2_MAX];
    for (int i = 0; i < p->n; i++)
        cols[i] = i < p->tile_log ? p->tile_cols[i] : p->block_cols[i - p->tile_log];
    REQUIRE(span_dim(p->n, cols, p->n) == p->n, "tile and block columns do not span the array");
    REQUIRE(span_dim(p->tile_log, p->slot_cols, p->tile_log) == p->tile_log,
            "the shared-memory slots are not a permutation");
    return NULL;
}

/* A body's table uses: one for each of its tables, each in a place. */
static const char *verify_table_uses(Arena *a, const TableUse *uses, int n, const IrBody *body) {
    REQUIRE(n == ir_count_stmts(body, IR_TABLE), "%d table uses for %d tables", n,
            ir_count_stmts(body, IR_TABLE));
    for (int i = 0; i < n; i++)
        REQUIRE(uses[i].table && uses[i].table->op == IR_TABLE && uses[i].place >= TABLE_GLOBAL &&
                    uses[i].place <= TABLE_IMMEDIATE,
                "table use %d is not a table in a place", i);
    return NULL;
}

static const char *verify_steps(Arena *a, const Phase *p) {
    uint64_t tile = f2_mask(p->tile_log), block = f2_mask(p->block_log);
    for (int i = 0; i < p->nsteps; i++) {
        const Step *st = &p->steps[i];
        REQUIRE(st->stmt && st->body, "step %d has no statement", i);
        REQUIRE(st->group_log >= 0 && st->group_log <= p->tile_log,
                "step %d works on groups of 2^%d", i, st->group_log);
        for (int j = 0; j < st->group_log; j++)
            REQUIRE(!(st->group[j] & ~tile) && !(st->order[j] & ~tile) &&
                        !(st->order_block[j] & ~block),
                    "step %d has a group vector or direction outside the tile", i);
        REQUIRE(span_dim(p->tile_log, st->group, st->group_log) == st->group_log,
                "step %d's group vectors are not independent", i);
        /* moving by group[j] flips logical bit j alone */
        for (int j = 0; j < st->group_log; j++)
            for (int l = 0; l < st->group_log; l++)
                REQUIRE(f2_parity(st->order[l] & st->group[j]) == (j == l),
                        "step %d's group vector %d moves logical bit %d", i, j, l);
        REQUIRE(st->pos_bits >= 0 && st->pos_bits <= p->n, "step %d has %d position bits", i,
                st->pos_bits);
        const char *why = verify_table_uses(a, st->tables, st->ntables, st->body);
        if (why) return why;
    }
    return NULL;
}

/* Vectors of the tile copies: 16 bytes of every plane, consecutive in
 * memory, within one thread's share of the tile. */
static const char *verify_vectors(Arena *a, const Phase *p) {
    REQUIRE(p->vec_log || !p->vec_write, "vector writes without vectors");
    if (!p->vec_log) return NULL;
    REQUIRE(p->vec_log > 0 && p->vec_log <= p->seg_log &&
                p->vec_log <= p->tile_log - p->threads_log,
            "vectors of 2^%d elements in segments of 2^%d and 2^%d elements per thread", p->vec_log,
            p->seg_log, p->tile_log - p->threads_log);
    for (int k = 0; k < p->elem->nslots; k++)
        REQUIRE((prim_bits(elem_slot_prim(p->elem, k)) / 8 << p->vec_log) == 16,
                "field %d: vectors of 2^%d are not 16 bytes", k, p->vec_log);
    for (int i = 0; i < p->vec_log; i++)
        REQUIRE(p->tile_cols[i] == UINT64_C(1) << i,
                "tile bit %d of a vector is not consecutive in memory", i);
    if (!p->vec_write) return NULL;
    REQUIRE(!p->writes_in_place, "a write in place with vector writes into the next layout");
    for (int k = 0; k < p->block_log; k++)
        REQUIRE(!(p->out_block_cols[k] & f2_mask(p->vec_log)),
                "output block column %d moves an element within its vector", k);
    return NULL;
}

/* Tile buffers (Phase.buffers): that many tiles fit in a block's shared
 * memory, and cp.async copies each field (4 or 8 bytes). */
static const char *verify_buffers(Arena *a, const Phase *p) {
    REQUIRE(p->buffers >= 0 && p->buffers <= 3, "%d tile buffers", p->buffers);
    if (p->buffers < 2) return NULL;
    REQUIRE(((long)p->buffers * elem_bytes(p->elem) << p->tile_log) <= SCHED_MAX_TILE_BYTES,
            "%d tile buffers of 2^%d elements exceed a block's shared memory", p->buffers,
            p->tile_log);
    for (int k = 0; k < p->elem->nslots; k++) {
        int bytes = prim_bits(elem_slot_prim(p->elem, k)) / 8;
        REQUIRE(bytes == 4 || bytes == 8, "field %d of %d bytes in a tile that cp.async loads", k,
                bytes);
    }
    return NULL;
}

/* The kernel's shared memory (Phase.tile_bytes ..): the fields' planes
 * tile a buffer without overlap, each at a multiple of its element size;
 * the buffers make shared_bytes, and the blocks the launch bounds ask for
 * fit an SM together (one always may). */
static const char *verify_kernel(Arena *a, const Phase *p) {
    int tile_log = plan_block_tile_log(p);
    REQUIRE(p->tile_bytes == elem_bytes(p->elem) << tile_log,
            "a tile buffer of %d bytes for 2^%d elements of %d", p->tile_bytes, tile_log,
            elem_bytes(p->elem));
    REQUIRE(p->shared_bytes == (p->buffers > 1 ? p->buffers : 1) * p->tile_bytes,
            "%d bytes of shared memory for %d tile buffers of %d", p->shared_bytes, p->buffers,
            p->tile_bytes);
    for (int k = 0; k < p->elem->nslots; k++) {
        int bytes = prim_bits(elem_slot_prim(p->elem, k)) / 8,
            end = p->plane_off[k] + (bytes << tile_log);
        REQUIRE(p->plane_off[k] >= 0 && p->plane_off[k] % bytes == 0 && end <= p->tile_bytes,
                "field %d's plane at byte %d is misaligned or outside the tile buffer", k,
                p->plane_off[k]);
        for (int j = 0; j < k; j++) {
            int jend = p->plane_off[j] + (prim_bits(elem_slot_prim(p->elem, j)) / 8 << tile_log);
            REQUIRE(end <= p->plane_off[j] || jend <= p->plane_off[k],
                    "the planes of fields %d and %d overlap", j, k);
        }
    }
    REQUIRE(p->blocks_per_sm >= 1, "launch bounds of %d blocks per SM", p->blocks_per_sm);
    REQUIRE(p->blocks_per_sm == 1 ||
                (p->blocks_per_sm * (p->shared_bytes + MACHINE_BLOCK_RESERVED_BYTES) <=
                     MACHINE_SM_SHARED_BYTES &&
                 p->blocks_per_sm << plan_block_threads_log(p) <= 1 << MACHINE_SM_THREADS_LOG &&
                 p->blocks_per_sm <= MACHINE_SM_BLOCKS),
            "launch bounds of %d blocks per SM, which an SM cannot hold", p->blocks_per_sm);
    return NULL;
}

/* The masks of round rd's steps over the thread and register indices
 * (Step.order_tid, order_reg, pos_tid), which the kernel reads for the
 * thread's directions and positions. */
static const char *verify_thread_masks(Arena *a, const Phase *p, const Round *rd) {
    for (int i = rd->first; i < rd->first + rd->count; i++) {
        const Step *st = &p->steps[i];
        for (int j = 0; j < st->group_log; j++)
            REQUIRE(st->order_tid[j] == plan_thread_mask(p, rd, st->order[j]),
                    "step %d: the thread mask of direction %d is not its round's", i, j);
        for (int j = 0; j < st->group_log; j++)
            REQUIRE(st->order_reg[j] == plan_reg_mask(rd, st->order[j]),
                    "step %d: the register mask of direction %d is not its round's", i, j);
        for (int j = 0; j < st->pos_bits; j++)
            REQUIRE(st->pos_tid[j] == plan_thread_mask(p, rd, st->pos_u[j]),
                    "step %d: the thread mask of position bit %d is not its round's", i, j);
    }
    return NULL;
}

/* A round's working warps (Round.live_log): halves in effect at its first
 * step, whose functionals vanish on its registers and lanes, as masks over
 * the thread index, with their kept values. */
static const char *verify_live_warps(Arena *a, const Phase *p, const Round *rd, int r) {
    if (!rd->live_log) return NULL;
    REQUIRE(rd->live_log <= p->half_log && p->half_step[rd->live_log - 1] <= rd->first,
            "round %d skips warps for a half after its first step", r);
    for (int i = 0; i < rd->live_log; i++) {
        int keep;
        uint64_t g = plan_half_functional(p, i, &keep);
        for (int j = 0; j < rd->reg_log; j++)
            REQUIRE(!f2_parity(g & rd->regs[j]), "round %d: half %d decides on a register bit", r,
                    i);
        REQUIRE(!(rd->live_tid[i] & f2_mask(MACHINE_WARP_LOG)),
                "round %d: half %d decides on a lane bit", r, i);
        REQUIRE(rd->live_tid[i] == plan_thread_mask(p, rd, g),
                "round %d: the warps of half %d are not its thread bits", r, i);
        REQUIRE((int)(rd->live_value >> i & 1) == keep,
                "round %d: half %d works on the warps it drops", r, i);
    }
    return NULL;
}

/* Halves never pair a kept element with a dropped one: from its step on, a
 * half's functional vanishes on every group vector of every step, so the
 * steps that work on what it keeps read nothing it drops (what lets rounds
 * skip warps, Round.live_log, and registers, Step.kept_log). */
static const char *verify_halves_apart(Arena *a, const Phase *p) {
    for (int h = 0; h < p->half_log; h++) {
        int keep;
        uint64_t g = plan_half_functional(p, h, &keep);
        for (int i = p->half_step[h]; i < p->nsteps; i++)
            for (int j = 0; j < p->steps[i].group_log; j++)
                REQUIRE(!f2_parity(g & p->steps[i].group[j]),
                        "step %d pairs what half %d keeps with what it drops", i, h);
    }
    return NULL;
}

/* A step's working registers (Step.kept_log): halves in effect at it, in
 * order, whose functionals vanish on its round's threads but not on its
 * registers, as masks over the register index, with their kept values. */
static const char *verify_kept_regs(Arena *a, const Phase *p, const Round *rd) {
    for (int i = rd->first; i < rd->first + rd->count; i++) {
        const Step *st = &p->steps[i];
        int c = 0;
        for (int h = 0; h < p->half_log && p->half_step[h] <= i && c < st->kept_log; h++) {
            int keep;
            uint64_t g = plan_half_functional(p, h, &keep), regs = plan_reg_mask(rd, g);
            if (plan_thread_mask(p, rd, g) || !regs) continue;
            REQUIRE(st->kept_regs[c] == regs && (int)(st->kept_value >> c & 1) == keep,
                    "step %d: its kept registers %d are not half %d's", i, c, h);
            c++;
        }
        REQUIRE(c == st->kept_log,
                "step %d keeps registers by %d halves, not in effect or decided by threads", i,
                st->kept_log);
    }
    return NULL;
}

/* A cluster's tile (Phase.cluster_log): at most SCHED_MAX_CLUSTER_LOG,
 * blocks of a warp at least and at most a block's threads; every layout
 * keeps the top cluster_log slot bits the rank coordinates (u's top bits),
 * and the copies move elements alone. A round that is not remote keeps its
 * registers and its block's threads below the rank coordinates, the rank's
 * thread bits on them, so each thread's elements are in its own block. */
static const char *verify_cluster(Arena *a, const Phase *p) {
    int c = p->cluster_log, low = plan_block_tile_log(p), tb = plan_block_threads_log(p);
    REQUIRE(c >= 0 && c <= SCHED_MAX_CLUSTER_LOG, "a cluster of 2^%d blocks", c);
    if (!c) return NULL;
    REQUIRE(tb >= MACHINE_WARP_LOG && tb <= MACHINE_BLOCK_THREADS_LOG,
            "a cluster's blocks of 2^%d threads", tb);
    REQUIRE(!p->vec_log && p->buffers <= 1 && !p->half_log,
            "a cluster's tile copied in vectors, buffers or halves");
    for (int r = -1; r < p->nrounds; r++) {
        const uint64_t *slots = r < 0 ? p->slot_cols : p->rounds[r].slots;
        for (int i = 0; i < p->tile_log; i++)
            REQUIRE((slots[i] >> low) == (i >= low ? UINT64_C(1) << (i - low) : 0),
                    "round %d's layout moves tile bit %d across the cluster's blocks", r, i);
        if (r < 0) continue;
        const Round *rd = &p->rounds[r];
        for (int i = 0; i < tb; i++)
            REQUIRE(!(rd->threads[i] >> low),
                    "round %d: the block's thread bit %d leaves its block", r, i);
        if (rd->remote) continue;
        for (int i = 0; i < rd->reg_log; i++)
            REQUIRE(!(rd->regs[i] >> low), "round %d is local but its registers are not", r);
        for (int i = 0; i < p->threads_log; i++)
            REQUIRE(rd->threads[i] >> low == (i >= tb ? UINT64_C(1) << (i - tb) : 0),
                    "round %d is local but thread bit %d leaves its block", r, i);
    }
    return NULL;
}

/* Rounds cover the steps in order; a thread's registers and the threads
 * together span the tile, and every group lies in its round's registers. */
static const char *verify_rounds(Arena *a, const Phase *p) {
    REQUIRE(p->threads_log >= 0 && p->threads_log <= p->tile_log, "2^%d threads for a tile of 2^%d",
            p->threads_log, p->tile_log);
    int next = 0;
    for (int r = 0; r < p->nrounds; r++) {
        const Round *rd = &p->rounds[r];
        REQUIRE(rd->first == next && rd->count >= 1 && rd->first + rd->count <= p->nsteps,
                "round %d holds steps %d..%d after step %d", r, rd->first,
                rd->first + rd->count - 1, next - 1);
        REQUIRE(rd->reg_log + p->threads_log == p->tile_log,
                "round %d: 2^%d registers of 2^%d threads for a tile of 2^%d", r, rd->reg_log,
                p->threads_log, p->tile_log);
        uint64_t all[2 * SCHED_MAX_TILE];
        for (int i = 0; i < rd->reg_log; i++) all[i] = rd->regs[i];
        for (int i = 0; i < p->threads_log; i++) all[rd->reg_log + i] = rd->threads[i];
        uint64_t outside = 0;
        for (int i = 0; i < p->tile_log; i++) outside |= all[i] & ~f2_mask(p->tile_log);
        REQUIRE(!outside && span_dim(p->tile_log, all, p->tile_log) == p->tile_log,
                "round %d: registers and threads do not span the tile", r);
        REQUIRE(span_dim(p->tile_log, rd->slots, p->tile_log) == p->tile_log,
                "round %d: its layout is not a permutation", r);
        REQUIRE(r > 0 || !memcmp(rd->slots, p->slot_cols, sizeof(uint64_t) * (size_t)p->tile_log),
                "round 0 does not load where the tile load stores");
        const uint64_t *then = r + 1 < p->nrounds ? p->rounds[r + 1].slots : p->slot_cols;
        REQUIRE(rd->sync || plan_store_in_warp(p, rd, rd->slots, then),
                "round %d stores into slots that another warp reads, without a barrier", r);
        F2Space regs = f2_space_empty(p->tile_log);
        for (int i = 0; i < rd->reg_log; i++) f2_space_add(&regs, rd->regs[i]);
        for (int i = rd->first; i < rd->first + rd->count; i++)
            for (int j = 0; j < p->steps[i].group_log; j++)
                REQUIRE(f2_space_contains(&regs, p->steps[i].group[j]),
                        "round %d: the group of step %d is not in its registers", r, i);
        const char *why = verify_thread_masks(a, p, rd);
        if (!why) why = verify_live_warps(a, p, rd, r);
        if (!why) why = verify_kept_regs(a, p, rd);
        if (why) return why;
        next = rd->first + rd->count;
    }
    REQUIRE(next == p->nsteps, "the rounds end at step %d of %d", next, p->nsteps);
    return NULL;
}

/* A halved write (plan.h): the tile element of every output column, and the
 * block columns, land on indices without top bits, at the column; the
 * source constant at an index whose top bits are the kept ones and whose
 * low bits are the complement; and the columns are independent: so the
 * write covers the kept part of every tile, once. */
static const char *verify_half_write(Arena *a, const Phase *p) {
    int low = p->n - p->half_log;
    REQUIRE(!p->writes_in_place && p->half_log > 0 &&
                p->out_tile_log == p->tile_log - p->half_log && p->half_keep >> p->half_log == 0,
            "a write keeping 0x%llx of %d halves, 2^%d of a tile of 2^%d",
            (unsigned long long)p->half_keep, p->half_log, p->out_tile_log, p->tile_log);
    REQUIRE(span_dim(p->n, p->out_cols, p->out_tile_log) == p->out_tile_log,
            "halved write columns not independent");
    /* whole segments, or a result shorter than one, all of it in one block */
    REQUIRE(p->out_tile_log >= p->seg_log || (low == p->out_tile_log && p->block_log == 0),
            "a halved write of 2^%d elements a tile, less than a segment, of a result of 2^%d",
            p->out_tile_log, low);
    for (int i = 0; i < p->seg_log && i < p->out_tile_log; i++)
        REQUIRE(p->out_cols[i] == UINT64_C(1) << i, "write column %d is not a segment bit", i);
    for (int i = 0; i < p->out_tile_log; i++) {
        uint64_t y = f2_apply(&p->write_mat, f2_combine(p->tile_cols, p->tile_log, p->src_cols[i]));
        REQUIRE(y == p->out_cols[i], "halved write column %d does not match its source", i);
    }
    uint64_t y0 = f2_apply(&p->write_mat, f2_combine(p->tile_cols, p->tile_log, p->src_const)) ^
                  p->half_compl;
    REQUIRE(y0 >> low == p->half_keep && (y0 & f2_mask(low)) == p->write_compl,
            "the halved write's source constant is not its kept complement");
    for (int k = 0; k < p->block_log; k++)
        REQUIRE(f2_apply(&p->write_mat, p->block_cols[k]) == p->out_block_cols[k],
                "halved write block column %d is wrong", k);
    return NULL;
}

/* Element W·G·sigma goes to write_mat·(W·G·sigma) = Z·sigma, block columns
 * to write_mat·C, and Z starts with e0.. (whole segments). */
static const char *verify_write(Arena *a, const Phase *p) {
    REQUIRE(invertible(&p->write_mat, p->n), "the write is not a permutation of 2^%d elements",
            p->n);
    if (p->half_log) return verify_half_write(a, p);
    REQUIRE(p->out_tile_log == p->tile_log && !p->src_const,
            "a whole write of 2^%d of a tile of 2^%d from 0x%llx", p->out_tile_log, p->tile_log,
            (unsigned long long)p->src_const);
    if (p->writes_in_place) {
        REQUIRE(f2_is_identity(&p->write_mat) && p->write_compl == 0,
                "writes in place through a permutation");
        return NULL;
    }
    for (int i = 0; i < p->seg_log; i++)
        REQUIRE(p->out_cols[i] == UINT64_C(1) << i, "write column %d is not a segment bit", i);
    for (int i = 0; i < p->tile_log; i++) {
        uint64_t x = f2_combine(p->tile_cols, p->tile_log, p->src_cols[i]);
        REQUIRE(f2_apply(&p->write_mat, x) == p->out_cols[i],
                "write column %d does not match its source", i);
    }
    for (int k = 0; k < p->block_log; k++)
        REQUIRE(f2_apply(&p->write_mat, p->block_cols[k]) == p->out_block_cols[k],
                "write block column %d is wrong", k);
    return NULL;
}

static const char *verify_local(Arena *a, const Phase *p) {
    const char *why = verify_tile(a, p);
    if (!why) why = verify_steps(a, p);
    if (!why) why = verify_halves_apart(a, p);
    if (!why) why = verify_cluster(a, p); /* which block holds what, before the rounds' use of it */
    if (!why) why = verify_rounds(a, p);
    if (!why) why = verify_vectors(a, p);
    if (!why) why = verify_buffers(a, p);
    if (!why) why = verify_kernel(a, p);
    if (!why) why = verify_write(a, p);
    return why;
}

static const char *verify_permute(Arena *a, const Phase *p) {
    REQUIRE(invertible(&p->mat, p->n), "not a permutation of 2^%d elements", p->n);
    REQUIRE(p->slot_plans, "no kernel plans");
    for (int k = 0; k < p->elem->nslots; k++) {
        const BmmcPlan *b = &p->slot_plans[k];
        REQUIRE(b->n == p->n && f2_equal(&b->a, &p->mat) && b->c == p->compl,
                "field %d's kernel moves another permutation", k);
        REQUIRE(b->elem_bytes == prim_bits(elem_slot_prim(p->elem, k)) / 8,
                "field %d's kernel moves %d-byte elements", k, b->elem_bytes);
    }
    return NULL;
}

static const char *verify_map(Arena *a, const Phase *p) {
    REQUIRE(p->map && p->map->nres == 1 && elem_equal(p->map->res[0]->elem, p->elem),
            "the map does not write its type");
    REQUIRE(p->map->nargs == 1 && elem_equal(p->map->args[0]->elem, p->in_elem),
            "the map does not read its type");
    REQUIRE(invertible(&p->map_pos, p->n), "positions that are not a permutation");
    return verify_table_uses(a, p->map_tables, p->nmap_tables, p->map->body);
}

/* A store map (Phase.store_map) on a LOCAL phase that writes element by
 * element into another buffer than it reads, and whose tile no fused reduce
 * reads: from the tile's type to the type the next phase reads (the
 * result's after the last), its positions over the written index bits, no
 * tables. */
static const char *verify_store_map(Arena *a, const Schedule *s, int i) {
    const Phase *p = &s->phases[i];
    const IrStmt *m = p->store_map;
    const ElemType *next = i + 1 < s->nphases ? s->phases[i + 1].in_elem : s->out_elem;
    REQUIRE(m->nres == 1 && elem_equal(m->res[0]->elem, next),
            "the store map does not write the type read next");
    REQUIRE(m->nargs == 1 && elem_equal(m->args[0]->elem, p->elem),
            "the store map does not read the tile's type");
    REQUIRE(!p->vec_log && !p->vec_write && !s->gpu_log, "a store map with vector copies or ranks");
    REQUIRE(p->src != p->dst, "a store map that writes the buffer it reads");
    REQUIRE(!s->reduce || s->reduce_phase != i, "a store map in the phase a reduce is fused into");
    REQUIRE(invertible(&p->store_pos, p->n - p->half_log),
            "store positions that are not a permutation of the output");
    return verify_table_uses(a, NULL, 0, m->body);
}

/* Scratch buffer x holds the phase's planes: enough of them, each within
 * its room (up to the next plane, or the end of the scratch). */
static const char *verify_scratch(Arena *a, const Schedule *s, const Phase *p) {
    int x = p->dst - BUF_SCRATCH_A;
    const ElemType *t = plan_out_elem(p);
    REQUIRE(t->nslots <= s->scratch_planes[x], "writes %d planes to %s, which has %d", t->nslots,
            plan_buf_name(p->dst), s->scratch_planes[x]);
    for (int k = 0; k < t->nslots; k++) {
        unsigned long long bytes = (unsigned long long)(prim_bits(elem_slot_prim(t, k)) / 8)
                                   << (p->n - s->gpu_log); /* a rank's slice */
        unsigned long long end = k + 1 < s->scratch_planes[x]     ? s->scratch_plane_off[x][k + 1]
                                 : x == 0 && s->scratch_planes[1] ? s->scratch_plane_off[1][0]
                                                                  : s->scratch_bytes;
        REQUIRE(s->scratch_plane_off[x][k] + bytes <= end, "plane %d of %s is too small", k,
                plan_buf_name(p->dst));
    }
    return NULL;
}

/* Each phase reads what the one before wrote, in that element type; only a
 * phase that writes in place reads the buffer it writes; the last writes
 * the output; the output and scratch hold every plane written to them. */
static const char *verify_flow(Arena *a, const Schedule *s, int i) {
    const Phase *p = &s->phases[i], *prev = i ? &s->phases[i - 1] : NULL;
    REQUIRE(p->n == s->n, "2^%d elements in a plan of 2^%d", p->n, s->n);
    REQUIRE(elem_equal(p->in_elem, prev ? plan_out_elem(prev) : s->in_elem),
            "reads another element type than it is given");
    REQUIRE(p->map || elem_equal(p->in_elem, p->elem), "changes the element type with no map");
    REQUIRE(!p->map || p->kind == PHASE_MAP || p->kind == PHASE_LOCAL, "a %s phase with a map",
            p->kind == PHASE_PERMUTE ? "permute" : "exchange");
    REQUIRE(!p->store_map || p->kind == PHASE_LOCAL, "a %s phase with a store map",
            p->kind == PHASE_MAP       ? "map"
            : p->kind == PHASE_PERMUTE ? "permute"
                                       : "exchange");
    REQUIRE(p->src == (prev ? prev->dst : BUF_IN), "reads %s, not the buffer written before",
            plan_buf_name(p->src));
    REQUIRE(p->dst != BUF_IN, "writes the input");
    /* planes of two types in one buffer would overlap */
    REQUIRE(p->src != p->dst || (p->kind == PHASE_LOCAL && p->writes_in_place && !p->map),
            "reads and writes %s", plan_buf_name(p->dst));
    REQUIRE(i + 1 < s->nphases || p->dst == BUF_OUT, "the last phase writes %s",
            plan_buf_name(p->dst));
    REQUIRE(p->dst != BUF_OUT || plan_fits_output(s, p), "writes the output with other slot types");
    /* the output of an entry of any length holds only the shape's elements */
    REQUIRE(!s->pad || p->dst != BUF_OUT || i + 1 == s->nphases,
            "writes the output of an entry of any length "
            "before the last phase");
    REQUIRE(!s->pad || p->src != BUF_OUT, "reads the output of an entry of any length");
    return p->dst == BUF_OUT ? NULL : verify_scratch(a, s, p);
}

/* An exchange's element simulation (arrays of up to 2^16): where each
 * element of each rank is after the pack, the routing and the unpack, as
 * global indices (rank << ln | local), ~0 where nothing was written. */
typedef struct {
    int g, ln, h, lo, pieces; /* lo: the pieces' lowest bit */
    uint64_t *sent, *recv, *done;
} ExSim;

/* The piece of a send or receive index. */
static uint64_t piece_of(const ExSim *x, uint64_t v) { return v >> x->lo & f2_mask(x->pieces); }

/* Element `from` of buf (or ~0 where none) written at `to` of the other;
 * false where `to` was written before. */
static bool put(uint64_t *dst, uint64_t to, const uint64_t *src, uint64_t from) {
    if (dst[to] != ~UINT64_C(0)) return false;
    dst[to] = src ? src[from] : from;
    return true;
}

/* A one-pass kernel of an exchange run for piece k of rank r, from `in`
 * (NULL: the rank's own elements) to `out`, through its tile: the block
 * range of piece k must read (on_read) or write exactly piece k. */
static const char *run_plan(Arena *a, const ExSim *x, const BmmcPlan *plan, int r, uint64_t k,
                            const uint64_t *in, uint64_t *out, bool on_read) {
    int free_log = plan->block_log - plan->piece_log;
    uint64_t base = (uint64_t)r << x->ln,
             *tile = NEW_ARRAY(a, uint64_t, (size_t)1 << plan->tile_log);
    for (uint64_t b = k << free_log; b < (k + 1) << free_log; b++)
        for (int side = 0; side < 2; side++)
            for (unsigned t = 0; t < 1u << (plan->thread_log + plan->vec_log); t++)
                for (unsigned i = 0; i < 1u << plan->iter_log; i++) {
                    unsigned slot;
                    uint64_t v = side ? bmmc_write_index(plan, b, t, i, &slot)
                                      : bmmc_read_index(plan, b, t, i, &slot);
                    REQUIRE(side == on_read || piece_of(x, v) == k,
                            "block %llu of piece %llu %s index 0x%llx of another piece",
                            (unsigned long long)b, (unsigned long long)k,
                            on_read ? "reads" : "writes", (unsigned long long)v);
                    if (!side) tile[slot] = base | v;
                    else
                        REQUIRE(put(out, base | v, in, tile[slot]), "two elements at 0x%llx",
                                (unsigned long long)(base | v));
                }
    return NULL;
}

/* The pack of piece k on every rank, into the send buffers. */
static const char *sim_pack(Arena *a, const ExSim *x, const Phase *p, uint64_t k) {
    for (int r = 0; r < 1 << x->g; r++) {
        uint64_t base = (uint64_t)r << x->ln;
        for (int j = 0; p->pack_plans && j < p->elem->nslots; j++) {
            REQUIRE(p->pack_plans[j].piece_log == p->piece_log, "a pack kernel of 2^%d pieces",
                    p->pack_plans[j].piece_log);
            if (j) continue; /* the slots' kernels move the same indices */
            const char *why = run_plan(a, x, &p->pack_plans[0], r, k, NULL, x->sent, false);
            if (why) return why;
        }
        for (uint64_t v = 0; !p->pack_plans && v < UINT64_C(1) << x->ln; v++)
            if (piece_of(x, v) == k &&
                !put(x->sent, base | v, NULL, base | (p->packs ? f2_apply(&p->pack_inv, v) : v)))
                return "a pack writes twice";
    }
    return NULL;
}

/* Piece k of every chunk to its rank and slot (the kept chunk too: the
 * pack's second output moves it by the same slot). */
static const char *sim_route(Arena *a, const ExSim *x, const Phase *p, uint64_t k) {
    for (int r = 0; r < 1 << x->g; r++)
        for (int t = 0; t < 1 << x->h; t++) {
            int c = r << x->h | t, d = p->send_to[c];
            REQUIRE((d == r) == (p->kept[r] == t), "rank %d keeps chunk %d, not %d", r, p->kept[r],
                    t);
            for (uint64_t o = 0; o < UINT64_C(1) << (x->ln - x->h - x->pieces); o++) {
                /* o's bits around the piece's */
                uint64_t off = (o >> x->lo << (x->lo + x->pieces)) | k << x->lo |
                               (o & f2_mask(x->lo));
                uint64_t from = (uint64_t)r << x->ln | (uint64_t)t << (x->ln - x->h) | off;
                uint64_t to = (uint64_t)d << x->ln | (uint64_t)p->send_slot[c] << (x->ln - x->h) |
                              off;
                REQUIRE(x->sent[from] != ~UINT64_C(0),
                        "piece %llu of chunk %d of rank %d is sent before it is packed",
                        (unsigned long long)k, t, r);
                REQUIRE(put(x->recv, to, x->sent, from), "rank %d receives two elements at 0x%llx",
                        d, (unsigned long long)to);
            }
        }
    return NULL;
}

/* The unpack of piece k on every rank. */
static const char *sim_unpack(Arena *a, const ExSim *x, const Phase *p, uint64_t k) {
    for (int d = 0; d < 1 << x->g; d++) {
        uint64_t base = (uint64_t)d << x->ln;
        if (p->unpack_plans) {
            const BmmcPlan *plan = &p->unpack_plans[d][0];
            REQUIRE(plan->piece_log == p->piece_log, "an unpack kernel of 2^%d pieces",
                    plan->piece_log);
            REQUIRE(f2_equal(&plan->a, &p->unpack) && plan->c == p->unpack_const[d],
                    "rank %d's unpack kernel is another map", d);
            const char *why = run_plan(a, x, plan, d, k, x->recv, x->done, true);
            if (why) return why;
            continue;
        }
        for (uint64_t v = 0; v < UINT64_C(1) << x->ln; v++) {
            if (piece_of(x, v) != k) continue;
            uint64_t to = p->unpacks ? f2_apply(&p->unpack, v) ^ p->unpack_const[d] : v;
            REQUIRE(x->recv[base | v] != ~UINT64_C(0), "rank %d unpacks 0x%llx before it arrives",
                    d, (unsigned long long)v);
            REQUIRE(put(x->done, base | to, x->recv, base | v),
                    "rank %d unpacks two elements to 0x%llx", d, (unsigned long long)to);
        }
    }
    return NULL;
}

/* Every element through the pack, the routing and the unpack, piece by
 * piece, with the kernels' own index arithmetic: it must land at M·x ⊕ c. */
static const char *verify_exchange_moves(Arena *a, const Schedule *s, const Phase *p) {
    size_t count = (size_t)1 << p->n;
    ExSim x = {.g = s->gpu_log, .ln = p->n - s->gpu_log, .h = p->chunk_log, .pieces = p->piece_log};
    x.lo = p->piece_lo;
    x.sent = NEW_ARRAY(a, uint64_t, count);
    x.recv = NEW_ARRAY(a, uint64_t, count);
    x.done = NEW_ARRAY(a, uint64_t, count);
    for (size_t i = 0; i < count; i++) x.sent[i] = x.recv[i] = x.done[i] = ~UINT64_C(0);
    for (uint64_t k = 0; k < UINT64_C(1) << x.pieces; k++) {
        const char *why = sim_pack(a, &x, p, k);
        if (!why) why = p->crosses ? sim_route(a, &x, p, k) : NULL;
        if (!why && !p->crosses)
            for (size_t i = 0; i < count; i++) x.recv[i] = x.sent[i];
        if (!why) why = sim_unpack(a, &x, p, k);
        if (why) return why;
    }
    for (size_t i = 0; i < count; i++) {
        REQUIRE(x.done[i] != ~UINT64_C(0), "nothing is exchanged to 0x%llx", (unsigned long long)i);
        REQUIRE((f2_apply(&p->mat, x.done[i]) ^ p->compl ) == i,
                "element 0x%llx is exchanged to 0x%llx, not 0x%llx", (unsigned long long)x.done[i],
                (unsigned long long)i,
                (unsigned long long)(f2_apply(&p->mat, x.done[i]) ^ p->compl ));
    }
    return NULL;
}

/* With ranks: a LOCAL phase's tile and write stay on each rank, and an
 * exchange moves every element where its matrix says (checked element by
 * element for arrays of up to 2^16, piece by piece through the kernels'
 * index arithmetic and the routing tables the emitters write). */
static const char *verify_ranks(Arena *a, const Schedule *s, const Phase *p) {
    int g = s->gpu_log, ln = p->n - g;
    if (p->kind == PHASE_LOCAL) {
        for (int i = 0; i < p->tile_log; i++)
            REQUIRE(!(p->tile_cols[i] >> ln), "tile column %d crosses the GPUs", i);
        for (int k = 0; k < g; k++)
            REQUIRE(p->block_cols[p->block_log - g + k] == UINT64_C(1) << (ln + k),
                    "block bit %d is not rank bit %d", p->block_log - g + k, k);
        REQUIRE(p->writes_in_place || (p->write_mat.n == p->n && !((p->write_compl >> ln) != 0)),
                "writes across the GPUs");
        for (int k = 0; !p->writes_in_place && k < g; k++)
            REQUIRE(p->write_mat.row[ln + k] == UINT64_C(1) << (ln + k), "writes across the GPUs");
        return NULL;
    }
    REQUIRE(p->kind != PHASE_PERMUTE, "a permutation that is not an exchange");
    if (p->kind != PHASE_EXCHANGE) return NULL;
    REQUIRE(invertible(&p->mat, p->n) && invertible(&p->pack, ln) && p->chunk_log >= 0 &&
                p->chunk_log <= g,
            "an exchange of 2^%d chunks", p->chunk_log);
    REQUIRE(p->pack_inv.n == ln, "the pack's inverse is of 2^%d elements", p->pack_inv.n);
    F2Mat pack_pack_inv = f2_mul(&p->pack, &p->pack_inv);
    REQUIRE(f2_is_identity(&pack_pack_inv), "the pack's inverse is not its inverse");
    REQUIRE(p->crosses || (p->chunk_log == 0 && !p->packs), "a local exchange that packs");
    REQUIRE(p->piece_log >= 0 && p->piece_log <= EXCHANGE_MAX_PIECE_LOG && p->piece_lo >= 0 &&
                p->piece_lo + p->piece_log <= ln - p->chunk_log &&
                (p->crosses || p->piece_log == 0),
            "an exchange in 2^%d pieces from bit %d", p->piece_log, p->piece_lo);
    REQUIRE(!p->crosses || p->piece_log || p->serial_why,
            "an exchange not pipelined without a reason");
    if (p->n > 16) return NULL;
    return verify_exchange_moves(a, s, p);
}

/* The entry's parameters: the array, and every other one a scalar. */
static const char *verify_params(Arena *a, const Schedule *s) {
    const IrBody *body = s->func->body;
    REQUIRE(s->in_param >= 0 && s->in_param < body->nparams &&
                !ir_is_scalar(body->params[s->in_param]),
            "the array parameter %d is not an array", s->in_param);
    REQUIRE(s->nargs == body->nparams - 1, "%d scalar parameters of %d parameters", s->nargs,
            body->nparams);
    for (int k = 0; k < s->nargs; k++)
        REQUIRE(ir_is_scalar(s->args[k]) && (!s->args[k]->def || s->arg_by_ref),
                "scalar parameter %d is not a scalar parameter", k);
    return NULL;
}

/* ---- The kernels' own shared arrays (SharedPlan, kernel_plan.c) ---- */

static bool shared_of_field(SharedRole role) {
    return role == SHARED_WARP_TOTALS || role == SHARED_WARP_SCANS || role == SHARED_TILE_TOTAL ||
           role == SHARED_TILE_PREFIX;
}

/* The size of an element of x: its field's, or its role's own. */
static int shared_elem_bytes(const IrStmt *s, const SharedArray *x) {
    switch (x->role) {
    case SHARED_CHUNKS: return MACHINE_VECTOR_BYTES;
    case SHARED_TILE_NUMBER: return 8;
    case SHARED_TILE_HAS:
    case SHARED_LOOK_STOP: return 4;
    default: return prim_bits(elem_slot_prim(s->args[s->nargs - 1]->elem, x->field)) / 8;
    }
}

/* Each array of a kernel's shared memory holds one role, for a field of
 * statement s where the role is a field's (else for none), once, in
 * elements of its size; `bytes` is their sum, within a block's static
 * shared memory. */
static const char *verify_shared_list(Arena *a, const IrStmt *s, const SharedPlan *sh,
                                      const char *kernel) {
    int sum = 0;
    for (int i = 0; i < sh->n; i++) {
        const SharedArray *x = &sh->arrays[i];
        bool field_ok = shared_of_field(x->role)
                            ? x->field >= 0 && x->field < s->body->nresults
                            : x->role >= 0 && x->role < SHARED_ROLE_COUNT && x->field == -1;
        REQUIRE(field_ok, "%s: shared array %d holds role %d for field %d", kernel, i, x->role,
                x->field);
        REQUIRE(plan_shared_array(sh, x->role, x->field) == x,
                "%s: two shared arrays of role %d for field %d", kernel, x->role, x->field);
        REQUIRE(x->elem_bytes == shared_elem_bytes(s, x) && x->rows >= 1 && x->cols >= 1,
                "%s: shared array %d of %d rows of %d elements of %d bytes", kernel, i, x->rows,
                x->cols, x->elem_bytes);
        sum += x->rows * x->cols * x->elem_bytes;
    }
    REQUIRE(sum == sh->bytes && sum <= MACHINE_STATIC_SHARED_BYTES,
            "%s: %d bytes of shared memory for arrays of %d (a block's static most: %d)", kernel,
            sh->bytes, sum, MACHINE_STATIC_SHARED_BYTES);
    return NULL;
}

/* Whether sh holds, for every field of s, a one-row array of `role` of
 * `cols` elements. */
static bool shared_per_field(const IrStmt *s, const SharedPlan *sh, SharedRole role, int cols) {
    for (int k = 0; k < s->body->nresults; k++) {
        const SharedArray *x = plan_shared_array(sh, role, k);
        if (!x || x->rows != 1 || x->cols != cols) return false;
    }
    return true;
}

/* A block of 2^t threads reducing their values (t 0: no block's
 * reduction): past one warp, the warps' totals of every field, a slot a
 * warp, and nothing else. */
static const char *verify_block_tree(Arena *a, const IrStmt *s, const SharedPlan *sh, int t,
                                     const char *kernel) {
    const char *why = verify_shared_list(a, s, sh, kernel);
    if (why) return why;
    bool warps = t > MACHINE_WARP_LOG;
    REQUIRE(sh->n == (warps ? s->body->nresults : 0) &&
                (!warps ||
                 shared_per_field(s, sh, SHARED_WARP_TOTALS, 1 << (t - MACHINE_WARP_LOG))),
            "%s: %d shared arrays, not the warps' totals of a block of 2^%d threads", kernel, sh->n,
            t);
    return NULL;
}

/* A scan's tile (kernel_plan.c, scan_arrays): where it looks back, its
 * number, the total and prefix of each field, whether it found one and
 * the stop; the chunk buffer where a plane is staged, a row for each warp
 * of 32 lanes' most chunks; the warps' totals, a slot a warp, where a
 * scanned block spans warps; nothing else. */
static const char *verify_scan_shared(Arena *a, const PlanNode *n, int i) {
    const IrStmt *s = n->stmt;
    const SharedPlan *sh = &n->shared;
    const char *kernel = arena_printf(a, "node %d's tiles", i);
    const char *why = verify_shared_list(a, s, sh, kernel);
    if (why) return why;
    int ns = s->body->nresults, t = n->threads_log, most = -1;
    int warps = t > MACHINE_WARP_LOG ? 1 << (t - MACHINE_WARP_LOG) : 1;
    bool look_back = plan_scan_looks_back(n), spans = plan_scan_spans_warps(n);
    for (int k = 0; k < ns; k++)
        if (n->chunks_log[k] > most) most = n->chunks_log[k];
    const SharedArray *chunks = plan_shared_array(sh, SHARED_CHUNKS, -1);
    REQUIRE(most < 0 ? !chunks
                     : chunks && chunks->rows == warps && chunks->cols == MACHINE_WARP << most,
            "%s: a chunk buffer that is not a row of each warp's lanes' 2^%d chunks", kernel, most);
    REQUIRE(!spans || shared_per_field(s, sh, SHARED_WARP_SCANS, warps),
            "%s: no warps' totals of a slot for each of %d warps", kernel, warps);
    REQUIRE(!look_back || (shared_per_field(s, sh, SHARED_TILE_TOTAL, 1) &&
                           shared_per_field(s, sh, SHARED_TILE_PREFIX, 1) &&
                           plan_shared_array(sh, SHARED_TILE_NUMBER, -1) &&
                           plan_shared_array(sh, SHARED_TILE_HAS, -1) &&
                           plan_shared_array(sh, SHARED_LOOK_STOP, -1)),
            "%s: a look-back without its tile's shared scalars", kernel);
    int want = (most >= 0) + (spans ? ns : 0) + (look_back ? 2 * ns + 3 : 0);
    REQUIRE(sh->n == want, "%s: %d shared arrays where its work needs %d", kernel, sh->n, want);
    return NULL;
}

/* A fused reduce (Schedule.reduce) sees every element once: its phase is
 * LOCAL and only permutations follow it. */
static const char *verify_fused_reduce(Arena *a, const Schedule *s) {
    const IrStmt *r = s->reduce;
    REQUIRE(r || s->reduce_shared.n == 0, "shared arrays of a fused reduce of none");
    if (!r) return NULL;
    REQUIRE(r->op == IR_REDUCE && r->commutative,
            "a fused reduce that is not a commutative reduce");
    REQUIRE(s->reduce_phase >= 0 && s->reduce_phase < s->nphases &&
                s->phases[s->reduce_phase].kind == PHASE_LOCAL,
            "a reduce fused into phase %d, which is not a LOCAL phase", s->reduce_phase);
    for (int i = s->reduce_phase + 1; i < s->nphases; i++)
        REQUIRE(s->phases[i].kind == PHASE_PERMUTE,
                "phase %d changes elements after the fused reduce", i);
    REQUIRE(elem_equal(r->args[r->nres]->elem, s->phases[s->reduce_phase].elem),
            "the fused reduce reads elements of another type than its phase's");
    return verify_block_tree(a, r, &s->reduce_shared, s->phases[s->reduce_phase].threads_log,
                             "the fused reduce");
}

/* The chain's halves (Schedule.halves) are in the write of its last phase
 * alone, which keeps their sub-arrays and writes the output, and no other
 * phase writes the output (it holds fewer elements). */
static const char *verify_chain_half(Arena *a, const Schedule *s) {
    REQUIRE(!s->half_refused, "halves refused (%s) in a plan",
            s->half_refused ? s->half_refused : "");
    uint64_t keep = 0;
    for (int i = 0; i < s->nhalves; i++) keep = keep << 1 | (uint64_t)s->halves[i]->k;
    for (int i = 0; i < s->nphases; i++) {
        const Phase *p = &s->phases[i];
        bool last = i == s->nphases - 1;
        int h = p->kind == PHASE_LOCAL ? p->half_log : 0;
        REQUIRE(h == (last ? s->nhalves : 0), "phase %d keeps %d halves of the chain's %d", i, h,
                s->nhalves);
        REQUIRE(!h || p->half_keep == keep, "phase %d keeps other sub-arrays than the halves'", i);
        REQUIRE(!s->nhalves || last || p->dst != BUF_OUT, "phase %d writes the halved output", i);
    }
    return NULL;
}

/* An expand read in place only by a first phase that loads element by
 * element, and unstored planes only where the last phase, LOCAL or MAP,
 * is the only one that writes the output (Schedule.in_shift, out_unstored). */
static const char *verify_fused_planes(Arena *a, const Schedule *s) {
    bool shifts = false;
    for (int k = 0; k < SCHED_MAX_SLOTS; k++) {
        REQUIRE(s->in_shift[k] >= 0 && s->in_shift[k] <= s->n &&
                    (k < s->in_elem->nslots || !s->in_shift[k]),
                "input plane %d read at x >> %d", k, s->in_shift[k]);
        shifts |= s->in_shift[k] != 0;
    }
    if (shifts) {
        REQUIRE(s->nphases > 0 && !s->pad && !s->gpu_log,
                "an expand read in place with no phase, a pad or ranks");
        const Phase *first = &s->phases[0];
        REQUIRE((first->kind == PHASE_LOCAL || first->kind == PHASE_MAP) && first->buffers <= 1,
                "an expand read in place by a phase that does not load element by element");
    }
    const Slice *sl = &s->in_slice;
    if (sl->log) {
        REQUIRE(!shifts && s->nphases > 0 && !s->gpu_log && !s->segments,
                "a slice read in place with an expand, no phase, ranks or segments");
        const Phase *first = &s->phases[0];
        REQUIRE((first->kind == PHASE_LOCAL || first->kind == PHASE_MAP) && first->buffers <= 1 &&
                    !first->cluster_log,
                "a slice read in place by a phase that does not load element by element");
        REQUIRE(sl->log <= 63 && sl->log - __builtin_popcountll(sl->fixed) == s->n &&
                    !(sl->fixed >> sl->log) && !(sl->value & ~sl->fixed),
                "a slice of 2^%d elements with bits 0x%llx fixed to 0x%llx, for 2^%d", sl->log,
                (unsigned long long)sl->fixed, (unsigned long long)sl->value, s->n);
        REQUIRE(!s->pad ||
                    (s->pad_in_only &&
                     sl->log == s->pad_cols_log + (s->pad_rows_log > 0 ? s->pad_rows_log : 0)),
                "a slice of the caller's shape that is not of the padded order");
    }
    const Slice *ol = &s->out_slice;
    if (ol->log) {
        REQUIRE(s->nphases > 0 && !s->gpu_log && !s->out_unstored && (!s->pad || s->pad_in_only),
                "a slice written in place with no phase, ranks, unstored planes or a cut");
        const Phase *last = &s->phases[s->nphases - 1];
        REQUIRE((last->kind == PHASE_LOCAL || last->kind == PHASE_MAP) && !last->vec_log &&
                    !last->vec_write && !last->cluster_log && last->dst == BUF_OUT,
                "a slice written in place by a phase that does not store element by element");
        for (int i = 0; i + 1 < s->nphases; i++)
            REQUIRE(s->phases[i].dst != BUF_OUT,
                    "phase %d writes the output, a slice written in place", i);
        REQUIRE(ol->log <= 63 && ol->log - __builtin_popcountll(ol->fixed) == s->n - s->nhalves &&
                    !(ol->fixed >> ol->log) && !(ol->value & ~ol->fixed),
                "a slice of 2^%d elements with bits 0x%llx fixed to 0x%llx, for 2^%d", ol->log,
                (unsigned long long)ol->fixed, (unsigned long long)ol->value, s->n - s->nhalves);
    }
    REQUIRE(!(s->out_unstored >> s->out_elem->nslots), "unstored planes past the output's");
    if (!s->out_unstored) return NULL;
    REQUIRE(s->nphases > 0 && (!s->pad || s->pad_in_only) && !s->gpu_log,
            "unstored planes with no phase, an "
            "output of the caller's shape or ranks");
    const Phase *last = &s->phases[s->nphases - 1];
    REQUIRE(last->kind == PHASE_LOCAL || last->kind == PHASE_MAP,
            "unstored planes written by a %s phase",
            last->kind == PHASE_PERMUTE ? "permute" : "exchange");
    for (int i = 0; i + 1 < s->nphases; i++)
        REQUIRE(s->phases[i].dst != BUF_OUT,
                "phase %d writes the output, whose unstored planes are missing", i);
    return NULL;
}

const char *plan_verify(Arena *a, const Schedule *s) {
    const char *half = verify_chain_half(a, s);
    if (half) return half;
    const char *planes = verify_fused_planes(a, s);
    if (planes) return planes;
    const char *params = verify_params(a, s);
    if (params) return params;
    const char *fused = verify_fused_reduce(a, s);
    if (fused) return fused;
    REQUIRE(s->nphases > 0 || elem_equal(s->in_elem, s->out_elem),
            "no phase, and the element type changes");
    REQUIRE(!s->pad_in_only || (s->pad && s->nphases > 0),
            "the input alone of the caller's shape, without a pad or "
            "a phase that loads it");
    for (int i = 0; i < s->nphases; i++) {
        const Phase *p = &s->phases[i];
        const char *why = verify_flow(a, s, i);
        if (!why) {
            switch (p->kind) {
            case PHASE_LOCAL:
                why = verify_local(a, p);
                if (!why && p->map) why = verify_map(a, p);
                if (!why && p->store_map) why = verify_store_map(a, s, i);
                break;
            case PHASE_PERMUTE: why = verify_permute(a, p); break;
            case PHASE_MAP: why = verify_map(a, p); break;
            case PHASE_EXCHANGE: why = NULL; break;
            }
        }
        if (!why && s->gpu_log) why = verify_ranks(a, s, p);
        if (why) return arena_printf(a, "phase %d: %s", i, why);
    }
    REQUIRE(s->nphases == 0 || elem_equal(plan_out_elem(&s->phases[s->nphases - 1]), s->out_elem),
            "the last phase writes another element type than the result's");
    /* an overlap is harmless only when the first phase reads all before writing the output, or
     * when every rank has gathered the whole input before its phases run (whole_log) */
    REQUIRE(s->alias != ALIAS_HARMLESS || s->whole_log ||
                (s->nphases > 0 && s->phases[0].dst != BUF_OUT),
            "an input overlapping the output is called harmless, "
            "but the first phase writes the output");
    REQUIRE(s->alias != ALIAS_EXACT_OK || s->nphases == 0 ||
                (s->phases[0].kind == PHASE_LOCAL && s->phases[0].writes_in_place),
            "an input that is the output is called harmless, but the first phase moves elements");
    return NULL;
}

/* ---- the entry graph ---- */

static bool same_plane(const PlaneRef *a, const PlaneRef *b) {
    return a->kind == b->kind && a->index == b->index;
}

/* Plane p is written by a node before node `before`. */
static bool written_before(const EntryPlan *e, const PlaneRef *p, int before) {
    if (p->kind == LOC_PARAM || p->kind == LOC_VALUE) return true;
    for (int i = 0; i < before; i++) {
        const PlanNode *n = &e->nodes[i];
        for (int k = 0; k < n->nout; k++)
            if (same_plane(&n->out[k], p)) return true;
        for (int k = 0; n->kind == NODE_CHAIN && k < n->npartial; k++)
            if (same_plane(&n->partial[k], p)) return true;
    }
    return false;
}

static const char *verify_planes(Arena *a, const EntryPlan *e, const PlaneRef *planes, int count,
                                 int node, bool out) {
    for (int k = 0; k < count; k++) {
        const PlaneRef *p = &planes[k];
        REQUIRE(p->kind != LOC_VALUE, "node %d: a plane that is a value", node);
        REQUIRE(out || p->kind != LOC_UNSTORED, "node %d reads a plane that is not stored", node);
        REQUIRE(!out || p->kind != LOC_PARAM, "node %d writes a parameter", node);
        REQUIRE(p->kind != LOC_TEMP || (p->index >= 0 && p->index < e->ntemps),
                "node %d: temporary %d", node, p->index);
        REQUIRE(p->kind != LOC_TEMP || plan_plane_bytes(p) <= e->temps[p->index].bytes,
                "node %d: temporary %d is too small", node, p->index);
        REQUIRE(p->kind != LOC_RESULT || (p->index >= 0 && p->index < e->nout_planes &&
                                          e->out_planes[p->index].log_len == p->log_len &&
                                          e->out_planes[p->index].shaped == p->shaped &&
                                          e->out_planes[p->index].row_cut == p->row_cut),
                "node %d: result plane %d of another length or shape", node, p->index);
        REQUIRE(out || written_before(e, p, node), "node %d reads a plane before it is written",
                node);
    }
    return NULL;
}

/* A REDUCE node's kernels: a block's reduction ends each, except the first
 * of a reduceblocks whose rows lie within a warp (shuffles alone); the
 * second runs where there are partials (plan_partial_loads), which the
 * first writes: a plane per field of the reduced element, an element per
 * block of each row. */
static const char *verify_reduce_kernels(Arena *a, const EntryPlan *e, const PlanNode *n, int i) {
    const IrStmt *s = n->stmt;
    bool rows = s->op == IR_REDUCEBLOCKS, second = plan_reduce_partials(n);
    int first_threads = rows && n->row_threads_log < n->threads_log ? 0 : n->threads_log;
    const char *why = verify_block_tree(a, s, &n->shared, first_threads,
                                        arena_printf(a, "node %d's blocks", i));
    if (!why)
        why = verify_block_tree(a, s, &n->final_shared, second ? n->final_threads_log : 0,
                                arena_printf(a, "node %d's partials", i));
    if (!why) why = verify_planes(a, e, n->partial, n->npartial, i, true);
    if (why) return why;
    int ns = s->nargs - 1;
    REQUIRE(n->npartial == (second ? ns : 0), "node %d: %d partial planes for a %s of %d fields", i,
            n->npartial, ir_op_name(s->op), ns);
    for (int k = 0; k < n->npartial; k++)
        REQUIRE(n->partial[k].log_len == n->rows_log + n->blocks_log &&
                    n->partial[k].prim == elem_slot_prim(s->args[ns]->elem, k),
                "node %d: partial plane %d is not field %d of an element per block of a row", i, k,
                k);
    return NULL;
}

/* A scan node (plan.h, NODE_SCAN): its statement's planes of one length,
 * tiles that cover them, each plane staged through shared memory only in
 * whole 16-byte chunks of whole warps, and partials of one element a tile (a total and a
 * prefix of each field, and the states with the counter after them) in
 * memory it writes; a field of at most 4 bytes in the states alone. */
static const char *verify_scan(Arena *a, const EntryPlan *e, const PlanNode *n, int i) {
    const IrStmt *s = n->stmt;
    REQUIRE(s && s->op == IR_SCAN && s->commutative, "node %d: a scan node of no exact scan", i);
    int ns = s->nargs - 1;
    REQUIRE(n->nin == ns && n->nout == ns && n->n == s->res[0]->log_len && s->k <= n->n,
            "node %d: a scan of other planes than its statement's", i);
    for (int k = 0; k < ns; k++)
        REQUIRE(n->in[k].log_len == n->n && n->out[k].log_len == n->n &&
                    n->out[k].kind != LOC_UNSTORED &&
                    n->in[k].prim == elem_slot_prim(s->res[0]->elem, k) &&
                    n->out[k].prim == n->in[k].prim,
                "node %d: scan plane %d is not its array's", i, k);
    REQUIRE(n->per_thread_log >= 0 && n->threads_log >= 0 && n->grid_log >= 0 &&
                n->per_thread_log + n->threads_log + n->grid_log == n->n && n->threads_log <= 10,
            "node %d: scan tiles of 2^%d threads of 2^%d elements, 2^%d of them, for 2^%d", i,
            n->threads_log, n->per_thread_log, n->grid_log, n->n);
    for (int k = 0; k < ns; k++) {
        int bytes_log = n->per_thread_log + __builtin_ctz((unsigned)prim_bits(n->in[k].prim) / 8);
        int c = n->chunks_log[k];
        REQUIRE(c == -1 ||
                    (c >= 1 && c <= 3 && c + 4 == bytes_log && n->threads_log >= MACHINE_WARP_LOG),
                "node %d: scan plane %d staged in 2^%d chunks of 16 bytes a thread, whose "
                "2^%d bytes of it in a tile of 2^%d threads are not that",
                i, k, c, bytes_log, n->threads_log);
    }
    bool packed = ns == 1 && prim_bits(n->in[0].prim) <= 32;
    REQUIRE(n->npartial == (packed ? 1 : 2 * ns + 1),
            "node %d: %d partial planes for a scan of %d fields", i, n->npartial, ns);
    for (int k = 0; k < n->npartial - 1; k++)
        REQUIRE(n->partial[k].log_len == n->grid_log && n->partial[k].prim == n->in[k % ns].prim,
                "node %d: scan partial %d is not one element of its field a tile", i, k);
    const PlaneRef *states = &n->partial[n->npartial - 1];
    REQUIRE(states->log_len == n->grid_log + 1 && states->prim == PRIM_U64,
            "node %d: the scan's states are not a u64 a tile and the counter", i);
    return verify_planes(a, e, n->partial, n->npartial, i, true);
}

/* The caller's arrays of an entry of any length hold the shape: only a
 * COPY_PAD node or a chain that pads its loads itself reads them (into whole
 * arrays of the padded length), and only a COPY_CUT node or such a chain
 * that is not Schedule.pad_in_only writes them (results, cut_in_chains); a
 * COPY_SHAPE node copies the parameter's shape as it lies into a result's. */
static const char *verify_shaped(Arena *a, const EntryPlan *e, const PlanNode *n, int i) {
    if (n->kind == NODE_COPY && n->copy == COPY_SHAPE) {
        REQUIRE(e->pad && !e->segments && n->n == e->pad_log,
                "node %d copies the caller's shape without a pad of its length, or with segments",
                i);
        for (int k = 0; k < n->nin; k++)
            REQUIRE(n->in[k].shaped && n->in[k].kind == LOC_PARAM && n->out[k].shaped &&
                        n->out[k].kind == LOC_RESULT && !n->out[k].row_cut &&
                        n->in[k].prim == n->out[k].prim && n->in[k].log_len == n->n &&
                        n->out[k].log_len == n->n,
                    "node %d: plane %d is not the caller's shape from a parameter to a result", i,
                    k);
        return NULL;
    }
    /* a chain with a pad reads the caller's shape, and unless it pads its
       loads alone it writes results of that shape too (cut_in_chains) */
    bool chain_cuts = n->kind == NODE_CHAIN && n->chain.pad && !n->chain.pad_in_only;
    bool chain_pads = n->kind == NODE_CHAIN && n->chain.pad;
    bool pads = (n->kind == NODE_COPY && n->copy == COPY_PAD) || chain_pads;
    bool cuts = (n->kind == NODE_COPY && n->copy == COPY_CUT) || chain_cuts;
    bool row_cuts = cuts && n->nout > 0 && n->out[0].row_cut;
    /* the length read: a slice's chain reads the whole padded order */
    int read_log = chain_pads && n->chain.in_slice.log ? n->chain.in_slice.log : n->n;
    REQUIRE(!(pads || cuts) || (e->pad && (read_log == e->pad_log) != row_cuts),
            "node %d pads or cuts without a pad of its length (or cuts rows of the padded length)",
            i);
    for (int k = 0; k < n->nout; k++)
        REQUIRE(n->out[k].row_cut == (row_cuts ? e->func->cut_cols : 0) &&
                    (!row_cuts || n->out[k].kind == LOC_RESULT),
                "node %d: output plane %d is not cut to the entry's result row length", i, k);
    int rows_log = e->pad_rows_log < 0 ? 0 : e->pad_rows_log;
    REQUIRE(!row_cuts || (n->n >= rows_log && n->n - rows_log < 63 &&
                          1LL << (n->n - rows_log) >= n->out[0].row_cut),
            "node %d cuts rows shorter than the result row length", i);
    REQUIRE(!chain_pads || (n->chain.pad && n->chain.pad_rows_log == e->pad_rows_log &&
                            n->chain.pad_cols_log == e->pad_cols_log),
            "node %d: a chain that pads its loads without the entry's shape", i);
    for (int k = 0; chain_cuts && k < n->nout; k++)
        REQUIRE(n->out[k].kind == LOC_RESULT,
                "node %d: a chain of an entry graph that writes the caller's shape into plane %d, "
                "not a result",
                i, k);
    for (int k = 0; k < n->nin; k++)
        REQUIRE(n->in[k].shaped == pads && (!pads || n->in[k].kind == LOC_PARAM) &&
                    (!(pads || cuts) || n->in[k].log_len == read_log),
                "node %d: input plane %d is %sthe caller's shape", i, k, pads ? "not " : "");
    for (int k = 0; k < n->nout; k++)
        REQUIRE(n->out[k].shaped == cuts && (!pads || chain_pads || n->out[k].kind == LOC_TEMP),
                "node %d: output plane %d is %sthe caller's shape", i, k, cuts ? "not " : "");
    for (int k = 0; k < n->nargs; k++)
        REQUIRE(!n->arg_at[k].shaped, "node %d reads a scalar of the caller's shape", i);
    return NULL;
}

/* ---- the host program (plan.h, "The host program") ---- */

static bool chain_region(const ScratchRegion *r) {
    return r->kind != REGION_TEMP && r->kind != REGION_COPY && r->node >= 0;
}

/* A whole parameter or result of an entry graph run whole on every rank. */
static bool entry_whole_region(const ScratchRegion *r) {
    return (r->kind == REGION_WHOLE_IN || r->kind == REGION_WHOLE_OUT) && r->node < 0;
}

/* Two regions may share bytes only when they belong to different chains,
 * which run one after the other. */
static const char *verify_regions(Arena *a, const EntryPlan *e) {
    const HostProgram *h = &e->host;
    REQUIRE(h->bytes <= h->bytes_copies, "the scratch with copies is smaller than without");
    for (int i = 0; i < h->nregions; i++) {
        const ScratchRegion *r = &h->regions[i];
        REQUIRE(r->off % PLAN_ALIGN == 0, "scratch region %d at 0x%llx is not %d-byte aligned", i,
                r->off, PLAN_ALIGN);
        REQUIRE(r->off + r->bytes <= (r->kind == REGION_COPY ? h->bytes_copies : h->bytes),
                "scratch region %d ends past the scratch", i);
        REQUIRE(r->kind != REGION_TEMP ||
                    (r->index < e->ntemps && e->temps[r->index].off == r->off &&
                     e->temps[r->index].bytes == r->bytes),
                "scratch region %d is not its temporary", i);
        REQUIRE(!chain_region(r) || (r->node < e->nnodes && e->nodes[r->node].kind == NODE_CHAIN &&
                                     r->off >= e->chain_off),
                "scratch region %d is not in the chains' area of a chain", i);
        REQUIRE(r->node >= 0 || r->kind == REGION_TEMP || r->kind == REGION_COPY ||
                    entry_whole_region(r),
                "scratch region %d belongs to no node", i);
        const PlaneRef *whole = !entry_whole_region(r)       ? NULL
                                : r->kind == REGION_WHOLE_IN ? e->in_planes
                                                             : e->out_planes;
        int planes = r->kind == REGION_WHOLE_IN ? e->nin_planes : e->nout_planes;
        REQUIRE(!whole || (e->whole_graph && r->index >= 0 && r->index < planes &&
                           r->off >= e->chain_off + e->chain_bytes &&
                           r->bytes == plan_plane_bytes(&whole[r->index])),
                "scratch region %d is not a whole parameter or result of a graph run whole", i);
        for (int j = 0; j < i; j++) {
            const ScratchRegion *q = &h->regions[j];
            bool shared = chain_region(r) && chain_region(q) && r->node != q->node;
            REQUIRE(shared || r->off >= q->off + q->bytes || q->off >= r->off + r->bytes,
                    "scratch regions %d and %d overlap", j, i);
        }
    }
    return NULL;
}

/* An exchange's host steps (plan.h, ExchangeStep): loops that close, a
 * piece's steps inside them, each present step once and in the order
 * pack, packed, send and receive, received, wait, unpack. */
static const char *verify_exchange_steps(Arena *a, const Phase *p, int node, int phase) {
    int at[XSTEP_UNPACK + 1], depth = 0;
    for (int k = 0; k <= XSTEP_UNPACK; k++) at[k] = -1;
    for (int i = 0; i < p->nxsteps; i++) {
        ExchangeStepKind k = p->xsteps[i].kind;
        bool opens = k == XSTEP_PIECES, closes = k == XSTEP_END;
        REQUIRE(p->xsteps[i].in_loop == (depth == 1 && !opens) && (depth == 1 || !closes),
                "node %d: phase %d's host step %d is not where its loop over the pieces says", node,
                phase, i);
        REQUIRE(!opens || depth == 0, "node %d: phase %d's loops over the pieces nest", node,
                phase);
        depth += opens - closes;
        REQUIRE(k == XSTEP_PIECES || k == XSTEP_END || at[k] < 0,
                "node %d: phase %d's host steps repeat one", node, phase);
        at[k] = i;
    }
    REQUIRE(depth == 0, "node %d: phase %d's loop over the pieces does not close", node, phase);
    bool unpacks = p->unpacks || !p->crosses;
    REQUIRE((at[XSTEP_PACK] >= 0) == (p->crosses && p->packs) &&
                (at[XSTEP_PACKED] >= 0) == (p->crosses && p->packs) &&
                (at[XSTEP_SEND_RECV] >= 0) == p->crosses &&
                (at[XSTEP_RECEIVED] >= 0) == p->crosses &&
                (at[XSTEP_WAIT_RECEIVED] >= 0) == p->crosses &&
                (at[XSTEP_UNPACK] >= 0) == unpacks &&
                (at[XSTEP_KEEP_COPY] >= 0) == (p->crosses && !p->packs) &&
                (at[XSTEP_FORK] >= 0) == p->crosses,
            "node %d: phase %d's host steps are not those of its exchange", node, phase);
    static const ExchangeStepKind order[] = {XSTEP_FORK,          XSTEP_KEEP_COPY, XSTEP_PACK,
                                             XSTEP_PACKED,        XSTEP_SEND_RECV, XSTEP_RECEIVED,
                                             XSTEP_WAIT_RECEIVED, XSTEP_UNPACK};
    for (size_t i = 1, last = 0; i < sizeof order / sizeof order[0]; i++) {
        if (at[order[i]] < 0) continue;
        REQUIRE(at[order[last]] < at[order[i]],
                "node %d: phase %d's host step \"%s\" comes too early", node, phase,
                i == 4   ? "send and receive"
                : i == 7 ? "unpack"
                         : "an event or copy");
        last = i;
    }
    return NULL;
}

/* A chain's work memory holds each LOCAL phase's tile, its send and
 * receive buffers each exchanged slice, its whole arrays (a chain too
 * small to split, one-GPU phases) each plane of its input and output. */
static const char *verify_chain_memory(Arena *a, const EntryPlan *e, int node) {
    const Schedule *s = &e->nodes[node].chain;
    unsigned long long work = 0, sizes[2][SCHED_MAX_SLOTS] = {{0}},
                       whole[2][SCHED_MAX_SLOTS] = {{0}};
    for (int i = 0; i < e->host.nregions; i++) {
        const ScratchRegion *r = &e->host.regions[i];
        if (r->node != node) continue;
        if (r->kind == REGION_WORK && r->off == e->chain_off + s->work_off) work = r->bytes;
        if ((r->kind == REGION_SEND || r->kind == REGION_RECV) && r->index < s->nx &&
            r->off == e->chain_off + (r->kind == REGION_SEND ? s->xs_off : s->xr_off)[r->index])
            sizes[r->kind == REGION_RECV][r->index] = r->bytes;
        if ((r->kind == REGION_WHOLE_IN || r->kind == REGION_WHOLE_OUT) && r->index >= 0 &&
            r->index < SCHED_MAX_SLOTS &&
            r->off == e->chain_off + (r->kind == REGION_WHOLE_IN ? s->whole_in_off
                                                                 : s->whole_out_off)[r->index])
            whole[r->kind == REGION_WHOLE_OUT][r->index] = r->bytes;
    }
    REQUIRE(!s->whole_log || !s->gpu_log, "node %d: a chain split over the ranks and whole on each",
            node);
    for (int x = 0; s->whole_log && x < 2; x++) {
        const ElemType *t = x ? s->out_elem : s->in_elem;
        for (int k = 0; k < t->nslots; k++)
            REQUIRE(whole[x][k] >= (unsigned long long)(prim_bits(elem_slot_prim(t, k)) / 8)
                                       << s->n,
                    "node %d: the whole %s's plane %d has no region of its size", node,
                    x ? "result" : "input", k);
    }
    REQUIRE(s->work_off >= s->scratch_bytes, "node %d: the work memory overlaps the chain's planes",
            node);
    for (int i = 0; i < s->nphases; i++) {
        const Phase *p = &s->phases[i];
        /* (a target that keeps tiles in shared memory has no work memory) */
        REQUIRE(p->kind != PHASE_LOCAL || p->work_tile_bytes <= work,
                "node %d: phase %d's tile is not in its work memory", node, i);
        if (p->kind == PHASE_EXCHANGE) {
            const char *why = verify_exchange_steps(a, p, node, i);
            if (why) return why;
        }
        for (int k = 0; p->kind == PHASE_EXCHANGE && k < p->elem->nslots; k++) {
            unsigned long long slice =
                (unsigned long long)(prim_bits(elem_slot_prim(p->elem, k)) / 8)
                << (s->n - s->gpu_log);
            REQUIRE(k < s->nx && sizes[0][k] >= slice && sizes[1][k] >= slice,
                    "node %d: phase %d's plane %d has no send or receive buffer of its size", node,
                    i, k);
        }
    }
    return NULL;
}

/* The checks first, then the allocation, the copies, and every node once,
 * in order. */
static const char *verify_actions(Arena *a, const EntryPlan *e) {
    const HostProgram *h = &e->host;
    int tested = 0, scratch = -1, next_node = 0, gathered = 0, kept = 0;
    for (int i = 0; i < h->nactions; i++) {
        const HostAction *act = &h->actions[i];
        switch (act->kind) {
        case HOST_RESULTS_DISJOINT:
            REQUIRE(i == 0, "action %d: the results' check after other actions", i + 1);
            break;
        case HOST_ALIAS_TEST:
            REQUIRE(scratch < 0 && act->index == tested++,
                    "action %d: parameter planes tested out of order", i + 1);
            break;
        case HOST_SCRATCH:
            REQUIRE(scratch < 0, "action %d: a second scratch allocation", i + 1);
            scratch = i;
            break;
        case HOST_COPY_INPUT:
            REQUIRE(scratch >= 0 && next_node == 0,
                    "action %d: a copy outside the scratch or after a node", i + 1);
            REQUIRE(act->region >= 0 && act->region < h->nregions &&
                        h->regions[act->region].kind == REGION_COPY &&
                        h->regions[act->region].index == act->index &&
                        h->regions[act->region].bytes >=
                            plan_plane_bytes(&e->in_planes[act->index]),
                    "action %d: in%d copied into a region that is not its copy", i + 1, act->index);
            break;
        case HOST_NODE:
            REQUIRE(scratch >= 0 && act->index == next_node++ &&
                        (!e->whole_graph || gathered == e->nin_planes),
                    "action %d: node %d out of order or before the scratch or the gathers", i + 1,
                    act->index);
            break;
        case HOST_GATHER_INPUT:
        case HOST_KEEP_SLICE: {
            bool in = act->kind == HOST_GATHER_INPUT;
            REQUIRE(e->whole_graph && scratch >= 0 &&
                        (in ? next_node == 0 && act->index == gathered++
                            : next_node == e->nnodes && act->index == kept++),
                    "action %d: a %s out of order, outside a graph run whole", i + 1,
                    in ? "gather" : "kept slice");
            const ScratchRegion *r = act->region >= 0 && act->region < h->nregions
                                         ? &h->regions[act->region]
                                         : NULL;
            REQUIRE(r && entry_whole_region(r) &&
                        r->kind == (in ? REGION_WHOLE_IN : REGION_WHOLE_OUT) &&
                        r->index == act->index,
                    "action %d: %s%d is not in its whole region", i + 1, in ? "in" : "out",
                    act->index);
            if (in) tested++;
            break;
        }
        }
    }
    REQUIRE(tested == e->nin_planes && next_node == e->nnodes,
            "the host program does not test (or gather) every parameter plane "
            "and run every node");
    REQUIRE(!e->whole_graph || kept == e->nout_planes,
            "the host program of a graph run whole does not keep a slice of every result plane");
    return NULL;
}

static const char *verify_host(Arena *a, const EntryPlan *e) {
    const char *why = verify_regions(a, e);
    for (int i = 0; !why && i < e->nnodes; i++)
        if (e->nodes[i].kind == NODE_CHAIN) why = verify_chain_memory(a, e, i);
    if (!why) why = verify_actions(a, e);
    return why ? arena_printf(a, "host program: %s", why) : NULL;
}

const char *plan_verify_entry(Arena *a, const EntryPlan *e) {
    const char *host = verify_host(a, e);
    if (host) return host;
    REQUIRE(!e->whole_graph || e->gpu_log > 0, "a graph run whole on every rank without ranks");
    REQUIRE(!e->gpu_log || e->whole_graph || plan_one_chain(e) || plan_one_copy(e),
            "an entry graph on ranks that is not run whole on every rank");
    for (int i = 0; e->whole_graph && i < e->nnodes; i++)
        REQUIRE(e->nodes[i].kind != NODE_CHAIN || e->nodes[i].chain.gpu_log == 0,
                "node %d: a chain planned for ranks in a graph run whole on every rank", i);
    for (int t = 1; t < e->ntemps; t++)
        REQUIRE(e->temps[t].off >= e->temps[t - 1].off + e->temps[t - 1].bytes,
                "temporaries %d and %d overlap", t - 1, t);
    REQUIRE(!e->ntemps ||
                e->chain_off >= e->temps[e->ntemps - 1].off + e->temps[e->ntemps - 1].bytes,
            "chains' scratch overlaps the temporaries");
    for (int i = 0; i < e->nnodes; i++) {
        const PlanNode *n = &e->nodes[i];
        const char *why = verify_planes(a, e, n->in, n->nin, i, false);
        if (!why) why = verify_planes(a, e, n->out, n->nout, i, true);
        for (int k = 0; !why && k < n->nargs; k++)
            if (n->arg_at[k].kind != LOC_VALUE)
                why = verify_planes(a, e, &n->arg_at[k], 1, i, false);
        if (why) return why;
        if (n->kind == NODE_CHAIN) {
            why = plan_verify(a, &n->chain);
            if (why) return arena_printf(a, "node %d: %s", i, why);
            REQUIRE(n->nin == n->chain.in_elem->nslots && n->nout == n->chain.out_elem->nslots,
                    "node %d: planes that are not the chain's fields", i);
            for (int k = 0; k < n->nin; k++)
                REQUIRE(n->in[k].log_len == (n->chain.in_slice.log ? n->chain.in_slice.log
                                                                   : n->n - n->chain.in_shift[k]),
                        "node %d: input plane %d of 2^%d elements, "
                        "read at x >> %d",
                        i, k, n->in[k].log_len, n->chain.in_shift[k]);
            for (int k = 0; k < n->nout; k++)
                REQUIRE(!n->chain.out_slice.log || n->out[k].log_len == n->chain.out_slice.log,
                        "node %d: output plane %d of 2^%d elements, a slice of 2^%d", i, k,
                        n->out[k].log_len, n->chain.out_slice.log);
            for (int k = 0; k < n->nout; k++)
                REQUIRE((n->out[k].kind == LOC_UNSTORED) == (n->chain.out_unstored >> k & 1),
                        "node %d: output plane %d %s", i, k,
                        n->out[k].kind == LOC_UNSTORED ? "unstored, but the chain "
                                                         "stores it"
                                                       : "stored, but the chain leaves it");
            REQUIRE(n->npartial == (n->chain.reduce ? n->chain.reduce->nres : 0),
                    "node %d: %d partial planes for its fused reduce", i, n->npartial);
            why = verify_planes(a, e, n->partial, n->npartial, i, true);
            if (why) return why;
            for (int k = 0; k < n->npartial; k++)
                REQUIRE(n->partial[k].log_len == n->chain.phases[n->chain.reduce_phase].block_log,
                        "node %d: partial plane %d is not one element per block", i, k);
        }
        REQUIRE(!n->in_shift || n->kind == NODE_REDUCE,
                "node %d: a %s that reads an expand in place", i, plan_node_kind_name(n->kind));
        for (int k = 0; n->kind == NODE_REDUCE && k < n->nin; k++) {
            int shift = n->in_shift ? n->in_shift[k] : 0;
            REQUIRE(n->in[k].log_len == n->n - shift,
                    "node %d: input plane %d of 2^%d elements, read at x >> %d", i, k,
                    n->in[k].log_len, shift);
        }
        if (n->kind == NODE_REDUCE)
            REQUIRE(n->nin == n->pre_elem->nslots && n->nout == n->stmt->nargs - 1 &&
                        (n->npre == 0 || elem_equal(n->pre[0]->args[0]->elem, n->pre_elem)) &&
                        (n->npre > 0 ||
                         elem_equal(n->stmt->args[n->stmt->nargs - 1]->elem, n->pre_elem)) &&
                        (n->stmt->op == IR_REDUCEBLOCKS ? n->rows_log == n->n - n->stmt->k
                                                        : n->rows_log == 0),
                    "node %d: a reduction reading other planes than its loads', or of other rows",
                    i);
        if (n->kind == NODE_REDUCE)
            REQUIRE(n->grid_y_log == plan_grid_y_log(n->grid_log) &&
                        n->final_grid_y_log == (n->blocks_log ? plan_grid_y_log(n->rows_log) : 0),
                    "node %d: a grid of 2^%d blocks (2^%d after them) with 2^%d (2^%d) in y", i,
                    n->grid_log, n->rows_log, n->grid_y_log, n->final_grid_y_log);
        if (n->kind == NODE_EXPAND)
            REQUIRE(n->nin == n->nout && n->stmt && n->stmt->op == IR_EXPAND &&
                        n->n == n->stmt->res[0]->log_len,
                    "node %d: an expand of other planes than its statement's", i);
        if (n->kind == NODE_SCAN) {
            why = verify_scan(a, e, n, i);
            if (!why) why = verify_scan_shared(a, n, i);
            if (why) return why;
        }
        if (n->kind == NODE_REDUCE) {
            why = verify_reduce_kernels(a, e, n, i);
            if (why) return why;
        }
        REQUIRE(n->kind == NODE_REDUCE || n->kind == NODE_SCAN ||
                    (n->shared.n == 0 && n->final_shared.n == 0),
                "node %d: shared arrays of a %s, whose kernels plan their own", i,
                plan_node_kind_name(n->kind));
        if (n->kind == NODE_COPY)
            REQUIRE(n->nin == n->nout, "node %d copies %d planes to %d", i, n->nin, n->nout);
        why = verify_shaped(a, e, n, i);
        if (why) return why;
    }
    for (int k = 0; k < e->nout_planes; k++)
        REQUIRE(written_before(e, &e->out_planes[k], e->nnodes), "result plane %d is never written",
                k);
    return NULL;
}
