/* opt_licm.h: loop-invariant code motion (opt_licm.c), which the
 * rule table (opt_rules.c) names; the signature is RuleFn's (opt_rewrite.h). */
#ifndef PARMC_OPT_LICM_H
#define PARMC_OPT_LICM_H

#include "opt_rewrite.h"

RuleFn rule_hoist_invariant;

#endif
