/* emit.h: the back ends. emit_common.c writes what the C and CUDA outputs
 * share (runtime, API, entry dispatch, standalone main) for a Target
 * (emit_target.h); emit_c.c and emit_cuda.c write the phases of each
 * schedule. */
#ifndef PARMC_EMIT_H
#define PARMC_EMIT_H

#include <stdbool.h>
#include <stdio.h>

#include "emit_bmmc.h"
#include "emit_elem.h"
#include "emit_target.h"
#include "plan.h"

typedef struct EmitInput {
    const char *source_name; /* for the banner */
    const char *header_name; /* the .h written beside the output */
    EntryPlan *plans;        /* one per IR function (entry specialisation) compiled */
    int nplans;
    /* the sizes of ranged entries refused while others compile, in the IR
       functions' order; each names its place among the plans */
    const RefusedSize *refused;
    int nrefused;
    bool emit_main;
    const char *main_entry; /* the entry the standalone main runs */
    const char *prefix;     /* of every exported name: NAME_ctx, NAME_main, NAME_OK (upper-case) */
    int gpu_log;            /* compiled for 2^gpu_log GPUs (plan.h, "Ranks") */
} EmitInput;

/* The program for target t (emit_target.h: target_c or target_cuda). */
void emit_program(FILE *out, const EmitInput *in, const Target *t);
/* The API header: the same declarations for both targets. */
void emit_header(FILE *out, const EmitInput *in, const Target *t);
/* A chain of an entry graph: its phases' kernels and NAME_exec, for
 * target t. */
void emit_chain(FILE *out, const Schedule *s, const char *fname, const Target *t);
/* emit_c.c and emit_cuda.c, for their targets (emit_target.h, "a chain"). */
extern void (*const emit_c_phases[])(FILE *, const Schedule *, const Phase *, const char *);
extern void (*const emit_cuda_phases[])(FILE *, const Schedule *, const Phase *, const char *);
void emit_c_phase_call(FILE *out, const Schedule *s, const Phase *p, const char *name);
void emit_cuda_phase_call(FILE *out, const Schedule *s, const Phase *p, const char *name);
void emit_c_exec_start(FILE *out, const Schedule *s);
void emit_cuda_exec_start(FILE *out, const Schedule *s);
void emit_c_rank_body(FILE *out, const Schedule *s, const char *fname);
void emit_cuda_whole_body(FILE *out, const Schedule *s, const char *fname);

/* emit_cuda_local.c: the steps of a LOCAL phase in its register rounds. */
void emit_cuda_local_rounds(FILE *out, const Phase *p);
/* A cluster's tile (Phase.cluster_log; emit_cuda_local.c): whether round ri
 * of phase p (the write after the last) reaches other blocks' shared
 * memory; the barrier around such work ("PARM_CLUSTER_SYNC()", else
 * "__syncthreads()"); slot `index` of plane k, in the block's own shared
 * memory or, `remote`, the cluster's. */
bool emit_reaches_cluster(const Phase *p, int ri);
const char *emit_barrier(bool cluster);
const char *emit_tile_at(Arena *a, const Phase *p, int k, const char *index, bool remote);
/* An index that is a per-thread part with bits `var_bits` combined with a
 * literal c: '+' where they share no bit (the literal becomes an immediate
 * offset), else '^'. */
char emit_index_op(uint64_t var_bits, uint64_t c);

/* emit_reduce.c: reductions (of a REDUCE or REDUCEBLOCKS statement s, of
 * emit_reduce_slots(s) fields). The type of field k; s's operator applied
 * to the variables named by the printf formats left and right (of the
 * field number), into those of res, declared by the caller. And
 * cuda/emit_cuda_reduce.c: a CUDA block's
 * subtotals v0.. (one per thread, in thread order) reduced in tree order,
 * thread 0 ending with the total in v0.. (it uses nv0.. as
 * emit_reduce_apply's res, and the other threads return), the warps'
 * totals in the arrays the plan gives (sh, SHARED_WARP_TOTALS); the same
 * within each aligned segment of 2^seg_log lanes of a warp (seg_log <= 5),
 * the segment's first lane ending with its total, no thread returning. */
int emit_reduce_slots(const IrStmt *s);
Prim emit_reduce_prim(const IrStmt *s, int k);
void emit_reduce_apply(FILE *out, const IrStmt *s, const char *left, const char *right,
                       const char *res, int indent);
void emit_reduce_block_tree(FILE *out, const IrStmt *s, const SharedPlan *sh, int threads_log);
void emit_reduce_segment_tree(FILE *out, const IrStmt *s, int threads_log, int seg_log);

/* emit_common.c, for the two emitters */
/* The shared array of sh that holds `role` for `field` (plan_shared_array),
 * which the kernel being printed needs: an internal error if the plan has
 * none. */
