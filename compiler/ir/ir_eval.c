/* ir_eval.c: data-parallel reference evaluation of the IR.
 *
 * Every statement runs once for the whole batch of instances of its body.
 * A value defined in an enclosing body has a smaller batch; instance b of the
 * current body reads instance b / (batch / its batch) of it, because every
 * combinator numbers its inner instances outer-major (see gather_*). A
 * statement that reads only such values runs at their batch (stmt_batch).
 * Buffers are freed after their last use. A body counts the reads of its own
 * values (its params and statement results) each time it starts to run, the
 * reads inside its nested bodies included: a reduce runs its operator once
 * per level, so counts over the whole program would run out after the first.
 * A read from a nested body is released when the statement of the defining
 * body that holds the nested body has finished, never by the nested body
 * itself, which may run again. */
#include "ir_eval.h"
#include "scalar_ops.h"

#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) diag_fatal("out of memory while interpreting (%zu bytes)", n * size);
    return p;
}

long buf_len(const Buf *b) { return b->log_len < 0 ? 1 : 1L << b->log_len; }

/* Freed planes are kept for reuse: the evaluator allocates and frees arrays
 * of the same few sizes over and over, and returning them to the system
 * costs more in page faults than the evaluation itself. */
#define POOL_SIZE 32
static struct {
    Scalar *plane;
    size_t count;
} pool[POOL_SIZE];

static Scalar *plane_new(size_t count) {
    for (int i = 0; i < POOL_SIZE; i++)
        if (pool[i].plane && pool[i].count == count) {
            Scalar *p = pool[i].plane;
            pool[i].plane = NULL;
            return p;
        }
    return calloc(count ? count : 1, sizeof(Scalar));
}

static void plane_free(Scalar *p, size_t count) {
    for (int i = 0; i < POOL_SIZE; i++)
        if (!pool[i].plane) {
            pool[i].plane = p;
            pool[i].count = count;
            return;
        }
    free(p);
}

static void pool_drain(void) {
    for (int i = 0; i < POOL_SIZE; i++) {
        free(pool[i].plane);
        pool[i].plane = NULL;
    }
}

static size_t buf_count(const Buf *b) { return (size_t)b->batch * (size_t)buf_len(b); }

long buf_first_difference(const Buf *a, const Buf *b) {
    if (buf_count(a) != buf_count(b) || !elem_equal(a->elem, b->elem)) return 0;
    for (size_t i = 0; i < buf_count(a); i++)
        for (int k = 0; k < a->elem->nslots; k++)
            if (!scalar_equal(elem_slot_prim(a->elem, k), a->planes[k][i], b->planes[k][i]))
                return (long)i;
    return -1;
}

/* The array's own bytes, as the compiled programs hold it (the message the
 * same as theirs), not the interpreter's: it holds every scalar in a Scalar
 * of 8 bytes, and would say twice what an array of i32 needs. */
static void buf_out_of_memory(const Buf *b) {
    size_t bytes = 0;
    for (int k = 0; k < b->elem->nslots; k++)
        bytes += (size_t)prim_bits(elem_slot_prim(b->elem, k)) / 8 * buf_count(b);
    Arena a = {0};
    diag_fatal(
        "out of memory while interpreting: could not allocate %zu bytes for an array of %zu %s",
        bytes, buf_count(b), elem_text(&a, b->elem));
}

Buf *buf_new(long batch, int log_len, const ElemType *elem) {
    Buf *b = xcalloc(1, sizeof *b);
    b->batch = batch;
    b->log_len = log_len;
    b->elem = elem;
    b->planes = xcalloc((size_t)elem->nslots, sizeof(Scalar *));
    for (int k = 0; k < elem->nslots; k++)
        if (!(b->planes[k] = plane_new(buf_count(b)))) buf_out_of_memory(b);
    return b;
}

void buf_free(Buf *b) {
    if (!b) return;
    for (int k = 0; k < b->elem->nslots; k++) plane_free(b->planes[k], buf_count(b));
    free(b->planes);
    free(b);
}

/* The positions of the instances of the body being evaluated (for POS):
 * instance b sits at (b mod count) with a zero bit inserted at zero_bit
 * (col's pairs are numbered without the mask's high bit), or nowhere
 * (count 0: entry and reduce bodies). */
typedef struct {
    long count;
    int zero_bit; /* -1: none */
} Coord;

typedef struct {
    Buf **vals;          /* by value id */
    int *uses;           /* remaining reads by value id */
    const IrBody **home; /* the body defining each value, by value id */
    const IrBody *body;  /* the body being run */
    Coord coord;
    unsigned *mark; /* by value id: == epoch when defined inside the statement looked at */
    unsigned epoch;
} Eval;

static Coord enter(Eval *E, long count, int zero_bit) {
    Coord outer = E->coord;
    E->coord = (Coord){count, zero_bit};
    return outer;
}

static void mark_home(IrWalk *w, const IrBody *b, IrVal *v) {
    Eval *E = w->ctx;
    E->home[v->id] = b;
}

