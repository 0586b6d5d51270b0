/* builtins.c: operators and built-in functions of the specialiser.
 *
 * Applied to static values they compute at compile time; applied to run-time
 * values they append IR. The combinators build nested IR bodies by applying
 * their function argument to fresh parameters. */
#include "value.h"

#include <math.h>
#include <string.h>

#include "scalar_ops.h"

/* ---- operators ---- */

static int64_t static_pow(Spec *s, int64_t base, int64_t exp, Loc loc) {
    if (exp < 0) diag_error(loc, "negative exponent %lld in static arithmetic", (long long)exp);
    /* |base| >= 2 overflows within 64 steps; these would loop for exp steps */
    if (base == 0 || base == 1) return exp == 0 ? 1 : base;
    if (base == -1) return exp % 2 ? -1 : 1;
    int64_t r = 1;
    for (int64_t i = 0; i < exp; i++)
        if (__builtin_mul_overflow(r, base, &r))
            diag_error(loc, "static arithmetic overflows 64 bits");
    return r;
}

static Value *static_int_op(Spec *s, Op op, int64_t a, int64_t b, Loc loc) {
    int64_t r = 0;
    bool overflow = false;
    switch (op) {
    case OP_ADD: overflow = __builtin_add_overflow(a, b, &r); break;
    case OP_SUB: overflow = __builtin_sub_overflow(a, b, &r); break;
    case OP_MUL: overflow = __builtin_mul_overflow(a, b, &r); break;
    case OP_DIV:
    case OP_MOD:
        if (b == 0) diag_error(loc, "division by zero in static arithmetic");
        if (a == INT64_MIN && b == -1) overflow = true;
        else r = op == OP_DIV ? a / b : a % b;
        break;
    case OP_POW: return value_int(s, static_pow(s, a, b, loc));
    case OP_SHL:
        if (b < 0 || b > 62 || a < 0 || (b > 0 && a >> (63 - b)))
            diag_error(loc, "static shift %lld << %lld overflows", (long long)a, (long long)b);
        r = a << b;
        break;
    case OP_SHR:
        if (b < 0 || b > 63) diag_error(loc, "static shift by %lld is out of range", (long long)b);
        r = a >> b;
        break;
    case OP_BAND: r = a & b; break;
    case OP_BOR: r = a | b; break;
    case OP_XOR: r = a ^ b; break;
    case OP_EQ: return value_bool(s, a == b);
    case OP_NE: return value_bool(s, a != b);
    case OP_LT: return value_bool(s, a < b);
    case OP_LE: return value_bool(s, a <= b);
    case OP_GT: return value_bool(s, a > b);
    case OP_GE: return value_bool(s, a >= b);
    default: diag_error(loc, "operator '%s' does not apply to integers", op_name(op));
    }
    if (overflow) diag_error(loc, "static arithmetic overflows 64 bits");
    return value_int(s, r);
}

/* Arithmetic is the run-time f64 arithmetic, so that a static NaN has the
 * run-time bits (the canonical NaN). */
static Value *static_float_op(Spec *s, Op op, double a, double b, Loc loc) {
    Value *v = NEW(s->arena, Value);
    v->kind = V_FLOAT;
    switch (op) {
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
        v->f = scalar_binary(op, PRIM_F64, (Scalar){.f64 = a}, (Scalar){.f64 = b}).f64;
        return v;
    case OP_EQ: return value_bool(s, a == b);
    case OP_NE: return value_bool(s, a != b);
    case OP_LT: return value_bool(s, a < b);
    case OP_LE: return value_bool(s, a <= b);
    case OP_GT: return value_bool(s, a > b);
    case OP_GE: return value_bool(s, a >= b);
    default: diag_error(loc, "operator '%s' does not apply to floating-point numbers", op_name(op));
    }
}

static Value *static_bool_op(Spec *s, Op op, bool a, bool b, Loc loc) {
    switch (op) {
    case OP_AND:
    case OP_BAND: return value_bool(s, a && b);
    case OP_OR:
    case OP_BOR: return value_bool(s, a || b);
    case OP_EQ: return value_bool(s, a == b);
    case OP_NE:
    case OP_XOR: return value_bool(s, a != b);
    default: diag_error(loc, "operator '%s' does not apply to booleans", op_name(op));
    }
}

static Value *static_unary(Spec *s, Op op, Value *a, Loc loc) {
    if (op == OP_NOT && a->kind == V_BOOL) return value_bool(s, !a->i);
    if (op == OP_NEG && a->kind == V_INT) return static_int_op(s, OP_SUB, 0, a->i, loc);
    if (op == OP_NEG && a->kind == V_FLOAT) return static_float_op(s, OP_SUB, 0.0, a->f, loc);
    diag_error(loc, "operator '%s' does not apply to %s", op_name(op), value_describe(s, a));
}

static bool is_numeric_static(const Value *v) { return v->kind == V_INT || v->kind == V_FLOAT; }

static Value *static_binary(Spec *s, Op op, Value *a, Value *b, Loc loc) {
    if (a->kind == V_INT && b->kind == V_INT) return static_int_op(s, op, a->i, b->i, loc);
    if (a->kind == V_BOOL && b->kind == V_BOOL) return static_bool_op(s, op, a->i, b->i, loc);
    if (is_numeric_static(a) && is_numeric_static(b)) {
        double x = a->kind == V_INT ? (double)a->i : a->f;
        double y = b->kind == V_INT ? (double)b->i : b->f;
        return static_float_op(s, op, x, y, loc);
    }
    diag_error(loc, "operator '%s' does not apply to %s and %s", op_name(op), value_describe(s, a),
               value_describe(s, b));
}

/* Which primitive types an operator or built-in function accepts at run
 * time. */
static void check_runtime_op(Op op, Prim p, Loc loc) {
    if (op_takes(op, p)) return;
    if (op_is_function(op) && op_info(op)->on_int)
        diag_error(loc, "'%s' takes integers or floats, got %s", op_name(op), prim_name(p));
    if (op_is_function(op) && op_info(op)->arity == 1)
        diag_error(loc, "'%s' takes f32 or f64, got %s; convert first, as in %s (f64 x)",
                   op_name(op), prim_name(p), op_name(op));
    if (op_is_function(op))
        diag_error(loc, "'%s' takes f32 or f64, got %s; convert first (f64 x)", op_name(op),
                   prim_name(p));
    diag_error(loc, "operator '%s' does not apply to %s", op_name(op), prim_name(p));
}

