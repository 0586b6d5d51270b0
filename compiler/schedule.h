/* schedule.h: the optimised IR of an entry cut into kernels (phases).
 *
 * The scheduler follows the data through memory. Between kernels the array
 * lies in memory in some order: the logical index of the element at memory
 * index x is Q·x ⊕ q. Permutations only change Q; they cost nothing until the
 * end, where one permutation kernel writes the logical order.
 *
 * A LOCAL phase reads the coset x0 + V of a tile subspace V of memory indices
 * (V contains the low seg_log bits, so every warp access is whole segments),
 * runs its steps on the tile, and writes the tile back where it came from.
 * A stage is a column of pairs: the two elements whose logical indices differ
 * in bit 0, which in memory differ by a vector of V. Consecutive steps share
 * a phase while their pair vectors and the segment bits span at most the tile
 * dimension, so the number of passes over memory is minimal for that tile.
 *
 * Tile coordinates: u (tile_log bits) is the element at memory index
 * x0 ⊕ W·u, W = tile_cols, with W's first seg_log columns e0.. (so u's low
 * bits are a segment's lanes); block b has x0 = C·b, C = block_cols. */
#ifndef PARMC_SCHEDULE_H
#define PARMC_SCHEDULE_H

#include "bmmc_kernel.h"
#include "ir.h"

#define SCHED_MAX_TILE 16
#define SCHED_MAX_SLOTS 8       /* primitive fields of an element */

typedef struct {
    const IrStmt *stmt;         /* the IR statement: a two over pairs, or a map */
    const IrBody *body;         /* [2]t -> [2]t for a pair stage; t -> t for a map */
    uint64_t pair;              /* tile-space vector between the two elements; 0 for a map */
    /* Which element of a pair comes first (has logical bit 0 clear): the one
     * whose u gives parity(order & u) ^ parity(order_block & b) ^ order_const = 0. */
    uint64_t order, order_block;
    int order_const;
    /* The position its body sees (POS): the pair's index in the two, or the
     * element's in the map. Bit j is parity(pos_u[j] & u) ^ parity(pos_b[j]
     * & b) ^ bit j of pos_const, for u the tile coordinate of the element
     * (either one of a pair) and b the block. */
    int pos_bits;
    uint64_t pos_u[64], pos_b[64], pos_const;
} Step;

typedef enum { PHASE_LOCAL, PHASE_PERMUTE, PHASE_MAP } PhaseKind;

typedef struct {
    PhaseKind kind;
    int n;                      /* the array has 2^n elements */
    const ElemType *elem;       /* element type written (read, for LOCAL/PERMUTE) */
    const ElemType *in_elem;    /* element type read */
    /* LOCAL */
    int seg_log, tile_log, block_log;
    uint64_t tile_cols[SCHED_MAX_TILE];
    uint64_t block_cols[64];
    Step *steps;
    int nsteps;
    /* Where the tile goes: element x (memory index read) is written at
     * write_mat·x ⊕ write_compl; identity for a phase that writes in place.
     * For block b and output tile coordinates sigma the index written is
     * (XOR of out_block_cols[k] for the bits k of b) ⊕ write_compl ⊕ Z·sigma
     * with Z = out_cols (its first seg_log columns e0..), and its source is
     * tile element u = G·sigma, G = src_cols. */
    bool writes_in_place;
    F2Mat write_mat;
    uint64_t write_compl;
    uint64_t out_cols[SCHED_MAX_TILE];
    uint64_t src_cols[SCHED_MAX_TILE];
    uint64_t out_block_cols[64];
    /* Where tile element u sits in shared memory: slot = P·u, P = slot_cols,
     * the identity plus an XOR swizzle of high tile bits into the five bank
     * bits, chosen so that the write side's warp reads hit distinct banks. */
    uint64_t slot_cols[SCHED_MAX_TILE];
    /* PERMUTE: y = mat·x ⊕ compl, one planned kernel per slot (bmmc_kernel.h) */
    F2Mat mat;
    uint64_t compl;
    /* MAP: an elementwise function that changes the element type; the
     * element at memory index x has position (POS) P·x ⊕ p, P = map_pos */
    const IrStmt *map;
    F2Mat map_pos;
    uint64_t map_pos_const;
} Phase;

typedef struct {
    const IrFunc *func;
    int n;
    const ElemType *in_elem, *out_elem;
    Phase *phases;
    int nphases;
} Schedule;

/* The shared-memory slot of tile element u in a LOCAL phase (P·u). */
uint64_t schedule_slot(const Phase *p, uint64_t u);

/* A POS statement of a step's body (or, with st NULL, of a MAP phase's
 * function) as masks: bit k of its value is parity(on_u[k] & u) ^
 * parity(on_b[k] & b) ^ bit k of *konst, with u and b as in Step (for a MAP
 * phase on_u is over the memory index and on_b is 0). Returns the bits. */
int schedule_pos(const Phase *p, const Step *st, const IrStmt *pos, uint64_t *on_u, uint64_t *on_b,
                 uint64_t *konst);

/* The largest tile for an element type (shared memory holds one tile). */
int schedule_tile_log(const ElemType *elem);

/* Why the back end cannot compile f at all (its parameters, results, element
 * fields or length), or NULL. */
const char *schedule_refusal(Arena *arena, const IrFunc *f);
/* Cut f into phases. Programs outside what the back end supports (see
 * docs/internals.md) are rejected with a diagnostic at the entry (a refusal
 * above) or at the statement. */
void schedule_func(Arena *arena, const IrFunc *f, Schedule *out);

#endif
