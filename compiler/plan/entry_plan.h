/* entry_plan.h: an entry cut into the nodes of its graph (plan.h, "The
 * entry graph"); each chain of array stages is scheduled by schedule.c. */
#ifndef PARMC_ENTRY_PLAN_H
#define PARMC_ENTRY_PLAN_H

#include "schedule.h"

/* Why the back end cannot compile f at all (its shape, fields or length,
 * on opt's GPUs; opt may be NULL: one), or NULL; *where is the construct
 * that decides it, else the entry. */
const char *entry_plan_refusal(Arena *arena, const IrFunc *f, const SchedOptions *opt, Loc *where);
/* EntryPlan.n of f: the log length of its first array parameter, else of
 * its first array result; -1 when it has no array. */
int entry_plan_api_n(const IrFunc *f);
/* The plan of f: a graph of nodes, one chain for a sort (plan_one_chain).
 * Unsupported constructs are refused with a diagnostic at the construct or
 * the entry. Chains are scheduled with opt (NULL: the defaults); for
 * 2^opt->gpu_log GPUs (> 0) only an entry that is one chain of stages from
 * one array to one result, not of any length, is compiled. */
void entry_plan(Arena *arena, const IrFunc *f, const SchedOptions *opt, EntryPlan *out);

#endif
