/* exchange_plan.c: the pack, routing and unpack of an EXCHANGE phase.
 *
 * With x = (r, l) (rank, local index) and y = M·x ⊕ c = (d, m), the rank an
 * element goes to is d = A_r·r ⊕ A_l·l ⊕ c_top, A = M's top gpu_log rows.
 * The image of A_l has some dimension h: each rank sends to 2^h ranks, the
 * elements whose A_l·l has the same coordinates t (in the image's basis)
 * going to the same rank. The pack orders a rank's elements by t, so each
 * chunk is contiguous; among the rest of the send index, l's own bits in
 * increasing order (so a segment stays a segment where it can). A receiver
 * gets one chunk from each of 2^h ranks: the senders to one rank are a coset
 * of K = {r : A_r·r in the image}, and the bits of r at K's pivots number
 * them (the slot). The element at a receive index is then an affine function
 * of (receiver, receive index), which the unpack applies. */
#include "exchange_plan.h"

bool exchange_rank_preserving(const F2Mat *m, uint64_t c, int gpu_log) {
    int ln = m->n - gpu_log;
    for (int i = 0; i < gpu_log; i++)
        if (m->row[ln + i] != UINT64_C(1) << (ln + i)) return false;
    return (c >> ln) == 0;
}

/* The bits of v at the positions set in mask, packed down. */
static uint64_t extract(uint64_t v, uint64_t mask) {
    uint64_t out = 0;
    for (int i = 0, k = 0; i < 64; i++)
        if (mask >> i & 1) out |= (v >> i & 1) << k++;
    return out;
}

/* The send index's rows: the chunk functionals on top, coordinate rows below. */
static F2Mat pack_matrix(const F2Mat *m, const F2Space *image, int gpu_log) {
    int ln = m->n - gpu_log, h = image->dim;
    F2Mat pack = f2_zero(ln);
    F2Space rows = f2_space_empty(ln);
    for (int i = 0; i < h; i++) {
        /* coordinate i of a vector of the reduced image is its bit at basis i's pivot */
        pack.row[ln - h + i] = m->row[ln + f2_top_bit(image->basis[i])] & f2_mask(ln);
        f2_space_add(&rows, pack.row[ln - h + i]);
    }
    int j = 0;
    for (int k = 0; k < ln && j < ln - h; k++)
        if (f2_space_add(&rows, UINT64_C(1) << k)) pack.row[j++] = UINT64_C(1) << k;
    return pack;
}

static void route(Arena *arena, Phase *p, int gpu_log, const F2Mat *pack_inv) {
    int n = p->n, ln = n - gpu_log, h = p->chunk_log, ranks = 1 << gpu_log;
    F2Space image = f2_space_empty(gpu_log);
    for (int k = 0; k < ln; k++) f2_space_add(&image, f2_column(&p->mat, k) >> ln);
    F2Space senders = f2_space_empty(gpu_log);
    for (int r = 0; r < ranks; r++)
        if (f2_space_contains(&image, f2_apply(&p->mat, (uint64_t)r << ln) >> ln)) f2_space_add(&senders, (uint64_t)r);
    if (senders.dim != h) diag_fatal("internal error: an exchange of %d chunks from %d senders", h, senders.dim);
    uint64_t slot_bits = f2_space_pivots(&senders);
    size_t entries = (size_t)ranks << h;
    p->send_to = NEW_ARRAY(arena, int, entries);
    p->send_slot = NEW_ARRAY(arena, int, entries);
    p->recv_from = NEW_ARRAY(arena, int, entries);
    p->recv_chunk = NEW_ARRAY(arena, int, entries);
    for (size_t i = 0; i < entries; i++) p->recv_from[i] = -1;
    p->crosses = false;
    for (int r = 0; r < ranks; r++)
        for (int t = 0; t < 1 << h; t++) {
            uint64_t l = f2_apply(pack_inv, (uint64_t)t << (ln - h));
            int d = (int)((f2_apply(&p->mat, (uint64_t)r << ln | l) ^ p->compl) >> ln);
            int slot = (int)extract((uint64_t)r, slot_bits);
            size_t at = (size_t)d << h | (size_t)slot;
            if (p->recv_from[at] >= 0) diag_fatal("internal error: two chunks for slot %d of rank %d", slot, d);
            p->send_to[(size_t)r << h | (size_t)t] = d;
            p->send_slot[(size_t)r << h | (size_t)t] = slot;
            p->recv_from[at] = r;
            p->recv_chunk[at] = t;
            p->crosses |= d != r;
        }
}

