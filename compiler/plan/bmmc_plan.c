/* bmmc_plan.c: plan and simulate one-pass BMMC permutation kernels.
 *
 * bmmc_plan.h describes the construction and the names (tau, sigma, slot);
 * emit_bmmc.c writes the planned kernel as CUDA or C. Every map here is
 * linear over F2 and held as columns (column i = the image of bit i), so
 * applying one is an XOR of the columns that the input selects. */
#include "bmmc_plan.h"

#include <string.h>

#include "access_model.h"
#include "machine.h"

#define SEGMENT_BYTES MACHINE_LINE_BYTES       /* what one warp access should cover */
#define WIDE_SEGMENT_BYTES 256                 /* the widest segment tried for L */
#define WIDE_TILE_BYTES 16384                  /* ...while its tile stays within this */
#define MAX_BLOCK_LOG (MACHINE_GRID_X_LOG - 1) /* the most blocks of a grid, log2 */
#define INTERLEAVE_LOG \
    12 /* block bits spread over both sides: 4096 blocks
                               cover those resident on a large GPU at once */

static uint64_t bit(int i) { return (uint64_t)1 << i; }

static int log2_exact(int v) {
    int k = 0;
    while ((1 << k) < v) k++;
    return (1 << k) == v ? k : -1;
}

/* ---- planning ---- */

/* Coordinates of v (a vector of V) in B = [e0..e(l-1), w1..wr]: V's reduced
 * basis holds e0..e(l-1) and the w's, each w the only one with its pivot
 * bit, so the coefficient of w_k is simply v's bit at that pivot. */
static uint64_t tile_coords(const BmmcPlan *p, const int *pivot, uint64_t v) {
    uint64_t tau = v & f2_mask(p->seg_log);
    for (int k = 0; k < p->rows_log; k++) tau |= (v >> pivot[k] & 1) << (p->seg_log + k);
    return tau;
}

/* Basis vectors of s with pivot >= l in increasing pivot order: a basis of s
 * modulo L with zero low bits (the reduced basis cleared them). */
static void high_basis(const F2Space *s, int l, uint64_t *out, int *pivot) {
    int k = 0;
    for (int j = s->dim - 1; j >= 0; j--) {
        int top = f2_top_bit(s->basis[j]);
        if (top >= l) {
            out[k] = s->basis[j];
            pivot[k++] = top;
        }
    }
}

/* The bank geometry of the tile (access_model.h): a 4-byte word holds 4/e
 * elements, so the bank is chosen by slot bits bank_lo.. (5 of them); 8-byte
 * elements go as half-warps over 16 bank pairs, chosen by slot bits 0..3. */
static void plan_banks(BmmcPlan *p, int *phase_log) {
    BankGeometry g = access_bank_geometry(p->elem_bytes);
    p->bank_lo = g.word_shift;
    int bits = g.bank_bits;
    if (bits > p->tile_log - p->bank_lo)
        bits = p->tile_log - p->bank_lo > 0 ? p->tile_log - p->bank_lo : 0;
    p->bank_bits = bits;
    int lanes = p->thread_log < MACHINE_WARP_LOG ? p->thread_log : MACHINE_WARP_LOG;
    *phase_log = lanes > g.wave_log ? g.wave_log : lanes;
}

/* Choose the swizzle S (bank-row bits -> bank bits; a bank row is 128 bytes
 * of the tile, the tau bits above the bank bits) so that the tile loads of
 * the write phase are conflict-free; the stores of the read phase are for
 * any S, since a warp stores 32 consecutive elements of the tile (within one
 * bank row, or two half-warps in two).
 *
 * A warp phase loads tau = G·u ⊕ const over lanes u; slot bank bits are
 * beta(u) ⊕ S·rho(u), with rho the bank-row part and beta the bank part of
 * tau. Eliminating on rho splits the lanes into those within one bank row
 * (rho = 0, whose banks S cannot move, but they are distinct words in
 * distinct banks since G is injective) and combinations with
 * independent rows. Each of the latter gets a bank target outside the span
 * of all banks so far, and S is solved to hit it: the target is its own bank
 * when that is already new (no swizzle where none is needed), otherwise the
 * lowest coordinate bank that is. Lanes sharing a word (elements < 4 bytes)
 * have bank 0 relative to each other and cost nothing. */
