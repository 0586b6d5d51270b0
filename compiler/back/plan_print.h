/* plan_print.h: --dump-plan (plan_print.c), a reader of the plan like the
 * emitters and the simulator. */
#ifndef PARMC_PLAN_PRINT_H
#define PARMC_PLAN_PRINT_H

#include <stdio.h>

#include "plan.h"

/* The plan in a stable text form (golden files in tests/plan). */
void plan_print(FILE *out, const Schedule *s);

#endif