const SharedArray *emit_shared_array(const SharedPlan *sh, SharedRole role, int field);
/* Writes text with the API's prefix for {p} and the prefix in upper case
 * for {P}: every exported name is written through it ("{p}_ctx_create",
 * "{P}_OK"), so that programs with different prefixes link together. */
void emit_api_text(FILE *out, const EmitInput *in, const char *text);
/* The same with {G} the number of GPUs compiled for (EmitInput.gpu_log). */
void emit_api_text_gpus(FILE *out, const EmitInput *in, const char *text);
/* A runtime header (runtime/), whole, between "// start of NAME" and
 * "// end of NAME" lines, its API names with the prefix
 * (compiler/back/embed.sh). */
void emit_runtime(FILE *out, const EmitInput *in, const char *name, const char *text);
/* Whether PREFIX_entry would be one of the API's own names
 * (PREFIX_ctx_create, ..., and with a prefix of no lower-case letter the
 * upper-case ones: PREFIX_OK, the status codes, the header's guard
 * PREFIX_PARMC_H): the driver refuses such an entry. */
bool emit_api_name_taken(const char *prefix, const char *entry);
/* Whether a prefix would make exported names that the emitted code uses
 * inside (parm_..., PARM_...): "parm" or "parm_..." in any case. */
bool emit_prefix_reserved(const char *prefix);
/* The standalone main's runtime headers (parm_main.h and the target's
 * part), and its run: the context, parm_main_execute (parm_main_ranks with
 * ranks) of parm_main_entry on in_planes into out_planes, and the exit on
 * a failure, after `cleanup` (statements that free the host planes). */
void emit_main_runtime(FILE *out, const EmitInput *in, const Target *t);
void emit_main_run(FILE *out, const EmitInput *in, const Target *t, const char *cleanup);
/* "int main(argc, argv) {" and the option loop that sets `repeat`, for
 * every standalone main (an entry graph's too). */
void emit_main_start(FILE *out);
void emit_phase_comment(FILE *out, const Phase *p);
/* The standalone main's reading of one value of type p into `dest` (with
 * the interpreter's message for a bad one, then `cleanup` and the exit),
 * and the printer of a p. */
void emit_read_value(FILE *out, Prim p, const char *dest, const char *cleanup);
/* The row length of an entry over rows of any length, the input's first
 * token, into `row_len` (1 to max), with the interpreter's messages. */
void emit_read_row_length(FILE *out, const char *entry, long max);
const char *emit_print_fn(Prim p);
/* The entry's run-time scalar parameters, which element code reads as
 * parm_arg<id> (emit_elem.h): as C parameters ", const int32_t parm_arg0..."
 * of a function holding element code, and as the arguments of its call. */
void emit_arg_params(FILE *out, const Schedule *s);
void emit_arg_values(FILE *out, const Schedule *s);
/* At the top of a function holding element code: the scalars passed by
 * reference loaded into parm_arg<id>, and every one marked used. */
void emit_arg_loads(FILE *out, const Schedule *s);
/* The sizes of `entry` in the IR functions' order (the interpreter's, the
 * smallest first): each a compiled plan or a refused size, with n its
 * first array's log length (EntryPlan.n). Into *out, in arena a; returns
 * how many. */
typedef struct {
    const IrFunc *func;
    const EntryPlan *plan;      /* NULL: refused */
    const RefusedSize *refused; /* NULL: compiled */
    int n;
} EntrySize;
int emit_entry_sizes(Arena *a, const EmitInput *in, const char *entry, EntrySize **out);
/* The declarations of sa and sb: the plan's planes in `scratch`. */
void emit_scratch_planes(FILE *out, const Schedule *s);
/* "(void)parm_arg0;" ... for a function that may not read them. */
void emit_arg_unused(FILE *out, const Schedule *s);
/* An entry of any length (Schedule.pad) passes its shape the same way, as
 * parm_rows and parm_cols after the scalars. Its first phase reads
 * (emit_pad_loads) and its last writes (emit_pad_stores) the caller's
 * arrays through these C expressions over an index of the padded order:
 * whether it is in the shape, where it lies in the caller's array, the
 * pad of slot k, and plane[index] or the pad. */
/* The shape's parameters (", const uint64_t parm_rows, ..."), its arguments
 * and "(void)parm_rows;..." lines: with segments, the rows' starts and
 * lengths too (parm_starts, parm_lens). */
