/* ir.h: the combinator IR: SSA over whole arrays of fixed length.
 *
 * A value is a scalar of a primitive type or an array of 2^log_len elements
 * of an element type. A statement has argument values, result values, and
 * for the combinators a nested body (a function given as params, statements
 * and results). Bodies may use values defined in enclosing bodies.
 *
 * Statement forms (args -> results):
 *   CONST                      -> s        scalar constant
 *   UNARY op    a              -> s
 *   BINARY op   a b            -> s
 *   SELECT      c a b          -> s        c ? a : b
 *   CONVERT     a              -> s        to prim
 *   INDEX i,slot  xs           -> s        static index (i may be up to 2^40 - 1)
 *   BUILD       s0 s1 ...      -> xs       element-major, slot-minor
 *   PARM m f    xs             -> ys       parm m f (language semantics)
 *   TWO k f     xs             -> ys       f on each of the 2^k blocks (top k bits)
 *   COL m f     xs             -> ys       f on pairs {i, i^m}
 *   BMMC A c    xs             -> ys       ys[A x ^ c] = xs[x]
 *   MAP f       xs             -> ys       f on every element (slots as params)
 *   ZIP         xs ys ...      -> zs       array of tuples
 *   UNZIP       zs             -> xs ys .. one array per tuple field
 *   REPLICATE k s0 s1 ...      -> xs       2^k copies of one element (slots)
 *   REDUCE op   z0.. xs        -> r0..     op a body with 2*slots params
 *   REDUCEBLOCKS k op z0.. xs  -> ys       each block of 2^k consecutive
 *                                          elements reduced as REDUCE does:
 *                                          2^(n-k) elements
 *   EXPAND k    ys             -> xs       each element 2^k times in a row
 *   SCAN k op z0.. xs          -> ys       each block of 2^k consecutive
 *                                          elements scanned: ys[i] = z op x0
 *                                          op .. op xi from the block's first
 *                                          x0 (exclusive: .. op x(i-1), z at
 *                                          the first); op is a built-in one
 *                                          that is exact (commutative), so
 *                                          any grouping gives the same bits
 *   HALF m b    xs             -> ys       sub-array b of parm m: 2^(n-1) elements
 *   JOIN m      ys zs          -> xs       the array whose HALF m 0 is ys and HALF m 1 is zs
 *   SHIFT d k   s0 s1 .. xs    -> ys       each block of 2^k consecutive
 *                                          elements shifted alone: ys[i] =
 *                                          xs[i - d] where that is in i's
 *                                          block, else the fill element
 *                                          (slots); k is n for the shift of
 *                                          a whole array, less once two-lift
 *                                          lifted a block's shift
 *   POS A c                    -> i        (i64) A·coord ⊕ c, where coord is
 *                                          the position of the instance of
 *                                          the body holding the statement:
 *                                          the element index for MAP, the
 *                                          block for TWO, the pair's lower
 *                                          index for COL, the half for PARM
 *   TABLE k     i              -> s        tab[i], 0 <= i < 2^k: a table of
 *                                          2^k scalars computed at compile
 *                                          time (opt_tables.c); i is a POS
 *
 * A POS matrix is a list of rows (masks over the bits of coord, which may be
 * fewer or more than the rows): output bit k is parity(row[k] & coord). The
 * rules that change what coord means (col to two, map past bmmc) rewrite A. */
#ifndef PARMC_IR_H
#define PARMC_IR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "ast.h"
#include "f2.h"
#include "types.h"

typedef struct IrStmt IrStmt;
typedef struct IrBody IrBody;

typedef struct {
    int id;               /* unique in the program; printed as %id */
    int log_len;          /* -1 for a scalar */
    const ElemType *elem; /* a primitive for scalars */
    IrStmt *def;          /* defining statement; NULL for parameters */
} IrVal;

typedef enum {
    IR_CONST,
    IR_UNARY,
    IR_BINARY,
    IR_TERNARY,
    IR_SELECT,
    IR_CONVERT,
    IR_INDEX,
    IR_BUILD,
    IR_PARM,
    IR_TWO,
    IR_COL,
    IR_BMMC,
    IR_MAP,
    IR_ZIP,
    IR_UNZIP,
    IR_REPLICATE,
    IR_REDUCE,
    IR_POS,
    IR_TABLE,
    IR_REDUCEBLOCKS,
    IR_EXPAND,
    IR_HALF,
    IR_JOIN,
    IR_SHIFT,
    IR_SCAN,
    IR_OP_COUNT
} IrOp;

