/* test_f2.c: checks compiler/base/f2.c against brute force (n <= 12, where
 * every input can be enumerated) and against algebraic identities (n up to
 * 64).
 *
 * Build and run: make build/unit/test_f2 && build/unit/test_f2
 *
 * Prints one line per group, the first failures in detail, and finally
 * "f2: N passed, M failed"; exits 1 on any failure. Each CHECK is one count:
 * a property checked over all 2^n inputs counts once. */
#include "f2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define BRUTE_MAX 12 /* largest n enumerated exhaustively */
#define CASES 30     /* random cases per size */

/* ---- deterministic random input (splitmix64, fixed seed) ---- */

static uint64_t rng_state = 0x5eed2f2c0ffee123u;

static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int rnd_below(int k) { return (int)(rnd() % (uint64_t)k); }

static uint64_t rnd_vec(int n) { return rnd() & f2_mask(n); }

static F2Mat rnd_mat(int n) {
    F2Mat a = f2_zero(n);
    for (int i = 0; i < n; i++) a.row[i] = rnd_vec(n);
    return a;
}

/* Rows drawn from the span of r random vectors: rank at most r. */
static F2Mat rnd_low_rank(int n, int r) {
    uint64_t gen[F2_MAX];
    for (int k = 0; k < r; k++) gen[k] = rnd_vec(n);
    F2Mat a = f2_zero(n);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < r; k++)
            if (rnd() & 1) a.row[i] ^= gen[k];
    return a;
}

