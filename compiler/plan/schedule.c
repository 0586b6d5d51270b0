/* schedule.c: cut an optimised entry into kernels (see schedule.h). */
#include "schedule.h"

#include <limits.h>
#include <string.h>

#include "access_model.h"
#include "bmmc_plan.h"
#include "exchange_plan.h"
#include "kernel_plan.h"
#include "plan_half.h"
#include "plan_rounds.h" /* the register-round plan scores swizzles */
#include "table_place.h"

/* The largest tile for an element type within tile_bytes of shared memory
 * (which holds one tile), at most SCHED_MAX_TILE bits. */
static int tile_log_for(const ElemType *elem, int tile_bytes) {
    long bytes = elem_bytes(elem);
    int log = 0;
    while (log < SCHED_MAX_TILE && (2L << log) * bytes <= tile_bytes) log++;
    return log;
}

/* The default tile (no --tile-bytes), from measurements on an H100
 * (bench/sort/tiles.sh; bench/results/2026-11-23-tiles.md):
 * - at most 64 KB and 2^14 elements: 2^15 i16 or 2^16 u8 in a tile are 64
 *   or 128 per thread in registers, and spill (an i16 sort of 2^24 took
 *   4.41 ms at 64 KB and 0.88 at 32 KB, a u8 one 15.3 ms);
 * - from 2^20 elements on, a tile small enough for 2^9 blocks (two for each
 *   of 132 SMs), down to 16 KB: fewer and larger tiles leave SMs idle (sort
 *   of 2^20: 0.0954 ms at 64 KB, 0.0712 at 16 KB; of 2^22: 0.2252 at 64 KB,
 *   0.2008 at 32 KB), while passes decide from 2^24 on;
 * - a program of one pass: the smallest tile that keeps it one pass
 *   (schedule_func; 2^16 rows of 2^10: 0.3767 ms at 64 KB, 0.3084 at 16 KB);
 * - a program of several passes: a tile twice as large where it saves at
 *   least a quarter of the passes (schedule_func), since each halving of
 *   the blocks makes a pass about 1.2 to 1.4 times as long (sort of 2^20:
 *   5.1 us a pass at 2^8 blocks, 6.0 at 2^7; of 2^22: 12.5 at 2^9, 17.3 at
 *   2^8; FFT of 2^20: 8.1 at 2^9, 11.2 at 2^7): the FFT of 2^20 takes 3
 *   passes of 32 KB instead of 4 of 16 KB, while the sorts, which would save
 *   a seventh to a fifth, keep their tiles. */
#define DEFAULT_TILE_MAX_LOG 14
#define DEFAULT_TILE_FROM_LOG 20
#define DEFAULT_TILE_BLOCKS_LOG 9

static int smallest_tile_log(const ElemType *elem) {
    return tile_log_for(elem, SCHED_MIN_TILE_BYTES);
}

static int largest_default_tile_log(const ElemType *elem) {
    int most = tile_log_for(elem, SCHED_DEFAULT_TILE_BYTES);
    return most < DEFAULT_TILE_MAX_LOG ? most : DEFAULT_TILE_MAX_LOG;
}

/* The default tile, doubled `raise` times within the largest (schedule_func
 * raises it where that saves passes). */
static int default_tile_log(const ElemType *elem, int n, int raise) {
    int most = largest_default_tile_log(elem);
    int least = smallest_tile_log(elem) < most ? smallest_tile_log(elem) : most, tile = most;
    while (n >= DEFAULT_TILE_FROM_LOG && tile > least && n - tile < DEFAULT_TILE_BLOCKS_LOG) tile--;
    return tile + raise < most ? tile + raise : most;
}

/* A step in the input frame, before it is placed in a phase. */
typedef struct {
    const IrStmt *stmt;
    const IrBody *body;
    int group_log;                  /* 0 for a map */
    uint64_t group[SCHED_MAX_TILE]; /* Q⁻¹e_i: moves logical bit i alone */
    F2Mat logical;                  /* logical index = logical · input ⊕ logical_compl */
    uint64_t logical_compl;
} RawStep;

/* A group of consecutive steps and its tile T (input frame). */
typedef struct {
    int first, count;
    F2Space tile;
    F2Space shared; /* U: the part of T that is the next layout's segment bits */
    F2Space local;  /* with ranks: the vectors the layout keeps on one rank (T's among them) */
    F2Mat layout;   /* memory index = layout · input index */
} Group;

typedef struct {
    Arena *arena;
    Schedule *out;
    int n, seg_log, tile_log;
    int tile_bytes;       /* shared memory for a tile; 0: the default (default_tile_log) */
    int tile_raise;       /* with the default: doublings of the default tile */
    int tile_cap_log;     /* and at most 2^tile_cap_log elements */
    int segment_bytes;    /* SchedOptions.segment_bytes */
    bool vector_copies;   /* SchedOptions.vector_copies */
    bool narrow_permutes; /* SchedOptions.narrow_permutes */
    bool narrow_copies;   /* SchedOptions.narrow_copies */
    int reg_bytes_log;    /* SchedOptions.register_bytes, log2 */
    int tile_buffers;     /* SchedOptions.tile_buffers */
    int cluster_log;      /* SchedOptions.cluster_log */
    int gpu_log;          /* the top gpu_log memory bits name the rank (plan.h, "Ranks") */
    bool spans;           /* a block spans ranks: too small to split (two_too_large) */
    int exchange_pieces;  /* SchedOptions.exchange_pieces */
    const ElemType *elem;
    F2Mat q_mat; /* logical = Q·input ⊕ q */
    uint64_t q_compl;
    F2Mat layout;     /* memory = layout · input, where the data is now */
    RawStep *pending; /* steps not yet placed in phases */
    int npending, cap;
    /* Halves (Schedule.halves): the logical index has `live` bits below
     * the halves' decided ones (plan_half.c), whose kept values are
     * half_keep; half_at[i]: the pending steps before half i */
    int live;
    uint64_t half_keep;
    int *half_at;
    bool halving;    /* the write being placed takes the halves */
    int group_first; /* the pending index of the phase being placed's first step */
    /* A map that changes the element type, not yet placed: the next LOCAL
     * phase runs it as it loads its tile (Phase.map), or it becomes a MAP
     * phase of its own (flush_load_map) */
    Phase load_map;
    bool has_load_map;
    const IrStmt *const *after; /* the chain's statements after the one being scheduled */
    int nafter;
    int consumed;        /* how many of them it took (close_with_map) */
    bool halves_written; /* by the phase before a closing map (close_with_map) */
} Sched;

static Phase *new_phase(Sched *s, PhaseKind kind) {
    Schedule *out = s->out;
    Phase *grown = NEW_ARRAY(s->arena, Phase, out->nphases + 1);
    if (out->nphases) memcpy(grown, out->phases, sizeof(Phase) * (size_t)out->nphases);
    out->phases = grown;
    Phase *p = &out->phases[out->nphases++];
    p->kind = kind;
    p->n = s->n;
    p->elem = p->in_elem = s->elem;
    p->reg_bytes_log = s->reg_bytes_log;
    return p;
}

static F2Mat inverse(const F2Mat *m) {
    F2Mat inv;
    if (!f2_invert(m, &inv)) diag_fatal("internal error: a singular layout");
    return inv;
}

/* The matrix whose column i is cols[i]. */
static F2Mat from_columns(int n, const uint64_t *cols) {
    F2Mat m = f2_zero(n);
    for (int i = 0; i < n; i++)
        for (int r = 0; r < n; r++)
            if (cols[i] >> r & 1) m.row[r] |= UINT64_C(1) << i;
    return m;
}

static F2Space image(const F2Mat *m, const F2Space *s) { return f2_space_image(m, s); }

/* ---- grouping ---- */

/* t with every group vector of step `raw`, when that stays within `dim`
 * (and within `allowed`, unless NULL). */
static bool add_group_in(F2Space *t, const RawStep *raw, int dim, const F2Space *allowed) {
    F2Space grown = *t;
    for (int i = 0; i < raw->group_log; i++) {
        if (allowed && !f2_space_contains(allowed, raw->group[i])) return false;
        f2_space_add(&grown, raw->group[i]);
    }
    if (grown.dim > dim) return false;
    *t = grown;
    return true;
}

static bool add_group(F2Space *t, const RawStep *raw, int dim) {
    return add_group_in(t, raw, dim, NULL);
}

/* Extend s towards dimension `dim` with the group vectors of steps from
 * `from` on, as far as they fit, then with coordinate vectors. Padding a tile
 * with what comes next lets the next tile share more of it. With ranks the
 * tile stays in the group's local space (`allowed`; NULL: no ranks), padded
 * with its coordinate vectors, then the rest of its basis. */
