/* randinput.c: random entry inputs. The values are printed with
 * scalar_print, the interpreter's own output format, so every value reads
 * back as itself. */
#include "randinput.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: small, and the same sequence on every platform */
static uint64_t next(uint64_t *state) {
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* The floats that ordinary random values never are: what comparisons,
 * min and max, and arithmetic must treat as the interpreter does. */
static double special_float(Prim p, uint64_t r) {
    bool f32 = p == PRIM_F32;
    double table[] = {
        NAN,
        -NAN,
        INFINITY,
        -INFINITY,
        -0.0,
        0.0,
        f32 ? (double)FLT_TRUE_MIN : DBL_TRUE_MIN, /* the least subnormal */
        f32 ? -(double)FLT_TRUE_MIN : -DBL_TRUE_MIN,
        f32 ? (double)(FLT_MIN - FLT_TRUE_MIN) : DBL_MIN - DBL_TRUE_MIN, /* the largest subnormal */
        f32 ? (double)FLT_MIN : DBL_MIN,                                 /* the least normal */
        f32 ? -(double)FLT_MAX : -DBL_MAX,
        f32 ? (double)FLT_MAX : DBL_MAX,
    };
    return table[r % (sizeof table / sizeof table[0])];
}

static Scalar random_scalar(Prim p, uint64_t *state, bool special) {
    if (special && prim_is_float(p)) {
        uint64_t pick = next(state);
        if (pick % 4 == 0) return scalar_from_double(p, special_float(p, pick >> 2));
    }
    uint64_t r = next(state);
    bool narrow = r & 1;
    r >>= 1;
    Scalar v = {0};
    int bits = prim_bits(p);
    if (p == PRIM_BOOL) {
        v.u = r & 1;
    } else if (p == PRIM_F32) {
        v.f32 = narrow ? (float)((int)(r % 101) - 50)
                       : (float)((double)(r >> 11) / 9007199254740992.0 * 2e6 - 1e6);
    } else if (p == PRIM_F64) {
        v.f64 = narrow ? (double)((int)(r % 101) - 50)
                       : (double)(r >> 11) / 9007199254740992.0 * 2e6 - 1e6;
    } else if (narrow) {
        int64_t small = (int64_t)(r % 41) - 20;
        if (prim_is_signed(p)) v.i = small;
        else v.u = (uint64_t)(small < 0 ? -small : small);
    } else if (prim_is_signed(p)) {
        /* wrap to the width, then sign-extend: the canonical form */
        v.i = bits == 64 ? (int64_t)r : (int64_t)(r << (64 - bits)) >> (64 - bits);
    } else {
        v.u = bits == 64 ? r : r >> (64 - bits);
    }
    return v;
}

const IrFunc *randinput_pick(const IrProgram *p, const char *entry, uint64_t seed) {
    uint64_t count = 0;
    for (int i = 0; i < p->nfuncs; i++) count += strcmp(p->funcs[i]->entry, entry) == 0;
    if (!count) return NULL;
    uint64_t want = seed % count;
    for (int i = 0; i < p->nfuncs; i++)
        if (strcmp(p->funcs[i]->entry, entry) == 0 && want-- == 0) return p->funcs[i];
    return NULL;
}

/* The shape of a padded parameter (docs/language.md, section 7): any
 * number of rows up to its size and a row length from 1 up, or a length
 * from 0 up, at most the size; printed first for rows (the row length). */
static long random_shape(FILE *out, const IrFunc *f, uint64_t *state) {
    long cols = 1L << f->pad_cols_log;
    if (f->pad_rows_log < 0) return (long)(next(state) % (uint64_t)(cols + 1));
    long row_len = 1 + (long)(next(state) % (uint64_t)cols);
    long rows = (long)(next(state) % (uint64_t)((1L << f->pad_rows_log) + 1));
    fprintf(out, "%ld\n", row_len);
    return rows * row_len;
}

/* Segments (docs/language.md 7.3): row r gets a random length and the rows
 * lie in a random order with random gaps, so that they are disjoint and
 * inside the array; *n is the array's length. */
static void random_segments(const IrFunc *f, uint64_t *state, int64_t *starts, int64_t *lens,
                            long *n) {
    long rows = 1L << f->pad_rows_log, cols = 1L << f->pad_cols_log, at = 0;
    for (long r = 0; r < rows; r++) {
        lens[r] = (int64_t)(next(state) % (uint64_t)(cols + 1));
        starts[r] = r;
    }
    for (long r = rows - 1; r > 0; r--) { /* a random order of the rows, in starts */
        long j = (long)(next(state) % (uint64_t)(r + 1));
        int64_t t = starts[r];
        starts[r] = starts[j];
        starts[j] = t;
    }
    int64_t *order = malloc(sizeof(int64_t) * (size_t)rows);
    if (!order) diag_fatal("out of memory writing an input");
    memcpy(order, starts, sizeof(int64_t) * (size_t)rows);
    for (long k = 0; k < rows; k++) {
        at += (long)(next(state) % 3);
        starts[order[k]] = at;
        at += (long)lens[order[k]];
    }
    free(order);
    *n = at + (long)(next(state) % 3);
}

/* The values of one parameter: random, or for an entry's segments, given. */
static void write_param(FILE *out, const IrVal *v, long len, const int64_t *given, uint64_t *state,
                        bool special) {
    for (long e = 0; e < len; e++) {
        if (given) {
            fprintf(out, "%lld\n", (long long)given[e]);
            continue;
        }
        for (int k = 0; k < v->elem->nslots; k++) {
            Prim p = elem_slot_prim(v->elem, k);
            if (k) fputc(' ', out);
            scalar_print(out, p, random_scalar(p, state, special));
        }
        fputc('\n', out);
    }
}

void randinput_write(FILE *out, const IrFunc *f, uint64_t seed, bool special) {
    uint64_t state = seed;
    long padded_len = 0;
    int64_t *starts = NULL, *lens = NULL;
    if (f->seg_starts >= 0) {
        starts = malloc(sizeof(int64_t) << f->pad_rows_log);
        lens = malloc(sizeof(int64_t) << f->pad_rows_log);
        if (!starts || !lens) diag_fatal("out of memory writing an input");
        random_segments(f, &state, starts, lens, &padded_len);
    } else if (f->pad_param >= 0) padded_len = random_shape(out, f, &state);
    for (int i = 0; i < f->body->nparams; i++) {
        const IrVal *v = f->body->params[i];
        long len = i == f->pad_param ? padded_len : v->log_len < 0 ? 1 : 1L << v->log_len;
        const int64_t *given = i == f->seg_starts ? starts : i == f->seg_lens ? lens : NULL;
        write_param(out, v, len, given, &state, special);
    }
    free(starts);
    free(lens);
}

double randinput_bound(const IrFunc *f, double *elements) {
    /* the row length of a padded parameter with rows, on a line of its own */
    double bytes = f->pad_param >= 0 && f->pad_rows_log >= 0 ? 21 : 0;
    *elements = 0;
    for (int i = 0; i < f->body->nparams; i++) {
        const IrVal *v = f->body->params[i];
        double len = v->log_len < 0 ? 1 : ldexp(1, v->log_len), per = 0;
        for (int k = 0; k < v->elem->nslots; k++)
            per += scalar_text_max(elem_slot_prim(v->elem, k)) + 1;
        *elements += len;
        bytes += len * per;
    }
    return bytes;
}