static void rnd_perm(int n, int perm[F2_MAX]) {
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = rnd_below(i + 1);
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* A product of elementary matrices (row additions and a row permutation):
 * invertible by construction, whatever f2_invert thinks. */
static F2Mat rnd_invertible(int n) {
    int perm[F2_MAX];
    rnd_perm(n, perm);
    F2Mat a = f2_from_bitperm(n, perm);
    for (int k = 0; n > 1 && k < 4 * n; k++) {
        int i = rnd_below(n), j = rnd_below(n - 1);
        F2Mat e = f2_identity(n);
        e.row[i] |= (uint64_t)1 << (j >= i ? j + 1 : j); /* I + e_i e_jᵀ, j != i */
        a = f2_mul(&e, &a);
    }
    return a;
}

/* Random unitriangular matrix: the diagonal plus random bits on one side. */
static F2Mat rnd_unitriangular(int n, bool upper) {
    F2Mat a = f2_zero(n);
    for (int i = 0; i < n; i++) {
        uint64_t side = upper ? f2_mask(n) & ~f2_mask(i + 1) : f2_mask(i);
        a.row[i] = (rnd() & side) | (uint64_t)1 << i;
    }
    return a;
}

/* ---- brute-force helpers ---- */

static int bitv(uint64_t x, int i) { return (int)((x >> i) & 1); }

/* Number of distinct A·x over all x in F2^n. */
static long image_size(const F2Mat *a) {
    static unsigned char seen[1 << BRUTE_MAX];
    long count = 0;
    memset(seen, 0, sizeof seen);
    for (uint64_t x = 0; x < (uint64_t)1 << a->n; x++) {
        uint64_t y = f2_apply(a, x);
        count += !seen[y];
        seen[y] = 1;
    }
    return count;
}

/* in[v] = 1 for every v in the span of vecs[0..k) (all subset sums). */
static void span_of(const uint64_t *vecs, int k, unsigned char *in, int n) {
    memset(in, 0, (size_t)1 << n);
    for (uint64_t sub = 0; sub < (uint64_t)1 << k; sub++) {
        uint64_t v = 0;
        for (int j = 0; j < k; j++)
            if (bitv(sub, j)) v ^= vecs[j];
        in[v] = 1;
    }
}

static bool space_matches(const F2Space *s, const unsigned char *in, int n) {
    long size = 0;
    for (uint64_t v = 0; v < (uint64_t)1 << n; v++) {
        if (f2_space_contains(s, v) != (bool)in[v]) return false;
        size += in[v];
    }
    return size == 1L << s->dim;
}

/* The F2Space invariant: nonzero, distinct decreasing pivots, each pivot bit
 * present in its own vector only, nothing outside the n bits. */
static bool is_reduced_echelon(const uint64_t *basis, int dim, int n) {
    for (int k = 0; k < dim; k++) {
        if (basis[k] == 0 || (basis[k] & ~f2_mask(n))) return false;
        int p = 63 - __builtin_clzll(basis[k]);
        if (k > 0 && 63 - __builtin_clzll(basis[k - 1]) <= p) return false;
        for (int j = 0; j < dim; j++)
            if (j != k && bitv(basis[j], p)) return false;
    }
    return true;
}

/* Input bit that output bit i copies, or -1 when it copies none. */
static int copied_bit(const F2Mat *a, int i) {
    for (int j = 0; j < a->n; j++) {
        bool same = true;
        for (uint64_t x = 0; same && x < (uint64_t)1 << a->n; x++)
            same = bitv(f2_apply(a, x), i) == bitv(x, j);
        if (same) return j;
    }
    return -1;
}

/* ---- brute-force groups (n <= BRUTE_MAX) ---- */

static void test_rank_inverse_brute(void) {
    for (int n = 1; n <= BRUTE_MAX; n++) {
        for (int c = 0; c < CASES; c++) {
            F2Mat a = c % 3 ? rnd_mat(n) : rnd_low_rank(n, rnd_below(n + 1));
            int rank = f2_rank(&a);
            check(image_size(&a) == 1L << rank, "n=%d rank %d vs image size", n, rank);
            F2Mat inv;
            bool ok = f2_invert(&a, &inv);
            check(ok == (rank == n), "n=%d invert %d but rank %d", n, ok, rank);
            if (!ok) continue;
            bool round = true;
            for (uint64_t x = 0; round && x < (uint64_t)1 << n; x++)
                round = f2_apply(&a, f2_apply(&inv, x)) == x &&
                        f2_apply(&inv, f2_apply(&a, x)) == x;
            check(round, "n=%d A·inv(A)·x = x for all x", n);
        }
    }
}

static void test_product_transpose_brute(void) {
    for (int n = 1; n <= BRUTE_MAX; n++) {
        for (int c = 0; c < CASES; c++) {
            F2Mat a = rnd_mat(n), b = rnd_mat(n);
            F2Mat ab = f2_mul(&a, &b), t = f2_transpose(&a);
            bool prod = true, cols = true, trans = true;
            for (uint64_t x = 0; prod && x < (uint64_t)1 << n; x++)
                prod = f2_apply(&ab, x) == f2_apply(&a, f2_apply(&b, x));
            for (int j = 0; j < n; j++)
                cols = cols && f2_column(&a, j) == f2_apply(&a, (uint64_t)1 << j);
            /* the defining property of the transpose: y·(Ax) = (Aᵀy)·x */
            for (int k = 0; k < 64; k++) {
                uint64_t x = rnd_vec(n), y = rnd_vec(n);
                trans = trans && f2_parity(y & f2_apply(&a, x)) == f2_parity(f2_apply(&t, y) & x);
            }
            check(prod, "n=%d (AB)x = A(Bx) for all x", n);
            check(cols, "n=%d column j = A·e_j", n);
            check(trans, "n=%d y·Ax = Aᵀy·x", n);
        }
    }
}

/* A permutation matrix, or one spoiled by an extra bit or a repeated row. */
static F2Mat bpc_candidate(int n, int c) {
    int perm[F2_MAX];
    rnd_perm(n, perm);
    F2Mat a = f2_from_bitperm(n, perm);
    if (c % 4 == 1) a.row[rnd_below(n)] ^= (uint64_t)1 << rnd_below(n);
    else if (c % 4 == 2 && n > 1) a.row[0] = a.row[1];
    else if (c % 4 == 3) a = rnd_mat(n);
    return a;
}

static void test_bpc_brute(void) {
    for (int n = 1; n <= BRUTE_MAX; n++) {
        for (int c = 0; c < CASES; c++) {
            F2Mat a = bpc_candidate(n, c);
            int want[F2_MAX];
            bool brute = true;
            uint64_t used = 0;
            for (int i = 0; i < n; i++) {
                want[i] = copied_bit(&a, i);
                brute = brute && want[i] >= 0 && !bitv(used, want[i]);
                if (want[i] >= 0) used |= (uint64_t)1 << want[i];
            }
            int perm[F2_MAX];
            bool got = f2_is_bpc(&a, perm);
            check(got == brute, "n=%d is_bpc %d, brute force %d", n, got, brute);
            check(got == f2_is_bpc(&a, NULL), "n=%d is_bpc with NULL perm", n);
            if (!got || !brute) continue;
            check(memcmp(perm, want, sizeof(int) * (size_t)n) == 0, "n=%d perm", n);
            F2Mat back = f2_from_bitperm(n, perm);
            check(f2_equal(&back, &a), "n=%d from_bitperm(is_bpc perm) = A", n);
        }
    }
}

static void test_space_brute(void) {
    static unsigned char in[1 << BRUTE_MAX], in2[1 << BRUTE_MAX];
    for (int n = 1; n <= BRUTE_MAX; n++) {
        for (int c = 0; c < CASES; c++) {
            /* up to n+2 vectors, some of them sums of earlier ones */
            uint64_t v[F2_MAX + 2];
            int k = rnd_below(n + 3);
            for (int j = 0; j < k; j++)
                v[j] = j > 1 && rnd_below(3) == 0 ? v[j - 1] ^ v[rnd_below(j - 1)] : rnd_vec(n);
            F2Space s = f2_space_empty(n);
            int added = 0;
            for (int j = 0; j < k; j++) added += f2_space_add(&s, v[j]);
            span_of(v, k, in, n);
            check(space_matches(&s, in, n), "n=%d span of %d vectors", n, k);
            check(added == s.dim, "n=%d add reported %d new, dim %d", n, added, s.dim);
            check(is_reduced_echelon(s.basis, s.dim, n), "n=%d basis reduced", n);

            uint64_t piv = f2_space_pivots(&s);
            bool red = true;
            for (uint64_t x = 0; red && x < (uint64_t)1 << n; x++) {
                uint64_t r = f2_space_reduce(&s, x);
                red = in[x ^ r] && !(r & piv) && (r == 0) == (bool)in[x];
            }
            check(red, "n=%d reduce: x - r in S, r free of pivots", n);

            /* sum with a second random space */
            uint64_t w[F2_MAX + 2 + 4];
            memcpy(w, v, sizeof(uint64_t) * (size_t)k);
            int k2 = rnd_below(4);
            F2Space t = f2_space_empty(n);
            for (int j = 0; j < k2; j++) {
                w[k + j] = rnd_vec(n);
                f2_space_add(&t, w[k + j]);
            }
            F2Space sum = f2_space_sum(&s, &t);
            span_of(w, k + k2, in2, n);
            check(space_matches(&sum, in2, n), "n=%d sum", n);
            check(is_reduced_echelon(sum.basis, sum.dim, n), "n=%d sum reduced", n);

            /* image under a random (often singular) matrix */
            F2Mat a = c % 2 ? rnd_mat(n) : rnd_low_rank(n, rnd_below(n + 1));
            F2Space img = f2_space_image(&a, &s);
            uint64_t av[F2_MAX + 2];
            for (int j = 0; j < k; j++) av[j] = f2_apply(&a, v[j]);
            span_of(av, k, in2, n);
            check(space_matches(&img, in2, n), "n=%d image", n);
            check(is_reduced_echelon(img.basis, img.dim, n), "n=%d image reduced", n);

            /* coordinate complement: S + span(e_i) covers F2^n, dimensions add to n */
            uint64_t comp = f2_space_coord_complement(&s);
            F2Space whole = f2_space_coords(n, comp);
            whole = f2_space_sum(&whole, &s);
            check(whole.dim == n && s.dim + __builtin_popcountll(comp) == n,
                  "n=%d coord complement is complementary", n);
            check((comp & piv) == 0 && (comp | piv) == f2_mask(n), "n=%d complement = non-pivots",
                  n);
        }
    }
}

static void test_coords_brute(void) {
    static unsigned char in[1 << BRUTE_MAX];
    for (int n = 1; n <= BRUTE_MAX; n++) {
        for (int c = 0; c < CASES; c++) {
            uint64_t bits = rnd_vec(n), e[F2_MAX];
            int k = 0;
            for (int i = 0; i < n; i++)
                if (bitv(bits, i)) e[k++] = (uint64_t)1 << i;
            F2Space s = f2_space_coords(n, bits);
            span_of(e, k, in, n);
            check(space_matches(&s, in, n), "n=%d coords span", n);
            check(is_reduced_echelon(s.basis, s.dim, n) && f2_space_pivots(&s) == bits,
                  "n=%d coords basis", n);
        }
    }
}

static void test_embed_brute(void) {
    for (int n = 1; n <= BRUTE_MAX; n++) {
        for (int c = 0; c < CASES; c++) {
            int m = rnd_below(n + 1), lo = rnd_below(n - m + 1);
            F2Mat b = rnd_mat(m);
            F2Mat e = f2_embed(&b, n, lo);
            uint64_t inside = f2_mask(m) << lo;
            bool ok = e.n == n;
            for (uint64_t x = 0; ok && x < (uint64_t)1 << n; x++) {
                uint64_t want = (x & ~inside) | f2_apply(&b, (x >> lo) & f2_mask(m)) << lo;
                ok = f2_apply(&e, x) == want;
            }
            check(ok, "n=%d embed m=%d at %d on every x", n, m, lo);
        }
    }
}

static void test_echelon_brute(void) {
    static unsigned char in[1 << BRUTE_MAX], in2[1 << BRUTE_MAX];
    for (int n = 1; n <= BRUTE_MAX; n++) {
        for (int c = 0; c < CASES; c++) {
            F2Mat a = c % 2 ? rnd_mat(n) : rnd_low_rank(n, rnd_below(n + 1));
            int rank;
            F2Mat e = f2_echelon(&a, &rank);
            span_of(a.row, n, in, n);
            span_of(e.row, n, in2, n);
            check(memcmp(in, in2, (size_t)1 << n) == 0, "n=%d echelon keeps the row space", n);
            bool zero_tail = true;
            for (int i = rank; i < n; i++) zero_tail = zero_tail && e.row[i] == 0;
            check(zero_tail && is_reduced_echelon(e.row, rank, n), "n=%d echelon shape", n);
        }
    }
}

static void test_ulp_brute(void) {
    for (int n = 1; n <= BRUTE_MAX; n++) {
        for (int c = 0; c < CASES; c++) {
            F2Mat a = rnd_invertible(n), u, l, p;
            bool ok = f2_ulp(&a, &u, &l, &p);
            for (uint64_t x = 0; ok && x < (uint64_t)1 << n; x++)
                ok = f2_apply(&u, f2_apply(&l, f2_apply(&p, x))) == f2_apply(&a, x);
            check(ok, "n=%d U(L(Px)) = Ax for all x", n);
        }
    }
}

/* ---- algebraic groups (n up to 64) ---- */

/* Sizes for the identity groups: every n up to 16, then the wide ones. */
static const int sizes[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                            13, 14, 15, 16, 20, 31, 32, 33, 47, 63, 64};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static void test_inverse_identities(void) {
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s];
        for (int c = 0; c < CASES / 3; c++) {
            F2Mat a = rnd_invertible(n), b = rnd_invertible(n);
            F2Mat ia, iia, ib, ab, iab;
            bool ok = f2_invert(&a, &ia) && f2_invert(&ia, &iia) && f2_invert(&b, &ib);
            ab = f2_mul(&a, &b);
            ok = ok && f2_invert(&ab, &iab);
            check(ok && f2_rank(&a) == n, "n=%d product of elementaries is invertible", n);
            if (!ok) continue;
            F2Mat biai = f2_mul(&ib, &ia), aia = f2_mul(&a, &ia);
            check(f2_equal(&iia, &a), "n=%d inv(inv A) = A", n);
            check(f2_equal(&iab, &biai), "n=%d (AB)^-1 = B^-1 A^-1", n);
            check(f2_is_identity(&aia), "n=%d A·inv(A) = I", n);
            uint64_t x = rnd_vec(n);
            check(f2_apply(&ia, f2_apply(&a, x)) == x, "n=%d inv(A)·A·x = x", n);
        }
    }
}