static const ElemType *scalar_type_of(Spec *s, Value *v, Op op, Loc loc) {
    if (v->kind != V_RT) return NULL;
    if (!ir_is_scalar(v->rt))
        diag_error(loc, "%s '%s' needs scalars, got %s; use map or zip for arrays",
                   op_is_function(op) ? "function" : "operator", op_name(op), value_describe(s, v));
    return v->rt->elem;
}

/* A static number computed here is located at its operator, so that one
 * that does not fit the type it meets later is reported where it was made. */
static Value *located(Value *v, Loc loc) {
    if (v->kind == V_INT || v->kind == V_FLOAT) v->loc = loc;
    return v;
}

/* '^' with a run-time operand: a run-time exponent at the entry's level is
 * a size that should have been static (an entry's scalar parameter); in
 * element code, like a run-time base, it wants arithmetic. */
static noreturn void runtime_power(Spec *s, Value *a, Value *b, Loc loc) {
    Value *rt = value_is_static(b) ? a : b;
    diag_report(loc,
                "'^' is static power: its operands must be known at compile time, but %s is %s",
                rt == a ? "the base" : "the exponent", value_describe(s, rt));
    if (rt == b && s->body == s->entry_body) spec_static_note(loc);
    else if (rt == b)
        diag_note(loc, "'^' computes static numbers such as sizes; in element code, a run-time "
                       "power of two is a shift (1 << x), and pow takes floats");
    else
        diag_note(
            loc,
            "'^' computes static numbers such as sizes; for a run-time power, multiply (x * x)");
    diag_abort();
}

/* `f -1` is the subtraction f - 1: a function on the left of '-'. Written
 * so, the notes of specialisation give the hint with its names. */
static noreturn void function_minus(Spec *s, Value *b, Loc loc) {
    diag_report(loc, "operator '-' does not apply to a function and %s", value_describe(s, b));
    if (!spec_negative_argument_noted(s, loc))
        diag_note(loc,
                  "`f -1` is the subtraction f - 1; a negative argument needs parentheses: f (-1)");
    diag_abort();
}

static Value *index_at(Spec *s, Value *xs, Value *k, Loc loc);

/* a == b on tuples: every field equal (a != b: some field differs), so
 * that tuples compare as every other element type does (docs/language.md 5.2). */
static Value *tuple_equality(Spec *s, Op op, Value *a, Value *b, Loc loc) {
    if (a->n != b->n)
        diag_error(loc, "'%s' compares tuples of the same number of fields, got %d and %d",
                   op_name(op), a->n, b->n);
    Value *all = NULL;
    for (int i = 0; i < a->n; i++) {
        Value *field = spec_binary(s, op, a->elems[i], b->elems[i], loc);
        all = all ? spec_binary(s, op == OP_EQ ? OP_AND : OP_OR, all, field, loc) : field;
    }
    return all;
}

Value *spec_binary(Spec *s, Op op, Value *a, Value *b, Loc loc) {
    if (b && (op == OP_EQ || op == OP_NE) && a->kind == V_TUPLE && b->kind == V_TUPLE)
        return tuple_equality(s, op, a, b, loc);
    if (!b) {
        if (value_is_static(a)) return located(static_unary(s, op, a, loc), loc);
        const ElemType *t = scalar_type_of(s, a, op, loc);
        if (!t)
            diag_error(loc, "operator '%s' does not apply to %s", op_name(op),
                       value_describe(s, a));
        check_runtime_op(op, t->prim, loc);
        IrStmt *st = ir_append(s->prog, s->body, IR_UNARY, loc, 1, &a->rt);
        st->alu = op;
        return value_rt(s, ir_add_result(s->prog, st, -1, t));
    }
    if (op == OP_INDEX) return index_at(s, a, b, loc);
    if (op == OP_SUB && a->kind == V_FUNC && b->kind != V_FUNC) function_minus(s, b, loc);
    if (value_is_static(a) && value_is_static(b))
        return located(static_binary(s, op, a, b, loc), loc);
    if (op == OP_POW) runtime_power(s, a, b, loc);
    const ElemType *ta = scalar_type_of(s, a, op, loc), *tb = scalar_type_of(s, b, op, loc);
    if (ta && tb && ta->prim != tb->prim)
        diag_error(loc, "type mismatch: '%s' applied to %s and %s", op_name(op),
                   prim_name(ta->prim), prim_name(tb->prim));
    const ElemType *t = ta ? ta : tb;
    if (!t)
        diag_error(loc, "operator '%s' does not apply to %s and %s", op_name(op),
                   value_describe(s, a), value_describe(s, b));
    check_runtime_op(op, t->prim, loc);
    IrVal *args[2] = {spec_coerce(s, a, t, loc)->rt, spec_coerce(s, b, t, loc)->rt};
    IrStmt *st = ir_append(s->prog, s->body, IR_BINARY, loc, 2, args);
    st->alu = op;
    return value_rt(s, ir_add_result(s->prog, st, -1,
                                     op_is_comparison(op) ? elem_prim(PRIM_BOOL) : t));
}

static Value *op_section(Spec *s, Value **args, Loc loc) {
    (void)s;
    (void)args;
    (void)loc;
    return NULL;
}
static const Builtin opsection = {"(op)", 2, op_section};
const Builtin *builtin_opsection(void) { return &opsection; }

Value *builtin_call_opsection(Spec *s, Op op, Value **args, Loc loc) {
    if (op == OP_NEG || op == OP_NOT) return spec_binary(s, op, args[0], NULL, loc);
    return spec_binary(s, op, args[0], args[1], loc);
}

/* ---- scalar functions ---- */

/* A static number or a run-time scalar of an integer or float type. */
static bool is_number(const Value *v) {
    if (is_numeric_static(v)) return true;
    return v->kind == V_RT && ir_is_scalar(v->rt) && !v->rt->elem->is_tuple &&
           v->rt->elem->prim != PRIM_BOOL;
}

