/* exchange_plan.c: the pack, routing and unpack of an EXCHANGE phase.
 *
 * With x = (r, l) (rank, local index) and y = M·x ⊕ c = (d, m), the rank an
 * element goes to is d = A_r·r ⊕ A_l·l ⊕ c_top, A = M's top gpu_log rows.
 * The image of A_l has some dimension h: each rank sends to 2^h ranks, the
 * elements whose A_l·l has the same coordinates t (in the image's basis)
 * going to the same rank. The pack orders a rank's elements by t, so each
 * chunk is contiguous; among the rest of the send index (the offset), l's
 * own bits in increasing order (so a segment stays a segment where it can).
 * A receiver gets one chunk from each of 2^h ranks: the senders to one rank
 * are a coset of K = {r : A_r·r in the image}, and the bits of r at K's
 * pivots number them (the slot). The element at a receive index is then an
 * affine function of (receiver, receive index), which the unpack applies.
 *
 * Pipelining: each chunk is cut into 2^P pieces, P bits of the offset,
 * which a receive index keeps; piece k of every chunk is packed, sent and
 * unpacked while the next ones are. So that the pack's kernel for piece k
 * writes exactly piece k and the unpack's reads exactly it, those P bits
 * must lie outside both kernels' tiles: they are a window of P consecutive
 * offset bits, the highest where both one-pass kernels can take the piece
 * as their top block bits (bmmc_plan_pieces), moved to the top of the
 * offset (so that a piece of a chunk is contiguous) when the exchange has a
 * pack of its own, else left where they are (a piece of a chunk is then
 * several runs, each an NCCL call). */
#include "bmmc_plan.h"
#include "exchange_plan.h"

/* A piece of a rank's slice is at least 2^PIECE_MIN_LOG elements (4 MB of
 * i32), and a slice has at most 2^PIECE_MAX_LOG pieces: each costs a pack
 * and an unpack launch, two events and an NCCL group. */
#define PIECE_MIN_LOG 20
#define PIECE_MAX_LOG EXCHANGE_MAX_PIECE_LOG
/* Without --exchange-pieces, at most 2^PIECE_DEFAULT_LOG pieces: on two
 * H200s (bench/multigpu/pieces.sh, bench/results/2026-11-23-h200x2-pieces.md)
 * the sort of 2^31 took 119.4 ms in one piece, 116.5 in 4 and 122.8 in 32,
 * the bit reversal of 2^30 5.18, 5.24 and 5.99 ms: the pack and unpack
 * kernels fill the SMs, so NCCL's kernel overlaps little with them, and
 * each piece costs launches and an NCCL group. */
#define PIECE_DEFAULT_LOG 2
/* A piece of a chunk below the top of the offset is at most 2^RUNS_MAX_LOG
 * runs (an ncclSend or ncclRecv each). */
#define RUNS_MAX_LOG 6

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

/* The image of A_l: where the local bits send an element. */
static F2Space local_image(const F2Mat *m, int gpu_log) {
    int ln = m->n - gpu_log;
    F2Space image = f2_space_empty(gpu_log);
    for (int k = 0; k < ln; k++) f2_space_add(&image, f2_column(m, k) >> ln);
    return image;
}

/* The send index's rows: the chunk functionals on top, coordinate rows
 * below, with the window w .. w+P-1 of them on top of the offset. */
static F2Mat pack_matrix(const F2Mat *m, int gpu_log, int piece_log, int w) {
    F2Space image = local_image(m, gpu_log);
    int ln = m->n - gpu_log, h = image.dim, off = ln - h;
    F2Mat pack = f2_zero(ln);
    F2Space rows = f2_space_empty(ln);
    for (int i = 0; i < h; i++) {
        /* coordinate i of a vector of the reduced image is its bit at basis i's pivot */
        pack.row[off + i] = m->row[ln + f2_top_bit(image.basis[i])] & f2_mask(ln);
        f2_space_add(&rows, pack.row[off + i]);
    }
    int j = 0;
    for (int k = 0; k < ln && j < off; k++)
        if (f2_space_add(&rows, UINT64_C(1) << k)) {
            int at = j < w ? j : j < w + piece_log ? off - piece_log + (j - w) : j - piece_log;
            pack.row[at] = UINT64_C(1) << k;
            j++;
        }
    return pack;
}