static void mark_homes(Eval *E, const IrBody *b) {
    IrWalk w = {.def = mark_home, .ctx = E};
    ir_walk(&w, b);
}

typedef struct {
    Eval *E;
    void (*fn)(Eval *, const IrVal *);
} EachRead;

static void call_on_read(IrWalk *w, IrVal **v) {
    EachRead *each = w->ctx;
    each->fn(each->E, *v);
}

/* Call fn on every value read in b or in its nested bodies, at any depth. */
static void each_read(Eval *E, const IrBody *b, void (*fn)(Eval *, const IrVal *)) {
    EachRead each = {E, fn};
    IrWalk w = {.read = call_on_read, .ctx = &each};
    ir_walk(&w, b);
}

static bool is_local(const Eval *E, const IrVal *v) { return E->home[v->id] == E->body; }

static void count_if_local(Eval *E, const IrVal *v) {
    if (is_local(E, v)) E->uses[v->id]++;
}

static void bind(Eval *E, const IrVal *v, Buf *buf) {
    E->vals[v->id] = buf;
    if (E->uses[v->id] == 0) {
        buf_free(buf);
        E->vals[v->id] = NULL;
    }
}

/* One read of v is done; a value of an enclosing body stays until the
 * statement of that body holding this read has finished. */
static void release(Eval *E, const IrVal *v) {
    if (!is_local(E, v)) return;
    if (--E->uses[v->id] == 0) {
        buf_free(E->vals[v->id]);
        E->vals[v->id] = NULL;
    }
}

/* Start running body: it becomes the current one and counts its reads.
 * Returns the body to go back to. */
static const IrBody *begin_body(Eval *E, const IrBody *body) {
    const IrBody *outer = E->body;
    E->body = body;
    each_read(E, body, count_if_local);
    return outer;
}

/* A copy of x with one instance per instance of `batch` (x->batch divides it). */
static Buf *expand(const Buf *x, long batch) {
    Buf *r = buf_new(batch, x->log_len, x->elem);
    long len = buf_len(x), ratio = batch / x->batch;
    for (int k = 0; k < x->elem->nslots; k++)
        for (long b = 0; b < batch; b++)
            memcpy(r->planes[k] + b * len, x->planes[k] + (b / ratio) * len,
                   sizeof(Scalar) * (size_t)len);
    return r;
}

/* The argument at the statement's batch: broadcast when it comes from an
 * enclosing body. *owned tells the caller to free the copy. */
static Buf *arg_at(Eval *E, const IrVal *v, long batch, bool *owned) {
    Buf *x = E->vals[v->id];
    *owned = x->batch != batch;
    return *owned ? expand(x, batch) : x;
}

/* Consume one read of v and return a buffer the caller owns: the value's own
 * when this was its last read, else a copy. */
static Buf *take(Eval *E, const IrVal *v, long batch) {
    Buf *x = E->vals[v->id];
    if (is_local(E, v) && E->uses[v->id] == 1 && x->batch == batch) {
        E->vals[v->id] = NULL;
        E->uses[v->id] = 0;
        return x;
    }
    Buf *copy = expand(x, batch);
    release(E, v);
    return copy;
}

static void eval_stmt(Eval *E, const IrStmt *s, long batch);

/* Bind the params of the current body and run its statements; its results
 * stay registered in E->vals for take_results. */
static void run_stmts(Eval *E, const IrBody *body, long batch, Buf **params) {
    for (int i = 0; i < body->nparams; i++) bind(E, body->params[i], params[i]);
    for (int i = 0; i < body->nstmts; i++) eval_stmt(E, body->stmts[i], batch);
}

static void take_results(Eval *E, const IrBody *body, long batch, Buf **results) {
    for (int r = 0; r < body->nresults; r++) results[r] = take(E, body->results[r], batch);
}

/* Run a nested body on `batch` instances; the caller owns its results. */
static void run_body(Eval *E, const IrBody *body, long batch, Buf **params, Buf **results) {
    const IrBody *outer = begin_body(E, body);
    run_stmts(E, body, batch, params);
    take_results(E, body, batch, results);
    E->body = outer;
}

/* Run a body whose single array result is consumed by the caller. */
static Buf *run_array_body(Eval *E, const IrBody *body, long batch, Buf *param) {
    Buf *r;
    run_body(E, body, batch, &param, &r);
    return r;
}

static int lowest_bit(uint64_t m) { return __builtin_ctzll(m); }
static uint64_t delete_bit(uint64_t i, int bit) {
    uint64_t low = i & ((UINT64_C(1) << bit) - 1);
    return ((i >> (bit + 1)) << bit) | low;
}

/* parm m: element i of an instance goes to half parity(i & m) at index i
 * without bit lsb(m); halves are instances 2b and 2b+1. */
static long parm_slot(uint64_t i, uint64_t m, long b, long half) {
    long h = __builtin_parityll(i & m);
    return (2 * b + h) * half + (long)delete_bit(i, lowest_bit(m));
}