/* min a b = if b < a then b else a: expressed with existing IR forms so the
 * back ends need nothing new. */
static Value *min_or_max(Spec *s, Value **args, Loc loc, Op less) {
    /* checked here, as the '<' or '>' that would refuse the operand is not in the program */
    for (int i = 0; i < 2; i++)
        if (!is_number(args[i]))
            diag_error(loc, "%s takes numbers, got %s%s", less == OP_LT ? "min" : "max",
                       value_describe(s, args[i]),
                       args[i]->kind == V_RT && !ir_is_scalar(args[i]->rt)
                           ? "; use map or zip for arrays"
                           : "");
    Value *lt = spec_binary(s, less, args[1], args[0], loc);
    if (lt->kind == V_BOOL) return lt->i ? args[1] : args[0];
    const ElemType *t = spec_elem_type(s, args[0]);
    if (!t) t = spec_elem_type(s, args[1]);
    IrVal *sel[3] = {lt->rt, spec_coerce(s, args[1], t, loc)->rt,
                     spec_coerce(s, args[0], t, loc)->rt};
    IrStmt *st = ir_append(s->prog, s->body, IR_SELECT, loc, 3, sel);
    return value_rt(s, ir_add_result(s->prog, st, -1, t));
}
static Value *b_min(Spec *s, Value **args, Loc loc) { return min_or_max(s, args, loc, OP_LT); }
static Value *b_max(Spec *s, Value **args, Loc loc) { return min_or_max(s, args, loc, OP_GT); }

/* The functions of ast.h's operator table (sqrt, sin, ..., fma): on static
 * numbers the run-time f64 function, so that a static result has the run-
 * time bits (abs of a static integer is an integer); at run time one
 * statement of op_info(op)->arity operands of one type. */
static Value *static_function(Spec *s, Op op, Value **args, Loc loc) {
    int n = op_info(op)->arity;
    if (op == OP_ABS && args[0]->kind == V_INT) {
        if (args[0]->i == INT64_MIN) diag_error(loc, "static arithmetic overflows 64 bits");
        return value_int(s, args[0]->i < 0 ? -args[0]->i : args[0]->i);
    }
    Scalar x[3];
    for (int i = 0; i < n; i++) {
        if (!is_numeric_static(args[i]))
            diag_error(loc, "'%s' takes numbers, got %s", op_name(op), value_describe(s, args[i]));
        x[i].f64 = args[i]->kind == V_INT ? (double)args[i]->i : args[i]->f;
    }
    Value *v = NEW(s->arena, Value);
    v->kind = V_FLOAT;
    if (n == 1) v->f = scalar_unary(op, PRIM_F64, x[0]).f64;
    else if (n == 2) v->f = scalar_binary(op, PRIM_F64, x[0], x[1]).f64;
    else v->f = scalar_ternary(op, PRIM_F64, x[0], x[1], x[2]).f64;
    return v;
}

/* The operands' one type: that of the run-time ones, static ones converted
 * to it. */
static Value *runtime_function(Spec *s, Op op, Value **args, Loc loc) {
    int n = op_info(op)->arity;
    const ElemType *t = NULL;
    for (int i = 0; i < n; i++) {
        const ElemType *ti = scalar_type_of(s, args[i], op, loc);
        if (ti && t && ti->prim != t->prim)
            diag_error(loc, "type mismatch: '%s' applied to %s and %s", op_name(op),
                       prim_name(t->prim), prim_name(ti->prim));
        if (!t) t = ti;
        if (!ti && !is_numeric_static(args[i]))
            diag_error(loc, "'%s' takes numbers, got %s", op_name(op), value_describe(s, args[i]));
    }
    check_runtime_op(op, t->prim, loc);
    IrVal *operands[3];
    for (int i = 0; i < n; i++) operands[i] = spec_coerce(s, args[i], t, loc)->rt;
    IrStmt *st = ir_append(s->prog, s->body,
                           n == 1   ? IR_UNARY
                           : n == 2 ? IR_BINARY
                                    : IR_TERNARY,
                           loc, n, operands);
    st->alu = op;
    return value_rt(s, ir_add_result(s->prog, st, -1, t));
}

/* Static when every operand is. */
static Value *apply_function(Spec *s, Op op, Value **args, Loc loc) {
    for (int i = 0; i < op_info(op)->arity; i++)
        if (!value_is_static(args[i])) return runtime_function(s, op, args, loc);
    return located(static_function(s, op, args, loc), loc);
}

#define FUNCTION(OP, name) \
    static Value *b_##name(Spec *s, Value **args, Loc loc) { \
        return apply_function(s, OP, args, loc); \
    }
FUNCTION(OP_SQRT, sqrt)
FUNCTION(OP_SIN, sin)
FUNCTION(OP_COS, cos)
FUNCTION(OP_EXP, exp)
FUNCTION(OP_LOG, log)
FUNCTION(OP_TANH, tanh)
FUNCTION(OP_FLOOR, floor)
FUNCTION(OP_CEIL, ceil)
FUNCTION(OP_ABS, abs)
FUNCTION(OP_ATAN2, atan2)
FUNCTION(OP_FPOW, pow)
FUNCTION(OP_FMA, fma)
#undef FUNCTION

static Value *convert(Spec *s, Prim to, Value *x, Loc loc) {
    if (x->kind == V_INT || x->kind == V_BOOL) {
        IrVal *c = spec_coerce(s, value_int(s, 0), elem_prim(PRIM_I64), loc)->rt;
        c->def->cval.i = x->i;
        x = value_rt(s, c);
    } else if (x->kind == V_FLOAT) {
        x = spec_coerce(s, x, elem_prim(PRIM_F64), loc);
    }
    if (x->kind != V_RT || !ir_is_scalar(x->rt))
        diag_error(loc, "'%s' converts scalars, got %s", prim_name(to), value_describe(s, x));
    if (x->rt->elem->prim == to) return x;
    IrStmt *st = ir_append(s->prog, s->body, IR_CONVERT, loc, 1, &x->rt);
    st->to = to;
    return value_rt(s, ir_add_result(s->prog, st, -1, elem_prim(to)));
}

