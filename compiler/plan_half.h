/* plan_half.h: a half fused into the write-back of a LOCAL phase, part of
 * the scheduler (Schedule.half, Phase.half_mask). */
#ifndef PARMC_PLAN_HALF_H
#define PARMC_PLAN_HALF_H

#include "plan.h"

/* Narrows the write of LOCAL phase p (as place_write left it: Z, G, the
 * block columns and the complement of a permutation of 2^n elements) to the
 * elements y with parity(y & mask) = b, written at y without bit lsb(mask):
 * half a tile per block. Returns NULL, or why it cannot (p unchanged): the
 * kept half must be a half of every tile alike, and its output whole
 * segments. */
const char *plan_half_write(Arena *arena, Phase *p, uint64_t mask, int b);

/* y without bit `bit` (the bits above it move down one). */
uint64_t plan_delete_bit(uint64_t y, int bit);

#endif
