/* test_bmmc.c: checks the one-pass BMMC kernels, compiler/plan/bmmc_plan.c
 * (plan, index math, simulation) and compiler/back/emit_bmmc.c (the
 * emitted C).
 *
 * Build and run: make build/unit/test_bmmc && build/unit/test_bmmc
 *
 * For random BMMCs, BPCs, bit reversals, transposes and complements at n =
 * 1..20 (below 5 the array is smaller than a warp) and element sizes 1 to
 * 8, the plan's index math is interpreted block by block (read into a tile,
 * write out of it) and every output must be A·x ⊕ c of the input it came
 * from, each written once; the simulator must report the fewest sectors and
 * bank congestion 1. A few plans are also emitted as C,
 * compiled with $CC (default cc) and run. Prints failures in detail and
 * finally "bmmc: N passed, M failed"; exits 1 on any failure. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "bmmc_plan.h"
#include "emit_bmmc.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

/* ---- deterministic random input (splitmix64, fixed seed) ---- */

static uint64_t rng_state = 0xb33c0ffee5eed001u;

static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static F2Mat random_bmmc(int n) {
    F2Mat a, inv;
    do {
        a = f2_zero(n);
        for (int i = 0; i < n; i++) a.row[i] = rnd() & f2_mask(n);
    } while (!f2_invert(&a, &inv));
    return a;
}

static F2Mat random_bpc(int n) {
    int perm[F2_MAX];
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rnd() % (uint64_t)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    return f2_from_bitperm(n, perm);
}

/* Rows and columns of a 2^(n/2) x 2^(n - n/2) matrix swapped. */
static F2Mat transpose_bits(int n) {
    int perm[F2_MAX], h = n / 2;
    for (int i = 0; i < n; i++) perm[i] = i < n - h ? i + h : i - (n - h);
    return f2_from_bitperm(n, perm);
}

/* ---- interpreting a plan ---- */

/* A·x by byte tables, so that checking 2^20 outputs stays cheap. */
typedef struct {
    uint64_t t[5][256];
} FastMat;

static void fast_init(FastMat *f, const F2Mat *a) {
    for (int byte = 0; byte < 5; byte++)
        for (int v = 0; v < 256; v++)
            f->t[byte][v] = f2_apply(a, ((uint64_t)v << (8 * byte)) & f2_mask(a->n));
}

static uint64_t fast_apply(const FastMat *f, uint64_t x) {
    uint64_t y = 0;
    for (int byte = 0; byte < 5; byte++) y ^= f->t[byte][x >> (8 * byte) & 255];
    return y;
}

/* Run block b as the kernel would, with the tile holding source indices:
 * every slot must be filled once, and every write must be A·x ⊕ c of the
 * element that its slot holds. `seen` marks outputs written (may be NULL
 * when only some blocks are run). Returns the number of wrong elements. */
static long run_block(const BmmcPlan *p, const FastMat *fa, uint64_t b, uint64_t *tile,
                      uint8_t *filled, uint8_t *seen) {
    long bad = 0;
    unsigned threads = 1u << (p->thread_log + p->vec_log),
             iters = 1u << p->iter_log; /* element lanes */
    memset(filled, 0, (size_t)1 << p->tile_log);
    for (unsigned t = 0; t < threads; t++) {
        for (unsigned i = 0; i < iters; i++) {
            unsigned slot;
            uint64_t x = bmmc_read_index(p, b, t, i, &slot);
            bad += x >> p->n || filled[slot];
            filled[slot] = 1;
            tile[slot] = x;
        }
    }
    for (unsigned t = 0; t < threads; t++) {
        for (unsigned i = 0; i < iters; i++) {
            unsigned slot;
            uint64_t y = bmmc_write_index(p, b, t, i, &slot);
            bad += y >> p->n || !filled[slot] || (fast_apply(fa, tile[slot]) ^ p->c) != y;
            if (seen && !(y >> p->n)) {
                bad += seen[y];
                seen[y] = 1;
            }
        }
    }
    return bad;
}

/* All blocks when the array is small enough, otherwise 64 random ones. */
static long run_plan(const BmmcPlan *p, const F2Mat *a) {
    FastMat *fa = malloc(sizeof *fa);
    uint64_t *tile = malloc(sizeof(uint64_t) << p->tile_log);
    uint8_t *filled = malloc((size_t)1 << p->tile_log);
    bool whole = p->n <= 22;
    uint8_t *seen = whole ? calloc((size_t)1 << p->n, 1) : NULL;
    fast_init(fa, a);
    long bad = 0;
    uint64_t blocks = (uint64_t)1 << p->block_log;
    for (uint64_t k = 0; k < (whole ? blocks : 64); k++)
        bad += run_block(p, fa, whole ? k : rnd() % blocks, tile, filled, seen);
    if (whole)
        for (uint64_t y = 0; y < (uint64_t)1 << p->n; y++) bad += !seen[y];
    free(fa);
    free(tile);
    free(filled);
    free(seen);
    return bad;
}

