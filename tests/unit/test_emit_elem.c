/* test_emit_elem.c: checks compiler/back/emit_elem.c and runtime/parm_ops.h.
 *
 * Built by `make build/unit/test_emit_elem` (sanitizers on); run it from the
 * repository root, it needs runtime/parm_ops.h.
 *
 * Element bodies are built by hand: for every primitive type, a body applying
 * every operator and built-in function (abs, exp, atan2, pow, fma, ...) it
 * accepts, every conversion, a select and operators with
 * constant operands; a body returning edge-case constants of every type
 * (NaN payloads, infinities, -0, denormals, INT64_MIN, UINT64_MAX); the
 * comparators of a sort (i32 and a (u32, i32) tuple), an f32 butterfly,
 * products feeding sums (where a fused multiply-add would change the bits),
 * bmmc permutations of small arrays of tuples, dead statements, and random
 * bodies mixing all the supported forms. Each body is emitted into one C
 * program with a driver that reads input bits and prints output bits; the
 * program is compiled with $CC (default cc) under -Wall -Wextra -Werror, in
 * ISO mode and again in GNU mode with -ffp-contract=fast (and -mfma where the
 * CPU has FMA), run on thousands of random and edge-case inputs per body,
 * and every output must equal, bit for bit, the reference interpreter
 * (ir_eval_func, i.e. scalar_unary/binary/ternary/convert) on the same
 * inputs. The emitted text of a comparator is compared with the expected
 * text, unsupported forms must stop with an internal error, and when nvcc is
 * on the PATH the same program is compiled as CUDA (host and device).
 *
 * PARM_TEST_KEEP=DIR keeps the program, its input and the expected output
 * in DIR (the program also builds with nvcc into a GPU driver: run it on the
 * input and compare: every bit must match, NaNs included, as tests/gpu/run.sh
 * does).
 *
 * Prints failures and finally "emit_elem: N passed, M failed"; exits 1 on
 * any failure. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "emit_elem.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "diag.h"
#include "ir_eval.h"

/* ---- deterministic random numbers (splitmix64, fixed seed) ---- */

static uint64_t rng_state = 0x5eed0e1e3e17c0deu;

static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int rnd_below(int n) { return (int)(rnd() % (uint64_t)n); }

/* ---- scalars and their bits ---- */

static Scalar f32_scalar(float f) {
    Scalar s = {.u = 0};
    s.f32 = f;
    return s;
}

static Scalar f64_scalar(double f) {
    Scalar s = {.u = 0};
    s.f64 = f;
    return s;
}

/* The bits of a canonical scalar as the C program holds them. */
static uint64_t bits_of(Prim p, Scalar v) {
    if (p == PRIM_F32) {
        uint32_t u;
        memcpy(&u, &v.f32, sizeof u);
        return u;
    }
    if (p == PRIM_F64 || prim_bits(p) == 64) return v.u;
    return v.u & ((UINT64_C(1) << prim_bits(p)) - 1);
}

static Scalar scalar_of_bits(Prim p, uint64_t bits) {
    Scalar v = {.u = 0};
    if (p == PRIM_F32) {
        uint32_t u = (uint32_t)bits;
        memcpy(&v.f32, &u, sizeof u);
        return v;
    }
    v.u = bits;
    return prim_is_float(p) ? v : scalar_wrap(p, v);
}

/* Interesting values of each type: bounds, their neighbours, and for floats
 * the values around every conversion bound, infinities, NaNs, denormals. */
static int edge_values(Prim p, Scalar *out) {
    int n = 0;
    if (p == PRIM_BOOL) {
        out[n++].u = 0;
        out[n++].u = 1;
        return n;
    }
    if (!prim_is_float(p)) {
        int bits = prim_bits(p);
        int64_t min = bits == 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1));
        int64_t max = bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1;
        int64_t vals[] = {0,
                          1,
                          -1,
                          2,
                          -2,
                          3,
                          -3,
                          7,
                          -7,
                          min,
                          max,
                          min + 1,
                          max - 1,
                          min / 2,
                          max / 2,
                          bits - 1,
                          bits,
                          bits + 1,
                          2 * bits,
                          -bits,
                          63,
                          64,
                          65,
                          100,
                          -100,
                          255,
                          256,
                          -128,
                          -129,
                          65535,
                          65536,
                          (int64_t)UINT32_MAX,
                          INT64_C(1) << 32};
        for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
            out[n++] = scalar_from_int(p, vals[i]);
        return n;
    }
    double bounds[] = {1,
                       128,
                       256,
                       32768,
                       65536,
                       2147483648.0,
                       4294967296.0,
                       9223372036854775808.0,
                       18446744073709551616.0};
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++)
        for (int sign = -1; sign <= 1; sign += 2) {
            double b = sign * bounds[i];
            if (p == PRIM_F32) {
                out[n++] = f32_scalar((float)b);
                out[n++] = f32_scalar(nextafterf((float)b, 0));
                out[n++] = f32_scalar(nextafterf((float)b, (float)(2 * b)));
            } else {
                out[n++] = f64_scalar(b);
                out[n++] = f64_scalar(nextafter(b, 0));
                out[n++] = f64_scalar(nextafter(b, 2 * b));
            }
        }
    double more[] = {0.0,   -0.0, 0.5,      -0.5, 1.5,   -1.5,  2.5,      -2.5,      127.5, -128.5,
                     255.5, 0.1,  -1.0 / 3, 1e30, -1e30, 1e300, INFINITY, -INFINITY, NAN,   -NAN};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        out[n++] = p == PRIM_F32 ? f32_scalar((float)more[i]) : f64_scalar(more[i]);
    if (p == PRIM_F32) {
        uint32_t raw[] = {0x7fc00001u, 0xffc12345u, 0x00000001u, 0x80000001u,
                          0x007fffffu, 0x00800000u, 0x7f7fffffu, 0xff7fffffu};
        for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++)
            out[n++] = scalar_of_bits(p, raw[i]);
    } else {
        uint64_t raw[] = {0x7ff8000000000001u, 0xfff8000000abcdefu, 1,
                          0x8000000000000001u, 0x000fffffffffffffu, 0x0010000000000000u,
                          0x7fefffffffffffffu, 0x4340000000000001u};
        for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++)
            out[n++] = scalar_of_bits(p, raw[i]);
    }
    return n;
}

#define MAX_EDGES 96