static void route(Arena *arena, Phase *p, int gpu_log) {
    int n = p->n, ln = n - gpu_log, h = p->chunk_log, ranks = 1 << gpu_log;
    F2Space image = local_image(&p->mat, gpu_log);
    F2Space senders = f2_space_empty(gpu_log);
    for (int r = 0; r < ranks; r++)
        if (f2_space_contains(&image, f2_apply(&p->mat, (uint64_t)r << ln) >> ln))
            f2_space_add(&senders, (uint64_t)r);
    if (senders.dim != h)
        diag_fatal("internal error: an exchange of %d chunks from %d senders", h, senders.dim);
    uint64_t slot_bits = f2_space_pivots(&senders);
    size_t entries = (size_t)ranks << h;
    p->send_to = NEW_ARRAY(arena, int, entries);
    p->send_slot = NEW_ARRAY(arena, int, entries);
    p->recv_from = NEW_ARRAY(arena, int, entries);
    p->recv_chunk = NEW_ARRAY(arena, int, entries);
    p->kept = NEW_ARRAY(arena, int, ranks);
    for (size_t i = 0; i < entries; i++) p->recv_from[i] = -1;
    p->crosses = false;
    for (int r = 0; r < ranks; r++) {
        p->kept[r] = -1;
        for (int t = 0; t < 1 << h; t++) {
            uint64_t l = f2_apply(&p->pack_inv, (uint64_t)t << (ln - h));
            int d = (int)((f2_apply(&p->mat, (uint64_t)r << ln | l) ^ p->compl ) >> ln);
            int slot = (int)extract((uint64_t)r, slot_bits);
            size_t at = (size_t)d << h | (size_t)slot;
            if (p->recv_from[at] >= 0)
                diag_fatal("internal error: two chunks for slot %d of rank %d", slot, d);
            p->send_to[(size_t)r << h | (size_t)t] = d;
            p->send_slot[(size_t)r << h | (size_t)t] = slot;
            p->recv_from[at] = r;
            p->recv_chunk[at] = t;
            p->crosses |= d != r;
            if (d == r) p->kept[r] = t;
        }
    }
}

/* The local index of the element at receive index rho of rank d. */
static uint64_t received(const Phase *p, int gpu_log, int d, uint64_t rho) {
    int ln = p->n - gpu_log, h = p->chunk_log;
    size_t at = (size_t)d << h | (size_t)(rho >> (ln - h));
    uint64_t s = (uint64_t)p->recv_chunk[at] << (ln - h) | (rho & f2_mask(ln - h));
    uint64_t y = f2_apply(&p->mat, (uint64_t)p->recv_from[at] << ln | f2_apply(&p->pack_inv, s)) ^
                 p->compl ;
    if ((int)(y >> ln) != d) diag_fatal("internal error: an exchange delivers to the wrong rank");
    return y & f2_mask(ln);
}

/* The pack, routing and unpack of p->mat with the given pack. */
static void fill(Arena *arena, Phase *p, int gpu_log, const F2Mat *pack) {
    int ranks = 1 << gpu_log, ln = p->n - gpu_log;
    p->chunk_log = local_image(&p->mat, gpu_log).dim;
    p->pack = *pack;
    if (!f2_invert(&p->pack, &p->pack_inv)) diag_fatal("internal error: a singular exchange pack");
    p->packs = !f2_is_identity(&p->pack);
    route(arena, p, gpu_log);
    p->unpack_const = NEW_ARRAY(arena, uint64_t, ranks);
    for (int d = 0; d < ranks; d++) p->unpack_const[d] = received(p, gpu_log, d, 0);
    p->unpack = f2_zero(ln);
    for (int i = 0; i < ln; i++) {
        uint64_t col = received(p, gpu_log, 0, UINT64_C(1) << i) ^ p->unpack_const[0];
        for (int r = 0; r < ln; r++) p->unpack.row[r] |= (col >> r & 1) << i;
    }
    p->unpacks = !f2_is_identity(&p->unpack);
    for (int d = 0; d < ranks; d++) p->unpacks |= p->unpack_const[d] != 0;
}

/* One-pass kernels moving a slice's element l to m·l ⊕ c, one per slot, in
 * 2^piece_log pieces of the send index (out_side) or of the receive index,
 * or NULL. */
static BmmcPlan *plan_moves(Arena *arena, const Phase *p, int gpu_log, const F2Mat *m, uint64_t c,
                            bool out_side) {
    int lo = p->piece_lo;
    BmmcPlan *plans = NEW_ARRAY(arena, BmmcPlan, p->elem->nslots);
    for (int k = 0; k < p->elem->nslots; k++)
        if (!bmmc_plan_pieces(m, c, prim_bits(elem_slot_prim(p->elem, k)) / 8, 10, lo, p->piece_log,
                              out_side, &plans[k]))
            return NULL;
    return plans;
}

/* Whether a kernel that pieces leave without a one-pass plan has none
 * without them either (it then moves one element per thread, in pieces). */