static Buf *eval_parm(Eval *E, const IrStmt *s, Buf *xs) {
    long len = buf_len(xs), half = len / 2, B = xs->batch;
    Buf *in = buf_new(2 * B, xs->log_len - 1, xs->elem);
    for (int k = 0; k < xs->elem->nslots; k++)
        for (long b = 0; b < B; b++)
            for (long i = 0; i < len; i++)
                in->planes[k][parm_slot((uint64_t)i, s->mask, b, half)] =
                    xs->planes[k][b * len + i];
    Coord outer = enter(E, 2, -1);
    Buf *r = run_array_body(E, s->body, 2 * B, in);
    E->coord = outer;
    Buf *out = buf_new(B, xs->log_len, r->elem);
    for (int k = 0; k < r->elem->nslots; k++)
        for (long b = 0; b < B; b++)
            for (long i = 0; i < len; i++)
                out->planes[k][b * len + i] =
                    r->planes[k][parm_slot((uint64_t)i, s->mask, b, half)];
    buf_free(r);
    return out;
}

/* two k: the 2^k blocks of an instance are consecutive, so the inner batch
 * is the same memory read with a shorter length. */
static Buf *eval_two(Eval *E, const IrStmt *s, Buf *xs, bool *owned) {
    Buf *in = xs;
    if (*owned) {
        *owned = false; /* the copy becomes the input */
    } else if (is_local(E, s->args[0]) && E->uses[s->args[0]->id] == 1) {
        E->vals[s->args[0]->id] = NULL; /* last use: reuse its storage */
    } else {
        in = expand(xs, xs->batch);
    }
    in->batch <<= s->k;
    in->log_len -= s->k;
    Coord outer = enter(E, 1L << s->k, -1);
    Buf *r = run_array_body(E, s->body, in->batch, in);
    E->coord = outer;
    r->batch >>= s->k;
    r->log_len += s->k;
    return r;
}

/* col m: pair p of instance b (i with bit hb(m) deleted, for the i that has
 * that bit clear) is inner instance b * len/2 + p, holding [xs[i], xs[i^m]]. */
static Buf *eval_col(Eval *E, const IrStmt *s, Buf *xs) {
    long len = buf_len(xs), pairs = len / 2, B = xs->batch;
    int hb = f2_top_bit(s->mask);
    Buf *in = buf_new(B * pairs, 1, xs->elem);
    for (int k = 0; k < xs->elem->nslots; k++)
        for (long b = 0; b < B; b++)
            for (long p = 0; p < pairs; p++) {
                uint64_t lo = (uint64_t)p,
                         i = ((lo >> hb) << (hb + 1)) | (lo & ((UINT64_C(1) << hb) - 1));
                in->planes[k][(b * pairs + p) * 2] = xs->planes[k][b * len + (long)i];
                in->planes[k][(b * pairs + p) * 2 + 1] =
                    xs->planes[k][b * len + (long)(i ^ s->mask)];
            }
    Coord outer = enter(E, pairs, hb);
    Buf *r = run_array_body(E, s->body, B * pairs, in);
    E->coord = outer;
    Buf *out = buf_new(B, xs->log_len, xs->elem);
    for (int k = 0; k < xs->elem->nslots; k++)
        for (long b = 0; b < B; b++)
            for (long p = 0; p < pairs; p++) {
                uint64_t lo = (uint64_t)p,
                         i = ((lo >> hb) << (hb + 1)) | (lo & ((UINT64_C(1) << hb) - 1));
                out->planes[k][b * len + (long)i] = r->planes[k][(b * pairs + p) * 2];
                out->planes[k][b * len + (long)(i ^ s->mask)] =
                    r->planes[k][(b * pairs + p) * 2 + 1];
            }
    buf_free(r);
    return out;
}

static Buf *eval_bmmc(const IrStmt *s, Buf *xs) {
    long len = buf_len(xs), B = xs->batch;
    Buf *out = buf_new(B, xs->log_len, xs->elem);
    for (long i = 0; i < len; i++) {
        long dst = (long)(f2_apply(s->mat, (uint64_t)i) ^ s->compl );
        for (int k = 0; k < xs->elem->nslots; k++)
            for (long b = 0; b < B; b++) out->planes[k][b * len + dst] = xs->planes[k][b * len + i];
    }
    return out;
}

/* The scalars of one slot plane, as a batch of scalar instances. */
static Buf *plane_as_scalars(const Buf *xs, int k, const ElemType *t) {
    long count = xs->batch * buf_len(xs);
    Buf *r = buf_new(count, -1, t);
    memcpy(r->planes[0], xs->planes[k], sizeof(Scalar) * (size_t)count);
    return r;
}

/* Run an element body on `count` instances whose params are given; collect
 * each scalar result into plane k of `out`. */
