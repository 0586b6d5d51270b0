/* opt_rules.c: the rule table of the rewrite pass, and the pass itself.
 *
 * Every rule of the families (opt_basic.c, opt_blocks.c, opt_licm.c,
 * opt_lengths.c, opt_index.c, opt_swaps.c) has one entry, in the order the walk tries
 * them on a statement (opt_rewrite.c tries those of the statement's op
 * only): the order matters where two rules match one statement, and this
 * is the order that the goldens of tests/ir were made with. A rule on
 * several ops has an entry for each, in one place of the order. docs/ir.md
 * lists the names (section 35-ir checks them against --list-rules). */
#include "opt_basic.h"
#include "opt_blocks.h"
#include "opt_index.h"
#include "opt_lengths.h"
#include "opt_licm.h"
#include "opt_swaps.h"

static const Rule rules[] = {
    {"hoist-invariant", RULE_ANY_OP, rule_hoist_invariant, NULL},
    {"shift-zero", IR_SHIFT, rule_shift_zero, NULL},
    {"shift-out", IR_SHIFT, rule_shift_out, NULL},
    {"shift-shift", IR_SHIFT, rule_shift_shift, NULL},
    {"index-bmmc", IR_INDEX, rule_index_bmmc, NULL},
    {"index-replicate", IR_INDEX, rule_index_replicate, NULL},
    {"index-build", IR_INDEX, rule_index_build, NULL},
    {"build-bmmc", IR_BUILD, rule_build_bmmc, NULL},
    {"index-lengths", IR_INDEX, rule_index_lengths, NULL},
    {"index-zip", IR_INDEX, rule_index_zip, NULL},
    {"index-map", IR_INDEX, rule_index_map, NULL},
    {"half-join", IR_HALF, rule_half_join, NULL},
    {"join-half", IR_JOIN, rule_join_half, NULL},
    {"half-map", IR_HALF, rule_half_map, NULL},
    {"half-bmmc", IR_HALF, rule_half_bmmc, NULL},
    {"join-bmmc", IR_JOIN, rule_join_bmmc, NULL},
    {"lengths-build", IR_HALF, rule_lengths_build, NULL},
    {"lengths-build", IR_JOIN, rule_lengths_build, NULL},
    {"lengths-build", IR_SHIFT, rule_lengths_build, NULL},
    {"shift-fill-map", IR_SHIFT, rule_shift_fill_map, NULL},
    {"bmmc-identity", IR_BMMC, rule_bmmc_identity, NULL},
    {"bmmc-bmmc", IR_BMMC, rule_bmmc_fuse, NULL},
    {"bmmc-replicate", IR_BMMC, rule_bmmc_replicate, NULL},
    {"reduce-bmmc", IR_REDUCE, rule_reduce_bmmc, NULL},
    {"reduceblocks-bmmc", IR_REDUCEBLOCKS, rule_reduceblocks_bmmc, NULL},
    {"bmmc-expand", IR_BMMC, rule_bmmc_expand, NULL},
    {"map-bmmc", IR_MAP, rule_map_bmmc, NULL},
    {"scan-bmmc", IR_SCAN, rule_scan_bmmc, NULL},
    {"map-expand", IR_MAP, rule_map_expand, NULL},
    {"map-map", IR_MAP, rule_map_map, NULL},
    {"map-replicate", IR_MAP, rule_map_replicate, NULL},
    {"map-of-replicate", IR_MAP, rule_map_of_replicate, NULL},
    {"two-two-fuse", IR_TWO, rule_two_fuse, NULL},
    {"two-bmmc-in", IR_TWO, rule_two_pull_in, NULL},
    {"two-identity", IR_TWO, rule_two_identity, NULL},
    {"two-two", IR_TWO, rule_two_two, NULL},
    {"two-map", IR_TWO, rule_two_map, NULL},
    {"two-bmmc-out", IR_TWO, rule_two_hoist, "two-two-out two-map-out"},
    {"two-reduce-zip", IR_TWO, rule_two_reduce_zip, NULL},
    {"two-reduce-blocks", IR_TWO, rule_two_reduce_blocks, NULL},
    {"two-reduce-start", IR_TWO, rule_two_reduce_start, NULL},
    {"two-sink-scalars", IR_TWO, rule_two_sink_scalars, NULL},
    {"two-lift", IR_TWO, rule_two_lift, NULL},
    {"two-retype", IR_TWO, rule_two_retype, NULL},
    {"two-bmmc-out", IR_TWO, rule_two_sink, NULL},
    {"two-swap-out", IR_TWO, rule_two_swap_out, NULL},
};

#define NRULES ((int)(sizeof rules / sizeof rules[0]))

void opt_optimise(IrProgram *p, FILE *trace) { rw_optimise(p, trace, rules, NRULES); }

void opt_list_rules(FILE *out) {
    for (int i = 0; i < NRULES; i++) {
        const Rule *rule = &rules[i];
        fprintf(out, "%s %s", rule->name,
                rule->op == RULE_ANY_OP ? "any" : ir_op_name((IrOp)rule->op));
        if (rule->also) fprintf(out, " also %s", rule->also);
        fputc('\n', out);
    }
}
