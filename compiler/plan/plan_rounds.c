/* plan_rounds.c: the register rounds of a LOCAL phase (plan_rounds.h).
 *
 * In a round each thread of the CUDA kernel holds 2^r elements of the tile
 * in registers: the coset base(thread) + span(R), where R spans the pair
 * vectors of the round's stages, so every comparator of the round is
 * register code with compile-time register numbers. Between rounds the tile
 * goes back to shared memory and is read again with the next round's R. The
 * lanes of a warp take tile vectors whose slots meet no other word in their
 * banks (access_model.h), so every shared access is conflict-free. */
#include "plan_rounds.h"

#include <string.h>

#include "access_model.h"
#include "machine.h"
#include "plan_half.h"


/* At most 128 bytes of elements per thread, 8 to 32 elements: 32 int32 or
 * f32 (measured best for sorts, bench/results/2026-11-21-h100-register-rounds.md),
 * 16 complex f32 or key-value pairs (the FFT of 2^24 points ran 1.8x faster
 * than with 32, which spilled registers; bench/results/2026-11-21-h100-fft.md),
 * 8 records of 12 bytes and 16 of 5 or 6: rounding those down to 8 and 4
 * bytes put 192 in registers, and their sorts with indices ran 1.22 to 1.39
 * times slower (int64 keys: 128 to 250 registers a thread; int16 and uint8:
 * 168; bench/results/2026-11-27-h100-s14-packed.md), although the triples
 * of an inclusive scan of blocks ran 1.12 times faster with 16 (72
 * registers). --register-bytes 256 doubles it (Phase.reg_bytes_log). */
static int reg_log_of(const ElemType *elem, int tile_log, int reg_bytes_log) {
    int reg_log = elem_register_log(elem, reg_bytes_log);
    return tile_log < reg_log ? tile_log : reg_log;
}

int plan_reg_log(const ElemType *elem, int tile_log) {
    return reg_log_of(elem, tile_log, ELEM_REGISTER_BYTES_LOG);
}

int plan_threads_log(const Phase *p) {
    int t = p->tile_log - reg_log_of(p->elem, p->tile_log,
                                     p->reg_bytes_log ? p->reg_bytes_log : ELEM_REGISTER_BYTES_LOG);
    int most = MACHINE_BLOCK_THREADS_LOG + p->cluster_log; /* the threads of a cluster's blocks */
    return t > most ? most : t;
}


/* The steps from `first` whose group vectors span at most reg_log dimensions. */
static int round_extent(const Phase *p, int first, int reg_log, F2Space *span) {
    *span = f2_space_empty(p->tile_log);
    int i = first;
    for (; i < p->nsteps; i++) {
        F2Space grown = *span;
        for (int j = 0; j < p->steps[i].group_log; j++) f2_space_add(&grown, p->steps[i].group[j]);
        if (grown.dim > reg_log) break;
        *span = grown;
    }
    return i - first;
}

/* {u : parity(f & u) = 0 for every f of fs}, in a tile of D bits. */
static F2Space kernel_of(int D, const uint64_t *fs, int nf) {
    F2Space rows = f2_space_empty(D), k = f2_space_empty(D);
    for (int i = 0; i < nf; i++) f2_space_add(&rows, fs[i]);
    uint64_t pivots = f2_space_pivots(&rows);
    for (int j = D - 1; j >= 0; j--) {
        if (pivots >> j & 1) continue;
        uint64_t v = UINT64_C(1) << j;
        for (int r = 0; r < rows.dim; r++)
            if (rows.basis[r] >> j & 1) v |= UINT64_C(1) << f2_top_bit(rows.basis[r]);
        f2_space_add(&k, v);
    }
    return k;
}

/* Thread vectors inside K: a complement of span(R) in K, its first `lanes`
 * vectors (lowest first) recombined, when `banked`, so that their slots in
 * the phase's layout fall in independent banks (so every warp access of the
 * round hits 32 distinct banks), the rest warps from high bits down. A round
 * that neither loads nor stores in the phase's layout needs no banks there:
 * its layouts are made for its lanes (plan_layouts). False when K holds no
 * such complement. */