static void run_element_body(Eval *E, const IrBody *body, long count, Buf **params, Buf *out) {
    Buf **results = xcalloc((size_t)body->nresults, sizeof(Buf *));
    run_body(E, body, count, params, results);
    for (int k = 0; k < body->nresults; k++) {
        memcpy(out->planes[k], results[k]->planes[0], sizeof(Scalar) * (size_t)count);
        buf_free(results[k]);
    }
    free(results);
}

static Buf *eval_map(Eval *E, const IrStmt *s, Buf *xs) {
    long count = xs->batch * buf_len(xs);
    Buf **params = xcalloc((size_t)xs->elem->nslots, sizeof(Buf *));
    for (int k = 0; k < xs->elem->nslots; k++)
        params[k] = plane_as_scalars(xs, k, s->body->params[k]->elem);
    Buf *out = buf_new(xs->batch, xs->log_len, s->res[0]->elem);
    Coord outer = enter(E, buf_len(xs), -1);
    run_element_body(E, s->body, count, params, out);
    E->coord = outer;
    free(params);
    return out;
}

/* reduce combines in a balanced tree, (x0 op x1) op (x2 op x3) ..., then
 * z op total: the order docs/language.md fixes for every back end.
 * reduceblocks does so for each block of 2^k consecutive elements: the
 * blocks are instances of their own, blocks = 2^(n-k) per instance of s,
 * which is how the planes lie already. Returns the totals, one scalar of
 * type t per block (batch·blocks instances). */
static Buf *reduce_tree(Eval *E, const IrStmt *s, long batch, long blocks) {
    int ns = s->body->nresults;
    Coord outer = enter(E, 0, -1);
    bool owned;
    Buf *xs = arg_at(E, s->args[ns], batch, &owned);
    Buf *level = owned ? xs : expand(xs, xs->batch);
    level->batch *= blocks;
    level->log_len = s->op == IR_REDUCEBLOCKS ? s->k : level->log_len;
    while (level->log_len > 0) {
        long pairs = level->batch * buf_len(level) / 2;
        Buf **params = xcalloc((size_t)(2 * ns), sizeof(Buf *));
        for (int k = 0; k < ns; k++)
            for (int side = 0; side < 2; side++) {
                Buf *p = buf_new(pairs, -1, s->body->params[k]->elem);
                for (long j = 0; j < pairs; j++) p->planes[0][j] = level->planes[k][2 * j + side];
                params[side * ns + k] = p;
            }
        Buf *next = buf_new(level->batch, level->log_len - 1, level->elem);
        run_element_body(E, s->body, pairs, params, next);
        free(params);
        buf_free(level);
        level = next;
    }
    Buf **params = xcalloc((size_t)(2 * ns), sizeof(Buf *));
    for (int k = 0; k < ns; k++) {
        bool z_owned;
        Buf *z = arg_at(E, s->args[k], batch, &z_owned);
        params[k] = expand(z, batch * blocks);
        if (z_owned) buf_free(z);
        params[ns + k] = plane_as_scalars(level, k, s->body->params[k]->elem);
    }
    buf_free(level);
    Buf *total = buf_new(batch * blocks, -1, s->args[ns]->elem);
    run_element_body(E, s->body, batch * blocks, params, total);
    free(params);
    E->coord = outer;
    return total;
}

static void eval_reduce(Eval *E, const IrStmt *s, long batch, Buf **outs) {
    Buf *total = reduce_tree(E, s, batch, 1);
    for (int k = 0; k < s->nres; k++) outs[k] = plane_as_scalars(total, k, s->res[k]->elem);
    buf_free(total);
}

/* The block totals are already element-major per instance of s. */
static Buf *eval_reduceblocks(Eval *E, const IrStmt *s, long batch) {
    Buf *total = reduce_tree(E, s, batch, 1L << s->res[0]->log_len);
    total->batch = batch;
    total->log_len = s->res[0]->log_len;
    return total;
}

/* Runs s's operator on the pairs (left[i], right[i]) of `count` elements
 * (planes of scalars, one per slot) into res. */
static void run_pairs(Eval *E, const IrStmt *s, long count, Scalar **left, Scalar **right,
                      Scalar **res) {
    int ns = s->body->nresults;
    Buf **params = xcalloc((size_t)(2 * ns), sizeof(Buf *));
    for (int k = 0; k < ns; k++)
        for (int side = 0; side < 2; side++) {
            Buf *p = buf_new(count, -1, s->body->params[k]->elem);
            memcpy(p->planes[0], (side ? right : left)[k], sizeof(Scalar) * (size_t)count);
            params[side * ns + k] = p;
        }
    Buf *out = buf_new(count, -1, s->args[ns]->elem);
    run_element_body(E, s->body, count, params, out);
    for (int k = 0; k < ns; k++) memcpy(res[k], out->planes[k], sizeof(Scalar) * (size_t)count);
    buf_free(out);
    free(params);
}

