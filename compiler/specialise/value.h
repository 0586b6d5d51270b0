/* value.h: the values of the specialiser (static evaluation).
 *
 * Everything static is computed here: integers (sizes, masks), booleans,
 * floats, matrices, tuples, lists and functions. Everything computed from
 * array elements is a run-time value: a reference to an IR value being built
 * in the current body. Specialising a program is evaluating it in this
 * domain: combinators applied to run-time arrays append IR statements. */
#ifndef PARMC_VALUE_H
#define PARMC_VALUE_H

#include "ast.h"
#include "imports.h"
#include "ir.h"
#include "names.h"

typedef enum { V_INT, V_BOOL, V_FLOAT, V_MAT, V_TUPLE, V_LIST, V_FUNC, V_RT } ValueKind;
typedef enum { FN_NAMED, FN_LAMBDA, FN_BUILTIN } FnKind;

typedef struct Value Value;
typedef struct Env Env;
typedef struct Spec Spec;

typedef struct { /* all equations of one top-level name */
    const char *name;
    Loc loc;
    int arity;
    PtrList equations; /* Equation* */
} Function;

typedef Value *(*BuiltinImpl)(Spec *s, Value **args, Loc loc);
typedef struct {
    const char *name;
    int arity;
    BuiltinImpl impl;
} Builtin;

struct Value {
    ValueKind kind;
    int64_t i;     /* V_INT, V_BOOL */
    double f;      /* V_FLOAT */
    F2Mat *mat;    /* V_MAT */
    int n;         /* V_TUPLE, V_LIST: element count; V_FUNC: args held */
    Value **elems; /* V_TUPLE, V_LIST; V_FUNC: args held */
    FnKind fn;     /* V_FUNC */
    int arity;
    const Function *named;
    const Expr *lambda;
    Env *env;
    const Builtin *builtin;
    Op op;     /* operator sections: builtin "(op)" with this op */
    IrVal *rt; /* V_RT */
    Loc loc;   /* V_INT, V_FLOAT: where the number was written or computed (may be none) */
};

/* A level of the environment: the names that one binding binds (a pattern,
 * the parameters of a call, a local function's name), in the order bound.
 * Levels are never changed once made, so a closure keeps the one it was
 * made in. The names of a level are distinct (the parser checks that); a
 * level of many, as a list pattern of 2^16 names binds, has a hash table,
 * so that a lookup does not scan them. */
struct Env {
    int n;
    const char **names;
    Value **values;
    NameTable *index; /* Value* by name when n > ENV_SCAN, else NULL */
    Env *next;
};
/* Names a lookup compares one by one before a level is worth a table. */
#define ENV_SCAN 8

typedef struct { /* the bindings of the level being matched: a stack, reused */
    const char **names;
    Value **values;
    int len, cap;
} Bound;

typedef struct { /* one active call, for the notes of an error: how it was reached */
    Loc loc;
    const char *name;
    const Function *fn; /* a call of a named function; NULL: a lambda or the entry */
    const Expr *lambda; /* a call of a lambda or a local function; NULL: otherwise */
    Value **args;
    int nargs;
    bool entry;     /* the frame of the entry itself, at its declaration */
    Loc runtime_if; /* the `if` on a run-time condition in whose branch the call is; line 0: none */
} Frame;

/* A call that takes fewer arguments than its application gives (`two f x
 * ys`), while it runs: an error at its location gets a note that a call
 * used as an argument needs parentheses. */
typedef struct {
    const Value *fn; /* NULL: none */
    Loc loc;
    int given; /* the arguments of the whole application */
} OverApplied;

/* The innermost subtraction written as a negative argument (`f -1`,
 * ast.h) while it is evaluated: an error in it, at its depth of calls, gets
 * the hint that a negative argument needs parentheses when the literal was
 * applied to arguments (`f -1 xs`) or a function met the operators. */
typedef struct {
    const Expr *minus; /* NULL: none */
    int depth;
    bool function; /* the name before '-', or its left operand, is a function */
} NegativeArg;