#define CONVERSION(P, name) \
    static Value *b_##name(Spec *s, Value **args, Loc loc) { return convert(s, P, args[0], loc); }
CONVERSION(PRIM_BOOL, bool)
CONVERSION(PRIM_I8, i8)
CONVERSION(PRIM_I16, i16)
CONVERSION(PRIM_I32, i32)
CONVERSION(PRIM_I64, i64)
CONVERSION(PRIM_U8, u8)
CONVERSION(PRIM_U16, u16)
CONVERSION(PRIM_U32, u32)
CONVERSION(PRIM_U64, u64)
CONVERSION(PRIM_F32, f32)
CONVERSION(PRIM_F64, f64)

/* ---- matrices ---- */

static F2Mat *new_mat(Spec *s, int64_t n, Loc loc) {
    if (n < 1 || n > F2_MAX)
        diag_error(loc, "matrix size %lld is out of range 1..%d", (long long)n, F2_MAX);
    F2Mat *m = NEW(s->arena, F2Mat);
    m->n = (int)n;
    return m;
}

static Value *mat_value(Spec *s, F2Mat *m) {
    Value *v = NEW(s->arena, Value);
    v->kind = V_MAT;
    v->mat = m;
    return v;
}

static void set_row(Spec *s, F2Mat *m, int i, int64_t row, Loc loc) {
    if (row < 0 || (m->n < 63 && row >> m->n))
        diag_error(loc, "matrix row %d is 0x%llx, which has bits outside the %d columns", i,
                   (unsigned long long)row, m->n);
    m->row[i] = (uint64_t)row;
}

static Value *b_mat(Spec *s, Value **args, Loc loc) {
    Value *rows = args[0];
    if (rows->kind != V_LIST)
        diag_error(loc, "mat expects a static list of row masks, got %s", value_describe(s, rows));
    F2Mat *m = new_mat(s, rows->n, loc);
    for (int i = 0; i < rows->n; i++)
        set_row(s, m, i, spec_expect_int(s, rows->elems[i], loc, "a matrix row"), loc);
    return mat_value(s, m);
}

static Value *b_matof(Spec *s, Value **args, Loc loc) {
    F2Mat *m = new_mat(s, spec_expect_int(s, args[0], loc, "matrix size"), loc);
    for (int i = 0; i < m->n; i++)
        set_row(s, m, i,
                spec_expect_int(s, spec_apply(s, args[1], value_int(s, i), loc), loc,
                                "a matrix row"),
                loc);
    return mat_value(s, m);
}

static Value *b_bitperm(Spec *s, Value **args, Loc loc) {
    F2Mat *m = new_mat(s, spec_expect_int(s, args[0], loc, "permutation size"), loc);
    uint64_t seen = 0;
    int from[F2_MAX]; /* from[b]: the i that mapped to b */
    for (int i = 0; i < m->n; i++) {
        int64_t src = spec_expect_int(s, spec_apply(s, args[1], value_int(s, i), loc), loc,
                                      "a bit index");
        if (src < 0 || src >= m->n)
            diag_error(loc, "bitperm: the function maps %d to %lld, which is outside 0..%d", i,
                       (long long)src, m->n - 1);
        if (seen >> src & 1)
            diag_error(
                loc,
                "bitperm: the function is not a permutation of 0..%d: it maps both %d and %d to "
                "%lld",
                m->n - 1, from[src], i, (long long)src);
        from[src] = i;
        seen |= UINT64_C(1) << src;
        m->row[i] = UINT64_C(1) << src;
    }
    return mat_value(s, m);
}

/* ---- combinators ---- */

/* Apply f to fresh parameters in a new body; the caller adds the results. */
typedef struct {
    IrBody *body, *saved;
} BodyScope;

static BodyScope body_begin(Spec *s) {
    BodyScope sc = {ir_new_body(s->prog), s->body};
    s->body = sc.body;
    return sc;
}

static void body_end(Spec *s, BodyScope sc) { s->body = sc.saved; }

static IrStmt *emit_with_body(Spec *s, IrOp op, IrBody *body, IrVal *arg, Loc loc) {
    IrStmt *st = ir_append(s->prog, s->body, op, loc, 1, &arg);
    st->body = body;
    return st;
}

/* f applied to a sub-array of 2^log_len elements, giving one of the same length. */
static IrBody *array_body(Spec *s, Value *f, int log_len, const ElemType *elem, Loc loc,
                          const char *who) {
    BodyScope sc = body_begin(s);
    IrVal *param = ir_body_add_param(s->prog, sc.body, log_len, elem);
    Value *r = spec_apply(s, f, value_rt(s, param), loc);
    if (r->kind == V_LIST) r = spec_build_as(s, r->n, r->elems, elem, loc);
    if (r->kind != V_RT || r->rt->log_len != log_len)
        diag_error(
            loc,
            "the function given to %s must return an array of 2^%d elements, but it returns %s",
            who, log_len, value_describe(s, r));
    ir_body_add_result(s->prog, sc.body, r->rt);
    body_end(s, sc);
    return sc.body;
}

static uint64_t check_mask(Spec *s, Value *m, int n, Loc loc, const char *who) {
    int64_t mask = spec_expect_int(s, m, loc, "the mask");
    if (mask <= 0 || (n < 63 && mask >> n))
        diag_error(loc, "%s mask %lld is out of range: it must satisfy 0 < m < 2^%d", who,
                   (long long)mask, n);
    return (uint64_t)mask;
}

static Value *b_parm(Spec *s, Value **args, Loc loc) {
    IrVal *xs = spec_expect_array(s, args[2], loc, "the argument of parm");
    uint64_t mask = check_mask(s, args[0], xs->log_len, loc, "parm");
    IrBody *body = array_body(s, args[1], xs->log_len - 1, xs->elem, loc, "parm");
    IrStmt *st = emit_with_body(s, IR_PARM, body, xs, loc);
    st->mask = mask;
    return value_rt(s, ir_add_result(s->prog, st, xs->log_len, body->results[0]->elem));
}

