/* schedule.h: the optimised IR of an entry cut into kernels (phases): the
 * plan of plan.h, complete, for the emitters and the simulator to read. */
#ifndef PARMC_SCHEDULE_H
#define PARMC_SCHEDULE_H

#include "plan.h"

/* Why the back end cannot compile f, an entry of one chain from its array
 * to its array result, at all (element fields or length), or NULL. */
const char *schedule_refusal(Arena *arena, const IrFunc *f);
/* Cut f into phases and plan them (tiles, swizzles, register rounds,
 * buffers, permutation kernels), for 2^gpu_log GPUs (plan.h, "Ranks"; 0:
 * one). Programs outside what the back end supports
 * (see docs/language.md) are rejected with a diagnostic at the entry (a
 * refusal above) or at the statement. */
void schedule_func(Arena *arena, const IrFunc *f, int gpu_log, Schedule *out);

#endif
