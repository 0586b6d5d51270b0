/* bdd.c: reduced ordered binary decision diagrams (bdd.h).
 *
 * Nodes are hash-consed in a unique table, so two diagrams of one function
 * are one node and a fact is checked by comparing with BDD_FALSE; ite is
 * memoised in a direct-mapped cache. Words are 64 diagrams, one a bit,
 * combined as a ripple-carry circuit: position code adds and compares
 * constants, whose diagrams stay linear in the number of variables. */
#include "bdd.h"

#include <stdlib.h>
#include <string.h>

#define BDD_MAX_NODES (1 << 20) /* beyond them, a set overflows */
#define BDD_CACHE (1 << 12)     /* entries of the ite cache */

typedef struct {
    int var; /* nvars for the terminals */
    Bdd low, high;
} Node;

typedef struct {
    Bdd f, g, h, r; /* f = BDD_FALSE: empty (ite and restrict look up no terminal f) */
} CacheEntry;

struct BddSet {
    int nvars;
    Node *nodes;
    int count, cap;
    Bdd *unique; /* open addressing over the nodes, 0 marking a free slot */
    int unique_cap;
    CacheEntry *cache;
    bool overflowed;
};

static void *xcalloc_or_null(size_t n, size_t size) { return n ? calloc(n, size) : NULL; }

BddSet *bdd_new(int nvars) {
    BddSet *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->nvars = nvars;
    s->cap = 1024;
    s->nodes = xcalloc_or_null((size_t)s->cap, sizeof *s->nodes);
    s->unique_cap = 2048;
    s->unique = xcalloc_or_null((size_t)s->unique_cap, sizeof *s->unique);
    s->cache = xcalloc_or_null(BDD_CACHE, sizeof *s->cache);
    if (!s->nodes || !s->unique || !s->cache) {
        bdd_free(s);
        return NULL;
    }
    s->nodes[BDD_FALSE] = (Node){nvars, BDD_FALSE, BDD_FALSE};
    s->nodes[BDD_TRUE] = (Node){nvars, BDD_TRUE, BDD_TRUE};
    s->count = 2;
    return s;
}

void bdd_free(BddSet *s) {
    if (!s) return;
    free(s->nodes);
    free(s->unique);
    free(s->cache);
    free(s);
}

bool bdd_overflowed(const BddSet *s) { return s->overflowed; }

static unsigned hash3(int a, int b, int c) {
    uint64_t h = (uint64_t)(unsigned)a * UINT64_C(0x9E3779B97F4A7C15);
    h ^= (uint64_t)(unsigned)b * UINT64_C(0xBF58476D1CE4E5B9);
    h ^= (uint64_t)(unsigned)c * UINT64_C(0x94D049BB133111EB);
    return (unsigned)(h >> 32);
}

static Bdd *unique_slot(BddSet *s, int var, Bdd low, Bdd high) {
    unsigned i = hash3(var, low, high) & (unsigned)(s->unique_cap - 1);
    for (;;) {
        Bdd *slot = &s->unique[i];
        if (*slot == 0) return slot;
        const Node *n = &s->nodes[*slot];
        if (n->var == var && n->low == low && n->high == high) return slot;
        i = (i + 1) & (unsigned)(s->unique_cap - 1);
    }
}

static bool grow(BddSet *s) {
    if (s->count == s->cap) {
        Node *nodes = realloc(s->nodes, 2 * (size_t)s->cap * sizeof *nodes);
        if (!nodes) return false;
        s->nodes = nodes;
        s->cap *= 2;
    }
    if (2 * (s->count + 1) > s->unique_cap) {
        int cap = 2 * s->unique_cap;
        Bdd *old = s->unique;
        int old_cap = s->unique_cap;
        s->unique = calloc((size_t)cap, sizeof *s->unique);
        if (!s->unique) {
            s->unique = old;
            return false;
        }
        s->unique_cap = cap;
        for (int i = 0; i < old_cap; i++)
            if (old[i]) {
                const Node *n = &s->nodes[old[i]];
                *unique_slot(s, n->var, n->low, n->high) = old[i];
            }
        free(old);
    }
    return true;
}

static Bdd make(BddSet *s, int var, Bdd low, Bdd high) {
    if (low == high) return low;
    Bdd *slot = unique_slot(s, var, low, high);
    if (*slot) return *slot;
    if (s->count >= BDD_MAX_NODES || !grow(s)) {
        s->overflowed = true;
        return BDD_FALSE;
    }
    slot = unique_slot(s, var, low, high); /* the table may have grown */
    s->nodes[s->count] = (Node){var, low, high};
    *slot = s->count;
    return s->count++;
}

Bdd bdd_var(BddSet *s, int v) { return make(s, v, BDD_FALSE, BDD_TRUE); }

