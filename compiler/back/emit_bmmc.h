/* emit_bmmc.h: the emitters' side of the one-pass BMMC permutation kernels:
 * a plan of bmmc_plan.h written out as CUDA or C with every table a literal. */
#ifndef PARMC_EMIT_BMMC_H
#define PARMC_EMIT_BMMC_H

#include <stdbool.h>
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

#endif