static Value *b_two(Spec *s, Value **args, Loc loc) {
    IrVal *xs = spec_expect_array(s, args[1], loc, "the argument of two");
    if (xs->log_len < 1) diag_error(loc, "two needs an array of at least 2 elements, got 1");
    IrBody *body = array_body(s, args[0], xs->log_len - 1, xs->elem, loc, "two");
    IrStmt *st = emit_with_body(s, IR_TWO, body, xs, loc);
    st->k = 1;
    return value_rt(s, ir_add_result(s->prog, st, xs->log_len, body->results[0]->elem));
}

/* The index of the current body's instance in an array of 2^bits elements
 * (coli, mapi): a POS statement with the identity matrix. */
static Value *instance_index(Spec *s, int bits, Loc loc) {
    IrStmt *st = ir_append(s->prog, s->body, IR_POS, loc, 0, NULL);
    st->mat = NEW(s->arena, F2Mat);
    st->mat->n = bits;
    for (int k = 0; k < bits; k++) st->mat->row[k] = UINT64_C(1) << k;
    return value_rt(s, ir_add_result(s->prog, st, -1, elem_prim(PRIM_I64)));
}

/* col m f, or with `indexed` coli m f: f i [xs[i], xs[i ^ m]]. */
static Value *col_with_mask(Spec *s, uint64_t mask, Value *f, IrVal *xs, bool indexed, Loc loc) {
    const char *who = indexed ? "coli" : "col";
    BodyScope sc = body_begin(s);
    IrVal *param = ir_body_add_param(s->prog, sc.body, 1, xs->elem);
    Value *args[2] = {indexed ? instance_index(s, xs->log_len, loc) : NULL, value_rt(s, param)};
    Value *r = indexed ? spec_apply_n(s, f, 2, args, loc) : spec_apply(s, f, args[1], loc);
    if (r->kind == V_LIST) r = spec_build_as(s, r->n, r->elems, xs->elem, loc);
    if (r->kind != V_RT || r->rt->log_len != 1 || !elem_equal(r->rt->elem, xs->elem)) {
        const char *t = elem_text(s->arena, xs->elem);
        diag_error(loc, "the function given to %s must map %s[2]%s to [2]%s, but it returns %s",
                   who, indexed ? "an index and " : "", t, t, value_describe(s, r));
    }
    ir_body_add_result(s->prog, sc.body, r->rt);
    body_end(s, sc);
    IrStmt *st = emit_with_body(s, IR_COL, sc.body, xs, loc);
    st->mask = mask;
    return value_rt(s, ir_add_result(s->prog, st, xs->log_len, xs->elem));
}

static Value *b_col(Spec *s, Value **args, Loc loc) {
    IrVal *xs = spec_expect_array(s, args[2], loc, "the argument of col");
    return col_with_mask(s, check_mask(s, args[0], xs->log_len, loc, "col"), args[1], xs, false,
                         loc);
}

static Value *b_coli(Spec *s, Value **args, Loc loc) {
    IrVal *xs = spec_expect_array(s, args[2], loc, "the argument of coli");
    return col_with_mask(s, check_mask(s, args[0], xs->log_len, loc, "coli"), args[1], xs, true,
                         loc);
}

static Value *b_vcolumn(Spec *s, Value **args, Loc loc) {
    IrVal *xs = spec_expect_array(s, args[1], loc, "the argument of vcolumn");
    if (xs->log_len < 1) diag_error(loc, "vcolumn needs an array of at least 2 elements, got 1");
    return col_with_mask(s, f2_mask(xs->log_len), args[0], xs, false, loc);
}

static Value *b_bmmc(Spec *s, Value **args, Loc loc) {
    IrVal *xs = spec_expect_array(s, args[1], loc, "the argument of bmmc");
    Value *m = args[0];
    int64_t compl = 0;
    if (m->kind == V_TUPLE && m->n == 2) {
        compl = spec_expect_int(s, m->elems[1], loc, "the complement");
        m = m->elems[0];
    }
    if (m->kind != V_MAT)
        diag_error(loc, "bmmc expects a matrix or (matrix, complement), got %s",
                   value_describe(s, args[0]));
    if (m->mat->n != xs->log_len)
        diag_error(loc, "bmmc matrix is %dx%d but the array has 2^%d elements", m->mat->n,
                   m->mat->n, xs->log_len);
    if (compl < 0 || (xs->log_len < 63 && compl >> xs->log_len))
        diag_error(loc, "bmmc complement %lld has bits outside the %d index bits", (long long)compl,
                   xs->log_len);
    F2Mat inv;
    if (!f2_invert(m->mat, &inv))
        diag_error(loc, "bmmc matrix is singular (rank %d of %d)", f2_rank(m->mat), m->mat->n);
    IrStmt *st = ir_append(s->prog, s->body, IR_BMMC, loc, 1, &xs);
    st->mat = m->mat;
    st->compl = (uint64_t) compl ;
    return value_rt(s, ir_add_result(s->prog, st, xs->log_len, xs->elem));
}

/* The element function of map/reduce: params are the slots of `elems`. */
static Value *element_params(Spec *s, IrBody *body, const ElemType *t) {
    IrVal **slots = NEW_ARRAY(s->arena, IrVal *, t->nslots);
    ir_body_add_slot_params(s->prog, body, t, slots);
    return spec_unflatten(s, t, slots);
}

/* The first field of tuple v, at any depth, that is not a run-time scalar,
 * with its place in *path ("field 2", "field 1 of field 2"); NULL if none. */
static const Value *non_scalar_field(Spec *s, const Value *v, const char **path) {
    for (int i = 0; i < v->n; i++) {
        const Value *f = v->elems[i];
        const Value *bad = f;
        if ((f->kind == V_RT && ir_is_scalar(f->rt)) || f->kind == V_BOOL) continue;
        const char *here = arena_printf(s->arena, "field %d", i + 1);
        if (f->kind == V_TUPLE) {
            bad = non_scalar_field(s, f, path);
            if (!bad) continue;
            *path = arena_printf(s->arena, "%s of %s", *path, here);
        } else {
            *path = here;
        }
        return bad;
    }
    return NULL;
}

/* A result that is no element: a tuple says which field is not a run-time
 * scalar, since a static number there has no type to take (an element of
 * one run-time field and one static field cannot be inferred). */