struct IrBody {
    int nparams, nresults;
    IrVal **params;
    IrVal **results;
    IrStmt **stmts;
    int nstmts, cap;
    int rewritten; /* scratch for the optimiser: the round that rewrote it */
};

struct IrStmt {
    IrOp op;
    Loc loc;
    int nargs, nres;
    IrVal **args;
    IrVal **res;
    Op alu;        /* UNARY, BINARY, TERNARY (ir_op_is_alu) */
    Prim to;       /* CONVERT */
    Scalar cval;   /* CONST */
    int64_t at;    /* INDEX: the element */
    int index;     /* TABLE: the table's number */
    int slot;      /* INDEX */
    uint64_t mask; /* PARM, COL, HALF, JOIN */
    /* TWO, REPLICATE, REDUCEBLOCKS, EXPAND, SCAN, SHIFT; TABLE: 2^k entries;
     * HALF: the sub-array b */
    int k;
    int64_t dist;      /* SHIFT: d */
    const Scalar *tab; /* TABLE: the entries, of the result's type */
    F2Mat *mat;        /* BMMC; POS: rows over the instance's position */
    bool own_mat;      /* mat is this statement's alone: passes may rewrite it in place */
    uint64_t compl ;   /* BMMC, POS */
    IrBody *body;      /* PARM TWO COL MAP REDUCE REDUCEBLOCKS SCAN */
    bool commutative;  /* REDUCE, REDUCEBLOCKS, SCAN: the operator is a built-in commutative one */
    bool exclusive;    /* SCAN: each element's result leaves the element out */
    bool dead;         /* scratch for the optimiser: killed, to be dropped from its body */
};

/* The most elements (log2) of the caller's array of an entry with segments. */
#define IR_SEGMENTED_MAX_LOG 40

typedef struct {
    const char *name;  /* entry name, with _n suffix per size when ranged */
    const char *entry; /* entry name as written */
    int size_param;    /* the value of a range parameter, -1 if none */
    Loc loc;           /* the entry's declaration, for back-end refusals */
    IrBody *body;      /* params are the entry's inputs */
    /* An array parameter with a pad element (docs/language.md, 7): the entry
     * takes any shape up to 2^pad_rows_log rows of 2^pad_cols_log elements
     * (rows -1 and cols log_len for a one-dimensional one), reads an absent
     * element as pad (one scalar per slot), and truncates array results of
     * the parameter's length to the shape it was given. pad_param is -1
     * when no parameter has a pad. */
    int pad_param;
    int pad_rows_log, pad_cols_log;
    const Scalar *pad;
    /* `pad e, segments starts lens` (docs/language.md 7.3): the parameters
     * (1-D integer arrays of 2^pad_rows_log) that place row i of the padded
     * parameter at starts[i] in the caller's array of any length, lens[i]
     * elements long; the caller's array and the results of the padded length
     * hold n elements. -1 when the rows are not segments. */
    int seg_starts, seg_lens;
    /* `: [k]` after the parameters (docs/language.md 7.2): every array
     * result of another length than the padded parameter's is rows (as
     * many as the parameter has) cut to their first cut_cols elements,
     * the given rows only. 0: none. */
    int64_t cut_cols;
} IrFunc;

/* The log length of a row of result v as the entry's result row length cuts
 * it (IrFunc.cut_cols), or -1 where it is not cut so. */
int ir_cut_row_log(const IrFunc *f, const IrVal *v);

typedef struct {
    Arena *arena;
    int next_id;
    IrFunc **funcs;
    int nfuncs;
} IrProgram;

