/* test_bdd.c: checks compiler/optimiser/bdd.c against the interpreter's
 * scalar operators (scalar_ops.c), position by position.
 *
 * Words are made from the 8 bits of a position p (p itself, p times a
 * constant plus another, wrapped to a random type), combined by every
 * operator the diagrams take, and each result's diagrams evaluated at all
 * 256 positions must give scalar_binary's (scalar_unary's,
 * scalar_convert's) value of the operands at p. Then the facts the
 * stencil rule asks: p + d < 2^8 exactly where it holds, a set and its
 * shift by d compared, a conjunction of bits read back as a cube.
 *
 * Build and run: make build/unit/test_bdd && build/unit/test_bdd */
#include "bdd.h"

#include <stdio.h>

#include "check.h"
#include "scalar_ops.h"

#define NVARS 8
#define NPOS (1 << NVARS)
#define CASES 400

static uint64_t rng_state = 0x0bddc0ffee5eed11u;

static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static bool eval(const BddSet *s, Bdd f, unsigned p) {
    while (f != BDD_TRUE && f != BDD_FALSE)
        f = (p >> bdd_top(s, f) & 1) ? bdd_high(s, f) : bdd_low(s, f);
    return f == BDD_TRUE;
}

static uint64_t eval_word(const BddSet *s, const BddInt *w, unsigned p) {
    uint64_t u = 0;
    for (int k = 0; k < 64; k++) u |= (uint64_t)eval(s, w->bit[k], p) << k;
    return u;
}

static const Prim prims[] = {PRIM_I8, PRIM_I16, PRIM_I32, PRIM_I64,
                             PRIM_U8, PRIM_U16, PRIM_U32, PRIM_U64};
#define NPRIMS (int)(sizeof prims / sizeof prims[0])

/* A word of type p from the position: (pos * a + b) wrapped, and its value
 * at each position in vals. */
static BddInt position_word(BddSet *s, Prim p, uint64_t *vals) {
    BddInt pos = bdd_int_const(0);
    for (int j = 0; j < NVARS; j++) pos.bit[j] = bdd_var(s, j);
    int64_t a = (int64_t)(rnd() % 7) - 3, b = (int64_t)(rnd() % 1000) - 500;
    if (rnd() % 4 == 0) b = (int64_t)rnd();
    BddInt ca = bdd_int_const(a), cb = bdd_int_const(b), prod, sum, w;
    check(bdd_int_binary(s, OP_MUL, PRIM_I64, &pos, &ca, &prod),
          "a product by a constant is taken");
    check(bdd_int_binary(s, OP_ADD, PRIM_I64, &prod, &cb, &sum), "a sum is taken");
    check(bdd_int_convert(s, PRIM_I64, p, &sum, &w), "an integer conversion is taken");
    for (unsigned x = 0; x < NPOS; x++)
        vals[x] = scalar_convert(PRIM_I64, p, (Scalar){.i = (int64_t)x * a + b}).u;
    return w;
}

/* A right operand for op: a constant where the diagrams want one. */
static BddInt operand(BddSet *s, Op op, Prim p, uint64_t *vals) {
    bool constant = op == OP_DIV || op == OP_MOD || op == OP_SHL || op == OP_SHR || op == OP_MUL;
    if (!constant) return position_word(s, p, vals);
    int64_t c = (int64_t)(rnd() % 70) - 5;
    if (op == OP_DIV || op == OP_MOD) {
        static const int64_t divisors[] = {0, 1, 2, 4, 8, 64, 1 << 20};
        c = divisors[rnd() % (sizeof divisors / sizeof divisors[0])];
    }
    Scalar v = scalar_convert(PRIM_I64, p, (Scalar){.i = c});
    for (unsigned x = 0; x < NPOS; x++) vals[x] = v.u;
    return bdd_int_const(v.i);
}

