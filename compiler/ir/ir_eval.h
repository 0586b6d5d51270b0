/* ir_eval.h: the reference evaluator of the IR (the interpreter's engine).
 *
 * It implements every IR form straight from its definition, with no
 * rewriting, so it is the oracle for the optimiser and the back ends. It is
 * data-parallel: a nested body is evaluated once for all its instances (all
 * sub-arrays of a parm, all pairs of a col, all elements of a map), so
 * interpreting a sort of 2^20 elements takes seconds, not hours. */
#ifndef PARMC_IR_EVAL_H
#define PARMC_IR_EVAL_H

#include "ir.h"

/* A batch of `batch` values, each 2^log_len elements (1 for a scalar), stored
 * slot by slot: element i of instance b, slot k is planes[k][b * len + i]. */
typedef struct {
    long batch;
    int log_len;
    const ElemType *elem;
    Scalar **planes;
} Buf;

Buf *buf_new(long batch, int log_len, const ElemType *elem);
void buf_free(Buf *b);
long buf_len(const Buf *b); /* elements per instance */

/* Evaluate f on its inputs (one buffer per parameter, batch 1). Returns one
 * buffer per result and a NULL after them; the caller frees them. The inputs
 * stay the caller's. */
Buf **ir_eval_func(const IrProgram *p, const IrFunc *f, Buf **inputs);

/* The first element (index, any slot) where a and b differ bitwise, or -1. */
long buf_first_difference(const Buf *a, const Buf *b);

#endif
