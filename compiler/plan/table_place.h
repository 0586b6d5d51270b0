/* table_place.h: where the tables that a kernel's element code reads live
 * (plan.h, TablePlace), chosen by the scheduler. */
#ifndef PARMC_TABLE_PLACE_H
#define PARMC_TABLE_PLACE_H

#include "machine.h"
#include "plan.h"

/* Constant memory: a table there holds at most TABLE_CONSTANT_MAX_BYTES,
 * a kernel's at most TABLE_CONSTANT_KERNEL_BYTES (half the constant
 * cache's working set on an SM, which the blocks on it share), and a
 * program's at most TABLE_CONSTANT_BUDGET (half of what a CUDA module may
 * have). */
#define TABLE_CONSTANT_MAX_BYTES 2048
#define TABLE_CONSTANT_KERNEL_BYTES (MACHINE_CONSTANT_CACHE_BYTES / 2)
#define TABLE_CONSTANT_BUDGET (MACHINE_CONSTANT_BYTES / 2)

/* The tables of every step of a LOCAL phase whose register rounds are
 * planned, and of a MAP phase's function. */
void table_place_phase(Arena *arena, Phase *p);

/* Over all the plans of a program, in order: a table that would take
 * constant memory past TABLE_CONSTANT_BUDGET is read from global memory. */
void table_place_budget(Arena *arena, EntryPlan *plans, int nplans);

#endif
