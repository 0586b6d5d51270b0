/* emit_bmmc.h: the emitters' side of the one-pass BMMC permutation kernels:
 * a plan of bmmc_plan.h written out as CUDA or C with every table a literal. */
#ifndef PARMC_EMIT_BMMC_H
#define PARMC_EMIT_BMMC_H

#include <stdio.h>

#include "bmmc_plan.h"

/* __global__ void name(const T *__restrict__ in, T *__restrict__ out) with
 * every table as a literal, and
 * static cudaError_t name_launch(const T *in, T *out, cudaStream_t s). */
void bmmc_emit_cuda(FILE *out, const BmmcPlan *plan, const char *name, const char *ctype);

/* The same kernel as portable C11: void name(const T *in, T *out), one loop
 * over blocks, a read loop into a local tile and a write loop out of it. */
void bmmc_emit_c(FILE *out, const BmmcPlan *plan, const char *name, const char *ctype);

#endif