static void pad_tile(const Sched *s, F2Space *t, int from, int dim, const F2Space *allowed) {
    for (int i = from; i < s->npending && t->dim < dim; i++)
        add_group_in(t, &s->pending[i], dim, allowed);
    for (int bit = 0; bit < s->n && t->dim < dim; bit++)
        if (!allowed || f2_space_contains(allowed, UINT64_C(1) << bit))
            f2_space_add(t, UINT64_C(1) << bit);
    for (int i = 0; allowed && i < allowed->dim && t->dim < dim; i++)
        f2_space_add(t, allowed->basis[i]);
}

/* Whether every group vector of a step lies in `local`. */
static bool step_in(const F2Space *local, const RawStep *raw) {
    for (int i = 0; i < raw->group_log; i++)
        if (!f2_space_contains(local, raw->group[i])) return false;
    return true;
}

/* A new local space (with ranks: the input-frame vectors that the memory
 * order keeps on one rank, n - gpu_log dimensions) for the steps from `from`
 * on: their group vectors, whole steps in order as far as they fit, then
 * coordinate vectors. Holding the most steps to come puts the next exchange
 * as far away as one can. */
static F2Space new_local(const Sched *s, int from) {
    int ln = s->n - s->gpu_log;
    F2Space h = f2_space_empty(s->n);
    for (int i = from; i < s->npending; i++)
        if (!add_group(&h, &s->pending[i], ln)) break;
    for (int bit = 0; bit < s->n && h.dim < ln; bit++) f2_space_add(&h, UINT64_C(1) << bit);
    return h;
}

/* T ∩ S, by trying every vector of S (dim S <= tile_log <= 16). */
static F2Space intersection(const F2Space *t, const F2Space *s) {
    F2Space both = f2_space_empty(t->n);
    for (uint32_t c = 1; c < 1u << s->dim; c++) {
        uint64_t v = 0;
        for (int i = 0; i < s->dim; i++)
            if (c >> i & 1) v ^= s->basis[i];
        if (f2_space_contains(t, v)) f2_space_add(&both, v);
    }
    return both;
}

/* U: seg_log dimensions of T to be the next layout's segment bits. Taken
 * first from the span of the next steps' pair vectors (those dimensions then
 * cost the next tile nothing), then from the current segment bits (which
 * keeps the layout), then anything in T. */
static F2Space choose_shared(const Sched *s, const F2Space *t, const F2Space *prev, int from) {
    F2Space next = f2_space_empty(s->n);
    for (int i = from; i < s->npending && next.dim < s->tile_log; i++)
        add_group(&next, &s->pending[i], s->tile_log);
    F2Space common = intersection(t, &next), u = f2_space_empty(s->n);
    for (int i = 0; i < common.dim && u.dim < s->seg_log; i++) f2_space_add(&u, common.basis[i]);
    for (int i = 0; i < prev->dim && u.dim < s->seg_log; i++) f2_space_add(&u, prev->basis[i]);
    for (int i = 0; i < t->dim && u.dim < s->seg_log; i++) f2_space_add(&u, t->basis[i]);
    return u;
}

/* final_pad: vectors the last tile should hold (the logical segment bits),
 * so that it can write the logical order itself; NULL when not final.
 * With ranks, first_local: the local space of the memory order the first
 * group reads, when its first step stays on the ranks there (else the first
 * group starts a local space of its own). Each group's tile lies in its
 * local space; a step outside it starts a new one (an exchange). */
static int form_groups(const Sched *s, const F2Space *first_shared, const F2Space *final_pad,
                       const F2Space *first_local, Group *groups) {
    int ngroups = 0, i = 0;
    F2Space shared = *first_shared;
    F2Space local = first_local ? *first_local : new_local(s, 0);
    bool fresh = !first_local;
    while (i < s->npending) {
        if (s->gpu_log && !step_in(&local, &s->pending[i])) {
            local = new_local(s, i);
            fresh = true;
        }
        /* an exchange writes a new layout: its segment bits are free */
        if (s->gpu_log && fresh) shared = choose_shared(s, &local, &(F2Space){.n = s->n}, i);
        fresh = false;
        const F2Space *allowed = s->gpu_log ? &local : NULL;
        Group *g = &groups[ngroups++];
        F2Space t = shared;
        g->first = i;
        g->local = local;
        for (; i < s->npending; i++)
            if (!add_group_in(&t, &s->pending[i], s->tile_log, allowed)) break;
        g->count = i - g->first;
        if (g->count == 0) diag_fatal("internal error: a group of elements larger than a tile");
        if (i == s->npending && final_pad) {
            F2Space with = f2_space_sum(&t, final_pad);
            bool stays = true;
            for (int k = 0; allowed && k < with.dim; k++)
                stays &= f2_space_contains(allowed, with.basis[k]);
            if (with.dim <= s->tile_log && stays) t = with;
        }
        pad_tile(s, &t, i, s->tile_log, allowed);
        g->tile = t;
        g->shared = shared;
        shared = choose_shared(s, &t, &shared, i);
    }
    return ngroups;
}

/* The layout in which T is the low tile_log bits and U the low seg_log.
 * With ranks, the group's local space is the low n - gpu_log bits, and the
 * top (rank) bits keep the vectors they held in `prev` where they can: with
 * the same local space, every element then stays on its rank. */
static F2Mat layout_for(const Sched *s, const Group *g, const F2Mat *prev) {
    uint64_t cols[F2_MAX] = {0}, fill[F2_MAX];
    F2Space basis = f2_space_empty(s->n);
    int k = 0, nfill = 0, ln = s->n - s->gpu_log;
    for (int i = 0; i < g->shared.dim; i++)
        if (f2_space_add(&basis, g->shared.basis[i])) cols[k++] = g->shared.basis[i];
    for (int i = 0; i < g->tile.dim; i++)
        if (f2_space_add(&basis, g->tile.basis[i])) cols[k++] = g->tile.basis[i];
    if (s->gpu_log) {
        for (int i = g->local.dim - 1; i >= 0; i--)
            if (f2_space_add(&basis, g->local.basis[i])) cols[k++] = g->local.basis[i];
        F2Mat prev_inv = inverse(prev);
        for (int i = ln; i < s->n; i++)
            if (f2_space_add(&basis, f2_column(&prev_inv, i))) cols[i] = f2_column(&prev_inv, i);
    }
    for (int bit = 0; bit < s->n; bit++)
        if (f2_space_add(&basis, UINT64_C(1) << bit)) fill[nfill++] = UINT64_C(1) << bit;
    int lo = 0;
    for (; k < ln; k++) cols[k] = fill[lo++];
    for (int i = s->n - 1; i >= ln; i--)
        if (!cols[i]) cols[i] = fill[--nfill];
    F2Mat m = from_columns(s->n, cols);
    return inverse(&m);
}

/* ---- phases ---- */

/* Tile and block columns of a phase in memory frame: the segment bits, the
 * rest of V reduced modulo them, and the non-pivot coordinates. */
static void tile_columns(const Sched *s, Phase *p, const F2Space *v) {
    p->seg_log = s->seg_log;
    p->tile_log = v->dim;
    p->block_log = s->n - v->dim;
    int col = 0;
    for (int i = 0; i < s->seg_log; i++) p->tile_cols[col++] = UINT64_C(1) << i;
    for (int i = v->dim - 1; i >= 0; i--) {
        uint64_t w = v->basis[i] & ~f2_mask(s->seg_log);
        if (w) p->tile_cols[col++] = w;
    }
    for (int i = 0; i < v->dim; i++) p->slot_cols[i] = UINT64_C(1) << i;
    uint64_t rest = f2_space_coord_complement(v);
    int b = 0;
    for (int bit = 0; bit < s->n; bit++)
        if (rest >> bit & 1) p->block_cols[b++] = UINT64_C(1) << bit;
}

/* (u, b) coordinates of a memory index: the inverse of [W | C]. */
static F2Mat coordinates(const Phase *p) {
    uint64_t cols[F2_MAX];
    for (int i = 0; i < p->n; i++)
        cols[i] = i < p->tile_log ? p->tile_cols[i] : p->block_cols[i - p->tile_log];
    F2Mat m = from_columns(p->n, cols);
    return inverse(&m);
}

/* A functional over memory indices as masks over u and over b. */
static void split_functional(const Phase *p, uint64_t f, uint64_t *on_u, uint64_t *on_b) {
    *on_u = *on_b = 0;
    for (int i = 0; i < p->tile_log; i++) *on_u |= (uint64_t)f2_parity(f & p->tile_cols[i]) << i;
    for (int k = 0; k < p->block_log; k++) *on_b |= (uint64_t)f2_parity(f & p->block_cols[k]) << k;
}

/* f over input indices, as a functional over memory indices of `layout`. */
static uint64_t functional_in_memory(const F2Mat *layout_inv, uint64_t f) {
    uint64_t g = 0;
    for (int j = 0; j < layout_inv->n; j++)
        g |= (uint64_t)f2_parity(f & f2_column(layout_inv, j)) << j;
    return g;
}

