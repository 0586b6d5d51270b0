/* entry_plan.h: an entry cut into the nodes of its graph (plan.h, "The
 * entry graph"); each chain of array stages is scheduled by schedule.c. */
#ifndef PARMC_ENTRY_PLAN_H
#define PARMC_ENTRY_PLAN_H

#include "schedule.h"

/* Why the back end cannot compile f at all (its shape, fields or length),
 * or NULL; *where is the construct that decides it, else the entry. */
const char *entry_plan_refusal(Arena *arena, const IrFunc *f, Loc *where);
/* The plan of f: an entry of today's shape is one chain (EntryPlan.simple);
 * any other is a graph of nodes. Unsupported constructs are refused with a
 * diagnostic at the construct or the entry. Chains are scheduled with opt
 * (NULL: the defaults). */
void entry_plan(Arena *arena, const IrFunc *f, const SchedOptions *opt, EntryPlan *out);

#endif
