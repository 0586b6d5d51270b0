/* opt_lengths.h: the rules on arrays that change length (opt_lengths.c), which the
 * rule table (opt_rules.c) names; the signature is RuleFn's (opt_rewrite.h). */
#ifndef PARMC_OPT_LENGTHS_H
#define PARMC_OPT_LENGTHS_H

#include "opt_rewrite.h"

RuleFn rule_shift_zero;
RuleFn rule_shift_out;
RuleFn rule_shift_shift;
RuleFn rule_half_join;
RuleFn rule_join_half;
RuleFn rule_half_map;
RuleFn rule_half_bmmc;
RuleFn rule_join_bmmc;
RuleFn rule_lengths_build;
RuleFn rule_shift_fill_map;

#endif