static const char *kind_name[] = {"bmmc", "bpc", "reverse", "identity", "transpose"};

static F2Mat make_kind(int kind, int n) {
    switch (kind) {
    case 0: return random_bmmc(n);
    case 1: return random_bpc(n);
    case 2: return f2_reverse(n);
    case 3: return f2_identity(n);
    default: return transpose_bits(n);
    }
}

/* Plan, interpret and simulate one permutation; with vectors, the plan
 * must take them wherever they fit. */
static void check_case_as(int kind, int n, int elem, int tile_log, bool vectors) {
    F2Mat a = make_kind(kind, n);
    uint64_t c = rnd() & f2_mask(n);
    BmmcPlan p;
    bool ok = bmmc_plan(&a, c, elem, tile_log, &p);
    check(ok, "%s n=%d elem=%d tile=%d: no plan", kind_name[kind], n, elem, tile_log);
    if (!ok) return;
    if (vectors) {
        bool fit = bmmc_vectors_fit(&p);
        check(bmmc_plan_vectors(&p) == fit && (p.vec_log > 0) == fit,
              "%s n=%d elem=%d tile=%d: vectors fit %d, planned %d", kind_name[kind], n, elem,
              tile_log, fit, p.vec_log);
        check(!fit || (elem << p.vec_log) == 16, "%s n=%d elem=%d: vectors of %d bytes",
              kind_name[kind], n, elem, elem << p.vec_log);
    }
    long bad = run_plan(&p, &a);
    check(bad == 0, "%s n=%d elem=%d tile=%d: %ld wrong elements", kind_name[kind], n, elem,
          tile_log, bad);
    BmmcSimReport r;
    bmmc_simulate(&p, &r);
    check(r.read_sectors_max == r.sectors_min && r.write_sectors_max == r.sectors_min,
          "%s n=%d elem=%d: sectors read %d write %d, min %d", kind_name[kind], n, elem,
          r.read_sectors_max, r.write_sectors_max, r.sectors_min);
    check(r.store_congestion_max == 1 && r.load_congestion_max == 1,
          "%s n=%d elem=%d: congestion store %d load %d", kind_name[kind], n, elem,
          r.store_congestion_max, r.load_congestion_max);
}

static void check_case(int kind, int n, int elem, int tile_log) {
    check_case_as(kind, n, elem, tile_log, false);
    check_case_as(kind, n, elem, tile_log, true);
}

static void test_interpreted(void) {
    static const int elems[] = {4, 8, 2, 1};
    CheckMark mark = check_mark();
    for (int n = 1; n <= 16; n++) {
        for (int e = 0; e < 4; e++) {
            for (int kind = 0; kind < 5; kind++) {
                int reps = kind == 0 && n <= 12 ? 2 : 1;
                for (int rep = 0; rep < reps; rep++)
                    check_case(kind, n, elems[e], 10 + (n + rep + kind) % 3);
            }
        }
    }
    /* Larger arrays cost time: the hardest kinds, alternating sizes. */
    for (int n = 17; n <= 20; n++)
        for (int kind = 0; kind < (n <= 18 ? 3 : 1); kind++)
            check_case(kind + (n == 19) * 2, n, elems[(n + kind) % 2], 10 + (n + kind) % 3);
    check_group(mark, "interpreted plans, n = 1..20");
}

/* Wide indices: 64 random blocks of n = 28..40 plans. */
static void test_wide(void) {
    CheckMark mark = check_mark();
    for (int n = 28; n <= 40; n += 3) {
        check_case(0, n, 4, 10);
        check_case(1, n, 8, 10);
    }
    check_group(mark, "wide indices, n = 28..40");
}

/* Plans in pieces (bmmc_plan_pieces): where one is made, it is still the
 * permutation, and each block reads (in pieces of the input) or writes (of
 * the output, less c) only the piece of its top block bits; planned in 0
 * pieces it is bmmc_plan's plan. */
