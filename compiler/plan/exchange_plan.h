/* exchange_plan.h: a permutation of an entry compiled for several GPUs as
 * the pack, chunk routing and unpack of an EXCHANGE phase (plan.h). */
#ifndef PARMC_EXCHANGE_PLAN_H
#define PARMC_EXCHANGE_PLAN_H

#include "plan.h"

/* The most GPUs an entry is compiled for: the routing tables have G·2^h <= G²
 * entries, written into the output as literals. */
#define EXCHANGE_MAX_GPU_LOG 6

/* Fill p's EXCHANGE fields from p->mat and p->compl for 2^gpu_log ranks,
 * each chunk cut into `pieces` pieces where it has as many elements (0: as
 * many as the rank's slice has 2^20 elements, at most 4 unless
 * --exchange-pieces asks for up to 32). */
void exchange_plan(Arena *arena, Phase *p, int gpu_log, int pieces);

/* The pack of the exchange of m (n - gpu_log local bits) on elements of
 * type elem: the send index of a rank's element l, ordered by the rank it
 * goes to, its pieces on top of the offset. The kernel before an exchange
 * can write it, leaving the exchange no pack of its own. */
F2Mat exchange_pack(const F2Mat *m, int gpu_log, const ElemType *elem, int pieces);

/* Whether y = m·x ⊕ c keeps every element on its rank (the top gpu_log bits). */
bool exchange_rank_preserving(const F2Mat *m, uint64_t c, int gpu_log);

#endif