static bool plan_threads_in(const Phase *p, const F2Space *R, const F2Space *K, int D,
                            int threads_log, bool banked, uint64_t *threads) {
    int lanes = threads_log < MACHINE_WARP_LOG ? threads_log : MACHINE_WARP_LOG;
    F2Space all = *R;
    uint64_t comp[SCHED_MAX_TILE];
    int nc = 0;
    for (int i = 0; i < K->dim && all.dim < D; i++)
        if (f2_space_add(&all, K->basis[i])) comp[nc++] = K->basis[i];
    if (all.dim != D) return false;
    /* lanes: elimination on the banks of the complement, lowest vectors first */
    LaneBanks banks;
    lane_banks_init(&banks, elem_max_slot_bytes(p->elem));
    if (banked && lanes > banks.g.wave_log) lanes = banks.g.wave_log;
    int k = 0;
    for (int i = nc - 1; i >= 0 && k < lanes; i--)
        if (!banked) threads[k++] = comp[i];
        else if (lane_banks_add(&banks, comp[i], plan_slot(p, comp[i]), &threads[k])) k++;
    if (k < lanes) return false;
    all = *R;
    for (int i = 0; i < k; i++) f2_space_add(&all, threads[i]);
    for (int i = 0; i < nc && k < threads_log; i++)
        if (f2_space_add(&all, comp[i])) threads[k++] = comp[i];
    return k == threads_log;
}

/* The round's thread vectors in the space of the low D tile coordinates,
 * which holds R: by the directions where the banks allow, else lanes by
 * the banks and the rest from high bits down (see above). */
static void plan_round_threads(const Phase *p, Round *rd, const F2Space *span, int D,
                               int threads_log, bool banked) {
    /* Orders in the span of those taken change nothing; one that failed
     * fails again with more taken (the kernel only shrinks): skip both. */
    uint64_t orders[SCHED_MAX_TILE], failed[32];
    int norders = 0, nfailed = 0;
    F2Space taken = f2_space_empty(D);
    for (int i = rd->first; i < rd->first + rd->count; i++)
        for (int j = 0; j < p->steps[i].group_log; j++) {
            uint64_t order = p->steps[i].order[j] & f2_mask(D);
            if (p->steps[i].order_block[j] || f2_space_contains(&taken, order)) continue;
            bool known = false;
            for (int f = 0; f < nfailed && !known; f++) known = failed[f] == order;
            if (known) continue;
            orders[norders] = order;
            F2Space k = kernel_of(D, orders, norders + 1);
            uint64_t threads[32];
            if (!plan_threads_in(p, span, &k, D, threads_log, banked, threads)) {
                if (nfailed < 32) failed[nfailed++] = order;
                continue;
            }
            memcpy(rd->threads, threads, sizeof(uint64_t) * (size_t)threads_log);
            f2_space_add(&taken, order);
            norders++;
        }
    if (norders) return;
    F2Space all = *span;
    LaneBanks banks;
    lane_banks_init(&banks, elem_max_slot_bytes(p->elem));
    int lanes = threads_log < MACHINE_WARP_LOG ? threads_log : MACHINE_WARP_LOG, k = 0;
    if (banked && lanes > banks.g.wave_log) lanes = banks.g.wave_log;
    for (uint64_t v = 1; v < UINT64_C(1) << D && k < lanes; v++) {
        LaneBanks tried = banks;
        uint64_t lane;
        if (f2_space_contains(&all, v) ||
            (banked && !lane_banks_add(&tried, v, plan_slot(p, v), &lane)))
            continue;
        banks = tried;
        f2_space_add(&all, v);
        rd->threads[k++] = v;
    }
    for (int bit = D - 1; bit >= 0 && k < threads_log; bit--)
        if (f2_space_add(&all, UINT64_C(1) << bit)) rd->threads[k++] = UINT64_C(1) << bit;
    if (all.dim != D) diag_fatal("internal error: no register plan for a tile of 2^%d", D);
}