static void plan_swizzle(BmmcPlan *p, int phase_log) {
    int hi = p->bank_lo + p->bank_bits, r = p->tile_log - hi;
    uint64_t bank_mask = f2_mask(p->bank_bits);
    uint64_t rho[MACHINE_WARP_LOG], need[MACHINE_WARP_LOG];
    int count = 0;
    F2Space banks = f2_space_empty(p->bank_bits);
    memset(p->swizzle, 0, sizeof p->swizzle);
    for (int i = 0; i < phase_log; i++) {
        uint64_t g = p->src_cols[i];
        uint64_t rw = g >> hi, bk = g >> p->bank_lo & bank_mask;
        for (int m = 0; m < count; m++) {
            if (rw >> f2_top_bit(rho[m]) & 1) {
                rw ^= rho[m];
                bk ^= need[m];
            }
        }
        if (rw == 0) {
            f2_space_add(&banks, bk);
            continue;
        }
        rho[count] = rw;
        need[count++] = bk;
    }
    /* need[m] becomes S·rho[m] = target ⊕ own bank. */
    for (int m = 0; m < count; m++) {
        uint64_t target = need[m];
        for (int b = 0; !f2_space_add(&banks, target); b++) target = bit(b);
        need[m] ^= target;
    }
    /* S·e_k: reduce e_k by the rho's from the highest pivot down; what is
     * left are non-pivot coordinates, where S is zero. */
    for (int k = 0; k < r; k++) {
        uint64_t v = bit(k), s = 0;
        for (int top = r - 1; top >= 0; top--) {
            for (int m = 0; m < count; m++) {
                if (f2_top_bit(rho[m]) == top && (v >> top & 1)) {
                    v ^= rho[m];
                    s ^= need[m];
                }
            }
        }
        p->swizzle[k] = s << p->bank_lo;
    }
}

/* P from S: the identity, plus S on the bank-row bits. */
static void plan_slots(BmmcPlan *p) {
    int hi = p->bank_lo + p->bank_bits;
    for (int i = 0; i < p->tile_log; i++)
        p->slot_cols[i] = i < hi ? bit(i) : bit(i) ^ p->swizzle[i - hi];
}

/* The number of elements per thread: 8 where the tile allows, so that each
 * thread has several loads in flight and the per-thread index setup is
 * shared by several elements; at most 256 threads and at least one warp. */
static int plan_threads(int tile_log) {
    int t = tile_log - 3;
    int warp = tile_log < MACHINE_WARP_LOG ? tile_log : MACHINE_WARP_LOG;
    if (t < warp) t = warp;
    return t > BMMC_MAX_THREAD_LOG ? BMMC_MAX_THREAD_LOG : t;
}

/* V = L + A⁻¹L, padded with the lowest coordinates it lacks to the wanted
 * dimension (or n, if smaller). L is the 256-byte segment when its V fits
 * in 16 KB, else the 128-byte one: measured on an H100 (bench/perm/NOTES.md),
 * 256-byte pieces gave the DRAM runs long enough to gain 1 to 5% of copy
 * speed over 128-byte ones; 512-byte ones (larger tiles) lost some of that
 * for 4-byte elements and were mixed for 8-byte ones. */
/* The piece functionals (rows over the input index) of a planned kernel
 * cut into pieces, and a direction for each (F·u_i = e_i); count 0: none. */
typedef struct {
    uint64_t row[BMMC_MAX_N], dir[BMMC_MAX_N];
    int count;
} Pieces;

/* Whether x lies where every piece functional is zero. */
static bool piece_free(const Pieces *pc, uint64_t x) {
    for (int i = 0; i < pc->count; i++)
        if (f2_parity(pc->row[i] & x)) return false;
    return true;
}