static Scalar edge_value(Prim p) {
    Scalar e[MAX_EDGES];
    return e[rnd_below(edge_values(p, e))];
}

static Scalar random_value(Prim p) {
    int kind = rnd_below(8);
    if (p == PRIM_BOOL) return scalar_of_bits(p, rnd() & 1);
    if (kind < 2) return edge_value(p);
    if (!prim_is_float(p)) {
        if (kind < 4) return scalar_from_int(p, rnd_below(601) - 300);
        return scalar_of_bits(p, rnd());
    }
    if (kind < 4) return scalar_of_bits(p, rnd()); /* any bits: NaN payloads, denormals */
    /* moderate magnitudes, where sums and products round */
    double m = ldexp((double)(rnd() >> 11) / 9007199254740992.0 + 0.5, rnd_below(90) - 20);
    if (rnd() & 1) m = -m;
    return p == PRIM_F32 ? f32_scalar((float)m) : f64_scalar(m);
}

/* A value fit for a literal: a signalling NaN is made quiet (compilers may
 * fold operations on a constant sNaN without the run-time quieting). */
static Scalar random_const(Prim p) {
    Scalar v = random_value(p);
    if (p == PRIM_F32 && isnan(v.f32)) v.u |= 0x00400000u;
    if (p == PRIM_F64 && isnan(v.f64)) v.u |= UINT64_C(0x0008000000000000);
    return v;
}

/* ---- building IR ---- */

static Arena arena;
static IrProgram prog = {.arena = &arena};

static bool accepts(Op op, Prim p, bool unary) {
    bool is_bool = p == PRIM_BOOL, is_float = prim_is_float(p);
    if (unary) return (op == OP_NEG && !is_bool) || (op == OP_NOT && is_bool);
    switch (op) {
    case OP_AND:
    case OP_OR: return is_bool;
    case OP_EQ:
    case OP_NE: return true;
    case OP_BAND:
    case OP_BOR:
    case OP_XOR: return !is_float;
    case OP_SHL:
    case OP_SHR:
    case OP_MOD: return !is_float && !is_bool;
    case OP_POW: return false;
    default: return !is_bool;
    }
}

static bool is_comparison(Op op) { return op >= OP_EQ && op <= OP_GE; }

static const Op binary_ops[] = {OP_ADD, OP_SUB,  OP_MUL, OP_DIV, OP_MOD, OP_SHL,
                                OP_SHR, OP_BAND, OP_BOR, OP_XOR, OP_EQ,  OP_NE,
                                OP_LT,  OP_LE,   OP_GT,  OP_GE,  OP_AND, OP_OR};
#define NBINARY ((int)(sizeof binary_ops / sizeof binary_ops[0]))

static IrStmt *new_stmt(IrProgram *p, IrBody *b, IrOp op, int nargs, IrVal **args) {
    return ir_append(p, b, op, (Loc){0}, nargs, args);
}

static IrVal *mk_const(IrProgram *p, IrBody *b, Prim t, Scalar v) {
    IrStmt *s = new_stmt(p, b, IR_CONST, 0, NULL);
    s->cval = v;
    return ir_add_result(p, s, -1, elem_prim(t));
}

static IrVal *mk_unary(IrProgram *p, IrBody *b, Op op, IrVal *x) {
    IrStmt *s = new_stmt(p, b, IR_UNARY, 1, &x);
    s->alu = op;
    return ir_add_result(p, s, -1, x->elem);
}

static IrVal *mk_binary(IrProgram *p, IrBody *b, Op op, IrVal *x, IrVal *y) {
    IrVal *args[2] = {x, y};
    IrStmt *s = new_stmt(p, b, IR_BINARY, 2, args);
    s->alu = op;
    return ir_add_result(p, s, -1, is_comparison(op) ? elem_prim(PRIM_BOOL) : x->elem);
}

/* A built-in function of ast.h's table on its arity's first args. */
static IrVal *mk_function(IrProgram *p, IrBody *b, Op op, IrVal **args) {
    int n = op_info(op)->arity;
    IrStmt *s = new_stmt(p, b, n == 1 ? IR_UNARY : n == 2 ? IR_BINARY : IR_TERNARY, n, args);
    s->alu = op;
    return ir_add_result(p, s, -1, args[0]->elem);
}

static IrVal *mk_select(IrProgram *p, IrBody *b, IrVal *c, IrVal *x, IrVal *y) {
    IrVal *args[3] = {c, x, y};
    return ir_add_result(p, new_stmt(p, b, IR_SELECT, 3, args), -1, x->elem);
}

static IrVal *mk_convert(IrProgram *p, IrBody *b, Prim to, IrVal *x) {
    IrStmt *s = new_stmt(p, b, IR_CONVERT, 1, &x);
    s->to = to;
    return ir_add_result(p, s, -1, elem_prim(to));
}

static IrVal *mk_index(IrProgram *p, IrBody *b, IrVal *xs, int index, int slot) {
    IrStmt *s = new_stmt(p, b, IR_INDEX, 1, &xs);
    s->at = index;
    s->slot = slot;
    return ir_add_result(p, s, -1, elem_prim(elem_slot_prim(xs->elem, slot)));
}

static IrVal *mk_build(IrProgram *p, IrBody *b, int nargs, IrVal **args, int log_len,
                       const ElemType *t) {
    return ir_add_result(p, new_stmt(p, b, IR_BUILD, nargs, args), log_len, t);
}

static IrVal *mk_bmmc(IrProgram *p, IrBody *b, IrVal *xs, const F2Mat *a, uint64_t c) {
    IrStmt *s = new_stmt(p, b, IR_BMMC, 1, &xs);
    s->mat = NEW(p->arena, F2Mat);
    *s->mat = *a;
    s->compl = c;
    return ir_add_result(p, s, xs->log_len, xs->elem);
}

static IrVal *param(IrBody *b, Prim t) { return ir_body_add_param(&prog, b, -1, elem_prim(t)); }
static void ret(IrBody *b, IrVal *v) { ir_body_add_result(&prog, b, v); }

static F2Mat random_invertible(int n) {
    F2Mat a;
    do {
        a = f2_zero(n);
        for (int i = 0; i < n; i++) a.row[i] = rnd() & f2_mask(n);
    } while (f2_rank(&a) < n);
    return a;
}

static const ElemType *tuple2(Prim a, Prim b) {
    const ElemType *f[2] = {elem_prim(a), elem_prim(b)};
    return elem_tuple(&arena, 2, f);
}