/* A remote round's threads recombined so that the block's (the first
 * threads_log - cluster_log) lie below the rank coordinates and the rank's
 * take the rest: a block's threads then reach the same blocks of the
 * cluster for each register, whose addresses the kernel computes once a
 * round (emit_cuda_local.c). The threads' span has at most cluster_log
 * dimensions outside the coordinates below the ranks', so this always
 * exists; a thread vector is combined with the rank's before it only where
 * it has rank coordinates of its own, and the rank's threads take those
 * below the ranks' that the block's leave. */
static void block_threads_below_ranks(const Phase *p, Round *rd) {
    int threads_log = plan_threads_log(p), low = plan_block_tile_log(p),
        tb = threads_log - p->cluster_log;
    int nb = 0, nr = 0;
    uint64_t block[SCHED_MAX_TILE], rank[SCHED_MAX_TILE];
    /* the rank vectors' rank coordinates, reduced: each alone has its pivot */
    int pivot[SCHED_MAX_TILE];
    for (int i = 0; i < threads_log; i++) {
        uint64_t v = rd->threads[i];
        for (int r = 0; r < nr; r++)
            if (v >> (low + pivot[r]) & 1) v ^= rank[r];
        if (!(v >> low)) {
            block[nb++] = v;
            continue;
        }
        pivot[nr] = f2_top_bit(v >> low);
        for (int r = 0; r < nr; r++)
            if (rank[r] >> (low + pivot[nr]) & 1) rank[r] ^= v;
        rank[nr++] = v;
    }
    if (nb < tb) diag_fatal("internal error: a remote round's threads leave their blocks");
    for (int i = tb; i < nb; i++)
        rank[nr++] = block[i]; /* where the registers hold rank coordinates */
    memcpy(rd->threads, block, sizeof(uint64_t) * (size_t)tb);
    memcpy(rd->threads + tb, rank, sizeof(uint64_t) * (size_t)nr);
}

/* R: the span padded with high coordinate bits (in a cluster's tile, below
 * the rank coordinates first). Thread vectors: where it can,
 * inside the kernel of the round's comparator directions (order functionals),
 * taken greedily step by step, so that those steps' directions are the same
 * for every thread and known at compile time (no selects); else lanes whose
 * low five bits are e0.. (mixed with a high bit where e_i is taken), then the
 * rest, which leaves the direction a per-thread bit. In a cluster's tile, a
 * round whose registers lie below the rank coordinates keeps each block's
 * threads there too, its rank's thread bits the rank coordinates: the round
 * is the block's own (Round.remote). */
/* Rounds of at least 2^3 registers (4 pairs a step) write their steps as
 * loops: a loop costs a few lines more than one pair written out, and the
 * source (and nvcc's time, mostly its front end) grows with the pairs
 * written out: the 2^30 sort of examples/sort.parm was 3.6 MB. */
enum { LOOP_MIN_REG_LOG = 3 };

static void plan_round(const Phase *p, Round *rd, int first) {
    int threads_log = plan_threads_log(p), reg_log = p->tile_log - threads_log;
    int D = p->tile_log, low = plan_block_tile_log(p);
    F2Space span;
    rd->first = first;
    rd->count = round_extent(p, first, reg_log, &span);
    rd->reg_log = reg_log;
    rd->loops = reg_log >= LOOP_MIN_REG_LOG;
    bool banked = first == 0 ||
                  first + rd->count == p->nsteps; /* loads or stores in the phase's layout */
    for (int bit = low - 1; bit >= 0 && span.dim < reg_log; bit--)
        f2_space_add(&span, UINT64_C(1) << bit);
    for (int bit = D - 1; bit >= low && span.dim < reg_log; bit--)
        f2_space_add(&span, UINT64_C(1) << bit);
    for (int i = 0; i < reg_log; i++) rd->regs[i] = span.basis[i];
    rd->remote = false;
    for (int i = 0; i < reg_log; i++) rd->remote |= (rd->regs[i] & ~f2_mask(low)) != 0;
    if (!p->cluster_log || rd->remote) {
        plan_round_threads(p, rd, &span, D, threads_log, banked);
        if (rd->remote) block_threads_below_ranks(p, rd);
        return;
    }
    int block_threads = threads_log - p->cluster_log;
    plan_round_threads(p, rd, &span, low, block_threads, banked);
    for (int k = 0; k < p->cluster_log; k++)
        rd->threads[block_threads + k] = UINT64_C(1) << (low + k);
}