static void place_steps(const Sched *s, Phase *p, const Group *g, const F2Mat *layout) {
    F2Mat coords = coordinates(p), layout_inv = inverse(layout);
    p->steps = NEW_ARRAY(s->arena, Step, g->count);
    p->nsteps = g->count;
    for (int i = 0; i < g->count; i++) {
        const RawStep *raw = &s->pending[g->first + i];
        Step *st = &p->steps[i];
        st->stmt = raw->stmt;
        st->body = raw->body;
        /* a group's base has its low logical bits clear; its position is
           its logical index without them */
        int drop = raw->group_log;
        st->group_log = raw->group_log;
        for (int j = 0; j < drop; j++) {
            st->group[j] = f2_apply(&coords, f2_apply(layout, raw->group[j]));
            split_functional(p, functional_in_memory(&layout_inv, raw->logical.row[j]),
                             &st->order[j], &st->order_block[j]);
        }
        st->order_const = raw->logical_compl & f2_mask(drop);
        st->pos_bits = s->n - drop;
        st->pos_const = raw->logical_compl >> drop;
        for (int j = 0; j < st->pos_bits; j++)
            split_functional(p, functional_in_memory(&layout_inv, raw->logical.row[j + drop]),
                             &st->pos_u[j], &st->pos_b[j]);
    }
}

/* The first lanes of a wavefront (access_model.h) at tile vectors
 * lane_cols meet no other word in their banks. */
static bool lanes_conflict_free(const Phase *p, const uint64_t *lane_cols, int lanes) {
    LaneBanks banks;
    lane_banks_init(&banks, elem_max_slot_bytes(p->elem));
    if (lanes > banks.g.wave_log) lanes = banks.g.wave_log;
    uint64_t lane;
    for (int i = 0; i < lanes; i++)
        if (!lane_banks_add(&banks, lane_cols[i], plan_slot(p, lane_cols[i]), &lane)) return false;
    return true;
}

/* The swizzle. The write side's lanes must meet no other word in their banks
 * (access_model.h); among the identity and a fixed sequence of pseudo-random
 * swizzles that allow it (one exists whenever the tile has bits above the
 * bank bits; a few tries find one),
 * take the first that leaves the fewest comparator steps whose direction
 * depends on the thread (plan_rounds.c plans the register rounds inside
 * the kernels of the directions where the banks allow it; such steps need
 * selects in the CUDA kernel, the others none). */
#define SWIZZLE_TRIES 100000
#define SWIZZLE_SCORED 256            /* swizzles scored at most */
#define SWIZZLE_STEP_SCORES (1 << 16) /* and steps planned, over all of them */

/* The write side's lanes (with vec_write, those that load one element of
 * each vector), and with vectors (Phase.vec_log) the lanes that store one
 * element of each vector (tile vectors e_v..: the load, and the write-back
 * in place), meet no other word in their banks. */
static bool swizzle_allowed(const Phase *p, int lanes) {
    int off = p->vec_write ? p->vec_log : 0,
        write_lanes = p->tile_log - off < lanes ? p->tile_log - off : lanes;
    if (!p->writes_in_place && !lanes_conflict_free(p, p->src_cols + off, write_lanes))
        return false;
    if (!p->vec_log) return true;
    uint64_t vec_lanes[MACHINE_WARP_LOG];
    int n = 0;
    for (; n < MACHINE_WARP_LOG && p->vec_log + n < p->tile_log; n++)
        vec_lanes[n] = UINT64_C(1) << (p->vec_log + n);
    return lanes_conflict_free(p, vec_lanes, n);
}

/* Returns whether the swizzle chosen meets swizzle_allowed. */
static bool choose_swizzle(Phase *p) {
    uint64_t best[SCHED_MAX_TILE];
    for (int i = 0; i < p->tile_log; i++) p->slot_cols[i] = best[i] = UINT64_C(1) << i;
    int lanes = p->tile_log < MACHINE_WARP_LOG ? p->tile_log : MACHINE_WARP_LOG;
    BankGeometry g = access_bank_geometry(elem_max_slot_bytes(p->elem));
    if (p->tile_log <= g.word_shift + g.bank_bits) return true;
    int best_score = INT_MAX, scored = 0;
    if (swizzle_allowed(p, lanes)) {
        best_score = plan_thread_directions(p);
        scored++;
    }
    uint64_t state = 0x9e3779b97f4a7c15u;
    for (int attempt = 0; attempt < SWIZZLE_TRIES && best_score > 0 && scored < SWIZZLE_SCORED &&
                          (long)scored * p->nsteps < SWIZZLE_STEP_SCORES;
         attempt++) {
        /* tile bits above the bank bits XOR into the bank bits: first each
           into bank bit (its index mod the bank bits), which keeps the
           lanes of a round within the low tile bits where it can, so that
           the round layouts of plan_rounds.c find warps' slots to keep */
        for (int i = g.word_shift + g.bank_bits; i < p->tile_log; i++) {
            uint64_t mix = UINT64_C(1) << ((i - g.word_shift - g.bank_bits) % g.bank_bits);
            if (attempt > 0) {
                state = state * 6364136223846793005u + 1442695040888963407u;
                mix = state >> (64 - g.bank_bits);
            }
            p->slot_cols[i] = (UINT64_C(1) << i) | mix << g.word_shift;
        }
        if (!swizzle_allowed(p, lanes)) continue;
        int score = plan_thread_directions(p);
        scored++;
        if (score < best_score) {
            best_score = score;
            memcpy(best, p->slot_cols, sizeof(uint64_t) * (size_t)p->tile_log);
        }
    }
    memcpy(p->slot_cols, best, sizeof(uint64_t) * (size_t)p->tile_log);
    return best_score < INT_MAX;
}

/* Elements per 16-byte vector (log2) that the tile copies of a LOCAL phase
 * can move, or 0: every plane's slots must have one size, a vector must
 * lie within a segment and within one thread's share of the tile (checked
 * once the threads are planned), and an entry of any length guards every
 * element of its first and last phases. */
static int vector_fit_log(const Sched *s, const Phase *p) {
    int bytes = prim_bits(elem_slot_prim(p->elem, 0)) / 8, log = 0;
    for (int k = 1; k < p->elem->nslots; k++)
        if (prim_bits(elem_slot_prim(p->elem, k)) / 8 != bytes) return 0;
    while ((bytes << log) < MACHINE_VECTOR_BYTES) log++;
    if (s->cluster_log || s->out->pad || (bytes << log) != MACHINE_VECTOR_BYTES ||
        log > p->seg_log || log > p->tile_log)
        return 0;
    return log;
}

/* Whether the copies take the vectors that fit: by default for fields of
 * 1 and 2 bytes (a u8 sort of 2^24 runs 5% faster, i16 the same:
 * docs/performance.md; --narrow-copies leaves them out), for wider ones
 * with --vector-copies (no faster for i32 on the H100, session 7). */
static bool vectors_wanted(const Sched *s, const Phase *p) {
    return s->vector_copies || (elem_max_slot_bytes(p->elem) <= 2 && !s->narrow_copies);
}

/* Whether the write into the next layout can move vectors: output block
 * columns with no bits inside a vector (the output coordinates' first
 * columns are e0..: a vector's elements are consecutive). */
static bool vector_write(const Phase *p) {
    for (int k = 0; k < p->block_log; k++)
        if (p->out_block_cols[k] & f2_mask(p->vec_log)) return false;
    return true;
}

/* Tile buffers of a LOCAL phase (Phase.buffers): the ones asked for where
 * they fit in a block's shared memory and cp.async can load every field (4
 * or 8 bytes); an entry of any length makes its pad in registers. */
static int tile_buffers(const Sched *s, const Phase *p) {
    if (s->tile_buffers < 2 || s->out->pad || p->map || s->cluster_log)
        return 1; /* cp.async copies, it converts nothing */
    for (int k = 0; k < p->elem->nslots; k++) {
        int bytes = prim_bits(elem_slot_prim(p->elem, k)) / 8;
        if (bytes != 4 && bytes != 8) return 1;
    }
    return ((long)s->tile_buffers * elem_bytes(p->elem) << p->tile_log) <= SCHED_MAX_TILE_BYTES
               ? s->tile_buffers
               : 1;
}

/* Blocks per tile, log2 (Phase.cluster_log): the clusters asked for,
 * where the phase's kernel can hold its tile in them: each block a warp of
 * threads at least and its share above the bank bits (the swizzle mixes
 * tile bits into those alone, so a slot's top bits stay its rank's), the
 * tile copies element by element, and no halves or ranks. A phase that
 * cannot refuses the chain's clusters (Schedule.cluster_refused). */