/* ---- test cases: a body, its slot types and its inputs ---- */

typedef struct {
    const char *name;
    IrBody *body;
    int nin, nout; /* flattened slots of the params and results */
    Prim in[1024], out[1024];
    long ninputs;
    uint64_t *inputs; /* ninputs × nin bits */
    uint64_t *expect; /* ninputs × nout bits, from the interpreter */
} Case;

#define MAX_CASES 128
static Case cases[MAX_CASES];
static int ncases;

static int slots_of(const IrVal *v, Prim *out) {
    int n = emit_elem_slots(v);
    for (int k = 0; k < n; k++) out[k] = elem_slot_prim(v->elem, k % v->elem->nslots);
    return n;
}

static Case *new_case(const char *name, IrBody *b) {
    if (ncases == MAX_CASES) abort();
    Case *c = &cases[ncases++];
    c->name = name;
    c->body = b;
    for (int i = 0; i < b->nparams; i++) c->nin += slots_of(b->params[i], c->in + c->nin);
    for (int i = 0; i < b->nresults; i++) c->nout += slots_of(b->results[i], c->out + c->nout);
    return c;
}

static void reserve_inputs(Case *c, long n) {
    c->inputs = calloc((size_t)(n * c->nin + 1), sizeof(uint64_t));
    c->ninputs = 0;
}

static uint64_t *next_input(Case *c) { return c->inputs + c->nin * c->ninputs++; }

/* Random inputs, each slot an edge value a quarter of the time. */
static void random_inputs(Case *c, long n) {
    reserve_inputs(c, n);
    for (long t = 0; t < n; t++) {
        uint64_t *in = next_input(c);
        for (int k = 0; k < c->nin; k++) in[k] = bits_of(c->in[k], random_value(c->in[k]));
    }
}

/* The reference: the interpreter on one input. */
static void reference(const Case *c, const uint64_t *in, uint64_t *expect) {
    IrBody *b = c->body;
    Buf **bufs = calloc((size_t)b->nparams + 1, sizeof(Buf *));
    int k = 0;
    for (int i = 0; i < b->nparams; i++) {
        const IrVal *v = b->params[i];
        bufs[i] = buf_new(1, v->log_len, v->elem);
        for (long e = 0; e < buf_len(bufs[i]); e++)
            for (int s = 0; s < v->elem->nslots; s++, k++)
                bufs[i]->planes[s][e] = scalar_of_bits(c->in[k], in[k]);
    }
    IrFunc f = {.name = c->name, .entry = c->name, .size_param = -1, .body = b};
    Buf **outs = ir_eval_func(&prog, &f, bufs);
    k = 0;
    for (int r = 0; r < b->nresults; r++) {
        for (long e = 0; e < buf_len(outs[r]); e++)
            for (int s = 0; s < outs[r]->elem->nslots; s++, k++)
                expect[k] = bits_of(c->out[k], outs[r]->planes[s][e]);
        buf_free(outs[r]);
    }
    free(outs);
    for (int i = 0; i < b->nparams; i++) buf_free(bufs[i]);
    free(bufs);
}

/* ---- the bodies ---- */

/* Every operator and conversion on one type: params a, b. */
static void add_ops_case(Prim p) {
    IrBody *b = ir_new_body(&prog);
    IrVal *x = param(b, p), *y = param(b, p);
    for (int i = 0; i < NBINARY; i++)
        if (accepts(binary_ops[i], p, false)) ret(b, mk_binary(&prog, b, binary_ops[i], x, y));
    if (accepts(OP_NEG, p, true)) ret(b, mk_unary(&prog, b, OP_NEG, x));
    if (accepts(OP_NOT, p, true)) ret(b, mk_unary(&prog, b, OP_NOT, x));
    /* the built-in functions (abs, floor, exp, atan2, pow, fma, ...): every
     * pair of edge values goes through the binary ones */
    for (int op = 0; op < OP_COUNT; op++) {
        IrVal *args[3] = {x, y, x};
        if (op_is_function((Op)op) && op_takes((Op)op, p))
            ret(b, mk_function(&prog, b, (Op)op, args));
    }
    for (int to = 0; to < PRIM_COUNT; to++) ret(b, mk_convert(&prog, b, (Prim)to, x));
    IrVal *c = p == PRIM_BOOL ? x : mk_binary(&prog, b, OP_LT, x, y);
    ret(b, mk_select(&prog, b, c, x, y));
    ret(b, mk_select(&prog, b, mk_binary(&prog, b, OP_EQ, x, y), y, x));
    /* operators with a constant operand, on either side */
    for (int i = 0; i < 4; i++) {
        Op op = binary_ops[rnd_below(NBINARY)];
        if (!accepts(op, p, false)) op = OP_EQ;
        IrVal *k = mk_const(&prog, b, p, random_const(p));
        ret(b, i & 1 ? mk_binary(&prog, b, op, k, x) : mk_binary(&prog, b, op, x, k));
    }
    Case *cs = new_case(prim_name(p), b);
    Scalar e[MAX_EDGES];
    int ne = edge_values(p, e);
    long nrandom = 3000;
    reserve_inputs(cs, ne * ne + nrandom);
    for (int i = 0; i < ne; i++)
        for (int j = 0; j < ne; j++) {
            uint64_t *in = next_input(cs);
            in[0] = bits_of(p, e[i]);
            in[1] = bits_of(p, e[j]);
        }
    for (long t = 0; t < nrandom; t++) {
        uint64_t *in = next_input(cs);
        in[0] = bits_of(p, random_value(p));
        in[1] = bits_of(p, random_value(p));
    }
}

/* Constants of every type, returned directly and used as operands. */
static void add_const_case(void) {
    IrBody *b = ir_new_body(&prog);
    for (int p = 0; p < PRIM_COUNT; p++) {
        Scalar e[MAX_EDGES];
        int ne = edge_values((Prim)p, e);
        for (int i = 0; i < ne; i++) ret(b, mk_const(&prog, b, (Prim)p, e[i]));
    }
    ret(b,
        mk_const(&prog, b, PRIM_F32, scalar_of_bits(PRIM_F32, 0x7f800001u))); /* signalling NaN */
    ret(b, mk_const(&prog, b, PRIM_F64, scalar_of_bits(PRIM_F64, 0xfff0000000000001u)));
    Case *c = new_case("constants", b);
    reserve_inputs(c, 1);
    next_input(c);
}