uint64_t plan_thread_mask(const Phase *p, const Round *rd, uint64_t f) {
    uint64_t mask = 0;
    for (int i = 0; i < plan_threads_log(p); i++)
        mask |= (uint64_t)f2_parity(f & rd->threads[i]) << i;
    return mask;
}

int plan_thread_directions(const Phase *p) {
    int n = 0;
    for (int first = 0; first < p->nsteps;) {
        Round rd;
        plan_round(p, &rd, first);
        for (int i = first; i < first + rd.count; i++) {
            bool per_thread = false;
            for (int j = 0; j < p->steps[i].group_log; j++)
                per_thread |= plan_thread_mask(p, &rd, p->steps[i].order[j]) != 0;
            n += per_thread;
        }
        first += rd.count;
    }
    return n;
}

/* Round layouts. A round's accesses are at slot base(tid) ^ P·r for its
 * registers r: the XOR of the base is folded into the access's immediate
 * offset when P·r and the base share no slot bit (emit_cuda_local.c), else
 * it costs an instruction per access. With the phase's layout S for every
 * round they share bits: the swizzle that spreads a round's lanes over the
 * banks XORs high tile bits, which registers hold, into the bank bits, which
 * the lanes hold. So each round after the first gets a layout of its own
 * (Round.slots), in which the previous round stores and it loads: a slot bit
 * is a functional over tile coordinates (a row of P), and it costs nothing
 * to a round when it vanishes on the round's registers or on its threads.
 * Rows are taken cheapest first: the bank rows injective on both rounds'
 * lanes (every access conflict-free), then rows that vanish on one side in
 * both rounds, then in one.
 *
 * A store in a layout other than the load's overwrites slots that other
 * threads may not have read yet. Every layout agrees with S outside S(W),
 * W the tile vectors that every round keeps within a warp (a warp holds a
 * coset of span(lanes, R)), so the slot bits that tell the warps' slots
 * apart are S's in every layout: each warp stores only into slots it read,
 * after a __syncwarp. */
#define LAYOUT_ENUM_LOG 10 /* elements of a candidate space tried for a bank row, log2 */

/* Instructions a round's accesses in layout `slots` spend on XORs: the
 * distinct values of the part of P·r that shares bits with the base, less
 * the zero one (emit_cuda_local.c splits each index that way). */
int plan_round_xors(const Phase *p, const Round *rd, const uint64_t *slots) {
    uint64_t bbits = 0;
    for (int i = 0; i < p->threads_log; i++)
        bbits |= f2_combine(slots, p->tile_log, rd->threads[i]);
    F2Space mixed = f2_space_empty(p->tile_log);
    for (int i = 0; i < rd->reg_log; i++)
        f2_space_add(&mixed, f2_combine(slots, p->tile_log, rd->regs[i]) & bbits);
    return (1 << mixed.dim) - 1;
}

/* W (see above) as an annihilator: the vectors on which every functional
 * vanishing on some round's span(lanes, R) vanishes. */
static F2Space warp_space(const Phase *p) {
    int D = p->tile_log;
    F2Space ann = f2_space_empty(D);
    for (int r = 0; r < p->nrounds && p->threads_log > MACHINE_WARP_LOG; r++) {
        const Round *rd = &p->rounds[r];
        uint64_t v[2 * SCHED_MAX_TILE];
        int n = 0;
        for (int i = 0; i < rd->reg_log; i++) v[n++] = rd->regs[i];
        for (int i = 0; i < MACHINE_WARP_LOG; i++) v[n++] = rd->threads[i];
        F2Space a = kernel_of(D, v, n);
        ann = f2_space_sum(&ann, &a);
    }
    return kernel_of(D, ann.basis, ann.dim);
}