static F2Space plan_tile_space(BmmcPlan *p, int elem_log, int want, const Pieces *pc) {
    F2Space v;
    for (int bytes = WIDE_SEGMENT_BYTES;; bytes /= 2) {
        int l = log2_exact(bytes) - elem_log;
        p->seg_log = l < p->n ? l : p->n;
        F2Space low = f2_space_coords(p->n, f2_mask(p->seg_log));
        F2Space back = f2_space_image(&p->a_inv, &low);
        v = f2_space_sum(&low, &back);
        if (bytes == SEGMENT_BYTES || ((uint64_t)1 << v.dim << elem_log) <= WIDE_TILE_BYTES) break;
    }
    int d = want < p->n ? want : p->n;
    for (int i = p->seg_log; i < p->n && v.dim < d; i++)
        if (piece_free(pc, bit(i))) /* padding stays within a piece */
            f2_space_add(&v, bit(i));
    return v;
}

/* The block index: a complement of V, one column per block bit, low bits
 * first. Blocks with nearby indices run at the same time, so the low block
 * bits decide which segments the DRAM sees together: input coordinates
 * there put the reads of running blocks next to each other, output
 * coordinates (through A⁻¹) their writes. Taking the two in turn gives both
 * sides runs of several KB instead of isolated 128-byte segments on one
 * side. Higher block bits take input coordinates, which cost the least to
 * deposit. Each column is reduced modulo V (zero at V's pivots, so x0 has no
 * bits in L), which leaves its coset, and so the block's tile, unchanged. */
static uint64_t next_block_col(const BmmcPlan *p, F2Space *span, int *next, int out_side) {
    while (*next < p->n) {
        uint64_t u = bit((*next)++);
        if (out_side) u = f2_apply(&p->a_inv, u);
        if (f2_space_add(span, u)) return u; /* independent of V and the columns so far */
    }
    return 0;
}

/* With pieces, the pieces' directions are the top block columns, and every
 * other column is moved by them to where the piece functionals are zero
 * (which leaves its span with them unchanged), so that the top block bits
 * alone say the piece. */
static void plan_blocks(BmmcPlan *p, const F2Space *v, const Pieces *pc) {
    F2Space span = *v;
    for (int i = 0; i < pc->count; i++) f2_space_add(&span, pc->dir[i]);
    int next[2] = {p->seg_log, p->seg_log}; /* input, output coordinate */
    int low = p->block_log - pc->count;
    for (int k = 0; k < p->block_log; k++) {
        int side = k < INTERLEAVE_LOG ? k & 1 : 0;
        uint64_t col;
        if (k >= low) {
            col = pc->dir[k - low];
        } else {
            col = next_block_col(p, &span, &next[side], side);
            if (!col) col = next_block_col(p, &span, &next[!side], !side);
            for (int i = 0; i < pc->count; i++)
                if (f2_parity(pc->row[i] & col)) col ^= pc->dir[i];
        }
        p->block_cols[k] = f2_space_reduce(v, col);
        p->out_cols[k] = f2_apply(&p->a, p->block_cols[k]);
    }
}

static bool plan_valid(const F2Mat *a, uint64_t c, int elem_bytes) {
    return a->n >= 1 && a->n <= BMMC_MAX_N && (c & ~f2_mask(a->n)) == 0 &&
           (elem_bytes == 1 || elem_bytes == 2 || elem_bytes == 4 || elem_bytes == 8);
}

