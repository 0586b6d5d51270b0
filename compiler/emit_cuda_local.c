/* emit_cuda_local.c: the CUDA kernel of a LOCAL phase, with the stages in
 * registers.
 *
 * The block reads its tile coset into shared memory (whole segments), then
 * runs the stages in rounds. In a round each thread holds 2^r elements of the
 * tile in registers: the coset base(thread) + span(R), where R spans the pair
 * vectors of the round's stages, so every comparator of the round is register
 * code with compile-time register numbers. Between rounds the tile goes back
 * to shared memory and is read again with the next round's R: one barrier
 * per round instead of one per stage. The lanes of a warp take tile vectors
 * whose slots meet no other word in their banks (access_model.h), so every
 * shared access is conflict-free. Finally the tile is written back as whole segments. */
#include "emit.h"

#include <string.h>

#include "access_model.h"
#include "emit_elem.h"

#define REG_BYTES_LOG 7     /* element bytes per thread in registers, log2 */
#define MAX_THREADS_LOG 10

/* About 128 bytes of elements per thread, 8 to 32 elements: 32 int32 or f32
 * (measured best for sorts, bench/results/2026-11-21-h100-register-rounds.md),
 * 16 complex f32 or key-value pairs (the FFT of 2^24 points ran 1.8x faster
 * than with 32, which spilled registers; bench/results/2026-11-21-h100-fft.md). */
int emit_cuda_local_threads_log(const Phase *p) {
    int bytes_log = 0;
    while ((2 << bytes_log) <= elem_bytes(p->elem)) bytes_log++;
    int reg_log = REG_BYTES_LOG - bytes_log;
    if (reg_log > 5) reg_log = 5;
    if (reg_log < 3) reg_log = 3;
    int r = p->tile_log < reg_log ? p->tile_log : reg_log;
    int t = p->tile_log - r;
    return t > MAX_THREADS_LOG ? MAX_THREADS_LOG : t;
}