static void test_rank_identities(void) {
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s];
        for (int c = 0; c < CASES / 3; c++) {
            F2Mat a = rnd_low_rank(n, rnd_below(n + 1));
            F2Mat b = c % 2 ? rnd_mat(n) : rnd_low_rank(n, rnd_below(n + 1));
            F2Mat ab = f2_mul(&a, &b), g = rnd_invertible(n);
            F2Mat ga = f2_mul(&g, &a), at = f2_transpose(&a);
            int ra = f2_rank(&a), rb = f2_rank(&b), rab = f2_rank(&ab), rank;
            f2_echelon(&a, &rank);
            check(rab <= ra && rab <= rb, "n=%d rank(AB)=%d <= min(%d,%d)", n, rab, ra, rb);
            check(rank == ra, "n=%d echelon rank %d = f2_rank %d", n, rank, ra);
            check(f2_rank(&ga) == ra, "n=%d rank(GA) = rank(A) for invertible G", n);
            check(f2_rank(&at) == ra, "n=%d rank(Aᵀ) = rank(A)", n);
            F2Mat inv;
            check(f2_invert(&a, &inv) == (ra == n), "n=%d invertible iff full rank", n);
        }
    }
}

static void test_transpose_identities(void) {
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s];
        for (int c = 0; c < CASES / 3; c++) {
            F2Mat a = rnd_mat(n), b = rnd_mat(n);
            F2Mat ab = f2_mul(&a, &b), at = f2_transpose(&a), bt = f2_transpose(&b);
            F2Mat abt = f2_transpose(&ab), btat = f2_mul(&bt, &at), att = f2_transpose(&at);
            check(f2_equal(&abt, &btat), "n=%d (AB)ᵀ = BᵀAᵀ", n);
            check(f2_equal(&att, &a), "n=%d (Aᵀ)ᵀ = A", n);
            uint64_t x = rnd_vec(n);
            check(f2_apply(&ab, x) == f2_apply(&a, f2_apply(&b, x)), "n=%d (AB)x = A(Bx)", n);
        }
    }
}

