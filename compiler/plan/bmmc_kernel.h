/* bmmc_kernel.h: the plan of a one-pass kernel for a BMMC permutation
 * y = A·x ⊕ c, as the scheduler hands it on (bmmc_plan.h plans and
 * simulates it; emit_bmmc.h writes it): the plan's data alone, which the
 * emitters read.
 *
 * The one-pass construction, after the tiled kernels of Bouverot-Dupuis and
 * Sheeran ("Efficient GPU Implementation of Affine Index Permutations on
 * Arrays", FHPNC 2023). Every vector here is an
 * element index over F2 (bit i = coordinate i), as in f2.h.
 *
 *   L      the low l bits of one aligned segment of 256 bytes, or of 128 when
 *          the 256-byte V would exceed a 16 KB tile (l at most n): a warp's
 *          global access covers whole 128-byte pieces of a segment when its
 *          lanes vary the tile coordinates 0..4, and each block moves whole
 *          segments, runs long enough for the DRAM.
 *   V      L + A⁻¹L, padded with coordinate vectors to dimension D (the tile).
 *          A thread block moves the coset x0 + V to A·x0 ⊕ c + AV.
 *   tau    tile coordinates (D bits) of an input element: x = x0 ⊕ B·tau with
 *          B = [e0 .. e(l-1), w1 .. wr]; tau's high r bits are the tile row.
 *   sigma  tile coordinates of an output element: y = y0 ⊕ Z'·sigma with
 *          Z' = [e0 .. e(l-1), z1 .. zr]; its source is tau = G·sigma.
 *   slot   where tau sits in the shared tile: slot = P·tau, P = identity plus an
 *          XOR swizzle from the bank-row bits (tau bits from bank_lo +
 *          bank_bits up: which 128 bytes of the tile) into the bank bits,
 *          chosen so that every warp's tile store and tile load has bank
 *          congestion 1.
 *
 * A thread block has 2^thread_log threads; thread t, iteration i (of
 * 2^iter_log) reads tau = t | i << thread_log and writes sigma = t | i <<
 * thread_log, so a warp's lanes vary coordinates 0..4 on both sides.
 *
 * Vectors (vec_log > 0; bmmc_plan_vectors): a
 * thread moves 16-byte vectors of 2^vec_log consecutive elements instead,
 * tau = j | t << vec_log | i << (vec_log + thread_log) on the read side and
 * sigma likewise on the write side (j < 2^vec_log, the element in its
 * vector). Both sides' low vec_log coordinates are segment bits, so each
 * vector is consecutive and 16-byte aligned in memory; the tile holds
 * elements as before, each stored and loaded alone, and the swizzle S is
 * chosen for the lanes of both sides (a warp's lanes now vary coordinates
 * vec_log..vec_log + 4). Block b
 * takes x0 = C·b (C's columns complete V to a basis, low bits zero), y0 =
 * (A·x0 ⊕ c) with its low l bits cleared, and the write side then reads
 * tau = G·(sigma ⊕ lambda), lambda = the cleared low bits.
 */
#ifndef PARMC_BMMC_KERNEL_H
#define PARMC_BMMC_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "f2.h"

#define BMMC_MAX_N 40         /* largest index width planned */
#define BMMC_MAX_TILE 16      /* largest tile dimension D */
#define BMMC_MAX_THREAD_LOG 8 /* 256 threads: enough warps per block, few registers */

typedef struct {
    int n;          /* 2^n elements */
    int elem_bytes; /* 1, 2, 4 or 8 */
    int seg_log;    /* l: elements of one segment, log2 */
    int tile_log;   /* D: elements of one tile, log2 */
    int rows_log;   /* r = D - l: segments of one tile, log2 */
    int thread_log; /* threads per block, log2 */
    int iter_log;   /* elements per thread, log2 (D - thread_log) */
    int block_log;  /* n - D: blocks in the grid, log2 */
    int bank_lo;    /* lowest slot bit that selects a bank */
    int bank_bits;  /* slot bits that select a bank (word or pair) */
    int vec_log;    /* elements of a thread's 16-byte vector, log2; 0: one element a thread */
    F2Mat a;        /* the permutation */
    F2Mat a_inv;
    uint64_t c;
    /* C: x0 of block bit k. Low block bits alternate between input and
     * output coordinates, so that running blocks touch neighbouring
     * segments on both sides. */
    uint64_t block_cols[BMMC_MAX_N];
    uint64_t w[BMMC_MAX_TILE];          /* read basis W, zero low l bits */
    uint64_t z[BMMC_MAX_TILE];          /* write basis Z (of A·V), zero low l bits */
    uint64_t read_cols[BMMC_MAX_TILE];  /* B: x offset of tau bit i */
    uint64_t write_cols[BMMC_MAX_TILE]; /* Z': y offset of sigma bit i */
    /* G: tile coordinates of the source of sigma bit i. Bits i < l are the
     * output lane, bits i >= l the output segment j'. */
    uint64_t src_cols[BMMC_MAX_TILE];
    uint64_t swizzle[BMMC_MAX_TILE];   /* S: slot bits XORed in by bank-row bit k */
    uint64_t slot_cols[BMMC_MAX_TILE]; /* P: slot of tau bit i */
    uint64_t out_cols[BMMC_MAX_N];     /* A·C: y0 of block bit k */
    /* Pieces (bmmc_plan_pieces; 0: none): the top piece_log block bits name
     * a piece, and the kernel runs one piece per launch (a parameter), its
     * 2^(block_log - piece_log) blocks covering exactly the elements of the
     * piece. */
    int piece_log;
    /* A second output (an emitter's choice, set after planning; false from
     * the planner): an element whose output index y has y >> keep_shift
     * equal to the run-time `keep` goes to keep_out[y ^ keep_xor] instead
     * of out[y]. */
    bool keeps;
    int keep_shift;
} BmmcPlan;

#endif