/* [a, b] -> if a <= b then [a, b] else [b, a], with a dead statement. */
static IrVal *comparator(IrProgram *p, IrBody *b, IrVal *xs) {
    int ns = xs->elem->nslots;
    IrVal *lo[8] = {NULL}, *hi[8] = {NULL}, *out[16];
    for (int k = 0; k < ns; k++) {
        lo[k] = mk_index(p, b, xs, 0, k);
        hi[k] = mk_index(p, b, xs, 1, k);
    }
    IrVal *le = mk_binary(p, b, OP_LE, lo[0], hi[0]);
    mk_binary(p, b, OP_SUB, lo[0], hi[0]); /* dead */
    for (int k = 0; k < ns; k++) {
        out[k] = mk_select(p, b, le, lo[k], hi[k]);
        out[ns + k] = mk_select(p, b, le, hi[k], lo[k]);
    }
    return mk_build(p, b, 2 * ns, out, 1, xs->elem);
}

static void add_structured_cases(void) {
    IrBody *b = ir_new_body(&prog);
    ret(b, comparator(&prog, b, ir_body_add_param(&prog, b, 1, elem_prim(PRIM_I32))));
    random_inputs(new_case("comparator i32", b), 3000);

    b = ir_new_body(&prog);
    ret(b, comparator(&prog, b, ir_body_add_param(&prog, b, 1, tuple2(PRIM_U32, PRIM_I32))));
    random_inputs(new_case("comparator (u32, i32)", b), 3000);

    b = ir_new_body(&prog);
    ret(b, comparator(&prog, b, ir_body_add_param(&prog, b, 1, tuple2(PRIM_F64, PRIM_U8))));
    random_inputs(new_case("comparator (f64, u8)", b), 3000);

    /* butterfly [a, b] -> [a + b, a - b] */
    b = ir_new_body(&prog);
    IrVal *xs = ir_body_add_param(&prog, b, 1, elem_prim(PRIM_F32));
    IrVal *u = mk_index(&prog, b, xs, 0, 0), *v = mk_index(&prog, b, xs, 1, 0);
    IrVal *bf[2] = {mk_binary(&prog, b, OP_ADD, u, v), mk_binary(&prog, b, OP_SUB, u, v)};
    ret(b, mk_build(&prog, b, 2, bf, 1, xs->elem));
    random_inputs(new_case("butterfly f32", b), 3000);

    /* products feeding sums: a * b + c, c - a * b, a * b - c, (a * b) * c + a */
    for (int t = 0; t < 2; t++) {
        Prim p = t ? PRIM_F64 : PRIM_F32;
        b = ir_new_body(&prog);
        IrVal *x = param(b, p), *y = param(b, p), *z = param(b, p);
        IrVal *xy = mk_binary(&prog, b, OP_MUL, x, y);
        ret(b, mk_binary(&prog, b, OP_ADD, xy, z));
        ret(b, mk_binary(&prog, b, OP_SUB, z, xy));
        ret(b, mk_binary(&prog, b, OP_SUB, xy, z));
        ret(b, mk_binary(&prog, b, OP_ADD, mk_binary(&prog, b, OP_MUL, xy, z), x));
        ret(b, mk_binary(&prog, b, OP_ADD, mk_unary(&prog, b, OP_NEG, xy), z));
        random_inputs(new_case(t ? "fma f64" : "fma f32", b), 4000);
    }

    /* bmmc on small arrays of tuples, results returned as arrays, indexed,
     * rebuilt and permuted again; parameters pass straight to results */
    for (int n = 0; n <= 4; n++) {
        b = ir_new_body(&prog);
        const ElemType *t = tuple2(n & 1 ? PRIM_I16 : PRIM_U64, PRIM_F32);
        IrVal *arr = ir_body_add_param(&prog, b, n, t);
        F2Mat a = random_invertible(n);
        IrVal *ys = mk_bmmc(&prog, b, arr, &a, rnd() & f2_mask(n));
        ret(b, ys);
        IrVal *e0 = mk_index(&prog, b, ys, 0, 1), *e1 = mk_index(&prog, b, ys, (1 << n) - 1, 1);
        ret(b, mk_binary(&prog, b, OP_ADD, e0, e1));
        int len = 1 << n;
        IrVal *parts[32];
        for (int i = 0; i < len; i++) {
            parts[2 * i] = mk_index(&prog, b, ys, len - 1 - i, 0);
            parts[2 * i + 1] = mk_index(&prog, b, arr, i, 1);
        }
        IrVal *zs = mk_build(&prog, b, 2 * len, parts, n, t);
        F2Mat a2 = random_invertible(n);
        ret(b, mk_bmmc(&prog, b, zs, &a2, rnd() & f2_mask(n)));
        ret(b, arr);
        random_inputs(new_case("bmmc", b), 500);
    }
}

