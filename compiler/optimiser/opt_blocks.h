/* opt_blocks.h: per-block reductions as whole-array stages (opt_blocks.c), which the
 * rule table (opt_rules.c) names; the signature is RuleFn's (opt_rewrite.h). */
#ifndef PARMC_OPT_BLOCKS_H
#define PARMC_OPT_BLOCKS_H

#include "opt_rewrite.h"

RuleFn rule_two_reduce_zip;
RuleFn rule_two_reduce_blocks;
RuleFn rule_two_reduce_start;
RuleFn rule_two_sink_scalars;

#endif
