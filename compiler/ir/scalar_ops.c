/* scalar_ops.c: run-time operator semantics on canonical scalars.
 *
 * These are the definitions in docs/language.md ("Run-time arithmetic"); the
 * C and CUDA back ends emit code with the same results (runtime/parm_ops.h):
 * integers wrap, x / 0 = 0, x % 0 = x, shift counts are taken modulo the
 * width, float-to-integer conversion saturates and maps NaN to 0. Float
 * arithmetic, the built-in functions (sqrt, sin, ..., fma) and f32 <-> f64
 * are the runtime's own functions, included here, so that there is one
 * definition of each (and one canonical NaN). */
#include "scalar_ops.h"

#include <math.h>

#include "parm_ops.h"

static Scalar int_binary(Op op, Prim p, Scalar a, Scalar b) {
    Scalar r = {.u = 0};
    bool sgn = prim_is_signed(p);
    unsigned width = (unsigned)prim_bits(p);
    unsigned shift = (unsigned)(b.u & (width - 1));
    switch (op) {
    case OP_ADD: r.u = a.u + b.u; break;
    case OP_SUB: r.u = a.u - b.u; break;
    case OP_MUL: r.u = a.u * b.u; break;
    case OP_DIV:
        if (b.u == 0) r.u = 0;
        else if (sgn) r.i = (b.i == -1) ? (int64_t)(0 - a.u) : a.i / b.i;
        else r.u = a.u / b.u;
        break;
    case OP_MOD:
        if (b.u == 0) r = a;
        else if (sgn) r.i = (b.i == -1) ? 0 : a.i % b.i;
        else r.u = a.u % b.u;
        break;
    case OP_SHL: r.u = a.u << shift; break;
    case OP_SHR:
        if (sgn) r.i = a.i >> shift;
        else r.u = a.u >> shift;
        break;
    case OP_BAND: r.u = a.u & b.u; break;
    case OP_BOR: r.u = a.u | b.u; break;
    case OP_XOR: r.u = a.u ^ b.u; break;
    case OP_EQ: r.u = a.u == b.u; return r;
    case OP_NE: r.u = a.u != b.u; return r;
    case OP_LT: r.u = sgn ? a.i < b.i : a.u < b.u; return r;
    case OP_LE: r.u = sgn ? a.i <= b.i : a.u <= b.u; return r;
    case OP_GT: r.u = sgn ? a.i > b.i : a.u > b.u; return r;
    case OP_GE: r.u = sgn ? a.i >= b.i : a.u >= b.u; return r;
    case OP_AND: r.u = a.u && b.u; return r;
    case OP_OR: r.u = a.u || b.u; return r;
    default: break;
    }
    return scalar_wrap(p, r);
}

/* Arithmetic through parm_ops.h, which makes every NaN result the canonical
 * NaN, as the emitted code does. */
#define FLOAT_BINARY(T, field) \
    static Scalar T##_binary(Op op, Scalar a, Scalar b) { \
        Scalar r = {.u = 0}; \
        switch (op) { \
        case OP_ADD: r.field = parm_add_##T(a.field, b.field); break; \
        case OP_SUB: r.field = parm_sub_##T(a.field, b.field); break; \
        case OP_MUL: r.field = parm_mul_##T(a.field, b.field); break; \
        case OP_DIV: r.field = parm_div_##T(a.field, b.field); break; \
        case OP_ATAN2: r.field = parm_atan2_##T(a.field, b.field); break; \
        case OP_FPOW: r.field = parm_pow_##T(a.field, b.field); break; \
        case OP_EQ: r.u = a.field == b.field; break; \
        case OP_NE: r.u = a.field != b.field; break; \
        case OP_LT: r.u = a.field < b.field; break; \
        case OP_LE: r.u = a.field <= b.field; break; \
        case OP_GT: r.u = a.field > b.field; break; \
        case OP_GE: r.u = a.field >= b.field; break; \
        default: break; \
        } \
        return r; \
    }
FLOAT_BINARY(f32, f32)
FLOAT_BINARY(f64, f64)