static noreturn void not_element(Spec *s, const Value *r, Loc loc, const char *who) {
    const char *path = NULL;
    const Value *bad = r->kind == V_TUPLE ? non_scalar_field(s, r, &path) : NULL;
    if (bad && is_numeric_static(bad))
        diag_error(
            loc,
            "%s of the tuple returned by the function given to %s is a static number, %s; give it "
            "an element type, e.g. `%s`",
            path, who, value_describe(s, bad), value_typed(s, bad));
    if (bad)
        diag_error(
            loc,
            "%s of the tuple returned by the function given to %s is %s, not a run-time scalar",
            path, who, value_describe(s, bad));
    if (r->kind == V_FUNC)
        diag_error(loc,
                   "the function given to %s returns a function, not a scalar or a tuple of "
                   "scalars: it takes more parameters than %s passes it, or a call in it lacks an "
                   "argument",
                   who, who);
    diag_error(loc, "the function given to %s must return a scalar or a tuple of scalars, got %s",
               who, value_describe(s, r));
}

static const ElemType *element_results(Spec *s, IrBody *body, Value *r, const ElemType *fallback,
                                       Loc loc, const char *who) {
    const ElemType *t = spec_element_of(s, r);
    if (!t && is_numeric_static(r) && fallback) t = fallback;
    if (!t) not_element(s, r, loc, who);
    r = spec_coerce(s, r, t, loc);
    IrVal **slots = NEW_ARRAY(s->arena, IrVal *, t->nslots);
    spec_flatten(s, r, slots);
    ir_body_add_results(s->prog, body, t->nslots, slots);
    return t;
}

/* map f, or with `indexed` mapi f: f i xs[i]. */
static Value *map_with(Spec *s, Value **args, bool indexed, Loc loc) {
    const char *who = indexed ? "mapi" : "map";
    IrVal *xs = spec_expect_array(s, args[1], loc,
                                  indexed ? "the argument of mapi" : "the argument of map");
    BodyScope sc = body_begin(s);
    Value *fargs[2] = {indexed ? instance_index(s, xs->log_len, loc) : NULL,
                       element_params(s, sc.body, xs->elem)};
    Value *r = indexed ? spec_apply_n(s, args[0], 2, fargs, loc)
                       : spec_apply(s, args[0], fargs[1], loc);
    const ElemType *t = element_results(s, sc.body, r, xs->elem->is_tuple ? NULL : xs->elem, loc,
                                        who);
    body_end(s, sc);
    IrStmt *st = emit_with_body(s, IR_MAP, sc.body, xs, loc);
    return value_rt(s, ir_add_result(s->prog, st, xs->log_len, t));
}

static Value *b_map(Spec *s, Value **args, Loc loc) { return map_with(s, args, false, loc); }
static Value *b_mapi(Spec *s, Value **args, Loc loc) { return map_with(s, args, true, loc); }

static bool commutative_builtin(const Value *op) {
    if (op->kind != V_FUNC || op->fn != FN_BUILTIN || op->n != 0) return false;
    if (op->builtin == builtin_opsection()) {
        switch (op->op) {
        case OP_ADD:
        case OP_MUL:
        case OP_BAND:
        case OP_BOR:
        case OP_XOR:
        case OP_AND:
        case OP_OR: return true;
        default: return false;
        }
    }
    return strcmp(op->builtin->name, "min") == 0 || strcmp(op->builtin->name, "max") == 0;
}

/* The operator of reduce and reduceblocks on elements of type t, as a
 * statement of `op` over the z slots and xs (no results yet): its body takes
 * two elements' slots and returns one element's. */
static IrStmt *reduce_stmt(Spec *s, IrOp op, Value *fn, Value *zv, IrVal *xs, const char *who,
                           Loc loc) {
    const ElemType *t = xs->elem;
    Value *z = spec_coerce(s, zv, t, loc);
    BodyScope sc = body_begin(s);
    Value *a = element_params(s, sc.body, t), *b = element_params(s, sc.body, t);
    Value *pair[2] = {a, b};
    Value *r = spec_apply_n(s, fn, 2, pair, loc);
    const ElemType *rt = element_results(s, sc.body, r, t, loc, who);
    if (!elem_equal(rt, t))
        diag_error(loc, "the operator given to %s must return the element type %s, but returns %s",
                   who, elem_text(s->arena, t), elem_text(s->arena, rt));
    body_end(s, sc);
    IrVal **ins = NEW_ARRAY(s->arena, IrVal *, t->nslots + 1);
    spec_flatten(s, z, ins);
    ins[t->nslots] = xs;
    IrStmt *st = ir_append(s->prog, s->body, op, loc, t->nslots + 1, ins);
    st->body = sc.body;
    /* Float + and * are not associative bit for bit, and min/max are not
       commutative on NaN: only integer reductions may be reordered. */
    bool exact = true;
    for (int k = 0; k < t->nslots; k++) exact &= !prim_is_float(elem_slot_prim(t, k));
    st->commutative = exact && commutative_builtin(fn);
    return st;
}

static Value *b_reduce(Spec *s, Value **args, Loc loc) {
    IrVal *xs = spec_expect_array(s, args[2], loc, "the argument of reduce");
    const ElemType *t = xs->elem;
    IrStmt *st = reduce_stmt(s, IR_REDUCE, args[0], args[1], xs, "reduce", loc);
    IrVal **outs = NEW_ARRAY(s->arena, IrVal *, t->nslots);
    for (int k = 0; k < t->nslots; k++)
        outs[k] = ir_add_result(s->prog, st, -1, elem_prim(elem_slot_prim(t, k)));
    return spec_unflatten(s, t, outs);
}

/* reduceblocks r op z xs: each block of 2^r consecutive elements reduced as
   reduce op z reduces an array. */
static Value *b_reduceblocks(Spec *s, Value **args, Loc loc) {
    IrVal *xs = spec_expect_array(s, args[3], loc, "the argument of reduceblocks");
    int64_t r = spec_expect_int(s, args[0], loc, "the block size of reduceblocks");
    if (r < 0 || r > xs->log_len)
        diag_error(loc,
                   "the block size of reduceblocks is %lld, out of range 0..%d (the array has 2^%d "
                   "elements)",
                   (long long)r, xs->log_len, xs->log_len);
    IrStmt *st = reduce_stmt(s, IR_REDUCEBLOCKS, args[1], args[2], xs, "reduceblocks", loc);
    st->k = (int)r;
    return value_rt(s, ir_add_result(s->prog, st, xs->log_len - (int)r, xs->elem));
}

