/* plan_half.h: halves fused into the write-back of a LOCAL phase, part of
 * the scheduler (Schedule.halves, Phase.half_log). */
#ifndef PARMC_PLAN_HALF_H
#define PARMC_PLAN_HALF_H

#include "plan.h"

/* Narrows the write of LOCAL phase p (as place_write left it: Z, G, the
 * block columns and the complement of a permutation of 2^n elements) to the
 * elements y whose top h bits are `keep`, written at y's low n - h bits:
 * 2^(t-h) of every tile. Returns NULL, or why it cannot (p unchanged): the
 * kept part must be alike in every tile, 2^-h of it, and its output whole
 * segments. */
const char *plan_half_write(Arena *arena, Phase *p, int h, uint64_t keep);

/* Half i of a phase's halved write as a functional on the tile coordinate
 * u: parity(functional & u) is the y bit the half decides (n - 1 - i; the
 * block adds nothing to it), and *keep the value it keeps. */
uint64_t plan_half_functional(const Phase *p, int i, int *keep);

#endif