/* A random body of every supported form. */
static void add_random_case(void) {
    IrBody *b = ir_new_body(&prog);
    IrVal *scal[256], *arr[64];
    int ns = 0, na = 0;
    for (int i = 0, n = 1 + rnd_below(4); i < n; i++) {
        if (rnd_below(3) == 0) {
            const ElemType *t = rnd_below(2) ? elem_prim((Prim)rnd_below(PRIM_COUNT))
                                             : tuple2((Prim)rnd_below(PRIM_COUNT),
                                                      (Prim)rnd_below(PRIM_COUNT));
            arr[na++] = ir_body_add_param(&prog, b, rnd_below(4), t);
        } else {
            scal[ns++] = param(b, (Prim)rnd_below(PRIM_COUNT));
        }
    }
    for (int step = 0, n = 10 + rnd_below(40); step < n && ns < 240 && na < 60; step++) {
        IrVal *x = ns ? scal[rnd_below(ns)] : NULL;
        Prim p = x ? x->elem->prim : PRIM_I32;
        IrVal *y = NULL;
        for (int tries = 0; x && tries < 8 && !y; tries++) {
            IrVal *cand = scal[rnd_below(ns)];
            if (cand->elem->prim == p) y = cand;
        }
        switch (rnd_below(10)) {
        case 0: {
            Prim t = (Prim)rnd_below(PRIM_COUNT);
            scal[ns++] = mk_const(&prog, b, t, random_const(t));
            break;
        }
        case 1:
            if (x) scal[ns++] = mk_unary(&prog, b, p == PRIM_BOOL ? OP_NOT : OP_NEG, x);
            break;
        case 2:
        case 3: {
            if (!x) break;
            if (!y) y = mk_const(&prog, b, p, random_const(p));
            Op op = binary_ops[rnd_below(NBINARY)];
            while (!accepts(op, p, false)) op = binary_ops[rnd_below(NBINARY)];
            scal[ns++] = mk_binary(&prog, b, op, x, y);
            break;
        }
        case 4: {
            if (!x) break;
            IrVal *c = NULL;
            for (int i = 0; i < ns && !c; i++)
                if (scal[(i + step) % ns]->elem->prim == PRIM_BOOL) c = scal[(i + step) % ns];
            if (!c) c = mk_binary(&prog, b, OP_NE, x, x);
            scal[ns++] = mk_select(&prog, b, c, x, y ? y : x);
            break;
        }
        case 5: {
            if (!x) break;
            Prim to = (Prim)rnd_below(PRIM_COUNT);
            if (to != p || !prim_is_float(p)) scal[ns++] = mk_convert(&prog, b, to, x);
            break;
        }
        case 6: {
            if (!x) break;
            IrVal *z = scal[rnd_below(ns)];
            const ElemType *t = rnd_below(2) ? x->elem : tuple2(p, z->elem->prim);
            int log_len = rnd_below(3), len = 1 << log_len, k = 0;
            IrVal *args[16];
            for (int i = 0; i < len; i++)
                for (int s = 0; s < t->nslots; s++) {
                    Prim want = elem_slot_prim(t, s);
                    IrVal *a = NULL;
                    for (int tries = 0; tries < 16 && !a; tries++) {
                        IrVal *cand = scal[rnd_below(ns)];
                        if (cand->elem->prim == want) a = cand;
                    }
                    args[k++] = a ? a : s == 0 ? x : z;
                }
            arr[na++] = mk_build(&prog, b, k, args, log_len, t);
            break;
        }
        case 7:
        case 8:
            if (na) {
                IrVal *xs = arr[rnd_below(na)];
                scal[ns++] = mk_index(&prog, b, xs, rnd_below(1 << xs->log_len),
                                      rnd_below(xs->elem->nslots));
            }
            break;
        case 9:
            if (na) {
                IrVal *xs = arr[rnd_below(na)];
                F2Mat a = random_invertible(xs->log_len);
                arr[na++] = mk_bmmc(&prog, b, xs, &a, rnd() & f2_mask(xs->log_len));
            }
            break;
        }
    }
    for (int i = 0, n = 1 + rnd_below(6); i < n; i++) {
        if (na && rnd_below(4) == 0) ret(b, arr[na - 1 - rnd_below(na < 3 ? na : 3)]);
        else if (ns) ret(b, scal[ns - 1 - rnd_below(ns < 8 ? ns : 8)]);
    }
    if (b->nresults == 0) ret(b, na ? arr[0] : scal[0]);
    random_inputs(new_case("random", b), 300);
}

/* ---- the C program ---- */