/* The inclusive scan, in place, of each block of 2^k of the `total`
 * elements in planes x (one per slot), by Brent and Kung's recursion: the
 * pairs combined, their scan (blocks of 2^(k-1)), then each pair's second
 * element takes its pair's scan and the first the scan before op itself.
 * About 2·total operations in 2k runs of the operator. */
static void scan_in_place(Eval *E, const IrStmt *s, Scalar **x, long total, int k) {
    if (k == 0) return;
    int ns = s->body->nresults;
    long half = total / 2, block = 1L << k;
    Scalar **left = xcalloc((size_t)ns, sizeof(Scalar *)),
           **right = xcalloc((size_t)ns, sizeof(Scalar *));
    Scalar **pairs = xcalloc((size_t)ns, sizeof(Scalar *));
    for (int j = 0; j < ns; j++) {
        left[j] = xcalloc((size_t)half, sizeof(Scalar));
        right[j] = xcalloc((size_t)half, sizeof(Scalar));
        pairs[j] = xcalloc((size_t)half, sizeof(Scalar));
        for (long i = 0; i < half; i++) {
            left[j][i] = x[j][2 * i];
            right[j][i] = x[j][2 * i + 1];
        }
    }
    run_pairs(E, s, half, left, right, pairs);
    scan_in_place(E, s, pairs, half, k - 1);
    long count = 0; /* the first elements of pairs that have a pair before them in their block */
    for (long i = 0; i < half; i++)
        if ((2 * i) & (block - 1)) {
            for (int j = 0; j < ns; j++) {
                left[j][count] = pairs[j][i - 1];
                right[j][count] = x[j][2 * i];
            }
            count++;
        }
    for (int j = 0; j < ns; j++)
        for (long i = 0; i < half; i++) x[j][2 * i + 1] = pairs[j][i];
    if (count) run_pairs(E, s, count, left, right, left);
    for (long i = 0, c = 0; i < half; i++)
        if ((2 * i) & (block - 1)) {
            for (int j = 0; j < ns; j++) x[j][2 * i] = left[j][c];
            c++;
        }
    for (int j = 0; j < ns; j++) {
        free(left[j]);
        free(right[j]);
        free(pairs[j]);
    }
    free(left);
    free(right);
    free(pairs);
}

/* scanblocks: each block's inclusive scan (scan_in_place), then z op it
 * (exclusive: z op the one before it, z at the block's first). The
 * operator is exact (SCAN), so this grouping gives the bits of the
 * left-to-right order docs/language.md states, as the back ends' groupings
 * do. */
static Buf *eval_scan(Eval *E, const IrStmt *s, long batch) {
    int ns = s->body->nresults;
    Coord outer = enter(E, 0, -1);
    Buf *cur = expand(E->vals[s->args[ns]->id], batch);
    long total = batch * buf_len(cur), block = 1L << s->k;
    scan_in_place(E, s, cur->planes, total, s->k);
    Scalar **left = xcalloc((size_t)ns, sizeof(Scalar *)),
           **right = xcalloc((size_t)ns, sizeof(Scalar *));
    for (int k = 0; k < ns; k++) {
        left[k] = xcalloc((size_t)total, sizeof(Scalar));
        right[k] = xcalloc((size_t)total, sizeof(Scalar));
    }
    Buf *out = buf_new(batch, s->res[0]->log_len, s->res[0]->elem);
    long count = 0;
    for (long i = 0; i < total; i++) {
        bool first = (i & (block - 1)) == 0;
        for (int k = 0; k < ns; k++) {
            const Buf *z = E->vals[s->args[k]->id];
            Scalar zv = z->planes[0][(i / buf_len(cur)) / (batch / z->batch)];
            if (s->exclusive && first) {
                out->planes[k][i] = zv;
                continue;
            }
            left[k][count] = zv;
            right[k][count] = cur->planes[k][s->exclusive ? i - 1 : i];
        }
        if (!(s->exclusive && first)) count++;
    }
    if (count) run_pairs(E, s, count, left, right, left);
    for (long i = 0, j = 0; i < total; i++)
        if (!(s->exclusive && (i & (block - 1)) == 0)) {
            for (int k = 0; k < ns; k++) out->planes[k][i] = left[k][j];
            j++;
        }
    for (int k = 0; k < ns; k++) {
        free(left[k]);
        free(right[k]);
    }
    free(left);
    free(right);
    buf_free(cur);
    E->coord = outer;
    return out;
}

static Buf *eval_expand(Eval *E, const IrStmt *s, long batch) {
    bool owned;
    Buf *ys = arg_at(E, s->args[0], batch, &owned);
    Buf *out = buf_new(batch, s->res[0]->log_len, ys->elem);
    long len = buf_len(out);
    for (int k = 0; k < ys->elem->nslots; k++)
        for (long b = 0; b < batch; b++)
            for (long i = 0; i < len; i++)
                out->planes[k][b * len + i] = ys->planes[k][(b * len + i) >> s->k];
    if (owned) buf_free(ys);
    return out;
}

/* ---- scalar statements ---- */