static int var_of(const BddSet *s, Bdd f) { return s->nodes[f].var; }

static Bdd cofactor(const BddSet *s, Bdd f, int v, bool high) {
    if (var_of(s, f) != v) return f;
    return high ? s->nodes[f].high : s->nodes[f].low;
}

Bdd bdd_ite(BddSet *s, Bdd f, Bdd g, Bdd h) {
    if (s->overflowed) return BDD_FALSE;
    if (f == BDD_TRUE || g == h) return g;
    if (f == BDD_FALSE) return h;
    if (g == BDD_TRUE && h == BDD_FALSE) return f;
    CacheEntry *e = &s->cache[hash3(f, g, h) & (BDD_CACHE - 1)];
    if (e->f == f && e->g == g && e->h == h) return e->r;
    int v = var_of(s, f);
    if (var_of(s, g) < v) v = var_of(s, g);
    if (var_of(s, h) < v) v = var_of(s, h);
    Bdd low = bdd_ite(s, cofactor(s, f, v, false), cofactor(s, g, v, false),
                      cofactor(s, h, v, false));
    Bdd high = bdd_ite(s, cofactor(s, f, v, true), cofactor(s, g, v, true),
                       cofactor(s, h, v, true));
    Bdd r = make(s, v, low, high);
    e = &s->cache[hash3(f, g, h) & (BDD_CACHE - 1)];
    *e = (CacheEntry){f, g, h, r};
    return r;
}

/* The cache holds restrict's results under h = RESTRICT_TAG, which no ite
 * operand is. */
#define RESTRICT_TAG (-2)

Bdd bdd_restrict(BddSet *s, Bdd f, Bdd care) {
    if (s->overflowed || care == BDD_FALSE) return BDD_FALSE;
    if (care == BDD_TRUE || f == BDD_TRUE || f == BDD_FALSE) return f;
    CacheEntry *e = &s->cache[hash3(f, care, RESTRICT_TAG) & (BDD_CACHE - 1)];
    if (e->f == f && e->g == care && e->h == RESTRICT_TAG) return e->r;
    int v = var_of(s, f) < var_of(s, care) ? var_of(s, f) : var_of(s, care);
    Bdd c0 = cofactor(s, care, v, false), c1 = cofactor(s, care, v, true);
    Bdd f0 = cofactor(s, f, v, false), f1 = cofactor(s, f, v, true), r;
    if (c0 == BDD_FALSE) r = bdd_restrict(s, f1, c1); /* v is 1 wherever it matters */
    else if (c1 == BDD_FALSE) r = bdd_restrict(s, f0, c0);
    else r = make(s, v, bdd_restrict(s, f0, c0), bdd_restrict(s, f1, c1));
    e = &s->cache[hash3(f, care, RESTRICT_TAG) & (BDD_CACHE - 1)];
    *e = (CacheEntry){f, care, RESTRICT_TAG, r};
    return r;
}

Bdd bdd_not(BddSet *s, Bdd f) { return bdd_ite(s, f, BDD_FALSE, BDD_TRUE); }
Bdd bdd_and(BddSet *s, Bdd f, Bdd g) { return bdd_ite(s, f, g, BDD_FALSE); }
Bdd bdd_or(BddSet *s, Bdd f, Bdd g) { return bdd_ite(s, f, BDD_TRUE, g); }
Bdd bdd_xor(BddSet *s, Bdd f, Bdd g) { return bdd_ite(s, f, bdd_not(s, g), g); }

int bdd_top(const BddSet *s, Bdd f) { return var_of(s, f); }
Bdd bdd_low(const BddSet *s, Bdd f) { return s->nodes[f].low; }
Bdd bdd_high(const BddSet *s, Bdd f) { return s->nodes[f].high; }

bool bdd_cube(const BddSet *s, Bdd f, uint64_t *mask, uint64_t *value) {
    *mask = *value = 0;
    if (f == BDD_FALSE) return false;
    while (f != BDD_TRUE) {
        const Node *n = &s->nodes[f];
        if (n->var >= 64) return false;
        *mask |= UINT64_C(1) << n->var;
        if (n->low == BDD_FALSE) {
            *value |= UINT64_C(1) << n->var;
            f = n->high;
        } else if (n->high == BDD_FALSE) {
            f = n->low;
        } else {
            return false;
        }
    }
    return true;
}

/* ---- words ---- */

BddInt bdd_int_const(int64_t c) {
    BddInt r;
    for (int k = 0; k < 64; k++) r.bit[k] = ((uint64_t)c >> k & 1) ? BDD_TRUE : BDD_FALSE;
    return r;
}

bool bdd_int_value(const BddInt *a, int64_t *value) {
    uint64_t u = 0;
    for (int k = 0; k < 64; k++) {
        if (a->bit[k] != BDD_FALSE && a->bit[k] != BDD_TRUE) return false;
        u |= (uint64_t)(a->bit[k] == BDD_TRUE) << k;
    }
    *value = (int64_t)u;
    return true;
}