#define SPEC_MAX_DEPTH 400     /* nested calls */
#define SPEC_MAX_WORK 4000000L /* evaluation steps (calls, expressions, patterns) per compilation */
/* IR statements per compilation, counted as the values they define */
#define SPEC_MAX_STMTS 500000L
#define MAX_LOG_LEN 40 /* index bits per array */

struct Spec {
    Arena *arena;
    IrProgram *prog;
    IrBody *body;                /* where statements are appended now */
    const IrBody *entry_body;    /* the entry's own (body is another inside element code) */
    NameTable funcs;             /* Function* by name */
    Bound bound;                 /* what match has bound for the next Env level */
    int ir_funcs_cap;            /* room in prog->funcs */
    Frame stack[SPEC_MAX_DEPTH]; /* stack[0]: the entry being specialised */
    int depth;
    long work;
    OverApplied over;
    NegativeArg neg;
    Loc runtime_if; /* the innermost `if` on a run-time condition being evaluated in this body */
    const Program *program; /* for suggesting names */
    /* the entry's size range while the parameters before it are evaluated:
     * a name that their types cannot see yet, for the note of that error */
    const EntryParam *range_ahead;
    const ImportPath *import_path; /* for suggesting an import; NULL: none */
};

/* value.c */
Value *value_int(Spec *s, int64_t i);
Value *value_bool(Spec *s, bool b);
Value *value_rt(Spec *s, IrVal *v);
Value *value_tuple(Spec *s, int n, Value **elems);
bool value_is_static(const Value *v);
/* "an integer", "a function", "[2^10]i32", ... for messages */
const char *value_describe(Spec *s, const Value *v);
/* A static number (V_INT or V_FLOAT) with an element type, as a hint to
 * give it one writes it: "i32 2", "f32 (-1.5)". */
const char *value_typed(Spec *s, const Value *v);
/* Compact rendering of arguments for call-chain notes: "5", "asc" (a named
 * function), "<function>" (a lambda or a partial application), "<[2^4]>". */
const char *value_render(Spec *s, const Value *v);

/* specialise.c */
Value *spec_apply(Spec *s, Value *fn, Value *arg, Loc loc);
Value *spec_apply_n(Spec *s, Value *fn, int nargs, Value **args, Loc loc);
int64_t spec_expect_int(Spec *s, Value *v, Loc loc, const char *what);
/* The note after an error where a run-time scalar stands for a static
 * number (a size, an exponent of '^'): how to make it static. */
void spec_static_note(Loc loc);
/* Whether an error at loc gets the hint of a negative argument (NegativeArg),
 * which the notes of specialisation give. */
bool spec_negative_argument_noted(const Spec *s, Loc loc);
IrVal *spec_expect_array(Spec *s, Value *v, Loc loc, const char *what);
/* A run-time value of element type t: static constants are converted. */
Value *spec_coerce(Spec *s, Value *v, const ElemType *t, Loc loc);
/* The element type of a scalar or tuple value, NULL when it is static. */
const ElemType *spec_elem_type(Spec *s, Value *v);
/* The element type that v makes: as spec_elem_type, but a static bool is a
 * bool (NULL while v has a static number, which has no type of its own). */
const ElemType *spec_element_of(Spec *s, Value *v);
/* Run-time element <-> flat slots. */
void spec_flatten(Spec *s, Value *v, IrVal **slots);
Value *spec_unflatten(Spec *s, const ElemType *t, IrVal **slots);
Value *spec_binary(Spec *s, Op op, Value *a, Value *b, Loc loc);
Value *spec_index(Spec *s, IrVal *arr, int64_t i, Loc loc);
Value *spec_build(Spec *s, int n, Value **elems, Loc loc);
/* spec_build of a list whose static numbers alone take the element type fallback. */
Value *spec_build_as(Spec *s, int n, Value **elems, const ElemType *fallback, Loc loc);
int spec_log_len(Spec *s, int64_t len, Loc loc); /* checks power of two and the limit */

/* builtins.c */
const Builtin *builtin_lookup(const char *name);
const Builtin *builtin_at(int i); /* the i-th built-in, NULL past the last: for suggestions */
const Builtin *builtin_opsection(void);
Value *builtin_call_opsection(Spec *s, Op op, Value **args, Loc loc);

#endif
