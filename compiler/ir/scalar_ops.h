/* scalar_ops.h: the run-time operators on canonical scalars (scalar_ops.c),
 * as docs/language.md defines them ("Run-time arithmetic"). One definition
 * for every stage that computes a value: the interpreter, the specialiser's
 * static numbers, the optimiser's folding and tables, and the builtins. */
#ifndef PARMC_SCALAR_OPS_H
#define PARMC_SCALAR_OPS_H

#include "ast.h"
#include "types.h"

Scalar scalar_unary(Op op, Prim p, Scalar a);
Scalar scalar_binary(Op op, Prim p, Scalar a, Scalar b);
Scalar scalar_ternary(Op op, Prim p, Scalar a, Scalar b, Scalar c);
Scalar scalar_convert(Prim from, Prim to, Scalar a);

#endif