/* The restriction of functional f to the first n lanes, as n bits. */
static uint64_t on_lanes(uint64_t f, const Round *rd, int n) {
    uint64_t bits = 0;
    for (int i = 0; i < n; i++) bits |= (uint64_t)f2_parity(f & rd->threads[i]) << i;
    return bits;
}

/* The first lanes of a wavefront of `rd` meet no other word in their banks. */
static bool lanes_free(const Phase *p, const Round *rd, const uint64_t *slots) {
    LaneBanks banks;
    lane_banks_init(&banks, elem_max_slot_bytes(p->elem));
    int lanes = p->threads_log < banks.g.wave_log ? p->threads_log : banks.g.wave_log;
    uint64_t lane;
    for (int i = 0; i < lanes; i++)
        if (!lane_banks_add(&banks, rd->threads[i], f2_combine(slots, p->tile_log, rd->threads[i]),
                            &lane))
            return false;
    return true;
}

/* The layout in which round a stores and round b loads, its rows outside
 * free_bits S's (s_rows). False when no bank rows were found. */
static bool layout_between(const Phase *p, const Round *a, const Round *b, uint64_t free_bits,
                           const uint64_t *s_rows, uint64_t *slots) {
    int D = p->tile_log, t = p->threads_log;
    BankGeometry g = access_bank_geometry(elem_max_slot_bytes(p->elem));
    int lanes = t < g.wave_log ? t : g.wave_log;
    uint64_t rows[SCHED_MAX_TILE];
    F2Space taken = f2_space_empty(D);
    for (int i = 0; i < D; i++)
        if (!(free_bits >> i & 1)) f2_space_add(&taken, rows[i] = s_rows[i]);
    /* the functionals vanishing on one side of each round, cheapest first */
    uint64_t sides[4][2 * SCHED_MAX_TILE];
    int nside[4] = {a->reg_log, t, b->reg_log, t};
    memcpy(sides[0], a->regs, sizeof(uint64_t) * (size_t)a->reg_log);
    memcpy(sides[1], a->threads, sizeof(uint64_t) * (size_t)t);
    memcpy(sides[2], b->regs, sizeof(uint64_t) * (size_t)b->reg_log);
    memcpy(sides[3], b->threads, sizeof(uint64_t) * (size_t)t);
    F2Space cand[9];
    static const int pairs[4][2] = {{0, 2}, {0, 3}, {1, 2}, {1, 3}};
    for (int c = 0; c < 4; c++) {
        uint64_t v[4 * SCHED_MAX_TILE];
        int n = 0;
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < nside[pairs[c][k]]; i++) v[n++] = sides[pairs[c][k]][i];
        cand[c] = kernel_of(D, v, n);
    }
    static const int singles[4] = {2, 0, 3, 1}; /* the load's registers first */
    for (int c = 0; c < 4; c++) cand[4 + c] = kernel_of(D, sides[singles[c]], nside[singles[c]]);
    cand[8] = kernel_of(D, NULL, 0);
    /* bank rows: injective on both rounds' lanes (a common complement of
     * two subspaces always exists, so the whole space, tried last in full,
     * has them when no row is fixed) */
    F2Space la = f2_space_empty(lanes ? lanes : 1), lb = la;
    for (int j = 0; j < lanes; j++) {
        int bit = g.word_shift + j;
        if (!(free_bits >> bit & 1)) return false;
        bool found = false;
        for (int c = 0; c < 9 && !found; c++) {
            int k = c == 8 || cand[c].dim < LAYOUT_ENUM_LOG ? cand[c].dim : LAYOUT_ENUM_LOG;
            for (uint64_t x = 1; x < UINT64_C(1) << k && !found; x++) {
                uint64_t f = f2_combine(cand[c].basis, k, x);
                F2Space ta = la, tb = lb, tt = taken;
                if (!f2_space_add(&ta, on_lanes(f, a, lanes)) ||
                    !f2_space_add(&tb, on_lanes(f, b, lanes)) || !f2_space_add(&tt, f))
                    continue;
                la = ta, lb = tb, taken = tt;
                rows[bit] = f;
                found = true;
            }
        }
        if (!found) return false;
    }
    /* the other free rows */
    uint64_t bank = f2_mask(lanes) << g.word_shift, rest = free_bits & ~bank;
    for (int c = 0; c < 9 && rest; c++)
        for (int i = 0; i < cand[c].dim && rest; i++)
            if (f2_space_add(&taken, cand[c].basis[i])) {
                int bit = __builtin_ctzll(rest);
                rows[bit] = cand[c].basis[i];
                rest &= rest - 1;
            }
    if (rest) diag_fatal("internal error: a round layout short of rows");
    for (int j = 0; j < D; j++) {
        slots[j] = 0;
        for (int i = 0; i < D; i++) slots[j] |= (rows[i] >> j & 1) << i;
    }
    return lanes_free(p, a, slots) && lanes_free(p, b, slots);
}

