/* kernel_plan.h: what a LOCAL phase's CUDA kernel takes of an SM, part of
 * the scheduler: its tile's planes in shared memory and the resident blocks
 * its launch bounds ask for (Phase.tile_bytes .. blocks_per_sm); which
 * planes a SCAN node's kernel moves through shared memory; and the shared
 * arrays of the REDUCE and SCAN kernels and of a chain's fused reduce. */
#ifndef PARMC_KERNEL_PLAN_H
#define PARMC_KERNEL_PLAN_H

#include "plan.h"

/* The shared memory and launch bounds of every LOCAL phase of s, once its
 * buffers are assigned (an entry of any length's first and last phases
 * differ). */
void kernel_plan(Schedule *s);
/* The staging of every plane of a SCAN node's kernel (PlanNode.chunks_log)
 * and its shared arrays (PlanNode.shared), once its tiles are shaped. */
void kernel_plan_scan(PlanNode *n, Arena *a);
/* The shared arrays of a REDUCE node's two kernels (PlanNode.shared,
 * final_shared), once it is shaped. */
void kernel_plan_reduce(PlanNode *n, Arena *a);
/* The shared arrays of the reduce fused into a chain's phase
 * (Schedule.reduce_shared), once the phase is shaped. */
void kernel_plan_fused_reduce(Schedule *s, Arena *a);

#endif