Scalar scalar_binary(Op op, Prim p, Scalar a, Scalar b) {
    if (p == PRIM_F32) return f32_binary(op, a, b);
    if (p == PRIM_F64) return f64_binary(op, a, b);
    return int_binary(op, p, a, b);
}

/* The unary operators of floats: neg and the functions. */
#define FLOAT_UNARY(T, field) \
    static Scalar T##_unary(Op op, Scalar a) { \
        Scalar r = {.u = 0}; \
        switch (op) { \
        case OP_NEG: r.field = -a.field; break; \
        case OP_SQRT: r.field = parm_sqrt_##T(a.field); break; \
        case OP_SIN: r.field = parm_sin_##T(a.field); break; \
        case OP_COS: r.field = parm_cos_##T(a.field); break; \
        case OP_EXP: r.field = parm_exp_##T(a.field); break; \
        case OP_LOG: r.field = parm_log_##T(a.field); break; \
        case OP_TANH: r.field = parm_tanh_##T(a.field); break; \
        case OP_FLOOR: r.field = parm_floor_##T(a.field); break; \
        case OP_CEIL: r.field = parm_ceil_##T(a.field); break; \
        case OP_ABS: r.field = parm_abs_##T(a.field); break; \
        default: break; \
        } \
        return r; \
    }
FLOAT_UNARY(f32, f32)
FLOAT_UNARY(f64, f64)

/* abs wraps on the signed minimum, as neg does. */
Scalar scalar_unary(Op op, Prim p, Scalar a) {
    if (op == OP_NOT) return (Scalar){.u = !a.u};
    if (p == PRIM_F32) return f32_unary(op, a);
    if (p == PRIM_F64) return f64_unary(op, a);
    bool negate = op == OP_NEG || (op == OP_ABS && prim_is_signed(p) && a.i < 0);
    return negate ? scalar_wrap(p, (Scalar){.u = 0 - a.u}) : a;
}

/* fma, the one operator of three operands (floats). */
Scalar scalar_ternary(Op op, Prim p, Scalar a, Scalar b, Scalar c) {
    Scalar r = {.u = 0};
    if (op != OP_FMA) return r;
    if (p == PRIM_F32) r.f32 = parm_fma_f32(a.f32, b.f32, c.f32);
    else r.f64 = parm_fma_f64(a.f64, b.f64, c.f64);
    return r;
}

/* Saturating, NaN to 0: the one float-to-integer rule every target can
 * reproduce exactly. */
static Scalar float_to_int(double x, Prim to) {
    Scalar r = {.u = 0};
    if (isnan(x)) return r;
    int bits = prim_bits(to);
    if (prim_is_signed(to)) {
        double lo = -ldexp(1.0, bits - 1), hi = ldexp(1.0, bits - 1);
        if (x <= lo) r.i = bits == 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1));
        else if (x >= hi) r.i = bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1;
        else r.i = (int64_t)x;
    } else {
        double hi = ldexp(1.0, bits);
        if (x <= 0) r.u = 0;
        else if (x >= hi) r.u = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
        else r.u = (uint64_t)x;
    }
    return r;
}

Scalar scalar_convert(Prim from, Prim to, Scalar a) {
    Scalar r = {.u = 0};
    bool from_float = prim_is_float(from), to_float = prim_is_float(to);
    if (from_float) {
        double x = from == PRIM_F32 ? (double)a.f32 : a.f64;
        if (to == PRIM_BOOL) r.u = x != 0;
        else if (from == to) r = a;
        else if (to == PRIM_F32) r.f32 = parm_cvt_f32_f64(a.f64);
        else if (to == PRIM_F64) r.f64 = parm_cvt_f64_f32(a.f32);
        else r = float_to_int(x, to);
        return r;
    }
    if (to == PRIM_BOOL) {
        r.u = a.u != 0;
        return r;
    }
    if (to_float) {
        double x = prim_is_signed(from) ? (double)a.i : (double)a.u;
        if (to == PRIM_F32) r.f32 = prim_is_signed(from) ? (float)a.i : (float)a.u;
        else r.f64 = x;
        return r;
    }
    return scalar_wrap(to, a);
}
