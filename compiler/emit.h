/* emit.h: the back ends. emit_common.c writes what the C and CUDA outputs
 * share (runtime, API, entry dispatch, standalone main); emit_c.c and
 * emit_cuda.c write the phases of each schedule. */
#ifndef PARMC_EMIT_H
#define PARMC_EMIT_H

#include <stdbool.h>
#include <stdio.h>

#include "emit_elem.h"
#include "schedule.h"

typedef struct {
    const char *source_name;    /* for the banner */
    const char *header_name;    /* the .h written beside the output */
    Schedule *schedules;        /* one per IR function (entry specialisation) */
    int nschedules;
    bool emit_main;
    const char *main_entry;     /* the entry the standalone main runs */
    Arena *arena;               /* the compilation's */
} EmitInput;

void emit_c_program(FILE *out, const EmitInput *in);
void emit_cuda_program(FILE *out, const EmitInput *in);
/* The API header: the same declarations for both targets. */
void emit_header(FILE *out, const EmitInput *in, bool cuda);

/* emit_cuda_local.c: the steps of a LOCAL phase as register rounds, and the
 * thread count (log2) its kernel is launched with. */
void emit_cuda_local_rounds(FILE *out, const Phase *p);
int emit_cuda_local_threads_log(const Phase *p);

/* A register round: steps first..first+count-1 run with thread `tid`
 * holding the tile elements base(tid) ^ R·j, where base(tid) is the XOR of
 * threads[i] over the bits i of tid (simulate.c replays these accesses). */
typedef struct {
    int first, count;
    uint64_t regs[16];              /* R: tile vector of register bit i */
    uint64_t threads[32];           /* tile vector of thread-index bit i */
    int reg_log;
} Round;
void emit_cuda_plan_round(const Phase *p, Round *rd, int first);
char emit_index_op(uint64_t var_bits, uint64_t c);
/* Pair steps whose comparator direction depends on the thread under the
 * phase's register-round plan (each needs selects in the kernel). */
int emit_cuda_local_thread_directions(const Phase *p);

/* emit_common.c, for the two emitters */
void emit_preamble(FILE *out, const EmitInput *in, bool cuda);
void emit_entries(FILE *out, const EmitInput *in, bool cuda);
void emit_main(FILE *out, const EmitInput *in, bool cuda);
void emit_phase_comment(FILE *out, const Phase *p);
/* The buffers of a schedule. Phase i reads what phase i-1 wrote (phase 0
 * the input) and writes buf[i]: the output (always the last phase) or one of
 * two scratch buffers. A phase writes the output only where its slots have
 * the output's types, so nothing is written past the output's planes; a
 * scratch buffer's planes are as large as the largest phase that uses them.
 * The scratch of a call is one allocation: the planes of buffer A, those of
 * B, then work_bytes at work_off for the emitter's own use. */
enum { BUF_IN, BUF_OUT, BUF_SCRATCH_A, BUF_SCRATCH_B };
/* Calls whose input planes overlap output planes (in place, in == out) are
 * correct: when the first phase writes scratch it has read the whole input
 * before anything writes the output, so no overlap matters (ALIAS_HARMLESS);
 * when it is a LOCAL phase that writes each tile where it read it, an input
 * plane that is exactly its output plane is harmless too (ALIAS_EXACT_OK);
 * any other overlap makes the call copy the input to scratch first (at
 * copy_off, in a scratch allocation of copy_bytes). */
typedef enum { ALIAS_HARMLESS, ALIAS_EXACT_OK, ALIAS_COPY } AliasRule;
typedef struct {
    int *buf;                                           /* per phase */
    int nplanes[2];                                     /* planes of scratch A and B */
    unsigned long long plane_off[2][SCHED_MAX_SLOTS];   /* their byte offsets */
    unsigned long long work_off;
    unsigned long long bytes;                           /* the whole allocation */
    AliasRule alias;
    unsigned long long copy_off[SCHED_MAX_SLOTS], copy_bytes;
} BufferPlan;
BufferPlan emit_buffer_plan(Arena *a, const Schedule *s, unsigned long long work_bytes);
/* The C name of a buffer's plane array: in, out, sa, sb. */
const char *emit_buffer_name(int buf);
/* The start of NAME_run up to the scratch planes: PARM_ERROR_ALIAS when
 * output planes overlap, the scratch (a failure returns its status), the
 * copy of the input where the alias rule asks for it (`in` then points to
 * it), and the declarations of sa and sb. */
void emit_run_start(FILE *out, const Schedule *s, const BufferPlan *bp, bool cuda);
/* parm_ENTRY(ctx, in planes..., out planes..., n) with the planes taken from
 * the void * arrays named `in` and `out`. */
void emit_entry_call(FILE *out, const Schedule *s, const char *in, const char *outs);
/* The function the standalone main calls: runs the entry once, then `repeat`
 * more times, printing the median time to stderr. */
void emit_c_runner(FILE *out, const Schedule *s);
void emit_cuda_runner(FILE *out, const Schedule *s);
/* A PERMUTE phase: one planned one-pass kernel per slot, named NAME_slotK,
 * written by `emit` (bmmc_emit_c or bmmc_emit_cuda). */
typedef void (*BmmcEmitter)(FILE *out, const BmmcPlan *plan, const char *name, const char *ctype);
void emit_permute_kernels(FILE *out, const Phase *p, const char *name, BmmcEmitter emit);
/* The plan of a PERMUTE phase's kernel for slot k (the simulator replays it). */
void emit_permute_plan(const Phase *p, int k, BmmcPlan *plan);
/* The body of a MAP phase's loop: element x of the planes in0.. to out0... */
void emit_map_element(FILE *out, const Phase *p);
/* POS values from C variables: `u` holds the tile coordinate of the element
 * (the memory index in a MAP phase, where step is NULL), `b` the block. */
typedef struct {
    const Phase *phase;
    const Step *step;
    const char *u, *b;
} PosAt;
ElemPositions emit_positions_at(const PosAt *at);
/* "(int64_t)(K ^ (parity(u & U0) ^ parity(b & B0)) << 0 ^ ...)" for POS bits
 * k < bits; a zero mask or a NULL variable name leaves its term out. */
const char *emit_pos_expr(Arena *a, int bits, const uint64_t *on_u, const uint64_t *on_b, uint64_t konst,
                          const char *u, const char *b);
/* "two 20 at sort.parm:10:14 (%123)" */
void ir_print_stmt_brief(FILE *out, const IrStmt *s);

/* build/gen/runtime_text.c: the runtime headers, embedded in every output. */
extern const char runtime_parm_ops_h[];
extern const char runtime_parm_io_h[];

#endif