/* The paper's tiled BMMC (§5.1) with tile rows 0..t-1 and tile columns
 * `cols`: that block invertible, the block below it zero. */
static bool is_tiled(const F2Mat *a, int t, uint64_t cols) {
    F2Space s = f2_space_empty(a->n);
    for (int i = 0; i < a->n; i++)
        if (i < t ? !f2_space_add(&s, a->row[i] & cols) : (a->row[i] & cols) != 0) return false;
    return true;
}

/* U·L·P = A with the claimed shapes, and the paper's two-pass split
 * A = (UR)(RLP) into tiled BMMCs: UR on columns n-t..n-1, RLP on columns
 * perm[n-t..n-1], for every tile size t. */
static void check_ulp(const F2Mat *a, F2Mat *u, F2Mat *l, F2Mat *p) {
    int n = a->n;
    bool ok = f2_ulp(a, u, l, p);
    check(ok, "n=%d ulp of an invertible matrix", n);
    if (!ok) {
        *u = *l = *p = f2_zero(n); /* defined, and failing every later check */
        return;
    }
    F2Mat lp = f2_mul(l, p), ulp = f2_mul(u, &lp);
    check(f2_equal(&ulp, a), "n=%d U·L·P = A", n);
    check(f2_is_upper_unitriangular(u), "n=%d U upper unitriangular", n);
    check(f2_is_lower_unitriangular(l), "n=%d L lower unitriangular", n);
    check(f2_is_bpc(p, NULL), "n=%d P a permutation", n);
    F2Mat r = f2_reverse(n), rr = f2_mul(&r, &r);
    F2Mat ur = f2_mul(u, &r), rlp = f2_mul(&r, &lp), two = f2_mul(&ur, &rlp);
    check(f2_is_identity(&rr) && f2_equal(&two, a), "n=%d A = (UR)(RLP)", n);
    int perm[F2_MAX];
    f2_is_bpc(p, perm);
    bool tiled = true;
    uint64_t pcols = 0;
    for (int t = 1; t <= n; t++) {
        pcols |= (uint64_t)1 << perm[n - t];
        tiled = tiled && is_tiled(&ur, t, f2_mask(n) & ~f2_mask(n - t)) && is_tiled(&rlp, t, pcols);
    }
    check(tiled, "n=%d UR and RLP tiled for every tile size", n);
}