static int cluster_log(const Sched *s, Phase *p) {
    int c = s->cluster_log;
    if (!c) return 0;
    BankGeometry g = access_bank_geometry(elem_max_slot_bytes(p->elem));
    const char *why = NULL;
    if (s->gpu_log) why = "a chain over several GPUs";
    else if (s->out->pad) why = "an entry of any length";
    else if (p->half_log) why = "halves fused into the write";
    else if (p->tile_log - c < g.word_shift + g.bank_bits)
        why = "a tile too small for its blocks' banks";
    else {
        p->cluster_log = c;
        if (plan_threads_log(p) - c < MACHINE_WARP_LOG) why = "a tile too small for a warp a block";
    }
    if (!why) return c;
    if (!s->out->cluster_refused) s->out->cluster_refused = why;
    return 0;
}

/* A refusal of the chain's halves (Schedule.half_refused): the first
 * `fit` of them could be fused. */
static void refuse_halves(const Sched *s, const char *why, int fit) {
    if (s->out->half_refused) return;
    s->out->half_refused = why;
    s->out->half_fit = fit;
}

/* The chain's halves (Schedule.halves) fused into the write place_write
 * just made, the last of the chain, which writes the logical order. */
static void halve_write(const Sched *s, Phase *p) {
    int h = s->out->nhalves;
    const char *why = s->gpu_log ? "a chain over several GPUs"
                                 : plan_half_write(s->arena, p, h, s->half_keep);
    if (why) {
        refuse_halves(s, why, h - 1);
        return;
    }
    p->half_step = NEW_ARRAY(s->arena, int, h);
    for (int i = 0; i < h; i++)
        p->half_step[i] = s->half_at[i] > s->group_first ? s->half_at[i] - s->group_first : 0;
}

/* Whether vectors of 2^log keep the phase's layout (a swizzle that leaves
 * their accesses conflict-free, a thread's share that holds one), tried on
 * a copy of the phase before its own planning, which then plans its steps'
 * masks again. */
static bool vectors_keep_layout(const Sched *s, const Phase *p, int log) {
    Phase q = *p;
    q.vec_log = log;
    q.vec_write = !q.writes_in_place && vector_write(&q);
    if (!choose_swizzle(&q)) return false;
    plan_rounds(s->arena, &q);
    return log <= q.tile_log - q.threads_log;
}

/* The write side: element x goes to P·x ⊕ c (P·V contains the segment bits). */
static void place_write(const Sched *s, Phase *p, const F2Mat *pm, uint64_t c) {
    p->write_mat = *pm;
    p->write_compl = c;
    p->writes_in_place = f2_is_identity(pm) && c == 0;
    F2Space tile = f2_space_empty(s->n);
    for (int i = 0; i < p->tile_log; i++) f2_space_add(&tile, p->tile_cols[i]);
    F2Space out = image(pm, &tile);
    int col = 0;
    for (int i = 0; i < s->seg_log; i++) p->out_cols[col++] = UINT64_C(1) << i;
    for (int i = out.dim - 1; i >= 0; i--) {
        uint64_t z = out.basis[i] & ~f2_mask(s->seg_log);
        if (z) p->out_cols[col++] = z;
    }
    if (col != p->tile_log) diag_fatal("internal error: a tile write that is not whole segments");
    F2Mat coords = coordinates(p), inv = inverse(pm);
    for (int i = 0; i < p->tile_log; i++)
        p->src_cols[i] = f2_apply(&coords, f2_apply(&inv, p->out_cols[i]));
    for (int k = 0; k < p->block_log; k++) p->out_block_cols[k] = f2_apply(pm, p->block_cols[k]);
    p->out_tile_log = p->tile_log;
    if (s->halving) halve_write(s, p);
    /* vectors where a swizzle keeps their shared accesses conflict-free too;
       narrow fields' copies without them where they fit, --narrow-copies,
       are what --report --strict names (Phase.copies_narrowed) */
    int fit = vector_fit_log(s, p);
    p->copies_narrowed = fit && elem_max_slot_bytes(p->elem) <= 2 && s->narrow_copies &&
                         !s->vector_copies && vectors_keep_layout(s, p, fit);
    p->vec_log = vectors_wanted(s, p) ? fit : 0;
    p->vec_write = p->vec_log && !p->writes_in_place && vector_write(p);
    p->buffers = tile_buffers(s, p);
    p->cluster_log = cluster_log(s, p);
    if (!choose_swizzle(p) && p->vec_log) {
        p->vec_log = 0;
        p->vec_write = false;
        choose_swizzle(p);
    }
    plan_rounds(s->arena, p);
    if (p->vec_log > p->tile_log - p->threads_log) {
        p->vec_log = 0;
        p->vec_write = false;
        choose_swizzle(p);
        plan_rounds(s->arena, p);
    }
    /* a halved write's vectors lie within a thread's share of the output */
    if (p->vec_write && p->vec_log > p->out_tile_log - p->threads_log) p->vec_write = false;
    table_place_phase(s->arena, p);
}

/* A permutation over the ranks' slices (plan.h, EXCHANGE). */
static void add_exchange(Sched *s, const F2Mat *m, uint64_t c) {
    if (f2_is_identity(m) && c == 0) return;
    Phase *p = new_phase(s, PHASE_EXCHANGE);
    p->mat = *m;
    p->compl = c;
    exchange_plan(s->arena, p, s->gpu_log, s->exchange_pieces);
}

static void add_permute(Sched *s, const F2Mat *m, uint64_t c) {
    if (f2_is_identity(m) && c == 0) return;
    if (s->gpu_log) {
        add_exchange(s, m, c);
        return;
    }
    Phase *p = new_phase(s, PHASE_PERMUTE);
    p->mat = *m;
    p->compl = c;
    /* tiles of at least 2^10: the size the one-pass kernels were measured at */
    p->slot_plans = NEW_ARRAY(s->arena, BmmcPlan, p->elem->nslots);
    for (int k = 0; k < p->elem->nslots; k++) {
        if (!bmmc_plan(m, c, prim_bits(elem_slot_prim(p->elem, k)) / 8, 10, &p->slot_plans[k]))
            diag_fatal("internal error: no plan for a permutation");
        /* every field in 16-byte vectors: one access per element left
           u8 and i16 at 69-96% of a copy (bench/perm), the bit reversal
           and random BMMC of i32 at 91.5-92.0% of it at 2^26 and 2^28
           (94.0-94.6% in vectors; 8-byte fields the same either way:
           docs/performance.md); an entry of any length guards each
           element */
        if (!s->out->pad && !s->narrow_permutes) bmmc_plan_vectors(&p->slot_plans[k]);
    }
}

/* The permutation from the current layout to the logical order. */
static F2Mat to_logical(const Sched *s, const F2Mat *layout) {
    F2Mat inv = inverse(layout);
    return f2_mul(&s->q_mat, &inv);
}

/* What a LOCAL phase writes before the exchange of `write`: the exchange's
 * pack (on each rank's local bits) when the tile's image still holds the
 * segment bits (whole segments written), else the tile where it was read. */
static F2Mat send_order(const Sched *s, const Phase *p, const F2Mat *write) {
    F2Mat pack = exchange_pack(write, s->gpu_log, p->elem, s->exchange_pieces),
          e = f2_embed(&pack, s->n, 0);
    F2Space tile = f2_space_empty(s->n);
    for (int i = 0; i < p->tile_log; i++) f2_space_add(&tile, p->tile_cols[i]);
    F2Space out = image(&e, &tile);
    for (int i = 0; i < s->seg_log; i++)
        if (!f2_space_contains(&out, UINT64_C(1) << i)) return f2_identity(s->n);
    return e;
}

/* Halves are fused into the last write alone, and the phases before it
 * write the whole array: so the first half must come in the last phase,
 * which writes the logical order. Else the halves up to the end of the
 * phase of the first one could be (Schedule.half_fit). */
static void check_halves(const Sched *s, const Group *groups, int ngroups, bool direct_last) {
    int g = 0;
    while (g + 1 < ngroups && groups[g + 1].first <= s->half_at[0]) g++;
    if (g == ngroups - 1 && direct_last) return;
    int fit = 0, end = groups[g].first + groups[g].count;
    while (fit < s->out->nhalves && s->half_at[fit] <= end) fit++;
    refuse_halves(s,
                  g < ngroups - 1 ? "a phase boundary after a half"
                                  : "the last phase does not write the logical order",
                  fit);
}

/* The map not yet placed, run by phase p: a LOCAL phase as it loads its
 * tile from the memory order the map would have written (Phase.map: one
 * pass less), or a MAP phase of its own (flush_load_map). */
static void take_load_map(Sched *s, Phase *p) {
    if (!s->has_load_map) return;
    s->has_load_map = false;
    p->map = s->load_map.map;
    p->map_pos = s->load_map.map_pos;
    p->map_pos_const = s->load_map.map_pos_const;
    p->in_elem = s->load_map.in_elem;
}