/* scanblocks r op z xs, exscanblocks r op z xs: each block of 2^r
   consecutive elements scanned from z, left to right (ir.h, SCAN). The
   back ends scan in any grouping (one pass, each block of threads taking
   its prefix from the blocks before it), which gives the interpreter's
   bits only for an exact operator: the networks of stdlib/scan.parm take
   the others. */
static Value *scan_blocks(Spec *s, Value **args, Loc loc, bool exclusive) {
    const char *who = exclusive ? "exscanblocks" : "scanblocks";
    IrVal *xs = spec_expect_array(s, args[3], loc,
                                  arena_printf(s->arena, "the argument of %s", who));
    int64_t r = spec_expect_int(s, args[0], loc,
                                arena_printf(s->arena, "the block size of %s", who));
    if (r < 0 || r > xs->log_len)
        diag_error(loc,
                   "the block size of %s is %lld, out of range 0..%d (the array has 2^%d elements)",
                   who, (long long)r, xs->log_len, xs->log_len);
    IrStmt *st = reduce_stmt(s, IR_SCAN, args[1], args[2], xs, who, loc);
    if (!st->commutative)
        diag_error(
            loc,
            "%s needs an operator that gives the same result however it is grouped: +, *, &, |, "
            "xor, "
            "&&, ||, min or max on integers or bool (floats round differently in each grouping); "
            "stdlib/scan.parm's networks (scan_blocks, exscan_blocks) scan with any operator",
            who);
    st->k = (int)r;
    st->exclusive = exclusive;
    return value_rt(s, ir_add_result(s->prog, st, xs->log_len, xs->elem));
}

static Value *b_scanblocks(Spec *s, Value **args, Loc loc) {
    return scan_blocks(s, args, loc, false);
}
static Value *b_exscanblocks(Spec *s, Value **args, Loc loc) {
    return scan_blocks(s, args, loc, true);
}

/* expand r ys: each element repeated 2^r times consecutively. */
static Value *b_expand(Spec *s, Value **args, Loc loc) {
    IrVal *ys = spec_expect_array(s, args[1], loc, "the argument of expand");
    int64_t r = spec_expect_int(s, args[0], loc, "the size of expand");
    if (r < 0 || r > MAX_LOG_LEN - ys->log_len)
        diag_error(
            loc,
            "the size of expand is %lld, out of range 0..%d (an array has at most 2^%d elements)",
            (long long)r, MAX_LOG_LEN - ys->log_len, MAX_LOG_LEN);
    IrStmt *st = ir_append(s->prog, s->body, IR_EXPAND, loc, 1, &ys);
    st->k = (int)r;
    return value_rt(s, ir_add_result(s->prog, st, ys->log_len + (int)r, ys->elem));
}

enum { MAX_ZIP_FIELDS = 1 << 16 };

static Value *b_zip(Spec *s, Value **args, Loc loc) {
    IrVal *pair[2] = {spec_expect_array(s, args[0], loc, "the first argument of zip"),
                      spec_expect_array(s, args[1], loc, "the second argument of zip")};
    if (pair[0]->log_len != pair[1]->log_len)
        diag_error(loc, "zip of arrays of different lengths: 2^%d and 2^%d", pair[0]->log_len,
                   pair[1]->log_len);
    /* zip of zip of ... doubles the fields each time; bound it before the count overflows */
    if (pair[0]->elem->nslots + (long)pair[1]->elem->nslots > MAX_ZIP_FIELDS)
        diag_error(loc, "zip: the element type would have more than %d scalar fields",
                   MAX_ZIP_FIELDS);
    const ElemType *fields[2] = {pair[0]->elem, pair[1]->elem};
    IrStmt *st = ir_append(s->prog, s->body, IR_ZIP, loc, 2, pair);
    return value_rt(s,
                    ir_add_result(s->prog, st, pair[0]->log_len, elem_tuple(s->arena, 2, fields)));
}

static Value *b_unzip(Spec *s, Value **args, Loc loc) {
    IrVal *xs = spec_expect_array(s, args[0], loc, "the argument of unzip");
    if (!xs->elem->is_tuple)
        diag_error(loc, "unzip needs an array of tuples, got %s", value_describe(s, args[0]));
    IrStmt *st = ir_append(s->prog, s->body, IR_UNZIP, loc, 1, &xs);
    Value **parts = NEW_ARRAY(s->arena, Value *, xs->elem->nfields);
    for (int i = 0; i < xs->elem->nfields; i++)
        parts[i] = value_rt(s, ir_add_result(s->prog, st, xs->log_len, xs->elem->fields[i]));
    return value_tuple(s, xs->elem->nfields, parts);
}

static Value *b_replicate(Spec *s, Value **args, Loc loc) {
    int64_t k = spec_expect_int(s, args[0], loc, "the size of replicate");
    if (k < 0 || k > MAX_LOG_LEN)
        diag_error(loc, "replicate size %lld is out of range 0..%d", (long long)k, MAX_LOG_LEN);
    const ElemType *t = spec_element_of(s, args[1]);
    if (!t)
        diag_error(loc,
                   "replicate needs a run-time element; give static numbers a type, e.g. `i32 0`");
    IrVal **slots = NEW_ARRAY(s->arena, IrVal *, t->nslots);
    spec_flatten(s, spec_coerce(s, args[1], t, loc), slots);
    IrStmt *st = ir_append(s->prog, s->body, IR_REPLICATE, loc, t->nslots, slots);
    st->k = (int)k;
    return value_rt(s, ir_add_result(s->prog, st, (int)k, t));
}

/* ---- arrays that change length or index (docs/language.md, 6.4) ---- */

/* An array argument; a list literal of run-time elements is built first. */
static IrVal *array_arg(Spec *s, Value *v, Loc loc, const char *what) {
    if (v->kind == V_LIST && !value_is_static(v)) v = spec_build(s, v->n, v->elems, loc);
    return spec_expect_array(s, v, loc, what);
}