static void test_ulp(void) {
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s];
        for (int c = 0; c < CASES / 3; c++) {
            F2Mat a = rnd_invertible(n), u, l, p;
            check_ulp(&a, &u, &l, &p);

            /* A = U'L' exactly: the pivot rule must find P = I, U = U', L = L' */
            F2Mat u0 = rnd_unitriangular(n, true), l0 = rnd_unitriangular(n, false);
            F2Mat ul = f2_mul(&u0, &l0);
            check_ulp(&ul, &u, &l, &p);
            check(f2_is_identity(&p) && f2_equal(&u, &u0) && f2_equal(&l, &l0),
                  "n=%d ulp(U'L') = (U', L', I)", n);

            int perm[F2_MAX];
            rnd_perm(n, perm);
            F2Mat pm = f2_from_bitperm(n, perm);
            check_ulp(&pm, &u, &l, &p);
            check(f2_is_identity(&u) && f2_is_identity(&l), "n=%d ulp(P) = (I, I, P)", n);

            F2Mat sing = rnd_low_rank(n, n - 1), keep = f2_identity(n);
            u = l = p = keep;
            check(!f2_ulp(&sing, &u, &l, &p) && f2_is_identity(&u), "n=%d ulp rejects singular", n);
        }
    }
}

static void test_space_identities(void) {
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s];
        for (int c = 0; c < CASES / 3; c++) {
            F2Space sp = f2_space_empty(n);
            int k = rnd_below(n + 1);
            for (int j = 0; j < k; j++) f2_space_add(&sp, rnd_vec(n));
            uint64_t comp = f2_space_coord_complement(&sp);
            F2Space whole = f2_space_coords(n, comp);
            whole = f2_space_sum(&whole, &sp);
            check(whole.dim == n && sp.dim + __builtin_popcountll(comp) == n,
                  "n=%d coord complement is complementary", n);
            check(is_reduced_echelon(sp.basis, sp.dim, n), "n=%d basis reduced", n);
            F2Mat g = rnd_invertible(n), gi;
            if (!f2_invert(&g, &gi)) {
                check(false, "n=%d invert a product of elementaries", n);
                continue;
            }
            F2Space img = f2_space_image(&g, &sp), back = f2_space_image(&gi, &img);
            check(img.dim == sp.dim && memcmp(&back, &sp, sizeof sp) == 0,
                  "n=%d G⁻¹(G·S) = S, same reduced basis", n);
            uint64_t x = rnd_vec(n);
            check(f2_space_contains(&sp, x) == (f2_space_reduce(&sp, x) == 0) &&
                      f2_space_contains(&sp, x ^ f2_space_reduce(&sp, x)),
                  "n=%d reduce", n);
            check(n == 64 || !f2_space_contains(&whole, (uint64_t)1 << n),
                  "n=%d contains is false outside F2^n", n);
        }
    }
}