static void binary_ops(void) {
    static const Op ops[] = {OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_SHL, OP_SHR, OP_BAND,
                             OP_BOR, OP_XOR, OP_EQ,  OP_NE,  OP_LT,  OP_LE,  OP_GT,  OP_GE};
    CheckMark mark = check_mark();
    for (int c = 0; c < CASES; c++) {
        BddSet *s = bdd_new(NVARS);
        Op op = ops[rnd() % (sizeof ops / sizeof ops[0])];
        Prim p = prims[rnd() % NPRIMS];
        uint64_t av[NPOS], bv[NPOS];
        BddInt a = position_word(s, p, av), b = operand(s, op, p, bv), r;
        bool taken = bdd_int_binary(s, op, p, &a, &b, &r);
        check(taken, "case %d: %s on %s is taken", c, op_info(op)->name, prim_name(p));
        int wrong = 0;
        for (unsigned x = 0; taken && x < NPOS; x++) {
            Scalar want = scalar_binary(op, p, (Scalar){.u = av[x]}, (Scalar){.u = bv[x]});
            wrong += eval_word(s, &r, x) != want.u;
        }
        check(!wrong && !bdd_overflowed(s), "case %d: %s on %s wrong at %d positions", c,
              op_info(op)->name, prim_name(p), wrong);
        bdd_free(s);
    }
    check_group(mark, "binary operators against scalar_binary");
}

static void unary_ops(void) {
    CheckMark mark = check_mark();
    for (int c = 0; c < CASES / 4; c++) {
        BddSet *s = bdd_new(NVARS);
        Prim p = prims[rnd() % NPRIMS], to = prims[rnd() % NPRIMS];
        uint64_t av[NPOS];
        BddInt a = position_word(s, p, av), neg, not, conv;
        check(bdd_int_unary(s, OP_NEG, p, &a, &neg) && bdd_int_unary(s, OP_NOT, p, &a, &not ) &&
                  bdd_int_convert(s, p, to, &a, &conv),
              "neg, not and convert are taken");
        int wrong = 0;
        for (unsigned x = 0; x < NPOS; x++) {
            Scalar v = {.u = av[x]};
            wrong += eval_word(s, &neg, x) != scalar_unary(OP_NEG, p, v).u;
            wrong += eval_word(s, &not, x) != scalar_unary(OP_NOT, p, v).u;
            wrong += eval_word(s, &conv, x) != scalar_convert(p, to, v).u;
        }
        check(!wrong, "case %d: neg, not or convert %s -> %s wrong at %d positions", c,
              prim_name(p), prim_name(to), wrong);
        bdd_free(s);
    }
    check_group(mark, "unary operators and conversions");
}

/* The stencil rule's questions, with their answers known. */
static void facts(void) {
    CheckMark mark = check_mark();
    BddSet *s = bdd_new(NVARS);
    BddInt pos = bdd_int_const(0);
    for (int j = 0; j < NVARS; j++) pos.bit[j] = bdd_var(s, j);
    for (int64_t d = 1; d < NPOS; d += 37) {
        BddInt cd = bdd_int_const(d), size = bdd_int_const(NPOS), moved = bdd_int_add(s, &pos, &cd);
        Bdd inside = bdd_int_ult(s, &moved, &size);
        int wrong = 0;
        for (unsigned x = 0; x < NPOS; x++) wrong += eval(s, inside, x) != (x + (unsigned)d < NPOS);
        check(!wrong, "p + %lld < 2^8 wrong at %d positions", (long long)d, wrong);
    }
    /* odd p, and the odd p moved by an odd d: disjoint sets */
    Bdd odd = bdd_var(s, 0);
    BddInt three = bdd_int_const(3), up = bdd_int_add(s, &pos, &three);
    check(bdd_and(s, odd, up.bit[0]) == BDD_FALSE, "p odd and p + 3 odd: never");
    check(bdd_or(s, odd, up.bit[0]) == BDD_TRUE, "p odd or p + 3 odd: always");
    uint64_t mask, value;
    Bdd cube = bdd_and(s, odd, bdd_not(s, bdd_var(s, 2)));
    check(bdd_cube(s, cube, &mask, &value) && mask == 5 && value == 1,
          "bit 0 set, bit 2 clear: a cube");
    check(!bdd_cube(s, bdd_xor(s, odd, bdd_var(s, 1)), &mask, &value), "a xor is no cube");
    check(!bdd_overflowed(s), "no overflow");
    bdd_free(s);
    check_group(mark, "the stencil rule's facts");
}

int main(void) {
    binary_ops();
    unary_ops();
    facts();
    return check_summary("bdd");
}