/* a + b + carry_in; *carry_out (may be NULL) the carry out of bit 63. */
static BddInt add_carry(BddSet *s, const BddInt *a, const BddInt *b, Bdd carry, Bdd *carry_out) {
    BddInt r;
    for (int k = 0; k < 64; k++) {
        Bdd x = a->bit[k], y = b->bit[k], xy = bdd_xor(s, x, y);
        r.bit[k] = bdd_xor(s, xy, carry);
        carry = bdd_or(s, bdd_and(s, x, y), bdd_and(s, carry, xy));
    }
    if (carry_out) *carry_out = carry;
    return r;
}

static BddInt complement(BddSet *s, const BddInt *a) {
    BddInt r;
    for (int k = 0; k < 64; k++) r.bit[k] = bdd_not(s, a->bit[k]);
    return r;
}

BddInt bdd_int_add(BddSet *s, const BddInt *a, const BddInt *b) {
    return add_carry(s, a, b, BDD_FALSE, NULL);
}

BddInt bdd_int_sub(BddSet *s, const BddInt *a, const BddInt *b) {
    BddInt nb = complement(s, b);
    return add_carry(s, a, &nb, BDD_TRUE, NULL);
}

BddInt bdd_int_select(BddSet *s, Bdd c, const BddInt *a, const BddInt *b) {
    BddInt r;
    for (int k = 0; k < 64; k++) r.bit[k] = bdd_ite(s, c, a->bit[k], b->bit[k]);
    return r;
}

/* a < b as unsigned 64-bit words: a - b borrows (no carry out of a + ~b + 1). */
Bdd bdd_int_ult(BddSet *s, const BddInt *a, const BddInt *b) {
    BddInt nb = complement(s, b);
    Bdd carry;
    add_carry(s, a, &nb, BDD_TRUE, &carry);
    return bdd_not(s, carry);
}

static Bdd slt(BddSet *s, const BddInt *a, const BddInt *b) {
    Bdd sa = a->bit[63], sb = b->bit[63];
    /* signs differ: a is the negative one; else the unsigned order */
    return bdd_ite(s, bdd_xor(s, sa, sb), sa, bdd_int_ult(s, a, b));
}

static Bdd equal(BddSet *s, const BddInt *a, const BddInt *b) {
    Bdd r = BDD_TRUE;
    for (int k = 0; k < 64; k++) r = bdd_and(s, r, bdd_not(s, bdd_xor(s, a->bit[k], b->bit[k])));
    return r;
}

static Bdd nonzero(BddSet *s, const BddInt *a) {
    Bdd r = BDD_FALSE;
    for (int k = 0; k < 64; k++) r = bdd_or(s, r, a->bit[k]);
    return r;
}

static BddInt from_bool(Bdd b) {
    BddInt r = bdd_int_const(0);
    r.bit[0] = b;
    return r;
}

/* Scalar's canonical form of type p (scalar_wrap): the bits at and above
 * the width copy the sign bit, or are clear. */
static BddInt wrap(BddSet *s, Prim p, const BddInt *a) {
    BddInt r = *a;
    if (p == PRIM_BOOL) return from_bool(nonzero(s, a));
    int w = prim_bits(p);
    for (int k = w; k < 64; k++) r.bit[k] = prim_is_signed(p) ? a->bit[w - 1] : BDD_FALSE;
    return r;
}

static BddInt shift_left(const BddInt *a, int by) {
    BddInt r;
    for (int k = 0; k < 64; k++) r.bit[k] = k >= by ? a->bit[k - by] : BDD_FALSE;
    return r;
}

static BddInt shift_right(const BddInt *a, int by, bool arithmetic) {
    BddInt r;
    for (int k = 0; k < 64; k++)
        r.bit[k] = k + by < 64 ? a->bit[k + by] : arithmetic ? a->bit[63] : BDD_FALSE;
    return r;
}

static BddInt multiply_const(BddSet *s, const BddInt *a, uint64_t c) {
    BddInt r = bdd_int_const(0);
    for (int k = 0; k < 64; k++)
        if (c >> k & 1) {
            BddInt t = shift_left(a, k);
            r = bdd_int_add(s, &r, &t);
        }
    return r;
}

/* Division and remainder by 2^k (k in 1..62), truncating towards zero. */
static BddInt div_pow2(BddSet *s, const BddInt *a, int k, bool sgn) {
    if (!sgn) return shift_right(a, k, false);
    BddInt low = bdd_int_const((INT64_C(1) << k) - 1), zero = bdd_int_const(0);
    BddInt bias = bdd_int_select(s, a->bit[63], &low, &zero);
    BddInt biased = bdd_int_add(s, a, &bias);
    return shift_right(&biased, k, true);
}

