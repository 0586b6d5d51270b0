/* types.c: element types and canonical scalars. */
#include "types.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name, *ctype;
    int bits;
    bool is_signed, is_float;
} prims[PRIM_COUNT] = {
    [PRIM_BOOL] = {"bool", "uint8_t", 8, false, false},
    [PRIM_I8] = {"i8", "int8_t", 8, true, false},
    [PRIM_I16] = {"i16", "int16_t", 16, true, false},
    [PRIM_I32] = {"i32", "int32_t", 32, true, false},
    [PRIM_I64] = {"i64", "int64_t", 64, true, false},
    [PRIM_U8] = {"u8", "uint8_t", 8, false, false},
    [PRIM_U16] = {"u16", "uint16_t", 16, false, false},
    [PRIM_U32] = {"u32", "uint32_t", 32, false, false},
    [PRIM_U64] = {"u64", "uint64_t", 64, false, false},
    [PRIM_F32] = {"f32", "float", 32, true, true},
    [PRIM_F64] = {"f64", "double", 64, true, true},
};

const char *prim_name(Prim p) { return prims[p].name; }
const char *prim_ctype(Prim p) { return prims[p].ctype; }
bool prim_is_float(Prim p) { return prims[p].is_float; }
bool prim_is_signed(Prim p) { return prims[p].is_signed; }
int prim_bits(Prim p) { return prims[p].bits; }

bool prim_from_name(const char *name, Prim *out) {
    for (int p = 0; p < PRIM_COUNT; p++) {
        if (strcmp(name, prims[p].name) == 0) {
            *out = (Prim)p;
            return true;
        }
    }
    return false;
}

const ElemType *elem_prim(Prim p) {
    static ElemType table[PRIM_COUNT];
    ElemType *t = &table[p];
    t->prim = p;
    t->nslots = 1;
    return t;
}

const ElemType *elem_tuple(Arena *a, int nfields, const ElemType **fields) {
    ElemType *t = NEW(a, ElemType);
    t->is_tuple = true;
    t->nfields = nfields;
    t->fields = NEW_ARRAY(a, const ElemType *, nfields);
    for (int i = 0; i < nfields; i++) {
        t->fields[i] = fields[i];
        t->nslots += fields[i]->nslots;
    }
    return t;
}

bool elem_equal(const ElemType *a, const ElemType *b) {
    if (a == b) return true;
    if (a->is_tuple != b->is_tuple) return false;
    if (!a->is_tuple) return a->prim == b->prim;
    if (a->nfields != b->nfields) return false;
    for (int i = 0; i < a->nfields; i++)
        if (!elem_equal(a->fields[i], b->fields[i])) return false;
    return true;
}

Prim elem_slot_prim(const ElemType *t, int slot) {
    while (t->is_tuple) {
        int f = 0;
        while (slot >= t->fields[f]->nslots) slot -= t->fields[f++]->nslots;
        t = t->fields[f];
    }
    return t->prim;
}

int elem_bytes(const ElemType *t) {
    int bytes = 0;
    for (int s = 0; s < t->nslots; s++) bytes += prim_bits(elem_slot_prim(t, s)) / 8;
    return bytes;
}

int elem_register_log(const ElemType *t, int reg_bytes_log) {
    int bytes_log = 0;
    while ((1 << bytes_log) < elem_bytes(t)) bytes_log++; /* rounded up: at most the bytes */
    int reg_log = reg_bytes_log - bytes_log;
    return reg_log > reg_bytes_log - 2 ? reg_bytes_log - 2 : reg_log < 3 ? 3 : reg_log;
}

int elem_max_slot_bytes(const ElemType *t) {
    int most = 1;
    for (int s = 0; s < t->nslots; s++) {
        int b = prim_bits(elem_slot_prim(t, s)) / 8;
        if (b > most) most = b;
    }
    return most;
}

/* The spelling is measured, then written into an arena string of that
 * length: a type of any width or depth prints whole. */
static size_t elem_text_length(const ElemType *t) {
    if (!t->is_tuple) return strlen(prim_name(t->prim));
    size_t n = 2 + 2 * (size_t)(t->nfields - 1); /* "(", ")" and the ", " */
    for (int i = 0; i < t->nfields; i++) n += elem_text_length(t->fields[i]);
    return n;
}

static char *write_elem_text(const ElemType *t, char *at) {
    if (!t->is_tuple) {
        size_t n = strlen(prim_name(t->prim));
        memcpy(at, prim_name(t->prim), n);
        return at + n;
    }
    *at++ = '(';
    for (int i = 0; i < t->nfields; i++) {
        if (i > 0) {
            memcpy(at, ", ", 2);
            at += 2;
        }
        at = write_elem_text(t->fields[i], at);
    }
    *at++ = ')';
    return at;
}

const char *elem_text(Arena *a, const ElemType *t) {
    if (!t->is_tuple) return prim_name(t->prim);
    size_t n = elem_text_length(t);
    char *text = arena_alloc(a, n + 1); /* zeroed: the terminator is there */
    write_elem_text(t, text);
    return text;
}

