/* simulate.h: --report, the access simulator of the emitted kernels. */
#ifndef PARMC_SIMULATE_H
#define PARMC_SIMULATE_H

#include <stdbool.h>
#include <stdio.h>

#include "plan.h"

/* Print, per kernel of the entry's chains (named as the emitters name them,
 * plan.h), the elements moved, the sectors per global warp access against
 * the minimum and the worst shared-memory bank congestion; an entry graph
 * has a line for its nodes and counts, and one per chain. Returns whether
 * every access is minimal and conflict-free. */
bool simulate_report(FILE *out, const EntryPlan *e);

#endif
