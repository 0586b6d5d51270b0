/* opt_neighbours.h: a column of neighbours between two shifts as masked
 * columns (opt_neighbours.c), which the normalise pass applies to every
 * body before col becomes bmmc and two. */
#ifndef PARMC_OPT_NEIGHBOURS_H
#define PARMC_OPT_NEIGHBOURS_H

#include "ir.h"

/* Every match in b's own statements (not its nested bodies) replaced. */
void opt_neighbour_columns(IrProgram *p, IrBody *b);

#endif
