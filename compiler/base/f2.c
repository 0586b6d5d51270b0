/* f2.c: linear algebra over F2 for index spaces of up to 64 bits.
 *
 * Everything here works on whole rows as 64-bit masks, so a product or an
 * elimination step costs O(n) word operations per row. Unused rows (index
 * >= n) are kept zero so that structs can be compared and copied freely. */
#include "f2.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>

/* ---- vectors ---- */

int f2_parity(uint64_t x) { return __builtin_parityll(x); }

int f2_top_bit(uint64_t x) { return 63 - __builtin_clzll(x); }

uint64_t f2_combine(const uint64_t *cols, int count, uint64_t bits) {
    uint64_t v = 0;
    for (int i = 0; i < count; i++)
        if (bits >> i & 1) v ^= cols[i];
    return v;
}

uint64_t f2_mask(int n) {
    /* A shift by 64 is undefined, so the full mask is a case of its own. */
    if (n <= 0) return 0;
    return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
}

/* Index of the highest set bit; the caller guarantees v != 0 (clz(0) is
 * undefined). */
static int top_bit(uint64_t v) {
    assert(v != 0);
    return 63 - __builtin_clzll(v);
}

static uint64_t bit(int i) { return (uint64_t)1 << i; }

/* ---- matrices ---- */

F2Mat f2_zero(int n) {
    assert(n >= 0 && n <= F2_MAX);
    F2Mat m = {0};
    m.n = n;
    return m;
}

F2Mat f2_identity(int n) {
    F2Mat m = f2_zero(n);
    for (int i = 0; i < n; i++) m.row[i] = bit(i);
    return m;
}

/* The reversal R of the paper (§3, §5.2): output bit i reads input bit n-1-i. */
F2Mat f2_reverse(int n) {
    F2Mat m = f2_zero(n);
    for (int i = 0; i < n; i++) m.row[i] = bit(n - 1 - i);
    return m;
}

uint64_t f2_apply(const F2Mat *a, uint64_t x) {
    uint64_t y = 0;
    for (int i = 0; i < a->n; i++) y |= (uint64_t)f2_parity(a->row[i] & x) << i;
    return y;
}

/* Row i of A·B is the sum of the rows j of B that row i of A selects:
 * parity((AB)_i & x) = sum_j A_ij parity(B_j & x). */
F2Mat f2_mul(const F2Mat *a, const F2Mat *b) {
    assert(a->n == b->n);
    F2Mat c = f2_zero(a->n);
    for (int i = 0; i < a->n; i++)
        for (uint64_t sel = a->row[i]; sel; sel &= sel - 1)
            c.row[i] ^= b->row[__builtin_ctzll(sel)];
    return c;
}

F2Mat f2_transpose(const F2Mat *a) {
    F2Mat t = f2_zero(a->n);
    for (int j = 0; j < a->n; j++) t.row[j] = f2_column(a, j);
    return t;
}

bool f2_equal(const F2Mat *a, const F2Mat *b) {
    if (a->n != b->n) return false;
    for (int i = 0; i < a->n; i++)
        if (a->row[i] != b->row[i]) return false;
    return true;
}

bool f2_is_identity(const F2Mat *a) {
    F2Mat id = f2_identity(a->n);
    return f2_equal(a, &id);
}

int f2_rank(const F2Mat *a) {
    int rank;
    f2_echelon(a, &rank);
    return rank;
}

/* Gauss-Jordan on A while replaying every row operation on I: the operations
 * that turn A into I multiply to A⁻¹. */
bool f2_invert(const F2Mat *a, F2Mat *inv) {
    F2Mat m = *a;
    F2Mat r = f2_identity(a->n);
    for (int c = 0; c < a->n; c++) {
        int p = c;
        while (p < a->n && !(m.row[p] & bit(c))) p++;
        if (p == a->n) return false;
        uint64_t t = m.row[p];
        m.row[p] = m.row[c];
        m.row[c] = t;
        t = r.row[p];
        r.row[p] = r.row[c];
        r.row[c] = t;
        for (int i = 0; i < a->n; i++) {
            if (i != c && (m.row[i] & bit(c))) {
                m.row[i] ^= m.row[c];
                r.row[i] ^= r.row[c];
            }
        }
    }
    *inv = r;
    return true;
}

uint64_t f2_column(const F2Mat *a, int j) {
    assert(j >= 0 && j < a->n);
    uint64_t col = 0;
    for (int i = 0; i < a->n; i++) col |= ((a->row[i] >> j) & 1) << i;
    return col;
}

F2Mat f2_embed(const F2Mat *b, int n, int lo) {
    assert(lo >= 0 && b->n >= 0 && lo + b->n <= n);
    F2Mat m = f2_identity(n);
    for (int i = 0; i < b->n; i++) m.row[lo + i] = b->row[i] << lo;
    return m;
}

bool f2_is_bpc(const F2Mat *a, int perm[F2_MAX]) {
    uint64_t seen = 0;
    for (int i = 0; i < a->n; i++) {
        uint64_t r = a->row[i];
        /* one bit, inside the n columns, not read by an earlier row */
        if (r == 0 || (r & (r - 1)) || (r & ~f2_mask(a->n)) || (r & seen)) return false;
        seen |= r;
    }
    if (perm)
        for (int i = 0; i < a->n; i++) perm[i] = __builtin_ctzll(a->row[i]);
    return true;
}

F2Mat f2_from_bitperm(int n, const int perm[F2_MAX]) {
    F2Mat m = f2_zero(n);
    for (int i = 0; i < n; i++) {
        assert(perm[i] >= 0 && perm[i] < n);
        m.row[i] = bit(perm[i]);
    }
    return m;
}