/* Whether round rd, loading in layout `from`, stores in layout `to` only
 * into slots its own warp read: `to` differs from `from` only within the
 * slots of span(lanes, R). */
bool plan_store_in_warp(const Phase *p, const Round *rd, const uint64_t *from, const uint64_t *to) {
    if (p->threads_log <= MACHINE_WARP_LOG) return true;
    F2Space own = f2_space_empty(p->tile_log);
    for (int i = 0; i < rd->reg_log; i++)
        f2_space_add(&own, f2_combine(from, p->tile_log, rd->regs[i]));
    for (int i = 0; i < MACHINE_WARP_LOG; i++)
        f2_space_add(&own, f2_combine(from, p->tile_log, rd->threads[i]));
    for (int i = 0; i < p->tile_log; i++)
        if (!f2_space_contains(&own, to[i] ^ from[i])) return false;
    return true;
}

#define BARRIER_XORS 64 /* a block barrier before a store counts as this many XORs */

/* Each round's layout: round 0 loads where the tile load stored (S), the
 * last stores where the write-back loads (S); between, the cheapest of S,
 * the layout of layout_between with S's rows outside S(W) (safe for the
 * stores when W lies in the rounds' warp spans) and one with all rows free,
 * counting the XORs of the store and the load and a barrier where the store
 * leaves its warp's slots (Round.sync). */
static void plan_layouts(Phase *p) {
    int D = p->tile_log;
    size_t bytes = sizeof(uint64_t) * (size_t)D;
    for (int r = 0; r < p->nrounds; r++) memcpy(p->rounds[r].slots, p->slot_cols, bytes);
    F2Space w = warp_space(p), sw = f2_space_empty(D);
    for (int i = 0; i < w.dim; i++) f2_space_add(&sw, plan_slot(p, w.basis[i]));
    uint64_t warp_bits = 0, s_rows[SCHED_MAX_TILE];
    for (int i = 0; i < D; i++) {
        if (f2_space_contains(&sw, UINT64_C(1) << i)) warp_bits |= UINT64_C(1) << i;
        s_rows[i] = 0;
        for (int j = 0; j < D; j++) s_rows[i] |= (p->slot_cols[j] >> i & 1) << j;
    }
    uint64_t own = f2_mask(
        plan_block_tile_log(p)); /* a cluster's rank rows stay S's (Phase.cluster_log) */
    for (int r = 1; r < p->nrounds; r++) {
        const Round *a = &p->rounds[r - 1];
        Round *b = &p->rounds[r];
        uint64_t cand[4][SCHED_MAX_TILE];
        bool ok[4];
        memcpy(cand[0], a->slots, bytes); /* a stores where it loaded */
        ok[0] = lanes_free(p, b, cand[0]);
        memcpy(cand[1], p->slot_cols, bytes);
        ok[1] = lanes_free(p, a, cand[1]) && lanes_free(p, b, cand[1]);
        ok[2] = layout_between(p, a, b, warp_bits & own, s_rows, cand[2]);
        ok[3] = layout_between(p, a, b, own, s_rows, cand[3]);
        int best = -1, best_cost = 0;
        for (int c = 0; c < 4; c++) {
            if (!ok[c]) continue;
            /* a's store costs nothing more in the layout it loaded in: the load's addresses */
            bool same = !memcmp(cand[c], a->slots, bytes);
            int cost = (same ? 0 : plan_round_xors(p, a, cand[c])) +
                       plan_round_xors(p, b, cand[c]) +
                       (plan_store_in_warp(p, a, a->slots, cand[c]) ? 0 : BARRIER_XORS);
            if (best < 0 || cost < best_cost) best = c, best_cost = cost;
        }
        if (best < 0) diag_fatal("internal error: no layout between register rounds");
        memcpy(b->slots, cand[best], bytes);
    }
    for (int r = 0; r < p->nrounds; r++) {
        Round *rd = &p->rounds[r];
        rd->sync = !plan_store_in_warp(p, rd, rd->slots,
                                       r + 1 < p->nrounds ? p->rounds[r + 1].slots : p->slot_cols);
    }
}