static long max_batch(Eval *E, const IrStmt *s) {
    long batch = 1;
    for (int a = 0; a < s->nargs; a++)
        if (E->vals[s->args[a]->id]->batch > batch) batch = E->vals[s->args[a]->id]->batch;
    return batch;
}

static Scalar at(const Buf *x, long b, long batch) { return x->planes[0][b / (batch / x->batch)]; }

static Buf *eval_scalar(Eval *E, const IrStmt *s) {
    long batch = max_batch(E, s);
    Prim p = s->res[0]->elem->prim;
    Buf *out = buf_new(batch, -1, s->res[0]->elem);
    Scalar *o = out->planes[0];
    Buf *x = s->nargs > 0 ? E->vals[s->args[0]->id] : NULL;
    Buf *y = s->nargs > 1 ? E->vals[s->args[1]->id] : NULL;
    Buf *z = s->nargs > 2 ? E->vals[s->args[2]->id] : NULL;
    Prim in = x ? s->args[0]->elem->prim : p;
    for (long b = 0; b < batch; b++) {
        switch (s->op) {
        case IR_CONST: o[b] = s->cval; break;
        case IR_UNARY: o[b] = scalar_unary(s->alu, in, at(x, b, batch)); break;
        case IR_BINARY: o[b] = scalar_binary(s->alu, in, at(x, b, batch), at(y, b, batch)); break;
        case IR_TERNARY:
            o[b] = scalar_ternary(s->alu, in, at(x, b, batch), at(y, b, batch), at(z, b, batch));
            break;
        case IR_SELECT: o[b] = at(x, b, batch).u ? at(y, b, batch) : at(z, b, batch); break;
        case IR_CONVERT: o[b] = scalar_convert(in, p, at(x, b, batch)); break;
        default: break;
        }
    }
    return out;
}

static Buf *eval_pos(Eval *E, const IrStmt *s, long batch) {
    if (E->coord.count == 0) diag_fatal("internal error: pos outside a body with positions");
    Buf *out = buf_new(batch, -1, s->res[0]->elem);
    int zb = E->coord.zero_bit;
    for (long b = 0; b < batch; b++) {
        uint64_t c = (uint64_t)(b % E->coord.count);
        if (zb >= 0) c = ((c >> zb) << (zb + 1)) | (c & ((UINT64_C(1) << zb) - 1));
        out->planes[0][b].u = f2_apply(s->mat, c) ^ s->compl ;
    }
    return out;
}

static Buf *eval_table(Eval *E, const IrStmt *s) {
    Buf *i = E->vals[s->args[0]->id];
    Buf *out = buf_new(i->batch, -1, s->res[0]->elem);
    for (long b = 0; b < i->batch; b++) {
        uint64_t at = i->planes[0][b].u;
        if (at >> s->k)
            diag_fatal("internal error: table index %llu outside 2^%d entries",
                       (unsigned long long)at, s->k);
        out->planes[0][b] = s->tab[at];
    }
    return out;
}

static Buf *eval_index(Eval *E, const IrStmt *s) {
    Buf *xs = E->vals[s->args[0]->id];
    long len = buf_len(xs);
    Buf *out = buf_new(xs->batch, -1, s->res[0]->elem);
    for (long b = 0; b < xs->batch; b++) out->planes[0][b] = xs->planes[s->slot][b * len + s->at];
    return out;
}

static Buf *eval_build(Eval *E, const IrStmt *s) {
    long batch = max_batch(E, s);
    const IrVal *r = s->res[0];
    int ns = r->elem->nslots;
    long len = 1L << r->log_len;
    Buf *out = buf_new(batch, r->log_len, r->elem);
    for (long i = 0; i < len; i++)
        for (int k = 0; k < ns; k++) {
            Buf *x = E->vals[s->args[i * ns + k]->id];
            for (long b = 0; b < batch; b++) out->planes[k][b * len + i] = at(x, b, batch);
        }
    return out;
}

static Buf *eval_replicate(Eval *E, const IrStmt *s, long batch) {
    const IrVal *r = s->res[0];
    long len = 1L << r->log_len;
    Buf *out = buf_new(batch, r->log_len, r->elem);
    for (int k = 0; k < r->elem->nslots; k++) {
        Buf *x = E->vals[s->args[k]->id];
        for (long b = 0; b < batch; b++) {
            Scalar v = at(x, b, batch);
            for (long i = 0; i < len; i++) out->planes[k][b * len + i] = v;
        }
    }
    return out;
}

/* half m b: element i with parity(i & m) = b goes to index i without bit
 * lsb(m), as parm m splits its argument. */
static Buf *eval_half(Eval *E, const IrStmt *s, long batch) {
    bool owned;
    Buf *xs = arg_at(E, s->args[0], batch, &owned);
    long len = buf_len(xs), half = len / 2;
    Buf *out = buf_new(batch, xs->log_len - 1, xs->elem);
    int low = lowest_bit(s->mask);
    for (long i = 0; i < len; i++) {
        if (__builtin_parityll((uint64_t)i & s->mask) != s->k) continue;
        long dst = (long)delete_bit((uint64_t)i, low);
        for (int k = 0; k < xs->elem->nslots; k++)
            for (long b = 0; b < batch; b++)
                out->planes[k][b * half + dst] = xs->planes[k][b * len + i];
    }
    if (owned) buf_free(xs);
    return out;
}

