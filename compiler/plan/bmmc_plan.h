/* bmmc_plan.h: one-pass kernels for BMMC permutations y = A·x ⊕ c (their
 * plan, BmmcPlan, and the construction: bmmc_kernel.h), planned (the
 * scheduler) and simulated (--report); emit_bmmc.h writes them. */
#ifndef PARMC_BMMC_PLAN_H
#define PARMC_BMMC_PLAN_H

#include "bmmc_kernel.h"

/* Plan the kernel. tile_log is the least tile dimension wanted (10 suits every
 * element size); it is raised to dim(L + A⁻¹L) when that is larger (12 for
 * most 4-byte BMMCs) and lowered to n when the array is smaller than a tile
 * (one block then covers it all).
 * Returns false when A is not an invertible n×n matrix with 1 <= n <=
 * BMMC_MAX_N, c has bits at or above n, the element size is not 1, 2, 4 or 8,
 * or the grid or the tile would not fit a launch (more than 2^30 blocks, more
 * than 48 KB of shared memory). */
bool bmmc_plan(const F2Mat *a, uint64_t c, int elem_bytes, int tile_log, BmmcPlan *plan);

/* Whether a kernel of these elements and this tile can move 16-byte vectors
 * (the access model's reading of the layout): a vector within a segment,
 * and at least a warp of vectors in the tile. */
bool bmmc_vectors_fit(const BmmcPlan *plan);

/* Plan the kernel again for 16-byte vectors, where bmmc_vectors_fit says
 * they fit and a swizzle keeps both sides' tile accesses conflict-free;
 * otherwise the plan is left as it was and false returned. The vector
 * kernel needs both arrays 16-byte aligned (the CUDA kernel checks, and
 * moves elements one by one where they are not) and plain loads and
 * stores: no guard (BmmcGuard) and no second output (keeps). */
bool bmmc_plan_vectors(BmmcPlan *plan);

/* The same kernel cut into 2^piece_log pieces: piece k is the elements
 * whose bits piece_lo .. piece_lo + piece_log - 1 equal k, of the input
 * index (out_side false) or of A·x (out_side: of the output index when c
 * has no bits there). Those bits' functionals become the top block bits,
 * and every other block column and the tile lie where they are zero.
 * Returns false where bmmc_plan would, or where the tile itself spans
 * piece bits (a tile would cross pieces), or the grid has fewer block bits
 * than pieces. */
bool bmmc_plan_pieces(const F2Mat *a, uint64_t c, int elem_bytes, int tile_log, int piece_lo,
                      int piece_log, bool out_side, BmmcPlan *plan);

/* The index math of the planned kernel, shared by the emitters' callers and
 * tests: for block b, element lane t (below 2^(thread_log + vec_log): with
 * vectors, element t % 2^vec_log of thread t >> vec_log's vector) and
 * iteration i, the input index read (or the output index written) and the
 * tile slot it goes to (or comes from). */
uint64_t bmmc_read_index(const BmmcPlan *p, uint64_t b, unsigned t, unsigned i, unsigned *slot);
uint64_t bmmc_write_index(const BmmcPlan *p, uint64_t b, unsigned t, unsigned i, unsigned *slot);

/* What one block's warp accesses cost (blocks 0 and 2^block_log - 1 are
 * walked), in the sectors and bank congestion of access_model.h. */
typedef struct {
    int warp_accesses;     /* global accesses walked, reads plus writes (a vector: one) */
    int sectors_min;       /* fewest sectors a warp access can touch (of vectors, with vectors) */
    int read_sectors_max;  /* worst global read */
    int write_sectors_max; /* worst global write */
    int store_congestion_max; /* worst tile store (read phase; each element of a vector) */
    int load_congestion_max;  /* worst tile load (write phase) */
} BmmcSimReport;

void bmmc_simulate(const BmmcPlan *plan, BmmcSimReport *r);

#endif