/* Through an arena of its own, freed at once: printing every type of a
 * large program takes none of the compilation's memory. */
void elem_print(FILE *out, const ElemType *t) {
    Arena scratch = {0};
    fputs(elem_text(&scratch, t), out);
    arena_free(&scratch);
}

Scalar scalar_wrap(Prim p, Scalar v) {
    int bits = prim_bits(p);
    if (p == PRIM_BOOL) {
        v.u = v.u != 0;
        return v;
    }
    if (prim_is_float(p) || bits == 64) return v;
    uint64_t m = (UINT64_C(1) << bits) - 1;
    uint64_t low = v.u & m;
    if (prim_is_signed(p) && (low >> (bits - 1))) low |= ~m;
    v.u = low;
    return v;
}

Scalar scalar_from_int(Prim p, int64_t x) {
    Scalar v = {.u = 0};
    if (p == PRIM_F32) v.f32 = (float)x;
    else if (p == PRIM_F64) v.f64 = (double)x;
    else {
        v.i = x;
        v = scalar_wrap(p, v);
    }
    return v;
}

Scalar scalar_from_double(Prim p, double x) {
    Scalar v = {.u = 0};
    if (p == PRIM_F32) v.f32 = (float)x;
    else v.f64 = x;
    return v;
}

bool scalar_int_fits(Prim p, int64_t v) {
    int bits = prim_bits(p);
    if (prim_is_float(p)) return true;
    if (!prim_is_signed(p)) return v >= 0 && (bits == 64 || (uint64_t)v >> bits == 0);
    return bits == 64 || (v >= -(INT64_C(1) << (bits - 1)) && v < (INT64_C(1) << (bits - 1)));
}

bool scalar_double_fits(Prim p, double v) { return p != PRIM_F32 || isinf(v) || !isinf((float)v); }

const char *prim_range_text(Arena *a, Prim p) {
    int bits = prim_bits(p);
    if (!prim_is_signed(p))
        return arena_printf(a, "0..%llu",
                            (unsigned long long)(bits == 64 ? UINT64_MAX
                                                            : (UINT64_C(1) << bits) - 1));
    return arena_printf(a, "%lld..%lld",
                        (long long)(bits == 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1))),
                        (long long)(bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1));
}

bool scalar_equal(Prim p, Scalar a, Scalar b) {
    if (p == PRIM_F32) return memcmp(&a.f32, &b.f32, sizeof(float)) == 0;
    return a.u == b.u;
}

void scalar_print(FILE *f, Prim p, Scalar v) {
    switch (p) {
    case PRIM_BOOL: fputs(v.u ? "true" : "false", f); break;
    case PRIM_F32: fprintf(f, "%.9g", (double)v.f32); break;
    case PRIM_F64: fprintf(f, "%.17g", v.f64); break;
    default:
        if (prim_is_signed(p)) fprintf(f, "%" PRId64, v.i);
        else fprintf(f, "%" PRIu64, v.u);
    }
}

int scalar_text_max(Prim p) {
    switch (p) {
    case PRIM_BOOL: return 5; /* false */
    case PRIM_I8: return 4;   /* -128 */
    case PRIM_I16: return 6;  /* -32768 */
    case PRIM_I32: return 11; /* -2147483648 */
    case PRIM_U8: return 3;
    case PRIM_U16: return 5;
    case PRIM_U32: return 10;
    case PRIM_I64:
    case PRIM_U64: return 20; /* -9223372036854775808, 18446744073709551615 */
    case PRIM_F32: return 15; /* %.9g: -1.17549435e-38 */
    case PRIM_F64: return 24; /* %.17g: -2.2250738585072014e-308 */
    case PRIM_COUNT: break;
    }
    return 24;
}

/* Integers must fit the type exactly: silently wrapping input would hide
 * mistakes in the data. */
static bool parse_int(Prim p, const char *tok, Scalar *out) {
    char *end;
    errno = 0;
    int bits = prim_bits(p);
    if (prim_is_signed(p)) {
        long long x = strtoll(tok, &end, 10);
        if (errno || *end || end == tok) return false;
        if (bits < 64 && (x < -(1LL << (bits - 1)) || x >= (1LL << (bits - 1)))) return false;
        out->i = x;
    } else {
        if (tok[0] == '-') return false;
        unsigned long long x = strtoull(tok, &end, 10);
        if (errno || *end || end == tok) return false;
        if (bits < 64 && x >> bits) return false;
        out->u = x;
    }
    return true;
}

bool scalar_parse(Prim p, const char *tok, Scalar *out) {
    out->u = 0;
    if (p == PRIM_BOOL) {
        if (!strcmp(tok, "true") || !strcmp(tok, "1")) {
            out->u = 1;
            return true;
        }
        if (!strcmp(tok, "false") || !strcmp(tok, "0")) return true;
        return false;
    }
    if (!prim_is_float(p)) return parse_int(p, tok, out);
    char *end;
    double d = strtod(tok, &end);
    if (*end || end == tok) return false;
    *out = scalar_from_double(p, d);
    return true;
}
