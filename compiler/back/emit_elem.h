/* emit_elem.h: C code for element-level bodies (comparators, map functions).
 *
 * A local body of the optimised IR computes on scalars and on small arrays
 * (a comparator's [2]t). Its arrays never reach memory: each array value is a
 * list of C variables, one per element and slot, so INDEX, BUILD and a bmmc
 * on a small array only rename variables. The same text is valid C11 and CUDA
 * device code; the operators call runtime/parm_ops.h, which gives every
 * back end the interpreter's semantics bit for bit. */
#ifndef PARMC_EMIT_ELEM_H
#define PARMC_EMIT_ELEM_H

#include <stdio.h>

#include "ir.h"
#include "plan.h"

/* Where element code finds its position: `expr` gives the value of a POS
 * statement as a C expression of type int64_t over the caller's variables
 * (allocated in `arena`). Bodies without POS take NULL. `tables`: where
 * the body's tables live (the plan's choice, TableUse); a table not listed
 * (NULL: none) is read from global memory. */
typedef struct {
    const char *(*expr)(const void *ctx, const IrStmt *pos, Arena *arena);
    const void *ctx;
    const TableUse *tables;
    int ntables;
} ElemPositions;

/* Emit the statements of `body` at indentation `indent`. `params[k]` are C
 * expressions for the flattened slots of the body's parameters (element-
 * major, slot-minor for array parameters); the code assigns the flattened
 * slots of the body's results to the C lvalues `results[k]`; a NULL
 * results[k] is a slot the caller does not want, which the code neither
 * assigns nor computes (unless a wanted one needs it). Local variables
 * are named with `prefix` so that several bodies can share a scope. Of the
 * values defined outside the body, a reduction's body may read those of the
 * body around it, and any body the entry's run-time scalar parameters, as the
 * C variables parm_arg<id> that the caller has in scope; others are not
 * supported (the scheduler rejects them). */
void emit_elem_body(FILE *out, const IrBody *body, const char *const *params,
                    const char *const *results, const char *prefix, int indent,
                    const ElemPositions *positions);

/* emit_elem_body with parameters named e0..e(width-1) and results assigned
 * to r0..r(width-1), which the caller declares: the convention of the local
 * steps of both back ends. */
void emit_elem_named(FILE *out, const IrBody *body, int width, const char *prefix, int indent,
                     const ElemPositions *positions);

/* The file-scope arrays of the tables (IR_TABLE) in the bodies and their
 * nested bodies, which element code reads (named parm_tab<number>; tables
 * that share a number are written once), and a copy in constant memory
 * (parm_ctab<number>) of each table whose number is in `constant`. */
void emit_elem_tables(FILE *out, const IrBody *const *bodies, int nbodies, const bool *constant,
                      int nconstant);

/* A C literal of type p with exactly the bits of v (also CUDA code). */
const char *emit_scalar_literal(Arena *a, Prim p, Scalar v);

/* Number of flattened scalar slots of a value (elements × slots). */
int emit_elem_slots(const IrVal *v);

#endif