IrVal *ir_new_val(IrProgram *p, int log_len, const ElemType *elem);
IrBody *ir_new_body(IrProgram *p);
/* Append a statement with fresh result values of the given shapes. */
IrStmt *ir_append(IrProgram *p, IrBody *b, IrOp op, Loc loc, int nargs, IrVal **args);
IrVal *ir_add_result(IrProgram *p, IrStmt *s, int log_len, const ElemType *elem);
IrVal *ir_body_add_param(IrProgram *p, IrBody *b, int log_len, const ElemType *elem);
void ir_body_add_result(IrProgram *p, IrBody *b, IrVal *v);
/* ir_body_add_result of the k values vals, in order. */
void ir_body_add_results(IrProgram *p, IrBody *b, int k, IrVal **vals);
/* One scalar parameter for each slot of t, stored in slots as well. */
void ir_body_add_slot_params(IrProgram *p, IrBody *b, const ElemType *t, IrVal **slots);
void ir_body_push(IrProgram *p, IrBody *b, IrStmt *s);
/* The ids of b's own values (its parameters and its statements' results,
 * not those of nested bodies) lie in lo .. lo + count - 1: the maps of a
 * pass over one body are indexed by id - lo, as small as the body. */
void ir_body_id_range(const IrBody *b, int *lo, int *count);
/* to takes from's attributes of scalar code (operator, conversion, constant,
 * element, slot, complement), for a copy of from with other arguments. */
void ir_copy_scalar_attrs(IrStmt *to, const IrStmt *from);
/* `(x & mask) == value` on the i64 x, appended to b: a bool. */
IrVal *ir_append_mask_test(IrProgram *p, IrBody *b, Loc loc, IrVal *x, uint64_t mask,
                           uint64_t value);
const char *ir_op_name(IrOp op);
/* UNARY, BINARY and TERNARY: an operator of ast.h's table (s->alu) applied
 * to op_info(alu)->arity scalars of one type */
bool ir_op_is_alu(IrOp op);
bool ir_is_scalar(const IrVal *v);

/* ir_walk.c: the traversal of a body and of every body nested in it, in
 * program order. Each callback given is called: stmt for a statement before
 * anything in it (returning false skips its reads, body and results); read
 * for each value read, a statement's argument or a body's result, by the
 * slot that holds it (so a pass may replace it); def for each value where
 * it is defined, a body's parameter or a statement's result, with that
 * body. A callback that sets stop ends the walk. A new kind of statement
 * needs nothing here: its arguments, results and body are walked as any. */
typedef struct IrWalk IrWalk;
struct IrWalk {
    bool (*stmt)(IrWalk *w, IrStmt *s);
    void (*read)(IrWalk *w, IrVal **slot);
    void (*def)(IrWalk *w, const IrBody *b, IrVal *v);
    void *ctx; /* the pass's own */
    bool stop;
    int depth; /* of the body being walked: 0 for b, 1 for a body in it, ... */
};
void ir_walk(IrWalk *w, const IrBody *b);
/* The use count: adds delta to uses[id] for every read of value id in b at
 * any depth (ids from cap up are not counted). */
void ir_count_uses(const IrBody *b, int *uses, int cap, int delta);
/* The statements of kind op in b, at any depth. */
int ir_count_stmts(const IrBody *b, IrOp op);

/* POS: replace its coordinate by one with coord_old = M·coord_new ⊕ t, where
 * m_rows[j] (a mask over coord_new) is row j of M. */
void ir_pos_substitute(IrStmt *pos, const uint64_t *m_rows, int m_nrows, uint64_t t);

/* ir_print.c: the text form documented in docs/ir.md. */
/* "two 20 at sort.parm:10:14 (%123)" */
void ir_print_stmt_brief(FILE *out, const IrStmt *s);
void ir_print_program(FILE *out, const IrProgram *p);

/* ir_verify.c: stops with an internal error naming `stage` when the program
 * breaks an invariant of ir.h (forms, bodies, scopes, single definition). */
void ir_verify_program(const IrProgram *p, const char *stage);
/* The same checks on b, the body of the entry func, in the middle of a pass
 * that rewrites it: a read of x checks resolve(ctx, x), what x stands for
 * now (the pass's pending replacements), and statements marked dead are
 * left out. Returns NULL when they hold, else what is broken, in p's
 * arena. */
typedef const IrVal *(*IrVerifyResolve)(void *ctx, const IrVal *x);
const char *ir_verify_body(const IrProgram *p, const char *func, const IrBody *b,
                           IrVerifyResolve resolve, void *ctx);

#endif