static void flush_load_map(Sched *s) {
    if (!s->has_load_map) return;
    Phase *p = new_phase(s, PHASE_MAP);
    take_load_map(s, p);
    table_place_phase(s->arena, p);
}

/* Place the pending steps in LOCAL phases. The last one writes the logical
 * order when `final` and its tile allows it. */
static void plan_segment(Sched *s, bool final) {
    if (s->npending == 0) {
        flush_load_map(s);
        if (s->out->nhalves && !s->halves_written)
            refuse_halves(s, "no phase works on the halves", s->out->nhalves - 1);
        if (final) {
            F2Mat p = to_logical(s, &s->layout);
            add_permute(s, &p, s->q_compl);
        }
        return;
    }
    F2Mat layout_inv = inverse(&s->layout);
    F2Space seg = f2_space_coords(s->n, f2_mask(s->seg_log));
    F2Space first_shared = image(&layout_inv, &seg);
    F2Mat q_inv = inverse(&s->q_mat);
    F2Space logical_seg = image(&q_inv, &seg);
    Group *groups = NEW_ARRAY(s->arena, Group, s->npending + 1);
    /* with ranks, a first step that the memory order puts across ranks
       starts from a layout of its own, one exchange away */
    F2Space here = f2_space_empty(s->n); /* with ranks: what the layout keeps on one rank */
    for (int bit = 0; bit < s->n - s->gpu_log; bit++)
        f2_space_add(&here, f2_column(&layout_inv, bit));
    bool relayout = s->gpu_log && !step_in(&here, &s->pending[0]);
    int ngroups = form_groups(s, &first_shared, final ? &logical_seg : NULL,
                              relayout ? NULL : &here, groups);
    groups[0].layout = relayout ? layout_for(s, &groups[0], &s->layout) : s->layout;
    for (int k = 1; k < ngroups; k++)
        groups[k].layout = layout_for(s, &groups[k], &groups[k - 1].layout);
    if (relayout) {
        flush_load_map(s);
        F2Mat move = f2_mul(&groups[0].layout, &layout_inv);
        add_exchange(s, &move, 0);
    }
    bool direct = final && f2_space_sum(&groups[ngroups - 1].tile, &logical_seg).dim ==
                               groups[ngroups - 1].tile.dim;
    if (s->out->nhalves) check_halves(s, groups, ngroups, final && direct);
    for (int k = 0; k < ngroups; k++) {
        Phase *p = new_phase(s, PHASE_LOCAL);
        if (k == 0) take_load_map(s, p);
        F2Space v = image(&groups[k].layout, &groups[k].tile);
        tile_columns(s, p, &v);
        place_steps(s, p, &groups[k], &groups[k].layout);
        s->group_first = groups[k].first;
        F2Mat here_inv = inverse(&groups[k].layout), write;
        uint64_t c = 0;
        if (k + 1 < ngroups) {
            write = f2_mul(&groups[k + 1].layout, &here_inv);
        } else if (direct) {
            write = to_logical(s, &groups[k].layout);
            c = s->q_compl;
            s->halving = s->out->nhalves > 0 && !s->out->half_refused;
        } else {
            write = f2_identity(s->n);
        }
        if (s->gpu_log && !exchange_rank_preserving(&write, c, s->gpu_log)) {
            /* the tile stays on its rank, in the exchange's send order where
               that keeps whole segments; the exchange moves it on */
            F2Mat stay = send_order(s, p, &write), stay_inv = inverse(&stay),
                  rest = f2_mul(&write, &stay_inv);
            place_write(s, p, &stay, 0);
            add_exchange(s, &rest, c);
            continue;
        }
        place_write(s, p, &write, c);
        s->halving = false;
    }
    s->layout = direct ? s->q_mat : groups[ngroups - 1].layout;
    s->npending = 0;
    if (final && !direct) {
        F2Mat p = to_logical(s, &s->layout);
        add_permute(s, &p, s->q_compl);
    }
}

/* A step on groups of 2^group_log elements (0: a map): the group of logical
 * bits 0..group_log-1, which in the input frame differ by the columns of Q⁻¹. */
static void push_step(Sched *s, const IrStmt *stmt, const IrBody *body, int group_log) {
    RawStep step = {.stmt = stmt,
                    .body = body,
                    .group_log = group_log,
                    .logical = s->q_mat,
                    .logical_compl = s->q_compl};
    F2Mat inv = inverse(&s->q_mat);
    for (int j = 0; j < group_log; j++) step.group[j] = f2_column(&inv, j);
    if (s->npending == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        RawStep *grown = NEW_ARRAY(s->arena, RawStep, cap);
        if (s->npending) memcpy(grown, s->pending, sizeof(RawStep) * (size_t)s->npending);
        s->pending = grown;
        s->cap = cap;
    }
    s->pending[s->npending++] = step;
}

/* The element type decides the segment bits and the tile size. A segment
 * of 32 bytes (a sector) keeps every access minimal in the access model
 * too; 128 bytes (the default) are whole cache lines. */
static void set_elem(Sched *s, const ElemType *elem) {
    s->elem = elem;
    int seg = __builtin_ctz((unsigned)s->segment_bytes) -
              __builtin_ctz((unsigned)elem_max_slot_bytes(elem));
    if (seg < 0) seg = 0;
    int tile = s->tile_bytes ? tile_log_for(elem, s->tile_bytes)
                             : default_tile_log(elem, s->n, s->tile_raise);
    tile += s->cluster_log; /* a cluster's blocks hold a tile together */
    if (tile > SCHED_MAX_TILE) tile = SCHED_MAX_TILE;
    int room = s->n - s->gpu_log; /* tiles stay on a rank */
    if (tile > s->tile_cap_log) tile = s->tile_cap_log;
    s->seg_log = seg < room ? seg : room;
    s->tile_log = tile < room ? tile : room;
}

static noreturn void unsupported(const Sched *s, const IrStmt *stmt, const char *what) {
    diag_error(stmt->loc, "the back end does not support %s in entry '%s' yet; use --interpret",
               what, s->out->func->entry);
}

/* The values an element body may read: its own, and those of the element
 * bodies it is inside (a reduction's inside a two's), in definition order. */
typedef struct {
    const IrVal **vals;
    int n, cap;
    Arena *arena;
} Scope;

static void scope_add(Scope *sc, const IrVal *v) {
    if (sc->n == sc->cap) {
        int cap = sc->cap ? 2 * sc->cap : 64;
        const IrVal **grown = NEW_ARRAY(sc->arena, const IrVal *, cap);
        if (sc->n) memcpy(grown, sc->vals, sizeof(IrVal *) * (size_t)sc->n);
        sc->vals = grown;
        sc->cap = cap;
    }
    sc->vals[sc->n++] = v;
}

static bool in_scope(const Scope *sc, const IrVal *v) {
    for (int i = sc->n - 1; i >= 0; i--)
        if (sc->vals[i] == v) return true;
    return false;
}

/* Scalar code on small arrays, reductions and scans of them (whole or by
 * blocks), expand, and two, col and map on them included (emit_elem.c), reading
 * nothing from outside. */
static bool element_code(const IrBody *b, Scope *sc) {
    for (int i = 0; i < b->nparams; i++) scope_add(sc, b->params[i]);
    for (int i = 0; i < b->nstmts; i++) {
        const IrStmt *s = b->stmts[i];
        bool nested = s->op == IR_REDUCE || s->op == IR_REDUCEBLOCKS || s->op == IR_SCAN ||
                      s->op == IR_TWO || s->op == IR_COL || s->op == IR_MAP;
        /* the optimiser makes those of at most 2^3 elements index and build (lengths-build) */
        if (s->op == IR_HALF || s->op == IR_JOIN || s->op == IR_SHIFT) return false;
        if (s->body && (!nested || !element_code(s->body, sc))) return false;
        for (int a = 0; a < s->nargs; a++)
            if (!in_scope(sc, s->args[a])) return false;
        for (int r = 0; r < s->nres; r++) scope_add(sc, s->res[r]);
    }
    return true;
}

/* A half, join or shift in b at any depth: element code only up to 2^3
 * elements (the optimiser's lengths-build), lifted only with the rest of a
 * function that is array code (two-lift). */
static const IrStmt *length_change(const IrBody *b) {
    for (int i = 0; i < b->nstmts; i++) {
        const IrStmt *t = b->stmts[i];
        if (t->op == IR_HALF || t->op == IR_JOIN || t->op == IR_SHIFT) return t;
        const IrStmt *inner = t->body ? length_change(t->body) : NULL;
        if (inner) return inner;
    }
    return NULL;
}

