/* opt_swaps.h: two-swap-out (opt_swaps.c), a column whose pairs come out
 * swapped on a parity of the position as the column and a permutation,
 * which the rule table (opt_rules.c) names; the signature is RuleFn's
 * (opt_rewrite.h). */
#ifndef PARMC_OPT_SWAPS_H
#define PARMC_OPT_SWAPS_H

#include "opt_rewrite.h"

RuleFn rule_two_swap_out;

#endif