static void test_wide_edges(void) {
    check(f2_mask(0) == 0 && f2_mask(1) == 1 && f2_mask(63) == 0x7fffffffffffffffu &&
              f2_mask(64) == ~(uint64_t)0,
          "f2_mask at 0, 1, 63, 64");
    check(f2_parity(0) == 0 && f2_parity(0x8000000000000001u) == 0 &&
              f2_parity(0x8000000000000000u) == 1,
          "f2_parity");
    F2Mat id = f2_identity(64), r = f2_reverse(64);
    check(f2_apply(&id, ~(uint64_t)0) == ~(uint64_t)0, "identity(64) keeps bit 63");
    check(f2_apply(&r, 1) == (uint64_t)1 << 63, "reverse(64) sends bit 0 to bit 63");
    F2Mat b = rnd_invertible(8), e = f2_embed(&b, 64, 56);
    uint64_t x = rnd();
    check(f2_apply(&e, x) == ((x & f2_mask(56)) | f2_apply(&b, x >> 56) << 56),
          "embed at the top of 64 bits");
    F2Space all = f2_space_coords(64, ~(uint64_t)0);
    check(all.dim == 64 && f2_space_coord_complement(&all) == 0 && f2_space_contains(&all, x),
          "coords(64, all) is F2^64");
    F2Space none = f2_space_empty(64);
    check(f2_space_coord_complement(&none) == ~(uint64_t)0 && !f2_space_add(&none, 0),
          "empty space: complement is everything, 0 is dependent");
    F2Mat z = f2_zero(64);
    check(f2_rank(&z) == 0 && f2_rank(&id) == 64 && !f2_is_bpc(&z, NULL), "zero(64)");
}