static BddInt mod_pow2(BddSet *s, const BddInt *a, int k, bool sgn) {
    BddInt low = *a;
    for (int j = k; j < 64; j++) low.bit[j] = BDD_FALSE;
    if (!sgn) return low;
    BddInt period = bdd_int_const(INT64_C(1) << k), wrapped = bdd_int_sub(s, &low, &period);
    Bdd negative = bdd_and(s, a->bit[63], nonzero(s, &low));
    return bdd_int_select(s, negative, &wrapped, &low);
}

static int pow2_log(int64_t c) {
    if (c < 2 || (c & (c - 1))) return -1;
    return __builtin_ctzll((uint64_t)c);
}

/* op on a and b (any Prim of integers or bool) before wrapping. */
static bool int_binary(BddSet *s, Op op, Prim p, const BddInt *a, const BddInt *b, BddInt *r) {
    bool sgn = prim_is_signed(p);
    int64_t c;
    bool b_const = bdd_int_value(b, &c);
    int width = prim_bits(p);
    switch (op) {
    case OP_ADD: *r = bdd_int_add(s, a, b); return true;
    case OP_SUB: *r = bdd_int_sub(s, a, b); return true;
    case OP_MUL: {
        int64_t ca;
        if (b_const) *r = multiply_const(s, a, (uint64_t)c);
        else if (bdd_int_value(a, &ca)) *r = multiply_const(s, b, (uint64_t)ca);
        else return false;
        return true;
    }
    case OP_DIV:
    case OP_MOD:
        if (!b_const) return false;
        if (c == 0) *r = op == OP_DIV ? bdd_int_const(0) : *a;
        else if (c == 1) *r = op == OP_DIV ? *a : bdd_int_const(0);
        else if (pow2_log(c) > 0 && pow2_log(c) < 63)
            *r = op == OP_DIV ? div_pow2(s, a, pow2_log(c), sgn) : mod_pow2(s, a, pow2_log(c), sgn);
        else return false;
        return true;
    case OP_SHL:
    case OP_SHR:
        if (!b_const) return false;
        c = (int64_t)((uint64_t)c & (uint64_t)(width - 1));
        *r = op == OP_SHL ? shift_left(a, (int)c) : shift_right(a, (int)c, sgn);
        return true;
    case OP_BAND:
    case OP_BOR:
    case OP_XOR:
        for (int k = 0; k < 64; k++)
            r->bit[k] = op == OP_BAND  ? bdd_and(s, a->bit[k], b->bit[k])
                        : op == OP_BOR ? bdd_or(s, a->bit[k], b->bit[k])
                                       : bdd_xor(s, a->bit[k], b->bit[k]);
        return true;
    case OP_EQ: *r = from_bool(equal(s, a, b)); return true;
    case OP_NE: *r = from_bool(bdd_not(s, equal(s, a, b))); return true;
    case OP_LT: *r = from_bool(sgn ? slt(s, a, b) : bdd_int_ult(s, a, b)); return true;
    case OP_GT: *r = from_bool(sgn ? slt(s, b, a) : bdd_int_ult(s, b, a)); return true;
    case OP_LE: *r = from_bool(bdd_not(s, sgn ? slt(s, b, a) : bdd_int_ult(s, b, a))); return true;
    case OP_GE: *r = from_bool(bdd_not(s, sgn ? slt(s, a, b) : bdd_int_ult(s, a, b))); return true;
    case OP_AND: *r = from_bool(bdd_and(s, nonzero(s, a), nonzero(s, b))); return true;
    case OP_OR: *r = from_bool(bdd_or(s, nonzero(s, a), nonzero(s, b))); return true;
    default: return false;
    }
}

bool bdd_int_binary(BddSet *s, Op op, Prim p, const BddInt *a, const BddInt *b, BddInt *r) {
    if (prim_is_float(p) || !int_binary(s, op, p, a, b, r)) return false;
    bool compares = op >= OP_EQ && op <= OP_OR;
    if (!compares) *r = wrap(s, p, r);
    return true;
}

bool bdd_int_unary(BddSet *s, Op op, Prim p, const BddInt *a, BddInt *r) {
    if (op == OP_NOT) {
        *r = from_bool(bdd_not(s, nonzero(s, a)));
        return true;
    }
    if (prim_is_float(p) || op != OP_NEG) return false;
    BddInt zero = bdd_int_const(0), neg = bdd_int_sub(s, &zero, a);
    *r = wrap(s, p, &neg);
    return true;
}

bool bdd_int_convert(BddSet *s, Prim from, Prim to, const BddInt *a, BddInt *r) {
    if (prim_is_float(from) || prim_is_float(to)) return false;
    *r = wrap(s, to, a);
    return true;
}