/* The refusal of a stage whose function is not element code. */
static noreturn void not_element_code(const Sched *s, const IrStmt *stmt, const char *what) {
    const IrStmt *t = length_change(stmt->body);
    if (t)
        diag_error(
            t->loc,
            "the back end does not support %s on more than 2^3 elements inside the function of a "
            "stage in entry '%s' yet (a block's half, join and shift are lifted to whole arrays "
            "only in a function that is array code alone); use --interpret",
            ir_op_name(t->op), s->out->func->entry);
    unsupported(s, stmt, what);
}

/* An element body may read the entry's run-time scalar parameters too. */
static bool element_body(const Sched *s, const IrBody *b) {
    Scope sc = {.arena = s->arena};
    for (int i = 0; i < s->out->nargs; i++) scope_add(&sc, s->out->args[i]);
    return element_code(b, &sc);
}

/* A half of the chain (Schedule.halves): the logical index is relabelled
 * so that the bit it decides, parity(i & m), is the top live bit, and i
 * without bit lsb(m), the kept half's index, the live bits below it. The
 * steps after it work on those; the elements whose top bits are not the
 * halves' sub-arrays are carried to the last write, which leaves them out
 * (plan_half.c). */
static void half_stmt(Sched *s, const IrStmt *stmt) {
    F2Mat p = f2_identity(s->n);
    int l = __builtin_ctzll(stmt->mask), top = s->live - 1;
    for (int i = l; i < top; i++) p.row[i] = UINT64_C(1) << (i + 1);
    p.row[top] = stmt->mask;
    s->q_mat = f2_mul(&p, &s->q_mat);
    s->q_compl = f2_apply(&p, s->q_compl);
    s->live--;
    s->half_keep = s->half_keep << 1 | (uint64_t)stmt->k;
    Schedule *out = s->out;
    const IrStmt **halves = NEW_ARRAY(s->arena, const IrStmt *, out->nhalves + 1);
    int *at = NEW_ARRAY(s->arena, int, out->nhalves + 1);
    for (int i = 0; i < out->nhalves; i++) {
        halves[i] = out->halves[i];
        at[i] = s->half_at[i];
    }
    halves[out->nhalves] = stmt;
    at[out->nhalves] = s->npending;
    out->halves = halves;
    s->half_at = at;
    out->nhalves++;
}

static void schedule_stmt(Sched *s, const IrStmt *stmt);

/* Whether only permutations follow the statement being scheduled, each on
 * the result of the one before. */
static bool only_permutations_after(const Sched *s) {
    for (int i = 0; i < s->nafter; i++) {
        const IrStmt *t = s->after[i];
        if (t->op != IR_BMMC || t->nargs != 1 || t->nres != 1 ||
            (i && t->args[0] != s->after[i - 1]->res[0]))
            return false;
    }
    return true;
}

/* The chain's closing map, which only permutations follow: they come
 * first (maps commute with permutations; the map reads its positions
 * through them), the steps before it write the logical order, and the map
 * runs as they store it (fold_store_map): no pass of its own, and no
 * permutation of the new type after it. The element at memory index y
 * then has index q_map·q_end⁻¹·(y ⊕ c_end) ⊕ c_map in the map's array.
 * Where the last tile cannot write the logical order, the permutation to
 * it stays last, of the map's type, and the map runs as the steps store
 * their own order (layout), as any map does. */
static void close_with_map(Sched *s, const IrStmt *map) {
    F2Mat q_map = s->q_mat;
    uint64_t c_map = s->q_compl;
    for (int i = 0; i < s->nafter; i++) schedule_stmt(s, s->after[i]);
    s->consumed = s->nafter;
    plan_segment(s, true);
    flush_load_map(s);
    Phase *last = &s->out->phases[s->out->nphases - 1];
    if (s->out->nhalves) {
        /* the last tile wrote the halves' kept elements in the logical
           order of the live bits (check_halves): the map's array */
        s->load_map = (Phase){.map = map,
                              .map_pos = f2_identity(map->res[0]->log_len),
                              .in_elem = s->elem};
        s->halves_written = true;
        s->q_mat = s->layout = f2_identity(s->n);
        s->q_compl = 0;
    } else if (last->kind == PHASE_PERMUTE) {
        s->out->nphases--; /* the final segment adds it again, of the map's type */
        F2Mat layout_inv = inverse(&s->layout);
        s->load_map = (Phase){.map = map,
                              .map_pos = f2_mul(&q_map, &layout_inv),
                              .map_pos_const = c_map,
                              .in_elem = s->elem};
    } else {
        F2Mat end_inv = inverse(&s->q_mat), pos = f2_mul(&q_map, &end_inv);
        s->load_map = (Phase){.map = map,
                              .map_pos = pos,
                              .map_pos_const = f2_apply(&pos, s->q_compl) ^ c_map,
                              .in_elem = s->elem};
        s->q_mat = s->layout = f2_identity(s->n);
        s->q_compl = 0;
    }
    s->has_load_map = true;
    set_elem(s, map->res[0]->elem);
}

/* A two whose element code works on more elements than a tile's
 * registers hold. With ranks a tile is at most a rank's slice: a block
 * that one GPU's tile holds but the slice does not spans ranks, and
 * element code cannot read across them (the optimiser lifts only blocks
 * larger than a thread's registers into whole-array stages). Such a chain
 * is too small to split (Schedule.whole_log): the scheduling stops here
 * (spans) and schedule_with plans it for one GPU, run whole on every rank. */
static void two_too_large(Sched *s, const IrStmt *stmt) {
    if (s->gpu_log && s->live - stmt->k <= plan_reg_log(s->elem, s->n)) {
        s->spans = true;
        return;
    }
    diag_error(stmt->loc,
               "the back end does not support a two whose body works on more than 2^%d elements "
               "of this type yet; use --interpret",
               plan_reg_log(s->elem, s->tile_log));
}

static void schedule_stmt(Sched *s, const IrStmt *stmt) {
    switch (stmt->op) {
    case IR_BMMC: {
        /* after halves, on the live bits alone */
        F2Mat m = s->live < s->n ? f2_embed(stmt->mat, s->n, 0) : *stmt->mat;
        s->q_mat = f2_mul(&m, &s->q_mat);
        s->q_compl = f2_apply(&m, s->q_compl) ^ stmt->compl ;
        return;
    }
    case IR_HALF: half_stmt(s, stmt); return;
    case IR_TWO:
        if (!element_body(s, stmt->body))
            not_element_code(s, stmt, "a two whose body is not element code");
        /* a LOCAL phase holds one element type in its tile (the optimiser's
           two-retype makes every two keep it) */
        if (!elem_equal(stmt->res[0]->elem, s->elem))
            diag_fatal("internal error: a two that changes the element type in entry '%s'",
                       s->out->func->entry);
        if (s->live - stmt->k > plan_reg_log(s->elem, s->tile_log)) two_too_large(s, stmt);
        if (s->spans) return;
        push_step(s, stmt, stmt->body, s->live - stmt->k);
        return;
    case IR_MAP:
        if (!element_body(s, stmt->body))
            not_element_code(s, stmt, "a map whose function is not element code");
        if (!elem_equal(stmt->res[0]->elem, s->elem)) {
            /* the phases' planes are at most SCHED_MAX_SLOTS: entry_plan
               refuses a wider stage before it schedules (wide_stage) */
            if (stmt->res[0]->elem->nslots > SCHED_MAX_SLOTS)
                diag_fatal(
                    "internal error: elements of more than %d fields between stages in entry '%s'",
                    SCHED_MAX_SLOTS, s->out->func->entry);
            /* a new element type: maps commute with permutations, so the map
               runs on the memory order as it is, in the next LOCAL phase's
               load where one comes next (plan_segment) */
            bool closing = s->npending && !s->gpu_log && only_permutations_after(s);
            if (s->out->nhalves &&
                (!closing || s->nafter)) /* the halved order is the logical one alone */
                refuse_halves(s, "a map that changes the type after a half", s->out->nhalves);
            if (closing) {
                close_with_map(s, stmt);
                return;
            }
            plan_segment(s, false);
            flush_load_map(s);
            F2Mat layout_inv = inverse(&s->layout);
            s->load_map = (Phase){.map = stmt,
                                  .map_pos = f2_mul(&s->q_mat, &layout_inv),
                                  .map_pos_const = s->q_compl,
                                  .in_elem = s->elem};
            s->has_load_map = true;
            set_elem(s, stmt->res[0]->elem);
            return;
        }
        push_step(s, stmt, stmt->body, 0);
        return;
    default: unsupported(s, stmt, ir_op_name(stmt->op));
    }
}

/* Whether a body has array stages of its own (then it is no comparator). */
static bool has_stage(const IrBody *body) {
    for (int i = 0; i < body->nstmts; i++) {
        IrOp op = body->stmts[i]->op;
        if (op == IR_TWO || op == IR_COL || op == IR_MAP || op == IR_PARM || op == IR_BMMC)
            return true;
    }
    return false;
}

