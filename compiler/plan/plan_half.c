/* plan_half.c: halves fused into the write-back of a LOCAL phase.
 *
 * The scheduler turns each half of a chain into a relabelling of the
 * logical index that puts the bit the half decides on top (schedule.c), so
 * after h halves the kept elements are those whose top h logical bits are
 * the halves' sub-arrays, and their index in the shorter result is the low
 * n - h bits. The write sends output coordinate sigma of block b to y = c ⊕
 * ZB·b ⊕ Z·sigma (plan.h). When no block column has a top bit, every tile
 * keeps the same part of its coordinates: K = {Z·sigma : no top bit}, moved
 * by one t0 = Z·sigma0 whose top bits make c's the kept ones. When the top
 * bits of Z's columns have rank h, that is 2^-h of the tile, and the kept
 * elements are c' ⊕ ZB·b ⊕ Z'·sigma' with c' the low bits of c ⊕ t0 and Z'
 * a basis of K that starts with the segment bits (whole segments written);
 * the source of Z'_i is the tile element G·sigma for the sigma with Z·sigma
 * = Z'_i, and t0's is the constant src_const. */
#include "plan_half.h"

/* Z·sigma = y for Z's count independent columns, when y is in their span. */
static bool solve(const uint64_t *cols, int count, uint64_t y, uint64_t *sigma) {
    uint64_t vec[SCHED_MAX_TILE], comb[SCHED_MAX_TILE];
    for (int i = 0; i < count; i++) {
        vec[i] = cols[i];
        comb[i] = UINT64_C(1) << i;
    }
    /* Gauss-Jordan: each row keeps a pivot bit that no other row has */
    for (int i = 0; i < count; i++) {
        if (!vec[i]) return false;
        int piv = f2_top_bit(vec[i]);
        for (int j = 0; j < count; j++)
            if (j != i && (vec[j] >> piv & 1)) {
                vec[j] ^= vec[i];
                comb[j] ^= comb[i];
            }
    }
    *sigma = 0;
    for (int i = 0; i < count; i++)
        if (y >> f2_top_bit(vec[i]) & 1) {
            y ^= vec[i];
            *sigma ^= comb[i];
        }
    return y == 0;
}

/* K's basis (the combinations of Z's columns without top bits) and the
 * rank of the top bits; *t0: a combination whose top bits are `top`, when
 * there is one (else 0 and returns -1). */
static int kept_directions(const Phase *p, int low, uint64_t top, uint64_t *k_basis, int *kdim,
                           uint64_t *t0) {
    uint64_t vec[SCHED_MAX_TILE];
    int rank = 0;
    *kdim = 0;
    for (int i = 0; i < p->tile_log; i++) vec[i] = p->out_cols[i];
    /* eliminate the top bits: rows with a pivot there, the rest in K */
    for (int bit = p->n - 1; bit >= low; bit--) {
        int piv = -1;
        for (int i = rank; i < p->tile_log && piv < 0; i++)
            if (vec[i] >> bit & 1) piv = i;
        if (piv < 0) continue;
        uint64_t t = vec[piv];
        vec[piv] = vec[rank];
        vec[rank] = t;
        for (int i = 0; i < p->tile_log; i++)
            if (i != rank && (vec[i] >> bit & 1)) vec[i] ^= t;
        rank++;
    }
    for (int i = rank; i < p->tile_log; i++) k_basis[(*kdim)++] = vec[i];
    /* the pivot rows are reduced: each pivot bit is in its own row alone */
    uint64_t want = top << low;
    *t0 = 0;
    for (int i = 0; i < rank; i++)
        if ((want ^ *t0) >> f2_top_bit(vec[i]) & 1) *t0 ^= vec[i];
    return (*t0 >> low) == top ? rank : -1;
}

/* Z' of the kept part: the segment bits first, then the rest of K reduced
 * modulo them (as place_write chooses Z). Returns its column count, or -1
 * when K lacks a segment bit. A result shorter than a segment is written
 * whole by its one block: its bits are the segment's. */
static int kept_columns(const Phase *p, int low, const uint64_t *k_basis, int kdim,
                        uint64_t *cols) {
    F2Space k = f2_space_empty(low);
    for (int i = 0; i < kdim; i++) f2_space_add(&k, k_basis[i]);
    int col = 0, seg = p->seg_log < low ? p->seg_log : low;
    for (int i = 0; i < seg; i++) {
        if (!f2_space_contains(&k, UINT64_C(1) << i)) return -1;
        cols[col++] = UINT64_C(1) << i;
    }
    for (int i = k.dim - 1; i >= 0; i--) {
        uint64_t z = k.basis[i] & ~f2_mask(p->seg_log);
        if (z) cols[col++] = z;
    }
    return col;
}

const char *plan_half_write(Arena *arena, Phase *p, int h, uint64_t keep) {
    int low = p->n - h;
    for (int k = 0; k < p->block_log; k++)
        if (p->out_block_cols[k] >> low)
            return arena_printf(
                arena, "the kept part differs between tiles (the halves decide on block bits)");
    uint64_t k_basis[SCHED_MAX_TILE], t0, zc[SCHED_MAX_TILE], gc[SCHED_MAX_TILE], sigma;
    int kdim;
    if (kept_directions(p, low, keep ^ (p->write_compl >> low), k_basis, &kdim, &t0) != h)
        return arena_printf(arena, "the halves keep whole tiles or none");
    if (kept_columns(p, low, k_basis, kdim, zc) != p->tile_log - h)
        return arena_printf(arena, "the halves write part segments");
    for (int i = 0; i < p->tile_log - h; i++) {
        if (!solve(p->out_cols, p->tile_log, zc[i], &sigma))
            diag_fatal("internal error: a kept write column outside the tile");
        gc[i] = f2_combine(p->src_cols, p->tile_log, sigma);
    }
    if (!solve(p->out_cols, p->tile_log, t0, &sigma))
        diag_fatal("internal error: the kept part's offset outside the tile");
    p->src_const = f2_combine(p->src_cols, p->tile_log, sigma);
    p->half_log = h;
    p->half_keep = keep;
    p->half_compl = p->write_compl;
    p->write_compl = (p->write_compl ^ t0) & f2_mask(low);
    p->out_tile_log = p->tile_log - h;
    p->writes_in_place = false;
    for (int i = 0; i < p->tile_log; i++) {
        p->out_cols[i] = i < p->out_tile_log ? zc[i] : 0;
        p->src_cols[i] = i < p->out_tile_log ? gc[i] : 0;
    }
    return NULL;
}

uint64_t plan_half_functional(const Phase *p, int i, int *keep) {
    uint64_t row = p->write_mat.row[p->n - 1 - i], g = 0;
    for (int j = 0; j < p->tile_log; j++) g |= (uint64_t)f2_parity(row & p->tile_cols[j]) << j;
    *keep = (int)((p->half_keep >> (p->half_log - 1 - i) ^ p->half_compl >> (p->n - 1 - i)) & 1);
    return g;
}