static bool plan_with(const F2Mat *a, uint64_t c, int elem_bytes, int tile_log, const Pieces *pc,
                      BmmcPlan *plan) {
    if (!plan_valid(a, c, elem_bytes)) return false;
    BmmcPlan p;
    memset(&p, 0, sizeof p);
    p.n = a->n;
    p.a = *a;
    p.c = c;
    p.elem_bytes = elem_bytes;
    if (!f2_invert(a, &p.a_inv)) return false;
    int elem_log = log2_exact(elem_bytes);
    F2Space v = plan_tile_space(&p, elem_log, tile_log, pc);
    p.tile_log = v.dim;
    p.rows_log = v.dim - p.seg_log;
    p.block_log = p.n - v.dim;
    p.piece_log = pc->count;
    if (p.tile_log > BMMC_MAX_TILE || p.block_log > MAX_BLOCK_LOG || p.block_log < pc->count ||
        ((uint64_t)elem_bytes << p.tile_log) > MACHINE_STATIC_SHARED_BYTES)
        return false;
    for (int j = 0; j < v.dim; j++)
        if (!piece_free(pc, v.basis[j])) return false; /* a tile would cross pieces */
    p.thread_log = plan_threads(p.tile_log);
    p.iter_log = p.tile_log - p.thread_log;
    plan_blocks(&p, &v, pc);

    int wpiv[BMMC_MAX_TILE], zpiv[BMMC_MAX_TILE];
    high_basis(&v, p.seg_log, p.w, wpiv);
    F2Space image = f2_space_image(a, &v);
    high_basis(&image, p.seg_log, p.z, zpiv);
    for (int i = 0; i < p.tile_log; i++) {
        int k = i - p.seg_log;
        p.read_cols[i] = k < 0 ? bit(i) : p.w[k];
        p.write_cols[i] = k < 0 ? bit(i) : p.z[k];
        p.src_cols[i] = tile_coords(&p, wpiv, f2_apply(&p.a_inv, p.write_cols[i]));
    }

    int phase_log;
    plan_banks(&p, &phase_log);
    plan_swizzle(&p, phase_log);
    plan_slots(&p);
    *plan = p;
    return true;
}

bool bmmc_plan(const F2Mat *a, uint64_t c, int elem_bytes, int tile_log, BmmcPlan *plan) {
    Pieces none = {.count = 0};
    return plan_with(a, c, elem_bytes, tile_log, &none, plan);
}

bool bmmc_plan_pieces(const F2Mat *a, uint64_t c, int elem_bytes, int tile_log, int piece_lo,
                      int piece_log, bool out_side, BmmcPlan *plan) {
    F2Mat inv;
    if (piece_log < 0 || piece_lo < 0 || piece_lo + piece_log > a->n || a->n > BMMC_MAX_N ||
        !f2_invert(a, &inv))
        return false;
    Pieces pc = {.count = piece_log};
    for (int i = 0; i < piece_log; i++) {
        /* output bit j of A·x is row j of A; its direction A⁻¹e_j */
        pc.row[i] = out_side ? a->row[piece_lo + i] : bit(piece_lo + i);
        pc.dir[i] = out_side ? f2_column(&inv, piece_lo + i) : bit(piece_lo + i);
    }
    return plan_with(a, c, elem_bytes, tile_log, &pc, plan);
}

/* ---- vectors ---- */

static int vector_log(int elem_bytes) { return log2_exact(MACHINE_VECTOR_BYTES / elem_bytes); }

bool bmmc_vectors_fit(const BmmcPlan *p) {

    int v = vector_log(p->elem_bytes);
    return v <= p->seg_log && p->tile_log - v >= MACHINE_WARP_LOG;
}

/* A swizzle under construction for lanes of two sides at once: S known on
 * the span of the bank-row vectors met so far, held in echelon form (row[k]
 * has top bit k, s[k] its image in bank bits). */
typedef struct {
    uint64_t row[BMMC_MAX_TILE], s[BMMC_MAX_TILE];
    bool has[BMMC_MAX_TILE];
} PartialSwizzle;

/* S·rho over the known span; *rho is left with what lies outside it (zero
 * when rho is in the span). */
static uint64_t swizzle_known(const PartialSwizzle *w, uint64_t *rho) {
    uint64_t s = 0;
    for (int top = BMMC_MAX_TILE - 1; top >= 0; top--) {
        if ((*rho >> top & 1) && w->has[top]) {
            *rho ^= w->row[top];
            s ^= w->s[top];
        }
    }
    return s;
}

