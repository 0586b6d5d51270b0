/* f2.h: linear algebra over F2 for index spaces of up to 64 bits.
 *
 * A vector is an n-bit index held in a uint64_t (bit i = coordinate i).
 * A matrix is n row masks: output bit i = parity(row[i] & x). This is the
 * convention of `mat [r0, ..., r(n-1)]` in the language, so matrices read
 * from source need no conversion.
 *
 * A subspace is held as a basis in reduced echelon form (F2Space): each basis
 * vector has a distinct pivot (its highest set bit), no other basis vector has
 * that pivot bit set, and vectors are sorted by decreasing pivot.
 *
 * Matrix rows and basis vectors never have bits at or above n, and rows >= n
 * are zero. Operands of one call must have the same n (checked by assert).
 */
#ifndef PARMC_F2_H
#define PARMC_F2_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"

#define F2_MAX 64

typedef struct {
    int n;                /* number of rows = number of columns */
    uint64_t row[F2_MAX]; /* row i: mask of input bits feeding output bit i */
} F2Mat;

typedef struct {
    int n;                  /* ambient dimension */
    int dim;                /* number of basis vectors */
    uint64_t basis[F2_MAX]; /* reduced echelon form, decreasing pivots */
} F2Space;

/* ---- vectors ---- */
int f2_parity(uint64_t x);
uint64_t f2_mask(int n);    /* low n bits set; n may be 64 */
int f2_top_bit(uint64_t x); /* the highest set bit; x != 0 */
/* The XOR of cols[i] over the bits i of `bits` (i < count): the matrix with
 * columns cols applied to `bits`. */
uint64_t f2_combine(const uint64_t *cols, int count, uint64_t bits);

/* ---- matrices ---- */
F2Mat f2_identity(int n);
F2Mat f2_zero(int n);
/* Bit reversal R (paper §3): output bit i reads input bit n-1-i; R·R = I. */
F2Mat f2_reverse(int n);
uint64_t f2_apply(const F2Mat *a, uint64_t x); /* A·x */
F2Mat f2_mul(const F2Mat *a, const F2Mat *b);  /* A·B, so (A·B)x = A(Bx) */
F2Mat f2_transpose(const F2Mat *a);
bool f2_equal(const F2Mat *a, const F2Mat *b);
bool f2_is_identity(const F2Mat *a);
int f2_rank(const F2Mat *a);
bool f2_invert(const F2Mat *a, F2Mat *inv); /* false when singular */
uint64_t f2_column(const F2Mat *a, int j);  /* A·e_j */

/* Embed B (dimension m) at bits [lo, lo+m) of an n-bit identity, lo+m <= n:
 * the matrix of "apply B to bits lo..lo+m-1, keep the others". */
F2Mat f2_embed(const F2Mat *b, int n, int lo);

/* BPC recognition: true when every row has exactly one bit and the rows are a
 * permutation; then perm[i] = the input bit that output bit i reads (perm may
 * be NULL when only the answer is wanted). */
bool f2_is_bpc(const F2Mat *a, int perm[F2_MAX]);
F2Mat f2_from_bitperm(int n, const int perm[F2_MAX]);

/* Upper: row i reads bit i and only bits >= i (A[i][j] = 0 for j < i).
 * Lower: row i reads bit i and only bits <= i (A[i][j] = 0 for j > i).
 * Over F2 an invertible triangular matrix is unitriangular. */
bool f2_is_upper_unitriangular(const F2Mat *a);
bool f2_is_lower_unitriangular(const F2Mat *a);

/* ---- subspaces ---- */
F2Space f2_space_empty(int n);
/* Add v (a vector of F2^n); returns true when it was independent of the space. */
bool f2_space_add(F2Space *s, uint64_t v);
/* Reduce v modulo the space (clear every pivot bit it has). */
uint64_t f2_space_reduce(const F2Space *s, uint64_t v);
bool f2_space_contains(const F2Space *s, uint64_t v); /* false for bits >= n */
F2Space f2_space_sum(const F2Space *a, const F2Space *b);
F2Space f2_space_image(const F2Mat *a, const F2Space *s); /* A·S */
F2Space f2_space_coords(int n, uint64_t bits);            /* span{e_i : i in bits} */
uint64_t f2_space_pivots(const F2Space *s);               /* mask of pivot bits */
/* A complement made of coordinate vectors: the non-pivot bits. S + span(e_i) = F2^n. */
uint64_t f2_space_coord_complement(const F2Space *s);

/* Reduced row echelon form of a matrix's rows: rows 0..rank-1 are the
 * F2Space basis of the row space (decreasing pivots), the rest are zero.
 * rank may be NULL. */
F2Mat f2_echelon(const F2Mat *a, int *rank);

/* ---- factorisations ---- */
/* The factorisation of Bouverot-Dupuis and Sheeran, "Efficient GPU
 * Implementation of Affine Index Permutations on Arrays", §5.2: for
 * invertible A,
 *
 *     A = U·L·P
 *
 * with U upper unitriangular, L lower unitriangular (f2_is_*_unitriangular)
 * and P a permutation matrix (f2_is_bpc), P's row i being e_perm[i]: the
 * permutation is applied first, then L, then U. The paper then runs A in two
 * tiled passes as A = (U·R)(R·L·P), R = f2_reverse(n): for a tile of t bits,
 * U·R is tiled on columns n-t..n-1 and R·L·P on columns perm[n-t..n-1].
 *
 * Pivots are chosen deterministically (eliminating from the last row up, each
 * row's highest remaining bit), which makes P = I whenever A = U'·L' for some
 * such U', L' (then U = U', L = L'); in particular triangular inputs give
 * P = I and permutation inputs give U = L = I. Returns false, leaving the
 * outputs untouched, when A is singular. */
bool f2_ulp(const F2Mat *a, F2Mat *u, F2Mat *l, F2Mat *p);

/* Human-readable form used by --dump-ir: "[0x1, 0x2, 0x4]", row 0 first,
 * lower-case hex without leading zeros, "[]" for n = 0; in the arena. */
const char *f2_hex_text(Arena *a, const F2Mat *m);

#endif
