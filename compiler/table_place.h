/* table_place.h: where the tables that a kernel's element code reads live
 * (plan.h, TablePlace), chosen by the scheduler. */
#ifndef PARMC_TABLE_PLACE_H
#define PARMC_TABLE_PLACE_H

#include "plan.h"

/* Constant memory: a table there holds at most TABLE_CONSTANT_MAX_BYTES,
 * a kernel's at most TABLE_CONSTANT_KERNEL_BYTES (the constant cache's
 * working set is 8 KB per SM, for the blocks on it), and a program's at
 * most TABLE_CONSTANT_BUDGET (a CUDA module may have 64 KB). */
#define TABLE_CONSTANT_MAX_BYTES 2048
#define TABLE_CONSTANT_KERNEL_BYTES 4096
#define TABLE_CONSTANT_BUDGET (32 * 1024)

/* The tables of every step of a LOCAL phase whose register rounds are
 * planned, and of a MAP phase's function. */
void table_place_phase(Arena *arena, Phase *p);

/* Over all the plans of a program, in order: a table that would take
 * constant memory past TABLE_CONSTANT_BUDGET is read from global memory. */
void table_place_budget(Arena *arena, EntryPlan *plans, int nplans);

#endif