/* A MAP phase right after a LOCAL phase runs in its store (Phase.store_map):
 * the LOCAL phase writes the memory order the MAP phase reads, so one pass
 * less (a sort or top-k that widens its indices at the end, before the
 * permutation to the logical order where one follows). Not where the LOCAL
 * phase's write moves 16-byte vectors of its own type, nor with ranks, nor
 * for a map that reads tables (placed for a kernel of their own). */
static void fold_store_map(Schedule *s) {
    if (s->gpu_log) return;
    for (int i = 1; i < s->nphases; i++) {
        Phase *map = &s->phases[i], *local = map - 1;
        if (map->kind != PHASE_MAP || local->kind != PHASE_LOCAL || map->nmap_tables ||
            local->vec_log || local->vec_write)
            continue;
        local->store_map = map->map;
        local->store_pos = map->map_pos;
        local->store_pos_const = map->map_pos_const;
        memmove(map, map + 1, sizeof(Phase) * (size_t)(s->nphases - i - 1));
        s->nphases--;
    }
}

/* The statements of an entry's body, a chain of array stages, as phases. */
static void schedule_body(Sched *s, const IrBody *body) {
    /* A two-element array worked on by element code alone (a comparator
       applied to the whole input) is one pair step. */
    if (s->n == 1 && body->nparams == 1 && body->nstmts > 0 && !has_stage(body) &&
        element_body(s, body) && elem_equal(body->results[0]->elem, s->elem)) {
        push_step(s, body->stmts[0], body, 1);
        plan_segment(s, true);
        return;
    }
    const IrVal *cur = body->params[s->out->in_param];
    for (int i = 0; i < body->nstmts; i++) {
        const IrStmt *stmt = body->stmts[i];
        if (stmt->op == IR_REPLICATE || stmt->op == IR_REDUCE || stmt->op == IR_ZIP ||
            stmt->op == IR_UNZIP)
            unsupported(s, stmt,
                        arena_printf(s->arena,
                                     "%s as an array stage (only inside the function of a "
                                     "two, parm, col or map)",
                                     ir_op_name(stmt->op)));
        if (stmt->nargs != 1 || stmt->args[0] != cur || stmt->nres != 1)
            unsupported(s, stmt, "a program that is not a single chain of array stages");
        s->after = (const IrStmt *const *)body->stmts + i + 1;
        s->nafter = body->nstmts - i - 1;
        s->consumed = 0;
        schedule_stmt(s, stmt);
        if (s->spans) return;
        i += s->consumed;
        cur = body->stmts[i]->res[0];
    }
    if (cur != body->results[0])
        diag_fatal("internal error: the entry result is not the last stage");
    plan_segment(s, true);
    Schedule *out = s->out;
    fold_store_map(out);
    if (out->nhalves && !out->half_refused &&
        (out->phases[out->nphases - 1].kind != PHASE_LOCAL ||
         out->phases[out->nphases - 1].half_log != out->nhalves))
        refuse_halves(s, "the last phase is no LOCAL phase that writes the logical order",
                      out->nhalves - 1);
}

/* Backwards from the last phase, which writes the output: a phase that runs
 * in place reads the buffer it writes, so its source is that buffer too;
 * otherwise the source is the output where it fits, else a scratch buffer
 * that the reading phase does not write. The output of an entry of any
 * length holds only the elements of the shape, and an output with unstored
 * planes (Schedule.out_unstored) lacks them, so their phases leave it to
 * the last one (in place too: reading one buffer and writing another at
 * the same indices is the same kernel). */
static void assign_buffers(Schedule *s) {
    BufId dst = BUF_OUT;
    for (int i = s->nphases - 1; i >= 0; i--) {
        Phase *p = &s->phases[i];
        p->dst = dst;
        bool out_ok = !s->pad && !s->nhalves && !s->out_unstored && !s->out_slice.log &&
                      plan_fits_output(s, &s->phases[i > 0 ? i - 1 : 0]);
        if (i == 0) {
            p->src = BUF_IN;
        } else if (p->kind == PHASE_LOCAL && p->writes_in_place && !p->map && !p->store_map &&
                   (dst != BUF_OUT || (!s->pad && !s->out_unstored && !s->out_slice.log))) {
            /* (a load or store map's planes are of another type: not in place) */
            p->src = dst;
        } else {
            p->src = dst != BUF_OUT && out_ok ? BUF_OUT
                     : dst == BUF_SCRATCH_A   ? BUF_SCRATCH_B
                                              : BUF_SCRATCH_A;
        }
        if (i > 0 && p->src == BUF_OUT && !plan_fits_output(s, &s->phases[i - 1]))
            diag_fatal("internal error: phase %d of '%s' does not fit the output", i - 1,
                       s->func->name);
        dst = p->src;
    }
}

static AliasRule alias_rule(const Schedule *s) {
    if (s->nphases == 0) return ALIAS_EXACT_OK; /* a copy, skipped where in is out */
    if (s->phases[0].dst != BUF_OUT) return ALIAS_HARMLESS;
    const Phase *first = &s->phases[0];
    return first->kind == PHASE_LOCAL && first->writes_in_place && !first->map && !first->store_map
               ? ALIAS_EXACT_OK
               : ALIAS_COPY;
}


/* The scratch planes: buffer A's, then B's, each the largest its phases write. */
static void lay_out_scratch(Schedule *s) {
    unsigned long long plane[2][SCHED_MAX_SLOTS] = {{0}};
    s->scratch_planes[0] = s->scratch_planes[1] = 0;
    for (int i = 0; i < s->nphases; i++) {
        const Phase *p = &s->phases[i];
        if (p->dst != BUF_SCRATCH_A && p->dst != BUF_SCRATCH_B) continue;
        int x = p->dst - BUF_SCRATCH_A;
        const ElemType *t = plan_out_elem(p);
        if (t->nslots > s->scratch_planes[x]) s->scratch_planes[x] = t->nslots;
        for (int k = 0; k < t->nslots; k++) {
            /* with ranks, each holds its slice of a plane */
            unsigned long long bytes = (unsigned long long)(prim_bits(elem_slot_prim(t, k)) / 8)
                                       << (p->n - s->gpu_log);
            if (bytes > plane[x][k]) plane[x][k] = bytes;
        }
    }
    unsigned long long at = 0;
    for (int x = 0; x < 2; x++)
        for (int k = 0; k < s->scratch_planes[x]; k++) {
            s->scratch_plane_off[x][k] = at;
            at += plan_align(plane[x][k]);
        }
    s->scratch_bytes = at;
}


/* The index of the entry's one array parameter, or -1. */
static int array_param(const IrBody *body) {
    int found = -1;
    for (int i = 0; i < body->nparams; i++) {
        if (ir_is_scalar(body->params[i])) continue;
        if (found >= 0) return -1;
        found = i;
    }
    return found;
}

const char *schedule_refusal(Arena *arena, const IrFunc *f) {
    const IrBody *body = f->body;
    int in = array_param(body);
    if (in < 0 || body->nresults != 1 || ir_is_scalar(body->results[0]))
        diag_fatal("internal error: entry '%s' scheduled as one chain without one array in and out",
                   f->name);
    int fields = body->params[in]->elem->nslots;
    if (body->results[0]->elem->nslots > fields) fields = body->results[0]->elem->nslots;
    if (fields > SCHED_MAX_SLOTS)
        return arena_printf(
            arena, "the back end supports elements of at most %d fields; '%s' has elements of %d",
            SCHED_MAX_SLOTS, f->entry, fields);
    return NULL;
}

const char *schedule_gpus_refusal(Arena *arena, const IrFunc *f, int n, int gpu_log) {
    if (!gpu_log || n >= gpu_log) return NULL;
    return arena_printf(arena,
                        "'%s' takes 2^%d elements, but the back end compiles an entry for %d GPUs "
                        "(--gpus) when each holds at least 1",
                        f->entry, n, 1 << gpu_log);
}

static void schedule_with(Arena *arena, const IrFunc *f, const SchedOptions *opt, int tile_raise,
                          int tile_cap_log, Schedule *out);

/* A chain too small to split over the ranks (Schedule.whole_log): the
 * plan for one GPU, which every rank runs on the whole array after
 * gathering it, before anything writes its slice of the output (so an
 * input that overlaps the output is harmless). */
static void plan_whole(Arena *arena, const IrFunc *f, const SchedOptions *opt, int tile_raise,
                       int tile_cap_log, Schedule *out) {
    SchedOptions one = *opt;
    one.gpu_log = 0;
    schedule_with(arena, f, &one, tile_raise, tile_cap_log, out);
    out->whole_log = opt->gpu_log;
    out->alias = ALIAS_HARMLESS;
}

