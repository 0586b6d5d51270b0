/* ast.h: the syntax tree built by the parser (parser.y).
 *
 * The tree is untyped: sizes, masks, matrices and functions only get their
 * values in the specialiser (specialise.c), which evaluates everything static.
 * All nodes live in the compilation's arena. */
#ifndef PARMC_AST_H
#define PARMC_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"
#include "types.h"

typedef enum {
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_MOD,
    OP_POW,
    OP_SHL,
    OP_SHR,
    OP_BAND,
    OP_BOR,
    OP_XOR,
    OP_EQ,
    OP_NE,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_AND,
    OP_OR,    /* && || */
    OP_INDEX, /* xs ! k: the element at a static position */
    OP_NEG,
    OP_NOT, /* unary - and ! */
    /* the built-in functions on scalars (docs/language.md, 6.3); OP_FPOW is
     * pow x y on floats, OP_POW the static power ^ */
    OP_SQRT,
    OP_SIN,
    OP_COS,
    OP_EXP,
    OP_LOG,
    OP_TANH,
    OP_FLOOR,
    OP_CEIL,
    OP_ABS,
    OP_ATAN2,
    OP_FPOW,
    OP_FMA,
    OP_COUNT
} Op;

/* Every fact about an operator, in one table (ast.c): its source spelling,
 * its name in the IR and in the runtime (parm_<name>_<type>), its number of
 * operands, the kinds of primitive it takes at run time (none for ^, static
 * power), whether it is a built-in function (called as `sqrt x`, computed
 * at compile time on static numbers) and its cost in element code, roughly
 * in simple operations (what makes a position-only value worth a table:
 * opt_tables.c, docs/ir.md "Tables"). */
typedef struct {
    const char *spelling, *name;
    int arity;
    bool on_int, on_float, on_bool;
    bool function;
    int cost;
} OpInfo;
const OpInfo *op_info(Op op);
bool op_is_comparison(Op op); /* == != < <= > >=: a bool of two operands of one type */
bool op_takes(Op op, Prim p); /* the operator applies to p at run time */
const char *op_name(Op op);   /* source spelling: "+", "xor", "&&", ... */
bool op_is_function(Op op);   /* a built-in function: sqrt, sin, ..., fma */

typedef struct Expr Expr;
typedef struct Pattern Pattern;

typedef struct { /* a growable list of pointers, arena-backed */
    void **items;
    int len, cap;
} PtrList;
void ptrlist_push(Arena *a, PtrList *l, void *item);

typedef enum { PAT_VAR, PAT_WILD, PAT_INT, PAT_LIST, PAT_TUPLE } PatternKind;

struct Pattern {
    PatternKind kind;
    Loc loc;
    const char *name; /* PAT_VAR */
    int64_t value;    /* PAT_INT */
    PtrList elems;    /* PAT_LIST, PAT_TUPLE: Pattern* */
};

typedef enum {
    EXPR_INT,    /* value */
    EXPR_FLOAT,  /* fvalue */
    EXPR_BOOL,   /* value 0/1 */
    EXPR_VAR,    /* name */
    EXPR_OPFN,   /* an operator as a function: (+), (xor), (<=); op */
    EXPR_APP,    /* fn applied to one argument: curried */
    EXPR_BINARY, /* op lhs rhs */
    EXPR_UNARY,  /* op lhs */
    EXPR_IF,     /* cond then else */
    EXPR_LET,    /* let pattern = value in body; a function binding has params */
    EXPR_LAMBDA, /* \params -> body */
    EXPR_TUPLE,  /* (e1, e2, ...): elems, at least 2 */
    EXPR_LIST    /* [e1, e2, ...]: elems, at least 1 */
} ExprKind;

struct Expr {
    ExprKind kind;
    Loc loc; /* the token that best names the node (operator, '(' ...) */
    int64_t value;
    double fvalue;
    /* EXPR_VAR; EXPR_INT, EXPR_FLOAT: the literal as written, for hints; EXPR_LAMBDA: the
     * local function (`let f p = ...`) it stands for, NULL for a lambda */
    const char *name;
    Op op;
    Expr *fn, *arg;          /* EXPR_APP */
    Expr *lhs, *rhs;         /* EXPR_BINARY, EXPR_UNARY (lhs only) */
    Expr *cond, *then, *els; /* EXPR_IF */
    Pattern *bind;           /* EXPR_LET: the bound pattern, or PAT_VAR naming a function */
    PtrList params;          /* EXPR_LET (function binding), EXPR_LAMBDA: Pattern* */
    Expr *value_expr;        /* EXPR_LET */
    Expr *body;              /* EXPR_LET, EXPR_LAMBDA */
    PtrList elems;           /* EXPR_TUPLE, EXPR_LIST: Expr* */
    /* EXPR_BINARY '-' written as a negative argument, `f -1` (a name, a
     * space, then '-' directly followed by a literal): the name and the
     * literal, for the hint of an error in it (specialise.c); else NULL */
    const Expr *neg_head, *neg_literal;
    int height; /* of the tree: 0 for a leaf; at most 1000 (parse.c) */
};

/* Types written in entry parameters. */
typedef enum { TYPE_PRIM, TYPE_TUPLE, TYPE_ARRAY } TypeExprKind;
typedef struct TypeExpr TypeExpr;
struct TypeExpr {
    TypeExprKind kind;
    Loc loc;
    const char *prim; /* TYPE_PRIM: "i32", ... (checked by the specialiser) */
    PtrList fields;   /* TYPE_TUPLE: TypeExpr* */
    Expr *length;     /* TYPE_ARRAY: static expression, e.g. 2^n */
    TypeExpr *elem;   /* TYPE_ARRAY */
};

/* One equation `name p1 p2 ... = body`. */
typedef struct {
    Loc loc;
    const char *name;
    PtrList params; /* Pattern* */
    Expr *body;
} Equation;

/* An entry parameter: `(x : TYPE)` or a size range `(n : lo..hi)`. */
typedef struct {
    Loc loc;
    const char *name;
    TypeExpr *type; /* NULL for a range */
    Expr *pad;      /* `pad e`: the element an absent one stands for; NULL if none */
    /* `pad e, segments starts lens`: the parameters that give each row's
     * start and length in the caller's array (docs/language.md, 7.3); NULL if none */
    const char *seg_starts, *seg_lens;
    Loc seg_loc;
    Expr *lo, *hi; /* range bounds, inclusive */
} EntryParam;

typedef struct {
    Loc loc;
    const char *name;
    PtrList params; /* EntryParam* */
    Expr *cut;      /* `: [k]`: the row length its other array results are cut to; NULL if none */
    Expr *body;
} Entry;

typedef struct {
    const Source *src; /* the main source file (the first parsed) */
    PtrList equations; /* Equation*, in source order */
    PtrList entries;   /* Entry*, in source order */
    PtrList imports;   /* Import*: `import "name"` lines, resolved by imports.c */
    /* Entry*: the entries of imported files, never compiled; kept so that a
     * missing entry of that name can be explained */
    PtrList imported_entries;
} Program;

typedef struct {
    Loc loc;
    const char *path; /* the string as written */
} Import;

#endif
