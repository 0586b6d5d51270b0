/* opt.h: the middle end. Passes over the IR, in pipeline order:
 *   normalise: parm and col become bmmc / two / bmmc (opt_normalise.c)
 *   optimise:  the rewrite rules of docs/ir.md to a fixed point (opt_rules.c),
 *              then position-only subexpressions become tables (opt_tables.c)
 * Both rewrite the program in place. */
#ifndef PARMC_OPT_H
#define PARMC_OPT_H

#include <stdio.h>

#include "ir.h"

void opt_normalise(IrProgram *p);
/* trace: when not NULL, one line per rule application. */
void opt_optimise(IrProgram *p, FILE *trace);
/* --list-rules: one line per entry of the rule table, in the order they are
 * tried: the name --trace-rules prints, the op it is tried on ("any": every
 * op) and, after "also", the other names it fires under. */
void opt_list_rules(FILE *out);
/* Expensive values computed from a body's position and constants alone
 * become TABLE statements (part of the optimised stage). */
void opt_tabulate(IrProgram *p);

/* The matrices of normalisation, exposed for the unit tests:
 * parm_matrix(n, m) gathers the halves of `parm m` into the top bit;
 * col_matrix(n, m) places each pair {i, i^m} at (2p, 2p+1). */
F2Mat opt_parm_matrix(int n, uint64_t m);
F2Mat opt_col_matrix(int n, uint64_t m);

#endif
