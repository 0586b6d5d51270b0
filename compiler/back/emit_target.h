/* emit_target.h: a target as the host-side emitters (emit_common.c,
 * emit_graph.c) see it: the text and the host calls in which the C and the
 * CUDA outputs differ, chosen once per program (emit_program), so that the
 * host side of a program (preamble, API, NAME_run, copies, the standalone
 * main) is written once. emit_target_c.c and emit_target_cuda.c define the
 * two, whose phases' kernels are emit_c.c's and emit_cuda.c's. */
#ifndef PARMC_EMIT_TARGET_H
#define PARMC_EMIT_TARGET_H

#include <stdbool.h>
#include <stdio.h>

#include "plan.h"

struct EmitInput;

typedef struct {
    const char *pointers;     /* where the API's arrays are: "host" or "device" */
    const char *restrict_ptr; /* a pointer parameter's "__restrict__ " */
    /* the output file: its includes after the common ones, a line before
       the embedded runtime, and helpers after parm_parity */
    const char *includes, *before_runtime, *helpers;
    /* the API header: includes, and the target's own functions (with ranks,
       more of each), written through emit_api_text(_gpus) */
    const char *header_includes, *header_includes_ranks, *header_decls, *header_decls_ranks;
    /* with ranks, whether each rank's call passes its slice of the arrays
       (one process per rank) rather than the whole arrays (the C target
       simulates the ranks in one call) */
    bool rank_slices;
    /* with ranks, an entry graph run whole on every rank (EntryPlan.whole_graph):
       the check NAME_run makes first (that the context has ranks), the
       rank's number in it, and a gather of every rank's slice of `slice`
       bytes, in rank order, from `src` (the rank's slice, or with
       rank_slices false the whole array) into `dst` */
    const char *ranks_check, *rank_index;
    void (*gather)(FILE *out, const char *dst, const char *src, unsigned long long slice,
                   int ranks);
    /* the check every API function makes after its null pointers */
    const char *entry_check;
    /* whether NAME_ctx_message tells a failed call (the main prints it) */
    bool ctx_message;
    /* the host runtime headers (runtime/), after the preamble */
    void (*runtime)(FILE *out, const struct EmitInput *in);
    /* the standalone main's part of runtime/parm_main.h, and with ranks the
       runner of every rank (NULL: the entry runs the ranks itself) */
    const char *main_name, *main_text, *main_ranks_name, *main_ranks_text;
    /* copies between planes inside NAME_run: "DST, SRC, BYTES" copied, the
       statement and its newline */
    void (*copy)(FILE *out, const char *dst, const char *src, const char *bytes);
    /* an entry graph's node functions (emit_graph.c): their head ("static
       void", a kernel's), their loop over the `count` elements x, a call on
       `blocks` blocks of `threads` threads up to its arguments, and the
       check after the call */
    const char *node_head;
    void (*node_loop)(FILE *out, unsigned long long count);
    void (*node_launch)(FILE *out, const char *name, unsigned long long blocks, int threads);
    const char *node_check;
    /* a REDUCE node's function; its call (a printf format of the name, and
       the end after the arguments), which with reduce_partials also passes
       the node's partial planes */
    void (*reduce_node)(FILE *out, const PlanNode *n, const char *name);
    const char *reduce_call, *reduce_end;
    bool reduce_partials;
    /* a SCAN node's function, called as a REDUCE node's is */
    void (*scan_node)(FILE *out, const PlanNode *n, const char *name);
    /* a chain (emit_chain): the kernels of each kind of phase (by
       PhaseKind) with the host function that runs them, the call of a
       phase in NAME_exec, NAME_exec's lines before the calls, and with ranks
       (NULL: each rank runs NAME_exec on its own) the whole of its body;
       a chain too small to split (Schedule.whole_log): NAME_exec's body,
       which runs NAME_whole (the one-GPU body) on every rank's whole array */
    void (*const *phase)(FILE *out, const Schedule *s, const Phase *p, const char *name);
    void (*phase_call)(FILE *out, const Schedule *s, const Phase *p, const char *name);
    void (*exec_start)(FILE *out, const Schedule *s);
    void (*rank_body)(FILE *out, const Schedule *s, const char *fname);
    void (*whole_body)(FILE *out, const Schedule *s, const char *fname);
    /* a step of an exchange's host side (plan.h, ExchangeStep) */
    void (*exchange_step)(FILE *out, const Schedule *s, const Phase *p, const char *name,
                          const ExchangeStep *step);
} Target;

extern const Target target_c, target_cuda;

#endif