static void emit_program(FILE *f) {
    fputs("#include <inttypes.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
          "#include \"parm_ops.h\"\n\n"
          "#define LDST(t, T, U)                                                   \\\n"
          "    PARM_FN T ld_##t(uint64_t b)                                        \\\n"
          "    {                                                                   \\\n"
          "        U u = (U)b;                                                     \\\n"
          "        T v;                                                            \\\n"
          "        memcpy(&v, &u, sizeof v);                                       \\\n"
          "        return v;                                                       \\\n"
          "    }                                                                   \\\n"
          "    PARM_FN uint64_t st_##t(T v)                                        \\\n"
          "    {                                                                   \\\n"
          "        U u;                                                            \\\n"
          "        memcpy(&u, &v, sizeof u);                                       \\\n"
          "        return u;                                                       \\\n"
          "    }\n",
          f);
    for (int p = 0; p < PRIM_COUNT; p++) {
        int bits = prim_bits((Prim)p);
        fprintf(f, "LDST(%s, %s, uint%d_t)\n", prim_name((Prim)p), prim_ctype((Prim)p), bits);
    }
    for (int i = 0; i < ncases; i++) {
        const Case *c = &cases[i];
        fprintf(
            f,
            "\n/* %s */\nPARM_FN void body_%d(const uint64_t *in, uint64_t *out)\n{\n    (void)in;\n",
            c->name, i);
        /* three spellings of parameters and results: plain names, struct
         * members, and expressions that need parentheses */
        int style = c->nin ? i % 3 : 0;
        const char **pe = calloc((size_t)c->nin + 1, sizeof(char *));
        const char **re = calloc((size_t)c->nout + 1, sizeof(char *));
        char *names = calloc((size_t)(c->nin + c->nout + 1), 24);
        if (style) {
            fputs("    struct {\n", f);
            for (int k = 0; k < c->nin; k++)
                fprintf(f, "        %s s%d;\n", prim_ctype(c->in[k]), k);
            fputs("    } pa;\n", f);
            for (int k = 0; k < c->nin; k++)
                fprintf(f, "    pa.s%d = ld_%s(in[%d]);\n", k, prim_name(c->in[k]), k);
            fputs("    struct {\n", f);
            for (int k = 0; k < c->nout; k++)
                fprintf(f, "        %s s%d;\n", prim_ctype(c->out[k]), k);
            fputs("    } ra;\n", f);
        } else {
            for (int k = 0; k < c->nin; k++)
                fprintf(f, "    const %s p%d = ld_%s(in[%d]);\n    (void)p%d;\n",
                        prim_ctype(c->in[k]), k, prim_name(c->in[k]), k, k);
            for (int k = 0; k < c->nout; k++) fprintf(f, "    %s r%d;\n", prim_ctype(c->out[k]), k);
        }
        for (int k = 0; k < c->nin; k++) {
            char *s = names + 24 * k;
            snprintf(s, 24, style == 0 ? "p%d" : style == 1 ? "pa.s%d" : "*&pa.s%d", k);
            pe[k] = s;
        }
        for (int k = 0; k < c->nout; k++) {
            char *s = names + 24 * (c->nin + k);
            snprintf(s, 24, style ? "ra.s%d" : "r%d", k);
            re[k] = s;
        }
        emit_elem_body(f, c->body, pe, re, "v", 4, NULL);
        for (int k = 0; k < c->nout; k++)
            fprintf(f, "    out[%d] = st_%s(%s);\n", k, prim_name(c->out[k]), re[k]);
        fputs("}\n", f);
        free(pe);
        free(re);
        free(names);
    }
    /* The driver: per body, a count and then that many lines of input bits;
     * prints one line of output bits per input. As CUDA, the bodies run on
     * the GPU, one thread per input. */
    fputs("\n#ifdef __CUDACC__\n", f);
    for (int i = 0; i < ncases; i++)
        fprintf(f,
                "__global__ void kernel_%d(const uint64_t *in, uint64_t *out, long n)\n{\n"
                "    long t = (long)blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (t < n) body_%d(in + t * %d, out + t * %d);\n}\n",
                i, i, cases[i].nin, cases[i].nout);
    fputs(
        "#define RUN(i, nin, nout)                                                   \\\n"
        "    {                                                                       \\\n"
        "        uint64_t *din, *dout;                                               \\\n"
        "        cudaMalloc((void **)&din, sizeof(uint64_t) * (size_t)(n * nin + 1));  \\\n"
        "        cudaMalloc((void **)&dout, sizeof(uint64_t) * (size_t)(n * nout + 1)); \\\n"
        "        cudaMemcpy(din, in, sizeof(uint64_t) * (size_t)(n * nin + 1), cudaMemcpyHostToDevice); \\\n"
        "        kernel_##i<<<(unsigned)((n + 127) / 128 + 1), 128>>>(din, dout, n);  \\\n"
        "        cudaMemcpy(out, dout, sizeof(uint64_t) * (size_t)(n * nout + 1), cudaMemcpyDeviceToHost); \\\n"
        "        if (cudaDeviceSynchronize() != cudaSuccess) return 3;               \\\n"
        "        cudaFree(din);                                                      \\\n"
        "        cudaFree(dout);                                                     \\\n"
        "    }\n"
        "#else\n"
        "#define RUN(i, nin, nout)                                                   \\\n"
        "    for (long t = 0; t < n; t++) body_##i(in + t * nin, out + t * nout);\n"
        "#endif\n\n"
        "#define CASE(i, nin, nout)                                                  \\\n"
        "    {                                                                       \\\n"
        "        long n;                                                             \\\n"
        "        if (scanf(\"%ld\", &n) != 1) return 2;                               \\\n"
        "        uint64_t *in = (uint64_t *)calloc((size_t)(n * nin + 1), sizeof(uint64_t));   \\\n"
        "        uint64_t *out = (uint64_t *)calloc((size_t)(n * nout + 1), sizeof(uint64_t)); \\\n"
        "        for (long k = 0; k < n * nin; k++)                                  \\\n"
        "            if (scanf(\"%\" SCNx64, &in[k]) != 1) return 2;                  \\\n"
        "        RUN(i, nin, nout)                                                   \\\n"
        "        for (long t = 0; t < n; t++)                                        \\\n"
        "            for (long k = 0; k < nout; k++)                                 \\\n"
        "                printf(\"%\" PRIx64 \"%c\", out[t * nout + k], k + 1 < nout ? ' ' : '\\n'); \\\n"
        "        free(in);                                                           \\\n"
        "        free(out);                                                          \\\n"
        "    }\n\n"
        "int main(void)\n{\n",
        f);
    for (int i = 0; i < ncases; i++)
        fprintf(f, "    CASE(%d, %d, %d)\n", i, cases[i].nin, cases[i].nout);
    fputs("    return 0;\n}\n", f);
}

static void write_inputs(FILE *f) {
    for (int i = 0; i < ncases; i++) {
        const Case *c = &cases[i];
        fprintf(f, "%ld\n", c->ninputs);
        for (long t = 0; t < c->ninputs; t++)
            for (int k = 0; k < c->nin; k++)
                fprintf(f, "%" PRIx64 "%c", c->inputs[t * c->nin + k], k + 1 < c->nin ? ' ' : '\n');
    }
}

static void write_expected(FILE *f) {
    for (int i = 0; i < ncases; i++) {
        const Case *c = &cases[i];
        for (long t = 0; t < c->ninputs; t++)
            for (int k = 0; k < c->nout; k++)
                fprintf(f, "%" PRIx64 "%c", c->expect[t * c->nout + k],
                        k + 1 < c->nout ? ' ' : '\n');
    }
}

static bool is_nan_bits(Prim p, uint64_t bits) {
    Scalar v = scalar_of_bits(p, bits);
    return (p == PRIM_F32 && isnan(v.f32)) || (p == PRIM_F64 && isnan(v.f64));
}

static char tmpdir[256];

static const char *tmp_path(const char *name) {
    static char buf[4][512];
    static int next;
    char *b = buf[next++ & 3];
    snprintf(b, 512, "%s/%s", tmpdir, name);
    return b;
}

static int shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int shell(const char *fmt, ...) {
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    fflush(stdout);
    return system(cmd);
}

/* Compile the program with the given flags, run it and compare every output. */
static void run_program(const char *cc, const char *flags) {
    unlink(tmp_path("out.txt"));
    int rc = shell("%s %s -Wall -Wextra -Werror -Iruntime %s -o %s -lm", cc, flags,
                   tmp_path("prog.c"), tmp_path("prog"));
    check(rc == 0, "compiling the emitted program with %s %s", cc, flags);
    if (rc != 0) return;
    rc = shell("%s <%s >%s", tmp_path("prog"), tmp_path("in.txt"), tmp_path("out.txt"));
    check(rc == 0, "running the program built with %s", flags);
    if (rc != 0) return;
    FILE *f = fopen(tmp_path("out.txt"), "r");
    if (!f) return;
    for (int i = 0; i < ncases; i++) {
        const Case *c = &cases[i];
        long bad = 0;
        for (long t = 0; t < c->ninputs; t++)
            for (int k = 0; k < c->nout; k++) {
                uint64_t got = 0, want = c->expect[t * c->nout + k];
                if (fscanf(f, "%" SCNx64, &got) != 1) got = ~want;
                if (got == want) continue;
                if (bad++ < 3) {
                    printf("  %s (body %d) %s: input %ld:", c->name, i, flags, t);
                    for (int j = 0; j < c->nin; j++)
                        printf(" %s:%" PRIx64, prim_name(c->in[j]), c->inputs[t * c->nin + j]);
                    printf("\n    result slot %d (%s): got %" PRIx64 ", interpreter %" PRIx64 "\n",
                           k, prim_name(c->out[k]), got, want);
                }
            }
        check(bad == 0, "%s (body %d), built with %s: %ld of %ld outputs differ", c->name, i, flags,
              bad, c->ninputs * c->nout);
    }
    fclose(f);
}

