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

#define REG_BYTES_LOG 7     /* element bytes per thread in registers, log2 */
#define MAX_THREADS_LOG 10

/* About 128 bytes of elements per thread, 8 to 32 elements: 32 int32 or f32
 * (measured best for sorts, bench/results/2026-11-21-h100-register-rounds.md),
 * 16 complex f32 or key-value pairs (the FFT of 2^24 points ran 1.8x faster
 * than with 32, which spilled registers; bench/results/2026-11-21-h100-fft.md). */
int plan_reg_log(const ElemType *elem, int tile_log) {
    int bytes_log = 0;
    while ((2 << bytes_log) <= elem_bytes(elem)) bytes_log++;
    int reg_log = REG_BYTES_LOG - bytes_log;
    if (reg_log > 5) reg_log = 5;
    if (reg_log < 3) reg_log = 3;
    return tile_log < reg_log ? tile_log : reg_log;
}

int plan_threads_log(const Phase *p) {
    int t = p->tile_log - plan_reg_log(p->elem, p->tile_log);
    return t > MAX_THREADS_LOG ? MAX_THREADS_LOG : t;
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
 * vectors recombined so that their slots fall in independent banks (so every
 * warp access of the round hits 32 distinct banks), the rest warps from high
 * bits down. False when K holds no such complement. */
static bool plan_threads_in(const Phase *p, const F2Space *R, const F2Space *K, int threads_log, uint64_t *threads) {
    int D = p->tile_log, lanes = threads_log < 5 ? threads_log : 5;
    F2Space all = *R;
    uint64_t comp[SCHED_MAX_TILE];
    int nc = 0;
    for (int i = 0; i < K->dim && all.dim < D; i++)
        if (f2_space_add(&all, K->basis[i])) comp[nc++] = K->basis[i];
    if (all.dim != D) return false;
    /* lanes: elimination on the banks of the complement, lowest vectors first */
    LaneBanks banks;
    lane_banks_init(&banks, elem_max_slot_bytes(p->elem));
    if (lanes > banks.g.wave_log) lanes = banks.g.wave_log;
    int k = 0;
    for (int i = nc - 1; i >= 0 && k < lanes; i--)
        if (lane_banks_add(&banks, comp[i], plan_slot(p, comp[i]), &threads[k])) k++;
    if (k < lanes) return false;
    all = *R;
    for (int i = 0; i < k; i++) f2_space_add(&all, threads[i]);
    for (int i = 0; i < nc && k < threads_log; i++)
        if (f2_space_add(&all, comp[i])) threads[k++] = comp[i];
    return k == threads_log;
}

/* R: the span padded with high coordinate bits. Thread vectors: where it can,
 * inside the kernel of the round's comparator directions (order functionals),
 * taken greedily step by step, so that those steps' directions are the same
 * for every thread and known at compile time (no selects); else lanes whose
 * low five bits are e0.. (mixed with a high bit where e_i is taken), then the
 * rest, which leaves the direction a per-thread bit. */
static void plan_round(const Phase *p, Round *rd, int first) {
    int threads_log = plan_threads_log(p), reg_log = p->tile_log - threads_log;
    F2Space span;
    rd->first = first;
    rd->count = round_extent(p, first, reg_log, &span);
    rd->reg_log = reg_log;
    int D = p->tile_log;
    for (int bit = D - 1; bit >= 0 && span.dim < reg_log; bit--) f2_space_add(&span, UINT64_C(1) << bit);
    for (int i = 0; i < reg_log; i++) rd->regs[i] = span.basis[i];
    /* Orders in the span of those taken change nothing; one that failed
     * fails again with more taken (the kernel only shrinks): skip both. */
    uint64_t orders[SCHED_MAX_TILE], failed[32];
    int norders = 0, nfailed = 0;
    F2Space taken = f2_space_empty(D);
    for (int i = first; i < first + rd->count; i++)
        for (int j = 0; j < p->steps[i].group_log; j++) {
            uint64_t order = p->steps[i].order[j];
            if (p->steps[i].order_block[j] || f2_space_contains(&taken, order)) continue;
            bool known = false;
            for (int f = 0; f < nfailed && !known; f++) known = failed[f] == order;
            if (known) continue;
            orders[norders] = order;
            F2Space k = kernel_of(D, orders, norders + 1);
            uint64_t threads[32];
            if (!plan_threads_in(p, &span, &k, threads_log, threads)) {
                if (nfailed < 32) failed[nfailed++] = order;
                continue;
            }
            memcpy(rd->threads, threads, sizeof(uint64_t) * (size_t)threads_log);
            f2_space_add(&taken, order);
            norders++;
        }
    if (norders) return;
    F2Space all = span;
    LaneBanks banks;
    lane_banks_init(&banks, elem_max_slot_bytes(p->elem));
    int lanes = threads_log < banks.g.wave_log ? threads_log : banks.g.wave_log, k = 0;
    for (uint64_t v = 1; v < UINT64_C(1) << D && k < lanes; v++) {
        LaneBanks tried = banks;
        uint64_t lane;
        if (f2_space_contains(&all, v) || !lane_banks_add(&tried, v, plan_slot(p, v), &lane)) continue;
        banks = tried;
        f2_space_add(&all, v);
        rd->threads[k++] = v;
    }
    for (int bit = D - 1; bit >= 0 && k < threads_log; bit--)
        if (f2_space_add(&all, UINT64_C(1) << bit)) rd->threads[k++] = UINT64_C(1) << bit;
    if (all.dim != D) diag_fatal("internal error: no register plan for a tile of 2^%d", D);
}

uint64_t plan_thread_mask(const Phase *p, const Round *rd, uint64_t f) {
    uint64_t mask = 0;
    for (int i = 0; i < plan_threads_log(p); i++) mask |= (uint64_t)f2_parity(f & rd->threads[i]) << i;
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

/* A round holds at least one step, so nsteps rounds are enough. */
void plan_rounds(Arena *arena, Phase *p) {
    p->threads_log = plan_threads_log(p);
    p->rounds = NEW_ARRAY(arena, Round, p->nsteps ? p->nsteps : 1);
    p->nrounds = 0;
    for (int first = 0; first < p->nsteps; first += p->rounds[p->nrounds++].count)
        plan_round(p, &p->rounds[p->nrounds], first);
}