/* Each row i must read input bit i and otherwise only bits inside `allowed`. */
static bool unitriangular(const F2Mat *a, bool upper) {
    for (int i = 0; i < a->n; i++) {
        uint64_t allowed = upper ? f2_mask(a->n) & ~f2_mask(i) : f2_mask(i + 1);
        if ((a->row[i] & ~allowed) || !(a->row[i] & bit(i))) return false;
    }
    return true;
}

bool f2_is_upper_unitriangular(const F2Mat *a) { return unitriangular(a, true); }

bool f2_is_lower_unitriangular(const F2Mat *a) { return unitriangular(a, false); }

/* ---- subspaces ---- */

F2Space f2_space_empty(int n) {
    assert(n >= 0 && n <= F2_MAX);
    F2Space s = {0};
    s.n = n;
    return s;
}

/* In a reduced basis each pivot bit occurs in one vector only, so clearing
 * the pivots one by one never reintroduces an earlier one. */
uint64_t f2_space_reduce(const F2Space *s, uint64_t v) {
    for (int k = 0; k < s->dim; k++)
        if (v & bit(top_bit(s->basis[k]))) v ^= s->basis[k];
    return v;
}

bool f2_space_add(F2Space *s, uint64_t v) {
    assert((v & ~f2_mask(s->n)) == 0);
    v = f2_space_reduce(s, v);
    if (v == 0) return false;
    int p = top_bit(v);
    /* A vector holding bit p has a higher pivot than p (p is not a pivot), so
     * adding v, whose top bit is p, keeps that vector's pivot. */
    for (int k = 0; k < s->dim; k++)
        if (s->basis[k] & bit(p)) s->basis[k] ^= v;
    int k = s->dim++;
    for (; k > 0 && top_bit(s->basis[k - 1]) < p; k--) s->basis[k] = s->basis[k - 1];
    s->basis[k] = v;
    return true;
}

/* Bits at or above n are never pivots, so they survive reduction. */
bool f2_space_contains(const F2Space *s, uint64_t v) { return f2_space_reduce(s, v) == 0; }

F2Space f2_space_sum(const F2Space *a, const F2Space *b) {
    assert(a->n == b->n);
    F2Space s = *a;
    for (int k = 0; k < b->dim; k++) f2_space_add(&s, b->basis[k]);
    return s;
}

F2Space f2_space_image(const F2Mat *a, const F2Space *s) {
    assert(a->n == s->n);
    F2Space t = f2_space_empty(a->n);
    for (int k = 0; k < s->dim; k++) f2_space_add(&t, f2_apply(a, s->basis[k]));
    return t;
}

F2Space f2_space_coords(int n, uint64_t bits) {
    assert((bits & ~f2_mask(n)) == 0);
    F2Space s = f2_space_empty(n);
    /* Highest bit first: already reduced and sorted, no elimination needed. */
    for (; bits; bits &= ~bit(top_bit(bits))) s.basis[s.dim++] = bit(top_bit(bits));
    return s;
}

uint64_t f2_space_pivots(const F2Space *s) {
    uint64_t m = 0;
    for (int k = 0; k < s->dim; k++) m |= bit(top_bit(s->basis[k]));
    return m;
}

/* The basis vectors and the non-pivot e_i have distinct top bits covering all
 * n positions, so together they are a basis of F2^n. */
uint64_t f2_space_coord_complement(const F2Space *s) { return f2_mask(s->n) & ~f2_space_pivots(s); }

F2Mat f2_echelon(const F2Mat *a, int *rank) {
    F2Space s = f2_space_empty(a->n);
    for (int i = 0; i < a->n; i++) f2_space_add(&s, a->row[i]);
    F2Mat e = f2_zero(a->n);
    for (int k = 0; k < s.dim; k++) e.row[k] = s.basis[k];
    if (rank) *rank = s.dim;
    return e;
}

/* ---- factorisations ---- */

/* Eliminate from the last row up, keeping A = U·M. When row i of M is
 * reached, the steps below have cleared their pivot columns from it; it picks
 * its highest set bit c_i as pivot (a zero row would be a dependency among
 * rows i..n-1 of A). Adding row i to a row k < i holding bit c_i is the row
 * operation E = I + e_k e_iᵀ, and U·E adds column k of U, still e_k, to
 * column i: U[k][i] = 1. At the end column c_i of M is zero above row i and
 * one on it, so moving column c_i to column i (L = M·Pᵀ) gives a lower
 * unitriangular L. */
bool f2_ulp(const F2Mat *a, F2Mat *u, F2Mat *l, F2Mat *p) {
    int n = a->n;
    F2Mat m = *a;
    F2Mat uu = f2_identity(n);
    int piv[F2_MAX];
    for (int i = n - 1; i >= 0; i--) {
        if (m.row[i] == 0) return false;
        piv[i] = top_bit(m.row[i]);
        for (int k = 0; k < i; k++) {
            if (m.row[k] & bit(piv[i])) {
                m.row[k] ^= m.row[i];
                uu.row[k] |= bit(i);
            }
        }
    }
    F2Mat ll = f2_zero(n);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < n; i++) ll.row[r] |= ((m.row[r] >> piv[i]) & 1) << i;
    *u = uu;
    *l = ll;
    *p = f2_from_bitperm(n, piv);
    return true;
}

/* ---- text ---- */

const char *f2_hex_text(Arena *a, const F2Mat *m) {
    const char *text = "[";
    for (int i = 0; i < m->n; i++)
        text = arena_printf(a, "%s%s0x%" PRIx64, text, i ? ", " : "", m->row[i]);
    return arena_printf(a, "%s]", text);
}
