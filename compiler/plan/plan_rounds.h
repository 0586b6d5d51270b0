/* plan_rounds.h: the register rounds of a LOCAL phase's CUDA kernel, part
 * of the scheduler (it scores swizzles with them and stores the rounds of
 * the chosen one in the plan). */
#ifndef PARMC_PLAN_ROUNDS_H
#define PARMC_PLAN_ROUNDS_H

#include "plan.h"

/* Elements per thread in a round (log2), at least: a two's groups must fit. */
int plan_reg_log(const ElemType *elem, int tile_log);
/* The thread count (log2) the phase's kernel is launched with. */
int plan_threads_log(const Phase *p);
/* Fill p->threads_log, p->rounds and p->nrounds from its steps and swizzle,
 * and the steps' masks over the thread index (Step.order_tid, pos_tid). */
void plan_rounds(Arena *arena, Phase *p);
/* Pair steps whose comparator direction would depend on the thread under
 * the phase's round plan (each needs selects in the kernel). */
int plan_thread_directions(const Phase *p);
/* A functional f over tile coordinates on a thread's base vector, as a mask
 * over the thread index: parity(f & base(tid)) = parity(mask & tid). */
uint64_t plan_thread_mask(const Phase *p, const Round *rd, uint64_t f);
/* The XOR instructions of a round's loads or stores in layout `slots` (a
 * Round.slots): its register offsets that the base's bits keep from being
 * immediate offsets, counted as distinct values. */
int plan_round_xors(const Phase *p, const Round *rd, const uint64_t *slots);
/* Whether round rd, loading in layout `from`, stores in layout `to` only
 * into slots its own warp read. */
bool plan_store_in_warp(const Phase *p, const Round *rd, const uint64_t *from, const uint64_t *to);

#endif
