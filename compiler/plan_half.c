/* plan_half.c: a half fused into the write-back of a LOCAL phase.
 *
 * The write sends output coordinate sigma of block b to y = c ⊕ ZB·b ⊕ Z·sigma
 * (plan.h). A half m b keeps the y with parity(y & m) = b at D·y, D deleting
 * bit l = lsb(m), which is linear. When no block column meets m, every tile
 * keeps the same half of its coordinates: K = {Z·sigma : parity(m & Z·sigma)
 * = 0} moved by one t0 (0, or a column of Z that m meets). D is one to one on
 * K, so the kept elements are c' ⊕ ZB'·b ⊕ Z'·sigma' with c' = D·(c ⊕ t0),
 * ZB' = D·ZB and Z' a basis of D·K that starts with the segment bits (whole
 * segments written); the source of Z'_i is the tile element of its one
 * preimage in K, and t0's is the constant src_const. */
#include "plan_half.h"

uint64_t plan_delete_bit(uint64_t y, int bit) {
    uint64_t low = y & f2_mask(bit);
    return low | (y >> (bit + 1) << bit);
}

/* The preimage in ker m of a vector of the shorter index space: bit l
 * inserted, set to make parity(y & m) = 0. */
static uint64_t lift(uint64_t z, uint64_t m, int l) {
    uint64_t y = (z & f2_mask(l)) | (z >> l << (l + 1));
    return y | (uint64_t)f2_parity(y & m) << l;
}

/* sigma with Z·sigma = y (Z's columns independent), or false. */
static bool solve(const uint64_t *cols, int count, uint64_t y, uint64_t *sigma) {
    uint64_t vec[SCHED_MAX_TILE], comb[SCHED_MAX_TILE];
    for (int i = 0; i < count; i++) {
        vec[i] = cols[i];
        comb[i] = UINT64_C(1) << i;
    }
    /* Gaussian elimination: row i gets a pivot bit that no later row has */
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

/* Z' in the shorter space: the segment bits first, then the rest of D·K
 * reduced modulo them (as place_write chooses Z). Returns its column count,
 * or -1 when D·K lacks a segment bit. */
static int shorter_columns(const Phase *p, const uint64_t *k_basis, int kdim, int l, uint64_t *cols) {
    F2Space dk = f2_space_empty(p->n - 1);
    for (int i = 0; i < kdim; i++) f2_space_add(&dk, plan_delete_bit(k_basis[i], l));
    int col = 0;
    for (int i = 0; i < p->seg_log; i++) {
        if (!f2_space_contains(&dk, UINT64_C(1) << i)) return -1;
        cols[col++] = UINT64_C(1) << i;
    }
    for (int i = dk.dim - 1; i >= 0; i--) {
        uint64_t z = dk.basis[i] & ~f2_mask(p->seg_log);
        if (z) cols[col++] = z;
    }
    return col;
}

const char *plan_half_write(Arena *arena, Phase *p, uint64_t mask, int b) {
    int l = __builtin_ctzll(mask);
    for (int k = 0; k < p->block_log; k++)
        if (f2_parity(mask & p->out_block_cols[k]))
            return arena_printf(arena, "the half (mask 0x%llx) differs between tiles", (unsigned long long)mask);
    /* K's basis: the columns m does not meet, and the others plus the first that m meets */
    uint64_t k_basis[SCHED_MAX_TILE], t0 = 0;
    int kdim = 0, first = -1;
    for (int i = 0; i < p->tile_log; i++) {
        if (!f2_parity(mask & p->out_cols[i])) k_basis[kdim++] = p->out_cols[i];
        else if (first < 0) first = i;
        else k_basis[kdim++] = p->out_cols[i] ^ p->out_cols[first];
    }
    if (first < 0)
        return arena_printf(arena, "the half (mask 0x%llx) keeps whole tiles", (unsigned long long)mask);
    if (f2_parity(mask & p->write_compl) != b) t0 = p->out_cols[first];
    uint64_t zc[SCHED_MAX_TILE], gc[SCHED_MAX_TILE], sigma;
    if (shorter_columns(p, k_basis, kdim, l, zc) != p->tile_log - 1)
        return arena_printf(arena, "the half (mask 0x%llx) writes part segments", (unsigned long long)mask);
    for (int i = 0; i < p->tile_log - 1; i++) {
        if (!solve(p->out_cols, p->tile_log, lift(zc[i], mask, l), &sigma))
            diag_fatal("internal error: a kept write column outside the tile");
        gc[i] = f2_combine(p->src_cols, p->tile_log, sigma);
    }
    if (!solve(p->out_cols, p->tile_log, t0, &sigma)) diag_fatal("internal error: the kept half's offset outside the tile");
    p->src_const = f2_combine(p->src_cols, p->tile_log, sigma);
    p->half_mask = mask;
    p->half_b = b;
    p->half_compl = p->write_compl;
    p->write_compl = plan_delete_bit(p->write_compl ^ t0, l);
    p->out_tile_log = p->tile_log - 1;
    p->writes_in_place = false;
    for (int i = 0; i < p->out_tile_log; i++) {
        p->out_cols[i] = zc[i];
        p->src_cols[i] = gc[i];
    }
    p->out_cols[p->out_tile_log] = p->src_cols[p->out_tile_log] = 0;
    for (int k = 0; k < p->block_log; k++) p->out_block_cols[k] = plan_delete_bit(p->out_block_cols[k], l);
    return NULL;
}