/* A search for S over the lanes of both sides' wavefronts (tile
 * coordinates; side 0 stores, side 1 loads), lane by lane: a lane whose
 * bank-row part S already maps must land in a bank that the access model
 * accepts beside its side's lanes so far (lane_banks_add); one with a new
 * bank-row direction tries each image of it, no swizzle first, and the
 * search backtracks when a later lane finds no bank. */
#define SWIZZLE_SEARCH_BUDGET 100000 /* lanes tried before the plan gives up vectors */
typedef struct {
    const BmmcPlan *p;
    uint64_t lane[2 * MACHINE_WARP_LOG];
    int side[2 * MACHINE_WARP_LOG], count;
    long budget;
    PartialSwizzle found;
} SwizzleSearch;

static bool swizzle_search(SwizzleSearch *q, int i, const PartialSwizzle *w,
                           const LaneBanks *banks) {
    if (i == q->count) {
        q->found = *w;
        return true;
    }
    if (--q->budget < 0) return false;
    const BmmcPlan *p = q->p;
    uint64_t u = q->lane[i], rest = u >> (p->bank_lo + p->bank_bits), lane;
    uint64_t known = swizzle_known(w, &rest);
    uint64_t images = rest ? bit(p->bank_bits) : 1;
    for (uint64_t image = 0; image < images; image++) {
        LaneBanks next[2] = {banks[0], banks[1]};
        if (!lane_banks_add(&next[q->side[i]], u, u ^ (known ^ image) << p->bank_lo, &lane))
            continue;
        PartialSwizzle with = *w;
        if (rest) {
            int top = f2_top_bit(rest);
            with.row[top] = rest;
            with.s[top] = image;
            with.has[top] = true;
        }
        if (swizzle_search(q, i + 1, &with, next)) return true;
    }
    return false;
}

/* S for the vector kernel: the tile store's lanes (tau coordinates
 * vec_log..) and the tile load's (their sources G·sigma); the lanes that
 * move no bank-row bit first, so that the search meets their banks before
 * it places the others. */
static bool plan_vector_swizzle(BmmcPlan *p, int lane_log) {
    SwizzleSearch q = {.p = p, .budget = SWIZZLE_SEARCH_BUDGET};
    int hi = p->bank_lo + p->bank_bits;
    for (int rows = 0; rows < 2; rows++) {
        for (int side = 0; side < 2; side++) {
            for (int i = 0; i < lane_log; i++) {
                uint64_t u = side ? p->src_cols[p->vec_log + i] : bit(p->vec_log + i);
                if ((u >> hi != 0) == rows) {
                    q.lane[q.count] = u;
                    q.side[q.count++] = side;
                }
            }
        }
    }
    PartialSwizzle none;
    memset(&none, 0, sizeof none);
    LaneBanks banks[2];
    lane_banks_init(&banks[0], p->elem_bytes);
    lane_banks_init(&banks[1], p->elem_bytes);
    if (!swizzle_search(&q, 0, &none, banks)) return false;
    memset(p->swizzle, 0, sizeof p->swizzle);
    for (int k = 0; k < p->tile_log - hi; k++) {
        uint64_t rho = bit(k); /* S is zero off the span it was given on */
        p->swizzle[k] = swizzle_known(&q.found, &rho) << p->bank_lo;
    }
    return true;
}

bool bmmc_plan_vectors(BmmcPlan *plan) {
    if (!bmmc_vectors_fit(plan)) return false;
    BmmcPlan p = *plan;
    p.vec_log = vector_log(p.elem_bytes);
    int vectors = p.tile_log - p.vec_log;
    p.thread_log = vectors < BMMC_MAX_THREAD_LOG ? vectors : BMMC_MAX_THREAD_LOG;
    p.iter_log = vectors - p.thread_log;
    int wave = access_bank_geometry(p.elem_bytes).wave_log;
    if (!plan_vector_swizzle(&p, wave < MACHINE_WARP_LOG ? wave : MACHINE_WARP_LOG)) return false;
    plan_slots(&p);
    BmmcSimReport r; /* the model must agree that the layout is conflict-free */
    bmmc_simulate(&p, &r);
    if (r.store_congestion_max > 1 || r.load_congestion_max > 1 ||
        r.read_sectors_max > r.sectors_min || r.write_sectors_max > r.sectors_min)
        return false;
    *plan = p;
    return true;
}