/* The steps from `first` whose pair vectors span at most reg_log dimensions. */
static int round_extent(const Phase *p, int first, int reg_log, F2Space *span) {
    *span = f2_space_empty(p->tile_log);
    int i = first;
    for (; i < p->nsteps; i++) {
        F2Space grown = *span;
        if (p->steps[i].pair) f2_space_add(&grown, p->steps[i].pair);
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
            if (rows.basis[r] >> j & 1) v |= UINT64_C(1) << (63 - __builtin_clzll(rows.basis[r]));
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
        if (lane_banks_add(&banks, comp[i], schedule_slot(p, comp[i]), &threads[k])) k++;
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
void emit_cuda_plan_round(const Phase *p, Round *rd, int first) {
    int threads_log = emit_cuda_local_threads_log(p), reg_log = p->tile_log - threads_log;
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
    for (int i = first; i < first + rd->count; i++) {
        const Step *st = &p->steps[i];
        if (!st->pair || st->order_block || f2_space_contains(&taken, st->order)) continue;
        bool known = false;
        for (int f = 0; f < nfailed && !known; f++) known = failed[f] == st->order;
        if (known) continue;
        orders[norders] = st->order;
        F2Space k = kernel_of(D, orders, norders + 1);
        uint64_t threads[32];
        if (!plan_threads_in(p, &span, &k, threads_log, threads)) {
            if (nfailed < 32) failed[nfailed++] = st->order;
            continue;
        }
        memcpy(rd->threads, threads, sizeof(uint64_t) * (size_t)threads_log);
        f2_space_add(&taken, st->order);
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
        if (f2_space_contains(&all, v) || !lane_banks_add(&tried, v, schedule_slot(p, v), &lane)) continue;
        banks = tried;
        f2_space_add(&all, v);
        rd->threads[k++] = v;
    }
    for (int bit = D - 1; bit >= 0 && k < threads_log; bit--)
        if (f2_space_add(&all, UINT64_C(1) << bit)) rd->threads[k++] = UINT64_C(1) << bit;
    if (all.dim != D) diag_fatal("internal error: no register plan for a tile of 2^%d", D);
}

/* A functional f over tile coordinates on a thread's base vector, as a mask
 * over the thread index: parity(f & base(tid)) = parity(mask & tid). */
static uint64_t thread_mask(const Phase *p, const Round *rd, uint64_t f) {
    uint64_t mask = 0;
    for (int i = 0; i < emit_cuda_local_threads_log(p); i++) mask |= (uint64_t)f2_parity(f & rd->threads[i]) << i;
    return mask;
}

/* The thread bits on which a step's direction depends in a round. */
static uint64_t direction_tid_mask(const Phase *p, const Round *rd, const Step *st) {
    return thread_mask(p, rd, st->order);
}

int emit_cuda_local_thread_directions(const Phase *p) {
    int n = 0;
    for (int first = 0; first < p->nsteps;) {
        Round rd;
        emit_cuda_plan_round(p, &rd, first);
        for (int i = first; i < first + rd.count; i++)
            if (p->steps[i].pair && direction_tid_mask(p, &rd, &p->steps[i])) n++;
        first += rd.count;
    }
    return n;
}

static uint64_t reg_vector(const Round *rd, unsigned j) {
    uint64_t u = 0;
    for (int i = 0; i < rd->reg_log; i++)
        if (j >> i & 1) u ^= rd->regs[i];
    return u;
}

/* Coordinates of a tile vector of span(R) in the basis R. */
static unsigned reg_coords(const Round *rd, uint64_t v) {
    for (unsigned j = 0; j < 1u << rd->reg_log; j++)
        if (reg_vector(rd, j) == v) return j;
    diag_fatal("internal error: a pair vector outside its round");
}

/* base: the slot of the thread's first register element. */
static void emit_base(FILE *out, const Phase *p, const Round *rd, int threads_log) {
    fputs("        unsigned base = 0", out);
    for (int i = 0; i < threads_log; i++)
        fprintf(out, "\n            ^ ((tid >> %d & 1) ? 0x%llxu : 0)", i,
                (unsigned long long)schedule_slot(p, rd->threads[i]));
    fputs(";\n", out);
    /* computed again each round: kept alive across rounds, the addresses spill */
    fputs("        PARM_REMAT(base);\n", out);
}

/* An index that is a per-thread part with bits `var_bits` combined with a
 * literal c: XOR, or an addition when they share no bit (the same value), so
 * that the literal becomes the access's immediate offset. */
char emit_index_op(uint64_t var_bits, uint64_t c) { return var_bits & c ? '^' : '+'; }

static void emit_move(FILE *out, const Phase *p, const Round *rd, bool load) {
    uint64_t bbits = 0;
    for (int i = 0; i < emit_cuda_local_threads_log(p); i++) bbits |= schedule_slot(p, rd->threads[i]);
    for (unsigned j = 0; j < 1u << rd->reg_log; j++)
        for (int k = 0; k < p->elem->nslots; k++) {
            uint64_t u = schedule_slot(p, reg_vector(rd, j));
            char op = emit_index_op(bbits, u);
            if (load) fprintf(out, "        v%d_%u = tile%d[base %c 0x%llxu];\n", k, j, k, op, (unsigned long long)u);
            else fprintf(out, "        tile%d[base %c 0x%llxu] = v%d_%u;\n", k, op, (unsigned long long)u, k, j);
        }
}

/* POS in register code. A position is linear in the tile coordinate, and a
 * thread's registers are its base vector plus span(R): the part that depends
 * on the thread and the block is computed once per step (s<step>_pos<id>),
 * and register j adds a constant. */
typedef struct {
    const Phase *p;
    const Round *rd;
    const Step *st;
    int index;                  /* the step's */
    unsigned reg;               /* the register holding the element (a pair's first) */
} RegPos;

static void emit_step_positions(FILE *out, const Phase *p, const Round *rd, const Step *st, int index) {
    for (int i = 0; i < st->body->nstmts; i++) {
        const IrStmt *pos = st->body->stmts[i];
        if (pos->op != IR_POS) continue;
        uint64_t on_u[64], on_b[64], on_tid[64], konst;
        int bits = schedule_pos(p, st, pos, on_u, on_b, &konst);
        for (int k = 0; k < bits; k++) on_tid[k] = thread_mask(p, rd, on_u[k]);
        Arena scratch = {0};
        fprintf(out, "        const uint64_t s%d_pos%d = (uint64_t)%s;\n", index, pos->res[0]->id,
                emit_pos_expr(&scratch, bits, on_tid, on_b, konst, "tid", "b"));
        arena_free(&scratch);
    }
}

static const char *reg_pos(const void *ctx, const IrStmt *pos, Arena *a) {
    const RegPos *rp = ctx;
    uint64_t on_u[64], on_b[64], konst, v = reg_vector(rp->rd, rp->reg), c = 0;
    int bits = schedule_pos(rp->p, rp->st, pos, on_u, on_b, &konst);
    for (int k = 0; k < bits; k++) c |= (uint64_t)f2_parity(on_u[k] & v) << k;
    return arena_printf(a, "(int64_t)(s%d_pos%d ^ 0x%llxull)", rp->index, pos->res[0]->id, (unsigned long long)c);
}

/* Element code on named registers: params e*, results r*. */
static void emit_body_call(FILE *out, const Phase *p, const IrBody *body, int width, const char *prefix,
                           const RegPos *rp) {
    for (int k = 0; k < width; k++)
        fprintf(out, "            %s r%d;\n", prim_ctype(elem_slot_prim(p->elem, k % p->elem->nslots)), k);
    ElemPositions positions = {reg_pos, rp};
    emit_elem_named(out, body, width, prefix, 12, &positions);
}

static void emit_pair_step(FILE *out, const Phase *p, const Round *rd, const Step *st, int index) {
    int ns = p->elem->nslots;
    unsigned c = reg_coords(rd, st->pair);
    int piv = 31 - __builtin_clz(c);
    /* The order bit of the thread's first element: the functional is over
     * tile coordinates (base holds a swizzled slot), so take it per thread bit. */
    uint64_t tid_mask = direction_tid_mask(p, rd, st);
    bool fixed = !tid_mask && !st->order_block;   /* the same direction in every thread */
    char prefix[32];
    snprintf(prefix, sizeof prefix, "s%d_", index);
    if (fixed) {
        /* each pair in its order: no selects */
        fputs("        {\n", out);
        emit_step_positions(out, p, rd, st, index);
        for (unsigned j = 0; j < 1u << rd->reg_log; j++) {
            if (j >> piv & 1) continue;
            unsigned h = j ^ c;
            bool swap = (f2_parity(st->order & reg_vector(rd, j)) ^ st->order_const) != 0;
            unsigned a = swap ? h : j, z = swap ? j : h;
            fputs("        {\n", out);
            for (int k = 0; k < ns; k++) {
                const char *ty = prim_ctype(elem_slot_prim(p->elem, k));
                fprintf(out, "            const %s e%d = v%d_%u, e%d = v%d_%u;\n", ty, k, k, a, k + ns, k, z);
            }
            RegPos rp = {p, rd, st, index, j};
            emit_body_call(out, p, st->body, 2 * ns, prefix, &rp);
            for (int k = 0; k < ns; k++)
                fprintf(out, "            v%d_%u = r%d;\n            v%d_%u = r%d;\n", k, a, k, k, z, k + ns);
            fputs("        }\n", out);
        }
        fputs("        }\n", out);
        return;
    }
    fprintf(out, "        {\n            const int pb = parm_parity(tid & 0x%llxu) ^ blockpar%d;\n",
            (unsigned long long)tid_mask, index);
    emit_step_positions(out, p, rd, st, index);
    for (unsigned j = 0; j < 1u << rd->reg_log; j++) {
        if (j >> piv & 1) continue;
        unsigned h = j ^ c;
        int swap_const = f2_parity(st->order & reg_vector(rd, j));
        fprintf(out, "        {\n            const int sw = pb ^ %d;\n", swap_const);
        for (int k = 0; k < ns; k++) {
            const char *ty = prim_ctype(elem_slot_prim(p->elem, k));
            fprintf(out, "            const %s e%d = sw ? v%d_%u : v%d_%u, e%d = sw ? v%d_%u : v%d_%u;\n", ty, k, k, h, k,
                    j, k + ns, k, j, k, h);
        }
        RegPos rp = {p, rd, st, index, j};
        emit_body_call(out, p, st->body, 2 * ns, prefix, &rp);
        for (int k = 0; k < ns; k++)
            fprintf(out, "            v%d_%u = sw ? r%d : r%d;\n            v%d_%u = sw ? r%d : r%d;\n", k, j, k + ns, k, k,
                    h, k, k + ns);
        fputs("        }\n", out);
    }
    fputs("        }\n", out);
}

static void emit_map_step(FILE *out, const Phase *p, const Round *rd, const Step *st, int index) {
    int ns = p->elem->nslots;
    char prefix[32];
    snprintf(prefix, sizeof prefix, "s%d_", index);
    fputs("        {\n", out);
    emit_step_positions(out, p, rd, st, index);
    for (unsigned j = 0; j < 1u << rd->reg_log; j++) {
        fputs("        {\n", out);
        for (int k = 0; k < ns; k++)
            fprintf(out, "            const %s e%d = v%d_%u;\n", prim_ctype(elem_slot_prim(p->elem, k)), k, k, j);
        RegPos rp = {p, rd, st, index, j};
        emit_body_call(out, p, st->body, ns, prefix, &rp);
        for (int k = 0; k < ns; k++) fprintf(out, "            v%d_%u = r%d;\n", k, j, k);
        fputs("        }\n", out);
    }
    fputs("        }\n", out);
}

void emit_cuda_local_rounds(FILE *out, const Phase *p) {
    int t = emit_cuda_local_threads_log(p), r = p->tile_log - t;
    for (unsigned j = 0; j < 1u << r; j++)
        for (int k = 0; k < p->elem->nslots; k++)
            fprintf(out, "    %s v%d_%u;\n", prim_ctype(elem_slot_prim(p->elem, k)), k, j);
    for (int first = 0; first < p->nsteps;) {
        Round rd;
        emit_cuda_plan_round(p, &rd, first);
        fprintf(out, "    { /* round: steps %d..%d in registers */\n", first, first + rd.count - 1);
        emit_base(out, p, &rd, t);
        emit_move(out, p, &rd, true);
        for (int i = first; i < first + rd.count; i++) {
            fprintf(out, "        /* step %d: ", i);
            ir_print_stmt_brief(out, p->steps[i].stmt);
            if (p->steps[i].pair)
                fprintf(out, "; pair 0x%llx, order 0x%llx, block 0x%llx ^ %d", (unsigned long long)p->steps[i].pair,
                        (unsigned long long)p->steps[i].order, (unsigned long long)p->steps[i].order_block,
                        p->steps[i].order_const);
            fputs(" */\n", out);
            if (p->steps[i].pair) emit_pair_step(out, p, &rd, &p->steps[i], i);
            else emit_map_step(out, p, &rd, &p->steps[i], i);
        }
        emit_move(out, p, &rd, false);
        fputs("    }\n    __syncthreads();\n", out);
        first += rd.count;
    }
}
