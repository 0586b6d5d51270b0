/* host_plan.h: the host program of an entry (plan.h, "The host program"),
 * once its nodes are planned: the layout of the scratch (the temporaries'
 * offsets, each chain's work memory and exchange buffers, the copies of
 * overlapping inputs) and NAME_run's actions. */
#ifndef PARMC_HOST_PLAN_H
#define PARMC_HOST_PLAN_H

#include "schedule.h"

/* opt (NULL: the defaults) says whether the target holds tiles in the
 * scratch (SchedOptions.tiles_in_scratch). */
void host_plan(Arena *arena, EntryPlan *e, const SchedOptions *opt);

#endif
