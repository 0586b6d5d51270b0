/* emit_bmmc.h: the emitters' side of the one-pass BMMC permutation kernels:
 * a plan of bmmc_plan.h written out as CUDA or C with every table a literal. */
#ifndef PARMC_EMIT_BMMC_H
#define PARMC_EMIT_BMMC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bmmc_kernel.h"

/* Index guards for an entry of any length (plan.h, Schedule.pad): a kernel
 * that reads the entry's input (load) reads an index outside the shape as
 * `pad`, one that writes its output (store) skips such indices. `inside`
 * and `at` are C expressions over an index of the padded order, written
 * '@': whether the element is in the shape, and where it lies in the
 * caller's array. A guarded kernel (and its launcher) takes the shape,
 * `uint64_t parm_rows, uint64_t parm_cols`, after its arrays. */
typedef struct {
    bool load, store;
    const char *inside, *at, *pad;
    /* the shape's parameters, arguments and their (void) uses (emit_shape_params) */
    const char *params, *args, *unused;
} BmmcGuard;

/* __global__ void name(const T *__restrict__ in, T *__restrict__ out) with
 * every table as a literal, and
 * static cudaError_t name_launch(const T *in, T *out, cudaStream_t s);
 * guard NULL for none. */
void bmmc_emit_cuda(FILE *out, const BmmcPlan *plan, const char *name, const char *ctype,
                    const BmmcGuard *guard);

/* The same kernel as portable C11: void name(const T *in, T *out), one loop
 * over blocks, a read loop into a local tile and a write loop out of it. */
void bmmc_emit_c(FILE *out, const BmmcPlan *plan, const char *name, const char *ctype,
                 const BmmcGuard *guard);

/* ---- The index code both targets' kernels print (emit_bmmc.c) ---- */

/* How emitted code spells an index type and its literals: 32-bit where the
 * index fits (not `portable`), else 64-bit. */
typedef struct {
    const char *type;
    const char *suffix;
} BmmcIdxType;
BmmcIdxType bmmc_idx_type(int bits, bool portable);

/* Per iteration i, the constant part of each index: the columns of the
 * iteration bits (tau and sigma bits `shift` and up, where the thread's bits
 * end), for `count` iterations. */
#define BMMC_MAX_ITERS (1 << (BMMC_MAX_TILE - BMMC_MAX_THREAD_LOG))
typedef struct {
    uint64_t read_x[BMMC_MAX_ITERS], read_slot[BMMC_MAX_ITERS];
    uint64_t write_y[BMMC_MAX_ITERS], write_slot[BMMC_MAX_ITERS];
} BmmcIterTables;
void bmmc_iter_tables(const BmmcPlan *p, int shift, unsigned count, BmmcIterTables *it);

/* The columns of tau -> slot of the source of sigma (P·G), tile_log of them. */
void bmmc_load_slot_cols(const BmmcPlan *p, uint64_t *pg);
/* The kernel's comment: the permutation and its tiling. */
void bmmc_comment(FILE *out, const BmmcPlan *p);
/* The output base of block b: y0 = A·x0 ^ c, its low bits split off into
 * the tile offset of the write side (ybase and sbase: where the two go). */
void bmmc_block_bases(FILE *out, const BmmcPlan *p, BmmcIdxType ty, const char *ind,
                      const char *ybase, const char *sbase);
/* x0, the block's input base. */
void bmmc_x0(FILE *out, const BmmcPlan *p, BmmcIdxType ty, const char *ind);
/* decl = base ^ the thread's part of an index (columns 0..thread_log-1). */
void bmmc_thread_part(FILE *out, const char *ind, const char *decl, const char *base,
                      const uint64_t *cols, int thread_log, BmmcIdxType ty);
/* The parameters after `out` of a kernel with a second output, its shape
 * and its piece. */
void bmmc_extra_params(FILE *out, const BmmcPlan *p, const char *ctype, const BmmcGuard *g);
/* A store's target for a kernel with a second output: "*(...) = ". */
void bmmc_keep_store(FILE *out, const BmmcPlan *p, const char *index);
/* "in[index]", or the pad outside the shape; "out[index] = ", or nothing
 * outside it. */
void bmmc_guarded_load(FILE *out, const BmmcGuard *g, const char *index);
void bmmc_guarded_store(FILE *out, const BmmcGuard *g, const char *index);

#endif