const char *emit_shape_params(Arena *a, const Schedule *s);
const char *emit_shape_args(const Schedule *s);
const char *emit_shape_unused(const Schedule *s);
bool emit_pad_loads(const Schedule *s, const Phase *p);
bool emit_pad_stores(const Schedule *s, const Phase *p);
const char *emit_pad_inside(Arena *a, const Schedule *s, const char *index);
const char *emit_pad_at(Arena *a, const Schedule *s, const char *index);
const char *emit_pad_value(Arena *a, const Schedule *s, int k);
const char *emit_pad_load(Arena *a, const Schedule *s, int k, const char *plane, const char *index);
/* Whether p is the phase that a reduce is fused into (Schedule.reduce),
 * and that phase's parameters for the partial planes: ", T *q0"... */
bool emit_phase_reduces(const Schedule *s, const Phase *p);
void emit_partial_params(FILE *out, const Schedule *s, const Target *t);
/* An exchange's host steps (plan.h, ExchangeStep), in order, each as
 * target t prints it (emit_c_exchange_step, emit_cuda_exchange_step). */
void emit_exchange_steps(FILE *out, const Schedule *s, const Phase *p, const char *name,
                         const Target *t);
void emit_c_exchange_step(FILE *out, const Schedule *s, const Phase *p, const char *name,
                          const ExchangeStep *step);
void emit_cuda_exchange_step(FILE *out, const Schedule *s, const Phase *p, const char *name,
                             const ExchangeStep *step);
/* The rank whose one-pass unpack kernels an exchange's rank runs: the first
 * with the same unpack constant (their kernels are the same). */
int emit_unpack_kernel_of(const Phase *p, int rank);
/* The one-pass kernels of an exchange (Phase.pack_plans, unpack_plans),
 * each written by `write` (bmmc_emit_c or bmmc_emit_cuda): the pack's, with
 * a second output (the receive buffer) for the kept chunk, and the
 * unpack's of each rank whose kernels are its own (emit_unpack_kernel_of). */
typedef void BmmcWriter(FILE *out, const BmmcPlan *plan, const char *name, const char *ctype,
                        const BmmcGuard *guard);
void emit_exchange_kernel_plans(FILE *out, const Schedule *s, const Phase *p, const char *name,
                                BmmcWriter *write);
/* The copy of an entry with no phase: its input to its output, unless they
 * are the same arrays. */
void emit_copy_whole(FILE *out, const Schedule *s, const Target *t);
/* A PERMUTE phase: the plan's one-pass kernel per slot, named NAME_slotK,
 * written by `emit` (bmmc_emit_c or bmmc_emit_cuda). */
typedef void (*BmmcEmitter)(FILE *out, const BmmcPlan *plan, const char *name, const char *ctype,
                            const BmmcGuard *guard);
void emit_permute_kernels(FILE *out, const Schedule *s, const Phase *p, const char *name,
                          BmmcEmitter emit);
/* The body of a MAP phase's loop: element x of the planes in0.. to out0...
 * (for an entry of any length, `continue` past the shape in its last phase) */
void emit_map_element(FILE *out, const Schedule *s, const Phase *p);
/* A LOCAL phase's tile element at memory index `index` (a C expression;
 * with ranks the rank's local index) into the lvalues dest[k], the fields of
 * the tile's element: read from the planes in0.. (the pad outside an
 * any-length entry's shape) and converted by the phase's load map where it
 * has one (Phase.map), at indentation `indent` (4 spaces each). */
void emit_tile_element_load(FILE *out, const Schedule *s, const Phase *p, const char *index,
                            const char *const *dest, int indent);
/* The tile element whose fields are `fields` stored at memory index
 * `index` of phase p's output, through its store map where it has one
 * (Phase.store_map): for the last phase of an entry of any length only
 * inside the shape, and not into unstored planes (Schedule.out_unstored);
 * at indentation `indent` (4 spaces each). */
void emit_tile_element_store(FILE *out, const Schedule *s, const Phase *p, const char *index,
                             const char *const *fields, int indent);
/* POS values from C variables: `u` holds the tile coordinate of the element
 * (the memory index in a MAP phase, where step is NULL), `b` the block. */
typedef struct {
    const Phase *phase;
    const Step *step;
    const char *u, *b;
    bool store; /* of the phase's store map: u is the memory index stored */
} PosAt;
ElemPositions emit_positions_at(const PosAt *at);
/* A parity bit as a C expression: "parm_parity(v0 & M0) ^ parm_parity(v1 &
 * M1) ^ extra ^ 1", the terms of zero masks left out (and the mask of one
 * that is all ones), `extra` (a bit variable, or NULL) and the constant bit
 * konst only when it is 1; "0" when nothing is left. */
const char *emit_parity(Arena *a, int n, const char *const *vars, const uint64_t *masks,
                        const char *extra, int konst);
/* "(int64_t)(K ^ (parity(u & U0) ^ parity(b & B0)) << 0 ^ ...)" for POS bits
 * k < bits; a zero mask or a NULL variable name leaves its term out, and
 * the bits that copy a bit of u at one distance are one term,
 * "((uint64_t)(u) >> d & MASK)". */