/* ---- the emitted text and internal errors ---- */

static char *emit_to_string(const IrBody *b, const char *const *params, const char *const *results,
                            int indent) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    emit_elem_body(f, b, params, results, "e", indent, NULL);
    fclose(f);
    return buf;
}

static void test_text(void) {
    Arena a = {0};
    IrProgram p = {.arena = &a};
    IrBody *b = ir_new_body(&p);
    IrVal *xs = ir_body_add_param(&p, b, 1, elem_prim(PRIM_I32)); /* %0 */
    ir_body_add_result(&p, b, comparator(&p, b, xs)); /* %1 %2 index, %3 le, %4 sub, %5 %6 select */
    const char *params[] = {"x[0]", "x[1]"}, *results[] = {"y[0]", "y[1]"};
    char *text = emit_to_string(b, params, results, 4);
    const char *want = "    const uint8_t e3 = parm_le_i32(x[0], x[1]);\n"
                       "    const int32_t e5 = e3 ? x[0] : x[1];\n"
                       "    const int32_t e6 = e3 ? x[1] : x[0];\n"
                       "    y[0] = e5;\n"
                       "    y[1] = e6;\n";
    check(strcmp(text, want) == 0, "comparator text:\n%s\nexpected:\n%s", text, want);
    free(text);

    /* parameters that are not postfix expressions get parentheses; constants */
    b = ir_new_body(&p);
    IrVal *u = ir_body_add_param(&p, b, -1, elem_prim(PRIM_U64));
    IrVal *v = ir_body_add_param(&p, b, -1, elem_prim(PRIM_U64));
    IrVal *k = mk_const(&p, b, PRIM_I64, (Scalar){.i = INT64_MIN});
    ir_body_add_result(&p, b, mk_binary(&p, b, OP_SHR, u, v));
    ir_body_add_result(&p, b, k);
    ir_body_add_result(&p, b, mk_const(&p, b, PRIM_U64, (Scalar){.u = UINT64_MAX}));
    ir_body_add_result(&p, b, mk_const(&p, b, PRIM_F32, f32_scalar(-3.0f)));
    ir_body_add_result(&p, b, mk_const(&p, b, PRIM_F64, f64_scalar(-INFINITY)));
    ir_body_add_result(&p, b, mk_const(&p, b, PRIM_I8, scalar_from_int(PRIM_I8, -5)));
    ir_body_add_result(&p, b, mk_convert(&p, b, PRIM_F32, u));
    ir_body_add_result(&p, b, u);
    const char *params2[] = {"a + 1", "s->b[i + 1].c"};
    const char *results2[] = {"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"};
    text = emit_to_string(b, params2, results2, 2);
    /* statements print in body order: the constant %10 comes first */
    want = "  const int64_t e10 = (int64_t)(-9223372036854775807 - 1);\n"
           "  const uint64_t e11 = parm_shr_u64((a + 1), s->b[i + 1].c);\n"
           "  const uint64_t e12 = (uint64_t)18446744073709551615ull;\n"
           "  const float e13 = -0x1.8p+1f;\n"
           "  const double e14 = parm_f64_from_bits(0xfff0000000000000ull);\n"
           "  const int8_t e15 = (int8_t)-5;\n"
           "  const float e16 = parm_cvt_f32_u64((a + 1));\n"
           "  r0 = e11;\n  r1 = e10;\n  r2 = e12;\n  r3 = e13;\n  r4 = e14;\n  r5 = e15;\n"
           "  r6 = e16;\n  r7 = (a + 1);\n";
    check(strcmp(text, want) == 0, "literal text:\n%s\nexpected:\n%s", text, want);
    free(text);

    IrVal *tuple_arr = ir_body_add_param(&p, ir_new_body(&p), 3, tuple2(PRIM_U32, PRIM_I32));
    check(emit_elem_slots(tuple_arr) == 16, "emit_elem_slots of [2^3](u32, i32)");
    check(emit_elem_slots(u) == 1, "emit_elem_slots of a scalar");
    arena_free(&a);
}

/* emit_elem_body must stop with an internal error mentioning `what`. */
static void expect_fatal(IrBody *b, const char *what, const char *label) {
    static const char *names[64] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    for (int i = 8; i < 64; i++) names[i] = "z";
    jmp_buf jb;
    char *err = NULL, *out = NULL;
    size_t errlen = 0, outlen = 0;
    FILE *ferr = open_memstream(&err, &errlen), *fout = open_memstream(&out, &outlen);
    volatile bool stopped = false;
    diag_set_stream(ferr);
    diag_handler = &jb;
    if (setjmp(jb) == 0) emit_elem_body(fout, b, names, names, "v", 4, NULL);
    else stopped = true;
    diag_handler = NULL;
    diag_set_stream(NULL);
    fclose(ferr);
    fclose(fout);
    check(stopped && strstr(err, "internal error") && strstr(err, what),
          "%s: expected an internal error about '%s', got '%s'", label, what, err);
    free(err);
    free(out);
}

/* An entry's run-time scalar parameter, read by a body as parm_arg<id>. */
static void test_entry_args(void) {
    IrBody *entry = ir_new_body(&prog);
    IrVal *s = ir_body_add_param(&prog, entry, -1, elem_prim(PRIM_I32));
    IrBody *b = ir_new_body(&prog);
    IrVal *x = param(b, PRIM_I32);
    ret(b, mk_binary(&prog, b, OP_MUL, x, s));
    static const char *const params[] = {"in"}, *const results[] = {"out"};
    char *text = emit_to_string(b, params, results, 0);
    char want[64];
    snprintf(want, sizeof want, "parm_mul_i32(in, parm_arg%d)", s->id);
    check(strstr(text, want) != NULL, "an entry's scalar parameter: expected '%s' in '%s'", want,
          text);
    free(text);
}