/* The local index of the element at receive index rho of rank d. */
static uint64_t received(const Phase *p, int gpu_log, const F2Mat *pack_inv, int d, uint64_t rho) {
    int ln = p->n - gpu_log, h = p->chunk_log;
    size_t at = (size_t)d << h | (size_t)(rho >> (ln - h));
    uint64_t s = (uint64_t)p->recv_chunk[at] << (ln - h) | (rho & f2_mask(ln - h));
    uint64_t y = f2_apply(&p->mat, (uint64_t)p->recv_from[at] << ln | f2_apply(pack_inv, s)) ^ p->compl;
    if ((int)(y >> ln) != d) diag_fatal("internal error: an exchange delivers to the wrong rank");
    return y & f2_mask(ln);
}

/* One-pass kernels moving a slice's element l to m·l ⊕ c, one per slot, or NULL. */
static BmmcPlan *plan_moves(Arena *arena, const Phase *p, const F2Mat *m, uint64_t c) {
    BmmcPlan *plans = NEW_ARRAY(arena, BmmcPlan, p->elem->nslots);
    for (int k = 0; k < p->elem->nslots; k++)
        if (!bmmc_plan(m, c, prim_bits(elem_slot_prim(p->elem, k)) / 8, 10, &plans[k])) return NULL;
    return plans;
}

/* The image of A_l: where the local bits send an element. */
static F2Space local_image(const F2Mat *m, int gpu_log) {
    int ln = m->n - gpu_log;
    F2Space image = f2_space_empty(gpu_log);
    for (int k = 0; k < ln; k++) f2_space_add(&image, f2_column(m, k) >> ln);
    return image;
}

F2Mat exchange_pack(const F2Mat *m, int gpu_log) {
    F2Space image = local_image(m, gpu_log);
    return pack_matrix(m, &image, gpu_log);
}

void exchange_plan(Arena *arena, Phase *p, int gpu_log) {
    int ranks = 1 << gpu_log, ln = p->n - gpu_log;
    F2Space image = local_image(&p->mat, gpu_log);
    p->chunk_log = image.dim;
    p->pack = pack_matrix(&p->mat, &image, gpu_log);
    F2Mat pack_inv;
    if (!f2_invert(&p->pack, &pack_inv)) diag_fatal("internal error: a singular exchange pack");
    p->packs = !f2_is_identity(&p->pack);
    route(arena, p, gpu_log, &pack_inv);
    p->unpack_const = NEW_ARRAY(arena, uint64_t, ranks);
    for (int d = 0; d < ranks; d++) p->unpack_const[d] = received(p, gpu_log, &pack_inv, d, 0);
    p->unpack = f2_zero(ln);
    for (int i = 0; i < ln; i++) {
        uint64_t col = received(p, gpu_log, &pack_inv, 0, UINT64_C(1) << i) ^ p->unpack_const[0];
        for (int r = 0; r < ln; r++) p->unpack.row[r] |= (col >> r & 1) << i;
    }
    p->unpacks = !f2_is_identity(&p->unpack);
    for (int d = 0; d < ranks; d++) p->unpacks |= p->unpack_const[d] != 0;
    p->pack_plans = p->packs ? plan_moves(arena, p, &p->pack, 0) : NULL;
    /* the unpack's constant is the rank's: a plan per rank */
    p->unpack_plans = NULL;
    if (!p->unpacks) return;
    BmmcPlan **per_rank = NEW_ARRAY(arena, BmmcPlan *, ranks);
    for (int d = 0; d < ranks; d++)
        if (!(per_rank[d] = plan_moves(arena, p, &p->unpack, p->unpack_const[d]))) return;
    p->unpack_plans = per_rank;
}