static void schedule_with(Arena *arena, const IrFunc *f, const SchedOptions *opt, int tile_raise,
                          int tile_cap_log, Schedule *out) {
    const IrBody *body = f->body;
    const char *refusal = schedule_refusal(arena, f);
    if (refusal) diag_error(f->loc, "%s", refusal);
    memset(out, 0, sizeof *out);
    out->func = f;
    out->in_param = array_param(body);
    out->args = NEW_ARRAY(arena, const IrVal *, body->nparams);
    for (int i = 0; i < body->nparams; i++)
        if (i != out->in_param) out->args[out->nargs++] = body->params[i];
    out->n = body->params[out->in_param]->log_len;
    int gpu_log = opt ? opt->gpu_log : 0;
    out->gpu_log = gpu_log;
    const char *too_few = schedule_gpus_refusal(arena, f, out->n, gpu_log);
    if (too_few) diag_error(f->loc, "%s", too_few);
    /* a slice of one element splits no block: the whole chain on every rank */
    if (gpu_log && out->n == gpu_log) {
        plan_whole(arena, f, opt, tile_raise, tile_cap_log, out);
        return;
    }
    out->in_elem = body->params[out->in_param]->elem;
    out->out_elem = body->results[0]->elem;
    if (f->pad_param == out->in_param) {
        out->pad = f->pad;
        out->pad_rows_log = f->pad_rows_log;
        out->pad_cols_log = f->pad_cols_log;
    }
    Sched s = {.arena = arena,
               .out = out,
               .n = out->n,
               .tile_bytes = opt ? opt->tile_bytes : 0,
               .tile_raise = tile_raise,
               .tile_cap_log = tile_cap_log,
               .segment_bytes = opt && opt->segment_bytes ? opt->segment_bytes
                                                          : SCHED_SEGMENT_BYTES,
               .vector_copies = opt && opt->vector_copies,
               .narrow_permutes = opt && opt->narrow_permutes,
               .narrow_copies = opt && opt->narrow_copies,
               .gpu_log = gpu_log,
               .exchange_pieces = opt ? opt->exchange_pieces : 0,
               .reg_bytes_log = opt && opt->register_bytes == 256 ? ELEM_REGISTER_BYTES_LOG + 1
                                                                  : ELEM_REGISTER_BYTES_LOG,
               .tile_buffers = opt ? opt->tile_buffers : 0,
               .cluster_log = opt ? opt->cluster_log : 0};
    set_elem(&s, out->in_elem);
    s.q_mat = f2_identity(s.n);
    s.layout = f2_identity(s.n);
    s.live = s.n;
    schedule_body(&s, body);
    if (s.spans) {
        plan_whole(arena, f, opt, tile_raise, tile_cap_log, out);
        return;
    }
    assign_buffers(out);
    kernel_plan(out);
    lay_out_scratch(out);
    out->alias = alias_rule(out);
}

static bool loads_elements(const Phase *p) {
    return p->kind == PHASE_LOCAL || p->kind == PHASE_MAP;
}

/* Whether a slice of an array of elements of type t keeps each sector of
 * its elements whole (no fixed bit inside one, for its narrowest field):
 * its loads or stores then move as many sectors as the whole array's. */
static bool keeps_sectors(const ElemType *t, const Slice *slice) {
    int narrowest = MACHINE_SECTOR_BYTES;
    for (int k = 0; k < t->nslots; k++) {
        int bytes = prim_bits(elem_slot_prim(t, k)) / 8;
        if (bytes < narrowest) narrowest = bytes;
    }
    int bits = 0;
    while ((narrowest << bits) < MACHINE_SECTOR_BYTES) bits++;
    return !(slice->fixed & f2_mask(bits));
}

bool schedule_fuse_slice(Schedule *s, const Slice *slice, const EntryPlan *padded) {
    if (s->nphases == 0 || s->gpu_log || s->pad || !loads_elements(&s->phases[0]) ||
        s->phases[0].cluster_log || !keeps_sectors(s->in_elem, slice))
        return false;
    for (int k = 0; k < s->in_elem->nslots; k++)
        if (s->in_shift[k]) return false;
    if (padded && padded->segments) return false;
    s->in_slice = *slice;
    s->phases[0].buffers = 1; /* cp.async copies whole tiles of one plane's indices */
    if (padded) {
        s->pad = padded->pad;
        s->pad_rows_log = padded->pad_rows_log;
        s->pad_cols_log = padded->pad_cols_log;
        s->pad_in_only = true;
    }
    kernel_plan(s); /* its shared memory, and with a pad the shape's parameters */
    return true;
}

bool schedule_takes_out_slice(const Schedule *s, const Slice *slice) {
    return s->nphases > 0 && !s->gpu_log && (!s->pad || s->pad_in_only) && !s->out_unstored &&
           keeps_sectors(s->out_elem, slice) && !s->reduce &&
           loads_elements(&s->phases[s->nphases - 1]) && !s->phases[s->nphases - 1].cluster_log;
}

void schedule_fuse_out_slice(Schedule *s, const Slice *slice) {
    s->out_slice = *slice;
    assign_buffers(s); /* now no other phase writes the output */
    lay_out_scratch(s);
    s->alias = alias_rule(s);
    Phase *last = &s->phases[s->nphases - 1];
    last->vec_log = 0; /* a vector of the result is not one of the array's */
    last->vec_write = false;
}

void schedule_fuse_planes(Schedule *s, const int *in_shift, unsigned unstored) {
    /* a padded input is read through the caller's shape (no shifts); an
       output of that shape has every plane (unstored only where it is whole);
       an input read as a slice in place (schedule_fuse_slice) has its own
       index map, which an expand's shift does not compose with */
    if (s->nphases == 0 || s->gpu_log || (s->pad && !s->pad_in_only)) return;
    bool shifts = false;
    for (int k = 0; k < s->in_elem->nslots; k++) shifts |= in_shift[k] != 0;
    shifts &= loads_elements(&s->phases[0]) && !s->pad && !s->in_slice.log;
    if (shifts) {
        memcpy(s->in_shift, in_shift, sizeof(int) * (size_t)s->in_elem->nslots);
        s->phases[0].buffers = 1; /* cp.async copies whole tiles of one plane's indices */
    }
    if (unstored && loads_elements(&s->phases[s->nphases - 1])) {
        s->out_unstored = unstored;
        assign_buffers(s); /* now no other phase writes the output */
        lay_out_scratch(s);
        s->alias = alias_rule(s);
    }
    if (shifts || s->out_unstored) kernel_plan(s); /* the buffers changed */
}

/* With the default tile (default_tile_log), a program of several passes
 * takes a tile twice as large, as often as that saves at least a quarter of
 * its passes; a program of one pass (one LOCAL phase) the smallest tile that
 * keeps it one pass: more blocks, the same traffic. */
static void schedule_blocks(Arena *arena, const IrFunc *f, const SchedOptions *opt, Schedule *out) {
    schedule_with(arena, f, opt, 0, SCHED_MAX_TILE, out);
    if (opt && opt->tile_bytes) return;
    int room = largest_default_tile_log(out->in_elem) - default_tile_log(out->in_elem, out->n, 0);
    for (int raise = 1; raise <= room && out->nphases > 1; raise++) {
        Schedule larger;
        schedule_with(arena, f, opt, raise, SCHED_MAX_TILE, &larger);
        if (4 * larger.nphases > 3 * out->nphases || (larger.half_refused && !out->half_refused))
            break;
        *out = larger;
    }
    while (out->nphases == 1 && out->phases[0].kind == PHASE_LOCAL &&
           out->phases[0].tile_log > smallest_tile_log(out->phases[0].elem)) {
        Schedule smaller;
        schedule_with(arena, f, opt, 0, out->phases[0].tile_log - 1, &smaller);
        if (smaller.nphases != 1 || smaller.phases[0].kind != PHASE_LOCAL ||
            (smaller.half_refused && !out->half_refused))
            break;
        *out = smaller;
    }
}

/* Tiles of clusters (SchedOptions.cluster_log) where every LOCAL phase can
 * take one and they save passes; else the tiles of blocks, with the
 * reason in Schedule.cluster_refused. */
void schedule_func(Arena *arena, const IrFunc *f, const SchedOptions *opt, Schedule *out) {
    if (!opt || !opt->cluster_log) {
        schedule_blocks(arena, f, opt, out);
        return;
    }
    Schedule clustered;
    schedule_with(arena, f, opt, 0, SCHED_MAX_TILE, &clustered);
    SchedOptions plain = *opt;
    plain.cluster_log = 0;
    schedule_blocks(arena, f, &plain, out);
    if (!clustered.cluster_refused && clustered.nphases >= out->nphases)
        clustered.cluster_refused = "no fewer passes";
    if (clustered.cluster_refused) out->cluster_refused = clustered.cluster_refused;
    else *out = clustered;
}