const char *emit_pos_expr(Arena *a, int bits, const uint64_t *on_u, const uint64_t *on_b,
                          uint64_t konst, const char *u, const char *b);

/* Phase.live_check: the row of block b's class at class index r (a
 * variable name; b is the block's) as an expression. */
const char *emit_live_row(Arena *a, const Schedule *s, const Phase *p, const char *r);

/* emit_graph.c: an entry graph (EntryPlan, not simple): its nodes and
 * NAME_run(ctx, in, out, scalars...), over the planes of the array
 * parameters and the results, for target t. */
void emit_graph_func(FILE *out, const EntryPlan *e, const Target *t);
/* The standalone main of a graph entry: every parameter read, every result
 * printed, as --interpret does. */
void emit_graph_main(FILE *out, const EmitInput *in, const EntryPlan *first, const Target *t);
/* A REDUCE node's function NAME for each target (emit_target.h): one loop
 * in C (emit_graph.c); on CUDA (cuda/emit_cuda_reduce.c) a kernel of
 * per-block partials, one of the total, and the host function that
 * launches both. */
void emit_graph_reduce_c(FILE *out, const PlanNode *n, const char *name);
void emit_graph_reduce_cuda(FILE *out, const PlanNode *n, const char *name);
/* A SCAN node's function NAME for each target (emit_scan.c,
 * cuda/emit_cuda_scan.c). */
void emit_graph_scan_c(FILE *out, const PlanNode *n, const char *name);
void emit_graph_scan_cuda(FILE *out, const PlanNode *n, const char *name);
/* emit_scan.c: the element code of a SCAN statement s that both targets
 * share. into<k> = left<k> op right<k> (printf formats of the field k)
 * through tmp<k>, so that into may be an operand; left<k> = left<k> op
 * right<k> through nleft<k>; the running value r<k> set to the scan's start
 * (`declare`: declared too); element x<k>[at] scanned in place from r<k>;
 * NAME<k> declared, one a field. */
void emit_scan_apply(FILE *out, const IrStmt *s, const char *left, const char *right,
                     const char *into, const char *tmp, int indent);
void emit_scan_step(FILE *out, const IrStmt *s, const char *left, const char *right, int indent);
void emit_scan_start(FILE *out, const IrStmt *s, int indent, bool declare);
void emit_scan_element(FILE *out, const IrStmt *s, const char *at, int indent);
void emit_scan_declare(FILE *out, const IrStmt *s, const char *name, int indent);
/* The pieces of a graph node's function that emit_graph.c and emit_scan.c
 * share: the planes' parameters (void pointers NAME0.., const or not, with
 * or without a comma first), the scalars' parameters and their loads into
 * parm_arg<id> (by value, or from the device where emit_arg_by_ref), and
 * the `count` contiguous elements of every input plane from `first` into
 * registers x0.. (16-byte loads where the kernel's template flag A says the
 * planes are aligned). */
void emit_plane_params(FILE *out, const char *name, int count, bool constant, bool first);
bool emit_arg_by_ref(const PlanNode *n, int k);
void emit_node_arg_params(FILE *out, const PlanNode *n);
void emit_node_arg_loads(FILE *out, const PlanNode *n);
void emit_node_preload(FILE *out, const NodeLoads *l, unsigned long long count, const char *first);
/* HEAD NAME(i.., o.., scalars) { and the scalars' loads: a node function
 * over n's input and output planes. */
void emit_node_open(FILE *out, const char *head, const char *name, const PlanNode *n);
/* A REDUCE node's element code that both targets share (emit_graph.c):
 * `count` elements from index `first` of the planes src0.. that a kernel
 * loads (NodeLoads) reduced in the
 * interpreter's tree order into v0.. (a stack of subtotals of `depth`
 * levels; `unroll`: the loop unrolled, its loads vectorised where the
 * kernel's template flag A says the planes are aligned); and z op total
 * into element `at` of the output planes. */
void emit_serial_tree(FILE *out, const NodeLoads *l, const char *count, const char *first,
                      int depth, bool unroll);
void emit_reduce_final(FILE *out, const IrStmt *s, const char *at, int indent);

/* build/gen/runtime_text.c: the runtime headers, embedded in every output. */
extern const char runtime_parm_ops_h[];
extern const char runtime_parm_io_h[];
extern const char runtime_parm_host_c_h[];
extern const char runtime_parm_host_cuda_h[];
extern const char runtime_parm_nccl_h[];
extern const char runtime_parm_main_h[];
extern const char runtime_parm_main_c_h[];
extern const char runtime_parm_main_cuda_h[];
extern const char runtime_parm_main_nccl_h[];

#endif