/* join m ys zs: element i is element "i without bit lsb(m)" of ys or zs, as
 * parity(i & m) says: the inverse of the two halves. */
static Buf *eval_join(Eval *E, const IrStmt *s, long batch) {
    bool owned[2];
    Buf *part[2] = {arg_at(E, s->args[0], batch, &owned[0]),
                    arg_at(E, s->args[1], batch, &owned[1])};
    long half = buf_len(part[0]), len = 2 * half;
    Buf *out = buf_new(batch, s->res[0]->log_len, s->res[0]->elem);
    int low = lowest_bit(s->mask);
    for (long i = 0; i < len; i++) {
        const Buf *from = part[__builtin_parityll((uint64_t)i & s->mask)];
        long src = (long)delete_bit((uint64_t)i, low);
        for (int k = 0; k < out->elem->nslots; k++)
            for (long b = 0; b < batch; b++)
                out->planes[k][b * len + i] = from->planes[k][b * half + src];
    }
    for (int a = 0; a < 2; a++)
        if (owned[a]) buf_free(part[a]);
    return out;
}

/* shift d of blocks of 2^k: element i of a block is the block's element
 * i - d when 0 <= i - d < 2^k, else the fill element (the statement's
 * first arguments, one per slot). */
static Buf *eval_shift(Eval *E, const IrStmt *s, long batch) {
    int ns = s->nargs - 1;
    bool owned;
    Buf *xs = arg_at(E, s->args[ns], batch, &owned);
    long len = buf_len(xs), block = 1L << s->k;
    Buf *out = buf_new(batch, xs->log_len, xs->elem);
    for (int k = 0; k < ns; k++) {
        const Buf *fill = E->vals[s->args[k]->id];
        for (long b = 0; b < batch; b++)
            for (long i = 0; i < len; i++) {
                /* |d| may be up to 2^63: compare before subtracting */
                long pos = i & (block - 1);
                bool inside = s->dist >= 0 ? s->dist <= pos : s->dist >= pos - block + 1;
                out->planes[k][b * len + i] = inside ? xs->planes[k][b * len + i - s->dist]
                                                     : at(fill, b, batch);
            }
    }
    if (owned) buf_free(xs);
    return out;
}

static Buf *eval_zip(Eval *E, const IrStmt *s, long batch) {
    Buf *out = buf_new(batch, s->res[0]->log_len, s->res[0]->elem);
    int slot = 0;
    for (int a = 0; a < s->nargs; a++) {
        bool owned;
        Buf *x = arg_at(E, s->args[a], batch, &owned);
        size_t count = (size_t)batch * (size_t)buf_len(x);
        for (int k = 0; k < x->elem->nslots; k++)
            memcpy(out->planes[slot++], x->planes[k], sizeof(Scalar) * count);
        if (owned) buf_free(x);
    }
    return out;
}

static void eval_unzip(Eval *E, const IrStmt *s, long batch, Buf **outs) {
    bool owned;
    Buf *x = arg_at(E, s->args[0], batch, &owned);
    size_t count = (size_t)batch * (size_t)buf_len(x);
    int slot = 0;
    for (int r = 0; r < s->nres; r++) {
        outs[r] = buf_new(batch, x->log_len, s->res[r]->elem);
        for (int k = 0; k < s->res[r]->elem->nslots; k++)
            memcpy(outs[r]->planes[k], x->planes[slot++], sizeof(Scalar) * count);
    }
    if (owned) buf_free(x);
}

static Buf *eval_array_stmt(Eval *E, const IrStmt *s, long batch) {
    bool owned;
    Buf *xs = arg_at(E, s->args[0], batch, &owned);
    Buf *out = NULL;
    switch (s->op) {
    case IR_PARM: out = eval_parm(E, s, xs); break;
    case IR_TWO: out = eval_two(E, s, xs, &owned); break;
    case IR_COL: out = eval_col(E, s, xs); break;
    case IR_BMMC: out = eval_bmmc(s, xs); break;
    case IR_MAP: out = eval_map(E, s, xs); break;
    default: break;
    }
    if (owned) buf_free(xs);
    return out;
}

typedef struct {
    Eval *E;
    bool pos;
} Defined;

static void mark_def(IrWalk *w, const IrBody *b, IrVal *v) {
    (void)b;
    Defined *d = w->ctx;
    d->E->mark[v->id] = d->E->epoch;
}

static bool note_pos(IrWalk *w, IrStmt *s) {
    Defined *d = w->ctx;
    d->pos |= s->op == IR_POS;
    return true;
}

/* Marks the values that b defines, at any depth, with the current epoch;
 * *pos when a position is among them. */
