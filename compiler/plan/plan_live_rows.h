/* plan_live_rows.h: the blocks of an entry with segments that return at
 * once where every row of theirs is empty (Schedule.live_rows). */
#ifndef PARMC_PLAN_LIVE_ROWS_H
#define PARMC_PLAN_LIVE_ROWS_H

#include "plan.h"

/* Marks the chains of e whose blocks may return so, and the phases that
 * check (after the nodes are final). */
void plan_live_rows(EntryPlan *e);

#endif
