/* opt_stencil.h: a map over an array zipped with its shifts by d and -d
 * that compares pairs (i, i + d), as masked columns (opt_stencil.c), which
 * the normalise pass applies to every body before col becomes bmmc and
 * two. */
#ifndef PARMC_OPT_STENCIL_H
#define PARMC_OPT_STENCIL_H

#include "ir.h"

/* Every match in b's own statements (not its nested bodies) replaced. */
void opt_stencil_columns(IrProgram *p, IrBody *b);

#endif