static bool plain_unplannable(Arena *arena, Phase *p, int gpu_log, const F2Mat *m, bool out_side) {
    int pieces = p->piece_log;
    p->piece_log = 0;
    bool none = !plan_moves(arena, p, gpu_log, m, 0, out_side);
    p->piece_log = pieces;
    return none;
}

/* The pack's and unpack's kernels in p->piece_log pieces: false where a
 * one-pass kernel without pieces would give way to one element per thread. */
static bool plan_kernels(Arena *arena, Phase *p, int gpu_log, bool pack_kernel) {
    p->pack_plans = NULL;
    p->unpack_plans = NULL;
    if (pack_kernel && p->packs &&
        !(p->pack_plans = plan_moves(arena, p, gpu_log, &p->pack, 0, true)) &&
        !plain_unplannable(arena, p, gpu_log, &p->pack, true))
        return false;
    if (!p->unpacks) return true;
    /* the unpack's constant is the rank's: a plan per rank, the same tiles */
    int ranks = 1 << gpu_log;
    BmmcPlan **per_rank = NEW_ARRAY(arena, BmmcPlan *, ranks);
    for (int d = 0; d < ranks; d++)
        if (!(per_rank[d] = plan_moves(arena, p, gpu_log, &p->unpack, p->unpack_const[d], false)))
            return plain_unplannable(arena, p, gpu_log, &p->unpack, false);
    p->unpack_plans = per_rank;
    return true;
}

/* How many pieces (log) an exchange of 2^ln elements per rank in 2^h
 * chunks is cut into; asked: SchedOptions.exchange_pieces. */
static int pieces_wanted(int ln, int h, int asked) {
    int pieces = asked ? __builtin_ctz((unsigned)asked) : ln - PIECE_MIN_LOG;
    if (!asked && pieces > PIECE_DEFAULT_LOG) pieces = PIECE_DEFAULT_LOG;
    if (pieces > PIECE_MAX_LOG) pieces = PIECE_MAX_LOG;
    if (pieces > ln - h) pieces = ln - h;
    return pieces > 0 ? pieces : 0;
}

/* Fill p with the most pieces, in the highest window, that both kernels
 * take (only the top one where the pack or the unpack is the identity:
 * another would add a pass), else without pieces, saying why. pack_kernel: the
 * pack is a kernel of the exchange's own (not the phase before's). */
static void choose_pieces(Arena *arena, Phase *p, int gpu_log, bool pack_kernel, int asked) {
    int ln = p->n - gpu_log;
    F2Mat plain = pack_matrix(&p->mat, gpu_log, 0, 0);
    fill(arena, p, gpu_log, &plain);
    p->piece_log = 0;
    p->piece_lo = ln - p->chunk_log;
    p->serial_why = NULL;
    if (!p->crosses) {
        plan_kernels(arena, p, gpu_log, pack_kernel);
        return;
    }
    int wanted = pieces_wanted(ln, p->chunk_log, asked);
    /* without a pack or an unpack of its own, the exchange keeps its send
       and receive order (another would add a pass) and sends a piece below
       the top of the offset as runs */
    bool identity_kept = !p->packs || !p->unpacks;
    /* the most pieces first, each count from its highest window down */
    for (int pieces = wanted; pieces > 0; pieces--)
        for (int top = ln - p->chunk_log - pieces, w = top;
             w >= (identity_kept ? top - RUNS_MAX_LOG : 0) && w >= 0; w--) {
            F2Mat pack = identity_kept ? plain : pack_matrix(&p->mat, gpu_log, pieces, w);
            fill(arena, p, gpu_log, &pack);
            p->piece_log = pieces;
            p->piece_lo = identity_kept ? w : top;
            if (plan_kernels(arena, p, gpu_log, pack_kernel)) return;
        }
    fill(arena, p, gpu_log, &plain);
    p->piece_log = 0;
    p->piece_lo = ln - p->chunk_log;
    p->serial_why = wanted == 0 ? (asked == 1 ? "one piece asked for"
                                              : "the slices are too small to pipeline")
                    : identity_kept
                        ? "the high bits of the offset lie in a tile of the pack or the unpack"
                        : "every window of offset bits meets a tile of the pack or the unpack";
    plan_kernels(arena, p, gpu_log, pack_kernel);
}

F2Mat exchange_pack(const F2Mat *m, int gpu_log, const ElemType *elem, int pieces) {
    Arena scratch = {0};
    Phase p = {.kind = PHASE_EXCHANGE, .n = m->n, .elem = elem, .in_elem = elem, .mat = *m};
    choose_pieces(&scratch, &p, gpu_log, false, pieces);
    arena_free(&scratch);
    return p.pack;
}

void exchange_plan(Arena *arena, Phase *p, int gpu_log, int pieces) {
    choose_pieces(arena, p, gpu_log, true, pieces);
}
