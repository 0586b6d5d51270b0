/* bdd.h: reduced ordered binary decision diagrams over the bits of a
 * position, and 64-bit integers as vectors of them.
 *
 * A fact about every position of an array of 2^n elements ("a guard holds
 * at i exactly where another holds at i + d") is a comparison of diagrams
 * over the n bits of i, whatever n is, instead of 2^n evaluations. The
 * integers are two's complement words, bit 0 first, with the scalar
 * operators' semantics of scalar_ops.c (wrapping, truncating division),
 * for the operators position code uses; the others are refused (false
 * from bdd_int_binary), and a caller that needs them gives up.
 *
 * A set has a bounded number of nodes; past it every operation gives
 * BDD_FALSE and bdd_overflowed says so, so a caller checks once, at the
 * end, before trusting a result. */
#ifndef PARMC_BDD_H
#define PARMC_BDD_H

#include <stdbool.h>
#include <stdint.h>

#include "ast.h"
#include "types.h"

typedef int Bdd; /* a node of a BddSet */
enum { BDD_FALSE = 0, BDD_TRUE = 1 };

typedef struct BddSet BddSet;

/* Diagrams over variables 0 .. nvars - 1 (0 nearest the root). */
BddSet *bdd_new(int nvars);
void bdd_free(BddSet *s);
bool bdd_overflowed(const BddSet *s);

Bdd bdd_var(BddSet *s, int v);
Bdd bdd_ite(BddSet *s, Bdd f, Bdd g, Bdd h);
Bdd bdd_not(BddSet *s, Bdd f);
Bdd bdd_and(BddSet *s, Bdd f, Bdd g);
Bdd bdd_or(BddSet *s, Bdd f, Bdd g);
Bdd bdd_xor(BddSet *s, Bdd f, Bdd g);

/* A diagram that agrees with f wherever `care` holds, and is small where
 * it may differ (Coudert and Madre's restrict): TRUE when f holds on all
 * of care. */
Bdd bdd_restrict(BddSet *s, Bdd f, Bdd care);

/* A node's variable and its two cofactors (f is neither terminal). */
int bdd_top(const BddSet *s, Bdd f);
Bdd bdd_low(const BddSet *s, Bdd f);
Bdd bdd_high(const BddSet *s, Bdd f);

/* f as a conjunction of literals: the variables it tests (*mask) and the
 * values it wants of them (*value); false when f is not one. */
bool bdd_cube(const BddSet *s, Bdd f, uint64_t *mask, uint64_t *value);

typedef struct {
    Bdd bit[64];
} BddInt;

BddInt bdd_int_const(int64_t c);
/* The word's value, when every bit is a terminal. */
bool bdd_int_value(const BddInt *a, int64_t *value);
BddInt bdd_int_add(BddSet *s, const BddInt *a, const BddInt *b);
BddInt bdd_int_sub(BddSet *s, const BddInt *a, const BddInt *b);
BddInt bdd_int_select(BddSet *s, Bdd c, const BddInt *a, const BddInt *b);
/* Unsigned a < b, for words whose high bits are clear. */
Bdd bdd_int_ult(BddSet *s, const BddInt *a, const BddInt *b);

/* op (a binary operator of ast.h's table, unary when b is NULL) on
 * operands of type p, as scalar_ops.c computes it, into *r: false for an
 * operator or operand it does not take (a float, a product of two
 * non-constants, a division by a constant that is not a power of two). */
bool bdd_int_binary(BddSet *s, Op op, Prim p, const BddInt *a, const BddInt *b, BddInt *r);
bool bdd_int_unary(BddSet *s, Op op, Prim p, const BddInt *a, BddInt *r);
/* An integer or bool of type `from` converted to `to` (integers, bool). */
bool bdd_int_convert(BddSet *s, Prim from, Prim to, const BddInt *a, BddInt *r);

#endif