static int check_pieces(int kind, int n, int lo, int pieces, bool out_side) {
    F2Mat a = make_kind(kind, n);
    uint64_t c = rnd() & f2_mask(n);
    BmmcPlan p, whole;
    if (!bmmc_plan_pieces(&a, c, 4, 10, lo, pieces, out_side, &p)) return 0;
    check(run_plan(&p, &a) == 0, "%s n=%d pieces 2^%d at %d: wrong elements", kind_name[kind], n,
          pieces, lo);
    long strays = 0;
    for (uint64_t b = 0; b < (uint64_t)1 << p.block_log; b++)
        for (unsigned t = 0; t < 1u << p.thread_log; t++)
            for (unsigned i = 0; i < 1u << p.iter_log; i++) {
                unsigned slot;
                uint64_t v = out_side ? bmmc_write_index(&p, b, t, i, &slot) ^ c
                                      : bmmc_read_index(&p, b, t, i, &slot);
                strays += (v >> lo & f2_mask(pieces)) != b >> (p.block_log - pieces);
            }
    check(strays == 0, "%s n=%d pieces 2^%d at %d (%s): %ld elements outside their block's piece",
          kind_name[kind], n, pieces, lo, out_side ? "output" : "input", strays);
    check(bmmc_plan_pieces(&a, c, 4, 10, lo, 0, out_side, &p) && bmmc_plan(&a, c, 4, 10, &whole) &&
              memcmp(p.block_cols, whole.block_cols, sizeof p.block_cols) == 0 &&
              p.tile_log == whole.tile_log,
          "%s n=%d: no pieces is not the plain plan", kind_name[kind], n);
    return 1;
}

static void test_pieces(void) {
    CheckMark mark = check_mark();
    int planned = 0;
    for (int n = 12; n <= 17; n++)
        for (int kind = 0; kind < 5; kind++)
            for (int pieces = 1; pieces <= 3; pieces++)
                for (int side = 0; side < 2; side++)
                    planned += check_pieces(kind, n, (int)(rnd() % (uint64_t)(n - pieces + 1)),
                                            pieces, side);
    /* the bit reversal's middle bits are outside every tile */
    F2Mat rev = f2_reverse(16);
    BmmcPlan p;
    check(bmmc_plan_pieces(&rev, 0, 4, 10, 7, 2, false, &p) && p.piece_log == 2,
          "bit reversal in pieces at bits 7..8");
    check(!bmmc_plan_pieces(&rev, 0, 4, 10, 0, 2, false, &p),
          "pieces across the segment bits planned");
    check(!bmmc_plan_pieces(&rev, 0, 4, 10, 14, 2, true, &p),
          "pieces across the output's segment bits planned");
    check(planned > 20, "only %d of 180 plans in pieces made", planned);
    check_group(mark, "plans in pieces");
}

static void test_rejects(void) {
    CheckMark mark = check_mark();
    BmmcPlan p;
    F2Mat a = random_bmmc(12);
    F2Mat sing = a;
    sing.row[3] = sing.row[5];
    check(!bmmc_plan(&sing, 0, 4, 10, &p), "singular matrix planned");
    check(!bmmc_plan(&a, (uint64_t)1 << 12, 4, 10, &p), "complement beyond n planned");
    check(!bmmc_plan(&a, 0, 3, 10, &p), "3-byte elements planned");
    F2Mat big = random_bpc(41);
    check(!bmmc_plan(&big, 0, 4, 10, &p), "n = 41 planned");
    F2Mat wide = f2_identity(40);
    check(!bmmc_plan(&wide, 0, 4, 9, &p), "2^31 blocks planned");
    check(bmmc_plan(&a, 0, 4, 3, &p) && p.tile_log >= 5, "small tile not raised to L");
    F2Mat tiny = random_bmmc(3);
    check(bmmc_plan(&tiny, 5, 4, 10, &p) && p.tile_log == 3 && p.block_log == 0,
          "n = 3 not one block");
    check_group(mark, "rejected and degenerate inputs");
}

/* ---- the emitted C, compiled and run ---- */

typedef struct {
    int kind, n, elem, tile_log;
    const char *ctype;
    bool vectors; /* planned again for 16-byte vectors (bmmc_plan_vectors) */
} EmitCase;

static const EmitCase emit_cases[] = {
    {0, 5, 4, 10, "uint32_t", false},  {0, 13, 4, 10, "uint32_t", false},
    {1, 14, 4, 11, "uint32_t", false}, {2, 15, 4, 12, "uint32_t", false},
    {0, 12, 8, 10, "uint64_t", false}, {4, 14, 8, 10, "uint64_t", false},
    {0, 12, 2, 10, "uint16_t", false}, {0, 11, 1, 10, "uint8_t", false},
    {3, 9, 8, 10, "uint64_t", false},  {4, 14, 1, 10, "uint8_t", true},
    {2, 13, 2, 10, "uint16_t", true},  {0, 12, 1, 10, "uint8_t", true},
};
#define EMIT_CASES ((int)(sizeof emit_cases / sizeof emit_cases[0]))

