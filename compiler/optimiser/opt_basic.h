/* opt_basic.h: the basic rules (bmmc, map, two) (opt_basic.c), which the
 * rule table (opt_rules.c) names; the signature is RuleFn's (opt_rewrite.h). */
#ifndef PARMC_OPT_BASIC_H
#define PARMC_OPT_BASIC_H

#include "opt_rewrite.h"

RuleFn rule_bmmc_identity;
RuleFn rule_bmmc_fuse;
RuleFn rule_bmmc_replicate;
RuleFn rule_reduce_bmmc;
RuleFn rule_reduceblocks_bmmc;
RuleFn rule_bmmc_expand;
RuleFn rule_map_bmmc;
RuleFn rule_scan_bmmc;
RuleFn rule_map_expand;
RuleFn rule_map_map;
RuleFn rule_map_replicate;
RuleFn rule_map_of_replicate;
RuleFn rule_two_fuse;
RuleFn rule_two_pull_in;
RuleFn rule_two_identity;
RuleFn rule_two_two;
RuleFn rule_two_map;
RuleFn rule_two_hoist;
RuleFn rule_two_lift;
RuleFn rule_two_retype;
RuleFn rule_two_sink;

#endif