static Value *b_half(Spec *s, Value **args, Loc loc) {
    IrVal *xs = array_arg(s, args[2], loc, "the argument of half");
    if (xs->log_len < 1) diag_error(loc, "half needs an array of at least 2 elements, got 1");
    uint64_t mask = check_mask(s, args[0], xs->log_len, loc, "half");
    int64_t b = spec_expect_int(s, args[1], loc, "the sub-array of half");
    if (b != 0 && b != 1)
        diag_error(loc, "half takes sub-array 0 or 1 (the parity of i & m), got %lld",
                   (long long)b);
    IrStmt *st = ir_append(s->prog, s->body, IR_HALF, loc, 1, &xs);
    st->mask = mask;
    st->k = (int)b;
    return value_rt(s, ir_add_result(s->prog, st, xs->log_len - 1, xs->elem));
}

static Value *b_join(Spec *s, Value **args, Loc loc) {
    IrVal *pair[2] = {array_arg(s, args[1], loc, "the first array of join"),
                      array_arg(s, args[2], loc, "the second array of join")};
    if (pair[0]->log_len != pair[1]->log_len)
        diag_error(loc, "join of arrays of different lengths: 2^%d and 2^%d", pair[0]->log_len,
                   pair[1]->log_len);
    if (!elem_equal(pair[0]->elem, pair[1]->elem))
        diag_error(loc, "join of arrays of different element types: %s and %s",
                   elem_text(s->arena, pair[0]->elem), elem_text(s->arena, pair[1]->elem));
    int n = pair[0]->log_len + 1;
    if (n > MAX_LOG_LEN)
        diag_error(loc, "array length 2^%d exceeds the limit of 2^%d elements", n, MAX_LOG_LEN);
    uint64_t mask = check_mask(s, args[0], n, loc, "join");
    IrStmt *st = ir_append(s->prog, s->body, IR_JOIN, loc, 2, pair);
    st->mask = mask;
    return value_rt(s, ir_add_result(s->prog, st, n, pair[0]->elem));
}

static Value *b_shift(Spec *s, Value **args, Loc loc) {
    int64_t d = spec_expect_int(s, args[0], loc, "the distance of shift");
    IrVal *xs = array_arg(s, args[2], loc, "the argument of shift");
    const ElemType *t = xs->elem;
    Value *fill = spec_coerce(s, args[1], t, loc);
    IrVal **ins = NEW_ARRAY(s->arena, IrVal *, t->nslots + 1);
    spec_flatten(s, fill, ins);
    ins[t->nslots] = xs;
    IrStmt *st = ir_append(s->prog, s->body, IR_SHIFT, loc, t->nslots + 1, ins);
    st->dist = d;
    st->k = xs->log_len;
    return value_rt(s, ir_add_result(s->prog, st, xs->log_len, t));
}

static Value *b_loglen(Spec *s, Value **args, Loc loc) {
    return value_int(s, array_arg(s, args[0], loc, "the argument of loglen")->log_len);
}

/* xs ! k: a static list gives its element, an array an index statement per
 * slot (or the scalars it was built from). */
static Value *index_at(Spec *s, Value *xs, Value *k, Loc loc) {
    int64_t i = spec_expect_int(s, k, loc, "the position of '!'");
    if (xs->kind == V_LIST && value_is_static(xs)) {
        if (i < 0 || i >= xs->n)
            diag_error(loc, "position %lld is out of range for a list of %d element%s",
                       (long long)i, xs->n, xs->n == 1 ? "" : "s");
        return xs->elems[i];
    }
    IrVal *arr = array_arg(s, xs, loc, "the left operand of '!'");
    if (i < 0 || i >> arr->log_len)
        diag_error(loc,
                   "position %lld is out of range for an array of 2^%d elements (0 <= k < %lld)",
                   (long long)i, arr->log_len, 1LL << arr->log_len);
    return spec_index(s, arr, i, loc);
}

static const Builtin builtins[] = {
    {"parm", 3, b_parm},
    {"two", 2, b_two},
    {"col", 3, b_col},
    {"coli", 3, b_coli},
    {"vcolumn", 2, b_vcolumn},
    {"bmmc", 2, b_bmmc},
    {"map", 2, b_map},
    {"mapi", 2, b_mapi},
    {"zip", 2, b_zip},
    {"unzip", 1, b_unzip},
    {"replicate", 2, b_replicate},
    {"reduce", 3, b_reduce},
    {"reduceblocks", 4, b_reduceblocks},
    {"scanblocks", 4, b_scanblocks},
    {"exscanblocks", 4, b_exscanblocks},
    {"expand", 2, b_expand},
    {"half", 3, b_half},
    {"join", 3, b_join},
    {"shift", 3, b_shift},
    {"loglen", 1, b_loglen},
    {"mat", 1, b_mat},
    {"matof", 2, b_matof},
    {"bitperm", 2, b_bitperm},
    {"min", 2, b_min},
    {"max", 2, b_max},
    {"sqrt", 1, b_sqrt},
    {"sin", 1, b_sin},
    {"cos", 1, b_cos},
    {"exp", 1, b_exp},
    {"log", 1, b_log},
    {"tanh", 1, b_tanh},
    {"floor", 1, b_floor},
    {"ceil", 1, b_ceil},
    {"abs", 1, b_abs},
    {"atan2", 2, b_atan2},
    {"pow", 2, b_pow},
    {"fma", 3, b_fma},
    {"bool", 1, b_bool},
    {"i8", 1, b_i8},
    {"i16", 1, b_i16},
    {"i32", 1, b_i32},
    {"i64", 1, b_i64},
    {"u8", 1, b_u8},
    {"u16", 1, b_u16},
    {"u32", 1, b_u32},
    {"u64", 1, b_u64},
    {"f32", 1, b_f32},
    {"f64", 1, b_f64},
};

const Builtin *builtin_at(int i) {
    return i >= 0 && (size_t)i < sizeof builtins / sizeof builtins[0] ? &builtins[i] : NULL;
}

const Builtin *builtin_lookup(const char *name) {
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (strcmp(builtins[i].name, name) == 0) return &builtins[i];
    return NULL;
}