/* A main that fills in[x] with a hash of x, runs kernel k, and counts the
 * outputs that differ from in[A⁻¹(y ⊕ c)], computed here by parities. */
static void emit_check(FILE *f, int k, const EmitCase *ec, const BmmcPlan *p) {
    fprintf(f, "static int check%d(void)\n{\n", k);
    fprintf(f, "    static const uint64_t inv[%d] = {", p->n);
    for (int i = 0; i < p->n; i++)
        fprintf(f, "%s0x%llxull", i ? ", " : "", (unsigned long long)p->a_inv.row[i]);
    fprintf(f, "};\n    size_t size = (size_t)1 << %d;\n", p->n);
    fprintf(f, "    %s *in = malloc(size * sizeof *in), *out = malloc(size * sizeof *out);\n",
            ec->ctype);
    fprintf(f,
            "    for (size_t x = 0; x < size; x++)\n"
            "        in[x] = (%s)((x + 1) * 0x9e3779b97f4a7c15ull >> 17);\n"
            "    k%d(in, out);\n    int bad = 0;\n"
            "    for (size_t y = 0; y < size; y++) {\n"
            "        uint64_t x = 0, v = y ^ 0x%llxull;\n"
            "        for (int i = 0; i < %d; i++)\n"
            "            x |= (uint64_t)__builtin_parityll(inv[i] & v) << i;\n"
            "        bad += out[y] != in[x];\n    }\n"
            "    free(in);\n    free(out);\n    return bad;\n}\n\n",
            ec->ctype, k, (unsigned long long)p->c, p->n);
}

static bool write_emit_program(const char *path, BmmcPlan *plans) {
    FILE *f = fopen(path, "w");
    if (!f) return false;
    fprintf(f, "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n\n");
    for (int k = 0; k < EMIT_CASES; k++) {
        char name[16];
        snprintf(name, sizeof name, "k%d", k);
        bmmc_emit_c(f, &plans[k], name, emit_cases[k].ctype, NULL);
        emit_check(f, k, &emit_cases[k], &plans[k]);
    }
    fprintf(f, "int main(void)\n{\n");
    for (int k = 0; k < EMIT_CASES; k++) fprintf(f, "    printf(\"%%d\\n\", check%d());\n", k);
    fprintf(f, "    return 0;\n}\n");
    return fclose(f) == 0;
}

static void test_emitted_c(void) {
    CheckMark mark = check_mark();
    BmmcPlan plans[EMIT_CASES];
    for (int k = 0; k < EMIT_CASES; k++) {
        const EmitCase *ec = &emit_cases[k];
        F2Mat a = make_kind(ec->kind, ec->n);
        check(bmmc_plan(&a, rnd() & f2_mask(ec->n), ec->elem, ec->tile_log, &plans[k]),
              "emit case %d: no plan", k);
        check(!ec->vectors || bmmc_plan_vectors(&plans[k]), "emit case %d: no vectors", k);
    }
    char dir[] = "/tmp/test_bmmc_XXXXXX";
    check(mkdtemp(dir) != NULL, "mkdtemp failed");
    char src[64], cmd[512];
    snprintf(src, sizeof src, "%s/k.c", dir);
    check(write_emit_program(src, plans), "cannot write %s", src);
    const char *cc = getenv("CC") ? getenv("CC") : "cc";
    snprintf(cmd, sizeof cmd, "%s -std=c11 -Wall -Wextra -Werror -O1 %s -o %s/k && %s/k", cc, src,
             dir, dir);
    FILE *run = popen(cmd, "r");
    int k = 0, bad;
    while (run && k < EMIT_CASES && fscanf(run, "%d", &bad) == 1) {
        check(bad == 0, "emitted C, case %d (%s n=%d elem=%d): %d wrong elements", k,
              kind_name[emit_cases[k].kind], emit_cases[k].n, emit_cases[k].elem, bad);
        k++;
    }
    check(run && pclose(run) == 0 && k == EMIT_CASES, "emitted C did not build or run: %s", cmd);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    check(system(cmd) == 0, "cannot remove %s", dir);
    check_group(mark, "emitted C compiled and run");
}

int main(void) {
    test_rejects();
    test_interpreted();
    test_wide();
    test_pieces();
    test_emitted_c();
    return check_summary("bmmc");
}