static void check_hex(const F2Mat *a, const char *want) {
    Arena arena = {0};
    const char *got = f2_hex_text(&arena, a);
    check(strcmp(got, want) == 0, "hex_text: got \"%s\", want \"%s\"", got, want);
    arena_free(&arena);
}

static void test_format_hex(void) {
    F2Mat id3 = f2_identity(3), empty = f2_zero(0), wide = f2_zero(2);
    wide.row[0] = ~(uint64_t)0;
    wide.row[1] = 0xab;
    check_hex(&id3, "[0x1, 0x2, 0x4]");
    check_hex(&empty, "[]");
    check_hex(&wide, "[0xffffffffffffffff, 0xab]");
    F2Mat full = f2_zero(64);
    for (int i = 0; i < 64; i++) full.row[i] = ~(uint64_t)0;
    Arena arena = {0};
    const char *text = f2_hex_text(&arena, &full);
    check(strlen(text) == 1 + 64 * 18 + 63 * 2 + 1 && text[strlen(text) - 1] == ']',
          "the longest output, whole");
    arena_free(&arena);
}

int main(void) {
    static const struct {
        const char *name;
        void (*run)(void);
    } groups[] = {
        {"rank and inverse vs brute force", test_rank_inverse_brute},
        {"product, column, transpose vs brute force", test_product_transpose_brute},
        {"is_bpc vs brute force", test_bpc_brute},
        {"subspaces vs enumerated spans", test_space_brute},
        {"coordinate spaces vs enumerated spans", test_coords_brute},
        {"embed on every x", test_embed_brute},
        {"echelon vs enumerated row space", test_echelon_brute},
        {"ulp on every x", test_ulp_brute},
        {"inverse identities up to n=64", test_inverse_identities},
        {"rank identities up to n=64", test_rank_identities},
        {"transpose identities up to n=64", test_transpose_identities},
        {"ulp factorisation up to n=64", test_ulp},
        {"subspace identities up to n=64", test_space_identities},
        {"64-bit edge cases", test_wide_edges},
        {"format_hex", test_format_hex},
    };
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        CheckMark mark = check_mark();
        groups[g].run();
        check_group(mark, groups[g].name);
    }
    return check_summary("f2");
}