/* Each step's directions over the thread index and the register index of
 * its round, and its positions over the thread index (Step.order_tid,
 * order_reg, pos_tid), which the kernel's step code reads. */
static void thread_masks(Phase *p) {
    for (int r = 0; r < p->nrounds; r++) {
        const Round *rd = &p->rounds[r];
        for (int i = rd->first; i < rd->first + rd->count; i++) {
            Step *st = &p->steps[i];
            for (int j = 0; j < st->group_log; j++) {
                st->order_tid[j] = plan_thread_mask(p, rd, st->order[j]);
                st->order_reg[j] = plan_reg_mask(rd, st->order[j]);
            }
            for (int j = 0; j < st->pos_bits; j++)
                st->pos_tid[j] = plan_thread_mask(p, rd, st->pos_u[j]);
        }
    }
}

/* ---- warps that hold nothing the halves keep ----
 *
 * After half i (Phase.half_step) the elements whose y bit n - 1 - i (the
 * write's) is not the half's kept value are never written: a functional g_i
 * on the tile coordinate (plan_half_functional). When the g_i vanish on a
 * round's registers and lanes, a warp's elements share their values, which
 * are linear in its warp bits: 2^-c of the warps work, the others skip the
 * round. The threads are a basis of the same space, recombined so that the
 * lanes lie in the g_i's kernel (directions that were the same for every
 * thread stay so: the kernel of those is a space). */

/* The halves' functionals in effect from step `first` (plan_half.c), their
 * kept values in *value. Returns how many. */
static int half_functionals(const Phase *p, int first, uint64_t *g, uint64_t *value) {
    int h = 0;
    *value = 0;
    for (; h < p->half_log && p->half_step[h] <= first; h++) {
        int keep;
        g[h] = plan_half_functional(p, h, &keep);
        *value |= (uint64_t)keep << h;
    }
    return h;
}

/* The first c functionals as c bits of tile vector v. */
static uint64_t half_values(const uint64_t *g, int c, uint64_t v) {
    uint64_t bits = 0;
    for (int i = 0; i < c; i++) bits |= (uint64_t)f2_parity(g[i] & v) << i;
    return bits;
}

/* Recombines rd's threads so that the lanes lie in the kernel of g_0..g_c-1
 * (the first lanes conflict-free in the phase's layout when `banked`) and
 * the warp bits take the rest; false when the threads' space has no such
 * basis (the g_i dependent on it, or too small a kernel). */