static void mark_defined(Eval *E, const IrBody *b, bool *pos) {
    Defined d = {E, false};
    IrWalk w = {.stmt = note_pos, .def = mark_def, .ctx = &d};
    ir_walk(&w, b);
    *pos |= d.pos;
}

static void widen_batch(const Eval *E, const IrVal *v, long *batch) {
    if (E->mark[v->id] != E->epoch && E->vals[v->id]->batch > *batch)
        *batch = E->vals[v->id]->batch;
}

typedef struct {
    const Eval *E;
    long *batch;
} Widest;

static void widen_read(IrWalk *w, IrVal **v) {
    Widest *wide = w->ctx;
    widen_batch(wide->E, *v, wide->batch);
}

/* The widest batch among the values b reads from outside it. */
static void widest_read(const Eval *E, const IrBody *b, long *batch) {
    Widest wide = {E, batch};
    IrWalk w = {.read = widen_read, .ctx = &wide};
    ir_walk(&w, b);
}

/* The instances s runs for: those of the widest value it reads, in its
 * arguments or its body, rather than all `batch` of the current body. Work
 * that reads only values of enclosing bodies (a reduce of an entry's array
 * inside a map) then runs once per instance of theirs, not once per element
 * at the cost of time and memory in the square of the array; its readers
 * broadcast it like any value of an enclosing body. A position varies with
 * every instance of the current body. */
static long stmt_batch(Eval *E, const IrStmt *s, long batch) {
    if (s->op == IR_POS) return batch;
    long widest = 1;
    E->epoch++; /* nothing is marked: the arguments are all from outside s */
    for (int a = 0; a < s->nargs; a++) widen_batch(E, s->args[a], &widest);
    if (s->body) {
        bool pos = false;
        mark_defined(E, s->body, &pos);
        if (pos) return batch;
        widest_read(E, s->body, &widest);
    }
    return widest;
}

static void eval_stmt(Eval *E, const IrStmt *s, long batch) {
    batch = stmt_batch(E, s, batch);
    Buf *single[1] = {NULL};
    Buf **outs = single;
    if (s->nres > 1) outs = xcalloc((size_t)s->nres, sizeof(Buf *));
    switch (s->op) {
    case IR_CONST:
    case IR_UNARY:
    case IR_BINARY:
    case IR_TERNARY:
    case IR_SELECT:
    case IR_CONVERT: outs[0] = eval_scalar(E, s); break;
    case IR_INDEX: outs[0] = eval_index(E, s); break;
    case IR_POS: outs[0] = eval_pos(E, s, batch); break;
    case IR_TABLE: outs[0] = eval_table(E, s); break;
    case IR_BUILD: outs[0] = eval_build(E, s); break;
    case IR_REPLICATE: outs[0] = eval_replicate(E, s, batch); break;
    case IR_ZIP: outs[0] = eval_zip(E, s, batch); break;
    case IR_HALF: outs[0] = eval_half(E, s, batch); break;
    case IR_JOIN: outs[0] = eval_join(E, s, batch); break;
    case IR_SHIFT: outs[0] = eval_shift(E, s, batch); break;
    case IR_UNZIP: eval_unzip(E, s, batch, outs); break;
    case IR_REDUCE: eval_reduce(E, s, batch, outs); break;
    case IR_REDUCEBLOCKS: outs[0] = eval_reduceblocks(E, s, batch); break;
    case IR_EXPAND: outs[0] = eval_expand(E, s, batch); break;
    case IR_SCAN: outs[0] = eval_scan(E, s, batch); break;
    default: outs[0] = eval_array_stmt(E, s, batch); break;
    }
    for (int a = 0; a < s->nargs; a++) release(E, s->args[a]);
    if (s->body) each_read(E, s->body, release);
    for (int r = 0; r < s->nres; r++) bind(E, s->res[r], outs[r]);
    if (outs != single) free(outs);
}

Buf **ir_eval_func(const IrProgram *p, const IrFunc *f, Buf **inputs) {
    size_t nvals = (size_t)p->next_id;
    Eval E = {.vals = xcalloc(nvals, sizeof(Buf *)),
              .uses = xcalloc(nvals, sizeof(int)),
              .home = xcalloc(nvals, sizeof(IrBody *)),
              .coord = {0, -1},
              .mark = xcalloc(nvals, sizeof(unsigned))};
    mark_homes(&E, f->body);
    begin_body(&E, f->body);
    /* The caller owns the inputs: one more read keeps them from being freed,
       and take() copies an input returned unchanged. */
    for (int i = 0; i < f->body->nparams; i++) E.uses[f->body->params[i]->id]++;
    run_stmts(&E, f->body, 1, inputs);
    Buf **out = xcalloc((size_t)f->body->nresults + 1, sizeof(Buf *));
    take_results(&E, f->body, 1, out);
    pool_drain();
    free(E.vals);
    free(E.uses);
    free(E.home);
    free(E.mark);
    return out;
}