/* ---- index math ---- */

static uint64_t block_x0(const BmmcPlan *p, uint64_t b) {
    return f2_combine(p->block_cols, p->block_log, b);
}

/* A·x0 ⊕ c, before its low bits are split off as lambda. */
static uint64_t block_y0(const BmmcPlan *p, uint64_t b) {
    return p->c ^ f2_combine(p->out_cols, p->block_log, b);
}

uint64_t bmmc_read_index(const BmmcPlan *p, uint64_t b, unsigned t, unsigned i, unsigned *slot) {
    uint64_t tau = t | (uint64_t)i << (p->thread_log + p->vec_log);
    *slot = (unsigned)f2_combine(p->slot_cols, p->tile_log, tau);
    return block_x0(p, b) ^ f2_combine(p->read_cols, p->tile_log, tau);
}

uint64_t bmmc_write_index(const BmmcPlan *p, uint64_t b, unsigned t, unsigned i, unsigned *slot) {
    uint64_t sigma = t | (uint64_t)i << (p->thread_log + p->vec_log);
    uint64_t y0 = block_y0(p, b), low = f2_mask(p->seg_log);
    uint64_t tau = f2_combine(p->src_cols, p->tile_log, sigma ^ (y0 & low));
    *slot = (unsigned)f2_combine(p->slot_cols, p->tile_log, tau);
    return (y0 & ~low) ^ f2_combine(p->write_cols, p->tile_log, sigma);
}

/* ---- simulation ---- */

static int max_int(int a, int b) { return a > b ? a : b; }

/* Walk every warp access of block b: with vectors, the global accesses
 * of the vectors (16-byte elements at the first element's index) and the
 * tile accesses of each element j of them. */
static void simulate_block(const BmmcPlan *p, uint64_t b, BmmcSimReport *r) {
    int lane_log = p->thread_log < MACHINE_WARP_LOG ? p->thread_log : MACHINE_WARP_LOG,
        v = p->vec_log;
    int lanes = 1 << lane_log, vec_bytes = p->elem_bytes << v;
    unsigned warps = 1u << (p->thread_log - lane_log);
    for (unsigned w = 0; w < warps; w++) {
        for (unsigned i = 0; i < 1u << p->iter_log; i++) {
            for (unsigned j = 0; j < 1u << v; j++) {
                uint64_t x[MACHINE_WARP], y[MACHINE_WARP], rs[MACHINE_WARP], ws[MACHINE_WARP];
                for (int lane = 0; lane < lanes; lane++) {
                    unsigned t = (w * (unsigned)lanes + (unsigned)lane) << v | j, r_slot, w_slot;
                    x[lane] = bmmc_read_index(p, b, t, i, &r_slot) >> v;
                    y[lane] = bmmc_write_index(p, b, t, i, &w_slot) >> v;
                    rs[lane] = r_slot;
                    ws[lane] = w_slot;
                }
                if (j == 0) {
                    r->warp_accesses += 2;
                    r->read_sectors_max = max_int(r->read_sectors_max,
                                                  access_sectors(x, lanes, vec_bytes));
                    r->write_sectors_max = max_int(r->write_sectors_max,
                                                   access_sectors(y, lanes, vec_bytes));
                }
                r->store_congestion_max = max_int(r->store_congestion_max,
                                                  access_congestion(rs, lanes, p->elem_bytes));
                r->load_congestion_max = max_int(r->load_congestion_max,
                                                 access_congestion(ws, lanes, p->elem_bytes));
            }
        }
    }
    r->sectors_min = access_sectors_min(lanes, vec_bytes);
}

void bmmc_simulate(const BmmcPlan *p, BmmcSimReport *r) {
    memset(r, 0, sizeof *r);
    simulate_block(p, 0, r);
    if (p->block_log > 0) simulate_block(p, ((uint64_t)1 << p->block_log) - 1, r);
}
