/* opt_index.h: the rules on an element read at a static position (opt_index.c), which the
 * rule table (opt_rules.c) names; the signature is RuleFn's (opt_rewrite.h). */
#ifndef PARMC_OPT_INDEX_H
#define PARMC_OPT_INDEX_H

#include "opt_rewrite.h"

RuleFn rule_index_bmmc;
RuleFn rule_index_replicate;
RuleFn rule_index_build;
RuleFn rule_build_bmmc;
RuleFn rule_index_lengths;
RuleFn rule_index_zip;
RuleFn rule_index_map;

#endif