static bool threads_with_live_warps(const Phase *p, Round *rd, const uint64_t *g, int c,
                                    bool banked) {
    int t = p->threads_log, nk = 0, np = 0;
    uint64_t kernel[SCHED_MAX_TILE], pivots[SCHED_MAX_TILE], pivot_values[SCHED_MAX_TILE];
    /* elimination on the values: each pivot keeps a value bit no other has */
    for (int i = 0; i < t; i++) {
        uint64_t v = rd->threads[i], val = half_values(g, c, v);
        for (int j = 0; j < np; j++)
            if (val >> f2_top_bit(pivot_values[j]) & 1) {
                v ^= pivots[j];
                val ^= pivot_values[j];
            }
        if (val) {
            pivots[np] = v;
            pivot_values[np++] = val;
        } else {
            kernel[nk++] = v;
        }
    }
    if (np != c || nk < MACHINE_WARP_LOG) return false;
    uint64_t threads[SCHED_MAX_TILE];
    F2Space taken = f2_space_empty(p->tile_log);
    int k = 0;
    if (banked) {
        LaneBanks banks;
        lane_banks_init(&banks, elem_max_slot_bytes(p->elem));
        int want = MACHINE_WARP_LOG < banks.g.wave_log ? MACHINE_WARP_LOG : banks.g.wave_log;
        for (int i = 0; i < nk && k < want; i++)
            if (lane_banks_add(&banks, kernel[i], plan_slot(p, kernel[i]), &threads[k]))
                f2_space_add(&taken, threads[k++]);
        if (k < want) return false;
    }
    for (int i = 0; i < nk; i++)
        if (f2_space_add(&taken, kernel[i])) threads[k++] = kernel[i];
    for (int i = 0; i < np; i++) threads[k++] = pivots[i];
    memcpy(rd->threads, threads, sizeof(uint64_t) * (size_t)t);
    return true;
}

/* Round.live_log: the most halves in effect whose functionals vanish on the
 * round's registers and whose values the warp bits can carry. */
static void plan_live_warps(const Phase *p, Round *rd, bool banked) {
    rd->live_log = 0;
    int t = p->threads_log;
    if (!p->half_log || t <= MACHINE_WARP_LOG) return;
    uint64_t g[SCHED_MAX_TILE], value;
    int h = half_functionals(p, rd->first, g, &value), c = 0;
    while (c < h && c < t - MACHINE_WARP_LOG) {
        bool on_regs = false;
        for (int i = 0; i < rd->reg_log; i++) on_regs |= f2_parity(g[c] & rd->regs[i]);
        if (on_regs) break;
        c++;
    }
    for (; c > 0; c--) {
        if (!threads_with_live_warps(p, rd, g, c, banked)) continue;
        rd->live_log = c;
        rd->live_value = value & f2_mask(c);
        for (int i = 0; i < c; i++) rd->live_tid[i] = plan_thread_mask(p, rd, g[i]);
        return;
    }
}

/* Step.kept_log: for each step of the round, the halves in effect whose
 * functionals vanish on the round's threads, as masks over the register
 * index (a functional that vanishes on the registers too decides nothing). */
static void plan_kept_regs(Phase *p, const Round *rd) {
    for (int i = rd->first; i < rd->first + rd->count; i++) {
        Step *st = &p->steps[i];
        uint64_t g[SCHED_MAX_TILE], value;
        int h = half_functionals(p, i, g, &value);
        st->kept_log = 0;
        st->kept_value = 0;
        for (int c = 0; c < h; c++) {
            uint64_t regs = plan_reg_mask(rd, g[c]);
            if (plan_thread_mask(p, rd, g[c]) || !regs) continue;
            st->kept_regs[st->kept_log] = regs;
            st->kept_value |= (value >> c & 1) << st->kept_log++;
        }
    }
}

/* A round holds at least one step, so nsteps rounds are enough. */
void plan_rounds(Arena *arena, Phase *p) {
    p->threads_log = plan_threads_log(p);
    p->rounds = NEW_ARRAY(arena, Round, p->nsteps ? p->nsteps : 1);
    p->nrounds = 0;
    for (int first = 0; first < p->nsteps; first += p->rounds[p->nrounds++].count) {
        Round *rd = &p->rounds[p->nrounds];
        plan_round(p, rd, first);
        plan_live_warps(p, rd, first == 0 || first + rd->count == p->nsteps);
        plan_kept_regs(p, rd);
    }
    plan_layouts(p);
    thread_masks(p);
}