static void test_fatal(void) {
    Arena a = {0};
    IrProgram p = {.arena = &a};

    IrBody *b = ir_new_body(&p);
    IrVal *xs = ir_body_add_param(&p, b, 1, elem_prim(PRIM_I32));
    IrStmt *s = new_stmt(&p, b, IR_PARM, 1, &xs);
    s->body = ir_new_body(&p);
    ir_body_add_result(&p, s->body, ir_body_add_param(&p, s->body, -1, elem_prim(PRIM_I32)));
    ir_body_add_result(&p, b, ir_add_result(&p, s, 1, elem_prim(PRIM_I32)));
    expect_fatal(b, "nested", "parm in an element body (normalisation makes it bmmc and two)");

    b = ir_new_body(&p);
    xs = ir_body_add_param(&p, b, 1, elem_prim(PRIM_I32));
    IrVal *ys = ir_body_add_param(&p, b, 2, elem_prim(PRIM_I32));
    IrVal *zip[2] = {xs, ys};
    ir_body_add_result(&p, b,
                       ir_add_result(&p, new_stmt(&p, b, IR_ZIP, 2, zip), 1,
                                     tuple2(PRIM_I32, PRIM_I32)));
    expect_fatal(b, "does not fit", "zip of arrays of different lengths");

    /* a scalar statement's value of the entry's level (an entry graph's
       constant or device scalar) is read as parm_arg<id>, like an entry's
       scalar parameter (test_entry_args), as an operand and as a result */
    IrBody *outer = ir_new_body(&p);
    IrVal *o = mk_const(&p, outer, PRIM_I32, (Scalar){.i = 3});
    char want[64];
    snprintf(want, sizeof want, "parm_arg%d", o->id);
    for (int as_result = 0; as_result < 2; as_result++) {
        b = ir_new_body(&p);
        IrVal *x = ir_body_add_param(&p, b, -1, elem_prim(PRIM_I32));
        ir_body_add_result(&p, b, as_result ? o : mk_binary(&p, b, OP_ADD, x, o));
        static const char *const params[] = {"in"}, *const results[] = {"out"};
        char *text = emit_to_string(b, params, results, 0);
        check(strstr(text, want) != NULL, "a scalar of the entry's level: expected '%s' in '%s'",
              want, text);
        free(text);
    }
    IrVal *x;

    /* an array parameter of the body around is no entry argument either */
    IrVal *os = ir_body_add_param(&p, outer, 1, elem_prim(PRIM_I32));
    b = ir_new_body(&p);
    x = ir_body_add_param(&p, b, -1, elem_prim(PRIM_I32));
    ir_body_add_result(&p, b, mk_binary(&p, b, OP_ADD, x, mk_index(&p, b, os, 0, 0)));
    expect_fatal(b, "outside", "an array of an enclosing body");

    b = ir_new_body(&p);
    xs = ir_body_add_param(&p, b, 2, elem_prim(PRIM_I32));
    F2Mat singular = f2_zero(2);
    singular.row[0] = 1;
    singular.row[1] = 1;
    ir_body_add_result(&p, b, mk_bmmc(&p, b, xs, &singular, 0));
    expect_fatal(b, "permutation", "a singular bmmc");

    b = ir_new_body(&p);
    xs = ir_body_add_param(&p, b, 1, elem_prim(PRIM_I32));
    ir_body_add_result(&p, b, mk_index(&p, b, xs, 2, 0));
    expect_fatal(b, "out of range", "index out of range");

    arena_free(&a);
}

/* nvcc, when present, must build the program as CUDA. */
static void test_nvcc(void) {
    if (shell("command -v nvcc >/dev/null 2>&1") != 0) return;
    int rc = shell(
        "nvcc -x cu -std=c++17 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -Iruntime -c %s -o %s",
        tmp_path("prog.c"), tmp_path("prog_cuda.o"));
    check(rc == 0, "nvcc compiles the emitted program as CUDA");
}

int main(void) {
    if (access("runtime/parm_ops.h", R_OK) != 0) {
        check(false, "runtime/parm_ops.h not found: run from the repository root");
        return check_summary("emit_elem");
    }
    test_text();
    test_entry_args();
    test_fatal();

    for (int p = 0; p < PRIM_COUNT; p++) add_ops_case((Prim)p);
    add_const_case();
    add_structured_cases();
    for (int i = 0; i < 40; i++) add_random_case();

    long total = 0;
    for (int i = 0; i < ncases; i++) {
        Case *c = &cases[i];
        c->expect = calloc((size_t)(c->ninputs * c->nout + 1), sizeof(uint64_t));
        for (long t = 0; t < c->ninputs; t++) {
            reference(c, c->inputs + t * c->nin, c->expect + t * c->nout);
        }
        total += c->ninputs;
    }

    const char *tmp = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/test_emit_elem.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    FILE *f = fopen(tmp_path("prog.c"), "w");
    emit_program(f);
    fclose(f);
    f = fopen(tmp_path("in.txt"), "w");
    write_inputs(f);
    fclose(f);
    f = fopen(tmp_path("expected.txt"), "w");
    write_expected(f);
    fclose(f);

    const char *cc = getenv("CC");
    if (!cc || !*cc) cc = "cc";
    run_program(cc, "-std=c11 -O2");
    /* GNU mode contracts a * b + c into an fma where it can */
    const char *fma = "";
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("fma")) fma = " -mfma";
#endif
    char flags[128];
    snprintf(flags, sizeof flags, "-std=gnu11 -O3 -ffp-contract=fast%s", fma);
    run_program(cc, flags);
    /* no undefined behaviour in parm_ops.h, float-to-integer included */
    run_program(cc,
                "-std=c11 -O1 -fsanitize=undefined,float-cast-overflow -fno-sanitize-recover=all");
    test_nvcc();
    long nans = 0;
    for (int i = 0; i < ncases; i++)
        for (long k = 0; k < cases[i].ninputs * cases[i].nout; k++)
            nans += is_nan_bits(cases[i].out[k % cases[i].nout], cases[i].expect[k]);
    printf("  (%d bodies, %ld inputs; %ld NaN results, compared bit for bit like the others)\n",
           ncases, total, nans);

    const char *keep = getenv("PARM_TEST_KEEP");
    if (keep && *keep)
        shell("mkdir -p '%s' && cp %s %s %s '%s'", keep, tmp_path("prog.c"), tmp_path("in.txt"),
              tmp_path("expected.txt"), keep);
    shell("rm -rf '%s'", tmpdir);

    for (int i = 0; i < ncases; i++) {
        free(cases[i].inputs);
        free(cases[i].expect);
    }
    arena_free(&arena);
    return check_summary("emit_elem");
}
