/* emit_target_c.c: the C target (--target c) for the host-side emitters
 * (emit_target.h): the CUDA API's calls over host pointers, memcpy for
 * copies, the phases as loops (emit_c.c). */
#include "emit.h"

static void c_runtime(FILE *out, const EmitInput *in) {
    emit_runtime(out, in, "parm_host_c.h", runtime_parm_host_c_h);
}

static void c_copy(FILE *out, const char *dst, const char *src, const char *bytes) {
    fprintf(out, "memcpy(%s, %s, %s);\n", dst, src, bytes);
}

/* The C simulation's arrays are whole: every rank's slice is in place. */
static void c_gather(FILE *out, const char *dst, const char *src, unsigned long long slice,
                     int ranks) {
    fprintf(out, "    memcpy(%s, %s, 0x%llxu);\n", dst, src, slice * (unsigned long long)ranks);
}

static void c_loop(FILE *out, unsigned long long count) {
    fprintf(out, "    for (uint64_t x = 0; x < %lluu; x++) {\n", count);
}

static void c_launch(FILE *out, const char *name, unsigned long long blocks, int threads) {
    (void)blocks;
    (void)threads;
    fprintf(out, "    %s(", name);
}

const Target target_c = {
    .pointers = "host",
    .restrict_ptr = "",
    .includes = "",
    .before_runtime = "",
    .helpers = "static inline int parm_ctz(uint64_t x) { return __builtin_ctzll(x); }\n\n",
    .header_includes = "",
    .header_includes_ranks = "",
    .header_decls = "",
    .header_decls_ranks = "",
    .ranks_check = "",
    .rank_index = "parm_rank",
    .gather = c_gather,
    .entry_check = "",
    .ctx_message = false,
    .runtime = c_runtime,
    .main_name = "parm_main_c.h",
    .main_text = runtime_parm_main_c_h,
    .main_ranks_name = NULL, /* the C program runs every rank in one call */
    .main_ranks_text = NULL,
    .copy = c_copy,
    .node_head = "static void",
    .node_loop = c_loop,
    .node_launch = c_launch,
    .node_check = "",
    .reduce_node = emit_graph_reduce_c,
    .reduce_call = "    %s(",
    .reduce_end = ");\n",
    .scan_node = emit_graph_scan_c,
    .reduce_partials = false,
    .phase = emit_c_phases,
    .phase_call = emit_c_phase_call,
    .exec_start = emit_c_exec_start,
    .rank_body = emit_c_rank_body,
    .whole_body = emit_c_rank_body,
    .exchange_step = emit_c_exchange_step,
};
