/* test_math.c: checks the float functions of runtime/parm_ops.h (the one
 * definition that the interpreter and every back end use) against the C
 * library: sin and cos within 2 ulps of glibc's results for |x| <= 1000, their
 * f32 versions within 1 ulp of sinf's and cosf's or 1e-7 of the f64 result for
 * |x| <= 100, results in [-1, 1] for huge arguments, sqrt, abs, floor,
 * ceil and fma equal to the C library's bit for bit, exp, log, tanh, atan2
 * and pow within 1 ulp of the C library's long double functions (2 where
 * long double is no wider than double) over their ranges, their special
 * values those of C99 Annex F bit for bit; and the canonical NaN from every
 * float operation that makes a NaN.
 * Prints "math: N passed, M failed"; exits 1 on any failure. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "parm_ops.h"


static double ulps(double got, double want) {
    if (got == want) return 0;
    double unit = nextafter(fabs(want), INFINITY) - fabs(want);
    return fabs(got - want) / unit;
}

static uint64_t state = 0x243f6a8885a308d3u;
static double uniform(double lo, double hi) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return lo + (hi - lo) * ((double)(state >> 11) / 9007199254740992.0);
}

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }
static bool same_bits_f32(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The error of got in ulps of the double (or float) nearest to the exact
 * value, for which the long double function stands in. */
static double ulps_f64(double got, long double want) {
    double w = (double)want;
    if (isnan(got) || isnan(w) || isinf(got) || isinf(w))
        return got == w || (isnan(got) && isnan(w)) ? 0 : INFINITY;
    double unit = nextafter(fabs(w), INFINITY) - fabs(w);
    return (double)(fabsl((long double)got - want) / unit);
}

static double ulps_f32(float got, long double want) {
    float w = (float)want;
    if (isnan(got) || isnan(w) || isinf(got) || isinf(w))
        return got == w || (isnan(got) && isnan(w)) ? 0 : INFINITY;
    float unit = nextafterf(fabsf(w), INFINITY) - fabsf(w);
    return (double)(fabsl((long double)got - want) / unit);
}

/* The documented bound (docs/language.md, 6.3); glibc's double functions
 * are not all correctly rounded, so without a wider long double the
 * reference itself may be 1 ulp off. */
static const double bound = LDBL_MANT_DIG > DBL_MANT_DIG ? 1.0 : 2.0;
static double worst_f[10];
static const char *const worst_name[10] = {"exp",  "log",  "tanh",  "atan2",  "pow",
                                           "expf", "logf", "tanhf", "atan2f", "powf"};

static void measure(int k, double err, const char *what, double x, double y) {
    check(err <= bound, "%s(%.17g, %.17g): %.3f ulps", what, x, y, err);
    if (err > worst_f[k]) worst_f[k] = err;
}

/* exp, log, tanh, atan2, pow and their f32 versions on random arguments over
 * their ranges: exp into the subnormal results, log of subnormals, pow with
 * results near overflow and underflow. */
static void check_accuracy(void) {
    for (int i = 0; i < 200000; i++) {
        double x = uniform(-745.1, 709.78);
        measure(0, ulps_f64(parm_exp_f64(x), expl(x)), "exp", x, 0);
        double y = exp(uniform(-744, 709.7));
        measure(1, ulps_f64(parm_log_f64(y), logl(y)), "log", y, 0);
        double t = uniform(-25, 25) * (i & 1 ? 1 : 1e-4);
        measure(2, ulps_f64(parm_tanh_f64(t), tanhl(t)), "tanh", t, 0);
        double a = uniform(-1, 1) * exp(uniform(-60, 60)),
               b = uniform(-1, 1) * exp(uniform(-60, 60));
        measure(3, ulps_f64(parm_atan2_f64(a, b), atan2l(a, b)), "atan2", a, b);
        double px = exp(uniform(-12, 12)), py = uniform(-62, 62);
        if (i & 1) px = -floor(px), py = floor(py); /* negative bases to integer powers */
        measure(4, ulps_f64(parm_pow_f64(px, py), powl(px, py)), "pow", px, py);
        float xf = (float)uniform(-103.9, 88.7);
        measure(5, ulps_f32(parm_exp_f32(xf), expl(xf)), "expf", xf, 0);
        float yf = (float)exp(uniform(-103, 88.7));
        measure(6, ulps_f32(parm_log_f32(yf), logl(yf)), "logf", yf, 0);
        float tf = (float)(uniform(-10, 10) * (i & 1 ? 1 : 1e-3));
        measure(7, ulps_f32(parm_tanh_f32(tf), tanhl(tf)), "tanhf", tf, 0);
        float af = (float)a, bf = (float)b;
        measure(8, ulps_f32(parm_atan2_f32(af, bf), atan2l(af, bf)), "atan2f", af, bf);
        float pxf = (float)exp(uniform(-6, 6)), pyf = (float)uniform(-14, 14);
        measure(9, ulps_f32(parm_pow_f32(pxf, pyf), powl(pxf, pyf)), "powf", pxf, pyf);
    }
}

/* The C library's result where it is not a NaN, else the canonical NaN. */
static double canonical(double r) { return isnan(r) ? parm_f64_from_bits(PARM_NAN_F64) : r; }

/* got agrees with the C library (want, and wantl in long double): the
 * canonical NaN for a NaN, the same bits for a zero or an infinity (C99
 * Annex F's special values), else the same sign and within the bound. */
static bool agrees(double got, double want, long double wantl) {
    if (isnan(want) || want == 0 || isinf(want)) return same_bits(got, canonical(want));
    return signbit(got) == signbit(want) && ulps_f64(got, wantl) <= bound;
}

static bool agrees_f32(float got, float want, long double wantl) {
    if (isnan(want) || want == 0 || isinf(want))
        return same_bits_f32(got, isnan(want) ? parm_f32_from_bits(PARM_NAN_F32) : want);
    return signbit(got) == signbit(want) && ulps_f32(got, wantl) <= bound;
}

/* Special arguments: each through exp, log, tanh, floor, ceil and abs, every
 * pair through atan2 and pow, against glibc (C99 Annex F): floor, ceil and
 * abs bit for bit, the others as `agrees` says. */
static void check_special_values(void) {
    const double v[] = {0.0,
                        -0.0,
                        1.0,
                        -1.0,
                        0.5,
                        -0.5,
                        2.0,
                        -2.0,
                        3.0,
                        -3.0,
                        2.5,
                        -2.5,
                        0x1p-1074,
                        -0x1p-1074,
                        0x1p-1022,
                        DBL_MAX,
                        -DBL_MAX,
                        0x1p53,
                        0x1p53 + 2,
                        -0x1p53 - 2,
                        1e300,
                        -1e300,
                        INFINITY,
                        -INFINITY,
                        NAN,
                        -NAN,
                        709.7827128933840,
                        -745.1332191019412,
                        710.0,
                        -746.0,
                        22.0,
                        -22.0,
                        0x1p-28,
                        4503599627370495.5,
                        -4503599627370495.5};
    const int n = (int)(sizeof v / sizeof v[0]);
    for (int i = 0; i < n; i++) {
        double x = v[i];
        check(agrees(parm_exp_f64(x), exp(x), expl(x)), "exp(%.17g) = %.17g", x, parm_exp_f64(x));
        check(agrees(parm_log_f64(x), log(x), logl(x)), "log(%.17g) = %.17g", x, parm_log_f64(x));
        check(agrees(parm_tanh_f64(x), tanh(x), tanhl(x)), "tanh(%.17g) = %.17g", x,
              parm_tanh_f64(x));
        check(same_bits(parm_floor_f64(x), canonical(floor(x))), "floor(%.17g) = %.17g", x,
              parm_floor_f64(x));
        check(same_bits(parm_ceil_f64(x), canonical(ceil(x))), "ceil(%.17g) = %.17g", x,
              parm_ceil_f64(x));
        check(same_bits(parm_abs_f64(x), fabs(x)), "abs(%.17g) = %.17g", x, parm_abs_f64(x));
        float xf = (float)x;
        check(same_bits_f32(parm_floor_f32(xf),
                            isnan(xf) ? parm_f32_from_bits(PARM_NAN_F32) : floorf(xf)),
              "floorf(%.9g)", xf);
        check(same_bits_f32(parm_ceil_f32(xf),
                            isnan(xf) ? parm_f32_from_bits(PARM_NAN_F32) : ceilf(xf)),
              "ceilf(%.9g)", xf);
        check(same_bits_f32(parm_abs_f32(xf), fabsf(xf)), "absf(%.9g)", xf);
        check(agrees_f32(parm_exp_f32(xf), expf(xf), expl(xf)), "expf(%.9g) = %.9g", xf,
              parm_exp_f32(xf));
        check(agrees_f32(parm_log_f32(xf), logf(xf), logl(xf)), "logf(%.9g) = %.9g", xf,
              parm_log_f32(xf));
        check(agrees_f32(parm_tanh_f32(xf), tanhf(xf), tanhl(xf)), "tanhf(%.9g) = %.9g", xf,
              parm_tanh_f32(xf));
        for (int j = 0; j < n; j++) {
            double y = v[j];
            check(agrees(parm_atan2_f64(x, y), atan2(x, y), atan2l(x, y)),
                  "atan2(%.17g, %.17g) = %.17g, want %.17g", x, y, parm_atan2_f64(x, y),
                  atan2(x, y));
            check(agrees(parm_pow_f64(x, y), pow(x, y), powl(x, y)),
                  "pow(%.17g, %.17g) = %.17g, want %.17g", x, y, parm_pow_f64(x, y), pow(x, y));
            float yf = (float)y;
            check(agrees_f32(parm_atan2_f32(xf, yf), atan2f(xf, yf), atan2l(xf, yf)),
                  "atan2f(%.9g, %.9g) = %.9g", xf, yf, parm_atan2_f32(xf, yf));
            check(agrees_f32(parm_pow_f32(xf, yf), powf(xf, yf), powl(xf, yf)),
                  "powf(%.9g, %.9g) = %.9g", xf, yf, parm_pow_f32(xf, yf));
        }
    }
    check(parm_f64_bits(parm_log_f64(-1.0)) == PARM_NAN_F64 &&
              parm_f32_bits(parm_pow_f32(-2.0f, 0.5f)) == PARM_NAN_F32,
          "log(-1) and pow(-2, 0.5) are the canonical NaN");
    check(parm_log_f64(1.0) == 0.0 && !signbit(parm_log_f64(1.0)), "log(1) = +0");
    /* f32 exp's limits (docs/language.md, 6.3): inf above 88.72, 0 below -103.97 */
    check(isinf(parm_exp_f32(88.73f)) && parm_exp_f32(88.72f) < INFINITY &&
              parm_exp_f32(-103.98f) == 0 && parm_exp_f32(-103.96f) > 0,
          "expf's overflow and underflow thresholds");
    check(parm_pow_f64(10.0, 15.0) == 1e15 && parm_pow_f64(2.0, -1074.0) == 0x1p-1074 &&
              parm_pow_f64(-2.0, 3.0) == -8.0,
          "exact powers");
}

/* abs on integers wraps on the minimum, as unary minus does. */
static void check_integer_abs(void) {
    check(parm_abs_i8(INT8_MIN) == INT8_MIN && parm_abs_i8(-5) == 5 && parm_abs_i8(7) == 7,
          "abs on i8");
    check(parm_abs_i64(INT64_MIN) == INT64_MIN && parm_abs_i64(-INT64_MAX) == INT64_MAX,
          "abs on i64");
    check(parm_abs_u32(UINT32_MAX) == UINT32_MAX && parm_abs_u8(200) == 200,
          "abs on unsigned integers");
}

/* fma rounds once: a * b + c with c = -(a * b rounded) is the product's
 * rounding error, which two_prod (Dekker, without fma) finds too. */
static void check_fma(void) {
    for (int i = 0; i < 100000; i++) {
        double a = uniform(-1e6, 1e6), b = uniform(-1e6, 1e6), p = a * b;
        parm_dd e = parm_two_prod(a, b);
        check(same_bits(parm_fma_f64(a, b, -p), e.lo),
              "fma(%.17g, %.17g, %.17g) = %.17g, want %.17g", a, b, -p, parm_fma_f64(a, b, -p),
              e.lo);
        float af = (float)a, bf = (float)b, pf = af * bf;
        check(parm_fma_f32(af, bf, -pf) == (float)((double)af * (double)bf - (double)pf),
              "fmaf(%.9g, %.9g, %.9g)", af, bf, -pf);
        double c = uniform(-1e12, 1e12);
        check(same_bits(parm_fma_f64(a, b, c), fma(a, b, c)), "fma(%.17g, %.17g, %.17g)", a, b, c);
    }
    check(parm_f64_bits(parm_fma_f64(INFINITY, 0.0, 1.0)) == PARM_NAN_F64 &&
              parm_f32_bits(parm_fma_f32(INFINITY, 1.0f, -INFINITY)) == PARM_NAN_F32,
          "fma of inf * 0 and inf - inf is the canonical NaN");
}

/* Every operation that computes a NaN gives the canonical NaN of its type,
 * whatever the operands' payloads and signs (docs/language.md, "Floats"). */
static void check_nans(void) {
    const float fnan[] = {parm_f32_from_bits(0x7fc00000u), parm_f32_from_bits(0xffc00000u),
                          parm_f32_from_bits(0x7f800123u), parm_f32_from_bits(0xffc54321u)};
    const double dnan[] = {parm_f64_from_bits(0x7ff8000000000000ull),
                           parm_f64_from_bits(0xfff8000000000000ull),
                           parm_f64_from_bits(0x7ff0000000000123ull),
                           parm_f64_from_bits(0xfff8000000054321ull)};
    const uint32_t f = PARM_NAN_F32;
    const uint64_t d = PARM_NAN_F64;
    check(parm_f32_bits(parm_mul_f32(0.0f, INFINITY)) == f, "f32 0 * inf");
    check(parm_f32_bits(parm_sub_f32(INFINITY, INFINITY)) == f, "f32 inf - inf");
    check(parm_f32_bits(parm_div_f32(0.0f, -0.0f)) == f, "f32 0 / -0");
    check(parm_f64_bits(parm_mul_f64(-INFINITY, 0.0)) == d, "f64 -inf * 0");
    check(parm_f64_bits(parm_add_f64(INFINITY, -INFINITY)) == d, "f64 inf + -inf");
    check(parm_f64_bits(parm_div_f64(-INFINITY, INFINITY)) == d, "f64 -inf / inf");
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
            check(parm_f32_bits(parm_add_f32(fnan[i], fnan[j])) == f, "f32 NaN %d + NaN %d", i, j);
            check(parm_f64_bits(parm_mul_f64(dnan[i], dnan[j])) == d, "f64 NaN %d * NaN %d", i, j);
        }
        check(parm_f32_bits(parm_sub_f32(1.0f, fnan[i])) == f, "f32 1 - NaN %d", i);
        check(parm_f32_bits(parm_div_f32(fnan[i], 2.0f)) == f, "f32 NaN %d / 2", i);
        check(parm_f64_bits(parm_add_f64(dnan[i], 1.0)) == d, "f64 NaN %d + 1", i);
        check(parm_f32_bits(parm_sqrt_f32(fnan[i])) == f, "sqrtf(NaN %d)", i);
        check(parm_f64_bits(parm_sin_f64(dnan[i])) == d, "sin(NaN %d)", i);
        check(parm_f32_bits(parm_cos_f32(fnan[i])) == f, "cosf(NaN %d)", i);
        check(parm_f64_bits(parm_exp_f64(dnan[i])) == d &&
                  parm_f64_bits(parm_log_f64(dnan[i])) == d &&
                  parm_f64_bits(parm_tanh_f64(dnan[i])) == d &&
                  parm_f64_bits(parm_floor_f64(dnan[i])) == d &&
                  parm_f64_bits(parm_ceil_f64(dnan[i])) == d,
              "exp, log, tanh, floor, ceil of NaN %d", i);
        check(parm_f64_bits(parm_atan2_f64(1.0, dnan[i])) == d &&
                  parm_f64_bits(parm_pow_f64(dnan[i], 2.0)) == d &&
                  parm_f64_bits(parm_fma_f64(1.0, dnan[i], 1.0)) == d,
              "atan2, pow, fma with NaN %d", i);
        check(parm_f32_bits(parm_exp_f32(fnan[i])) == f &&
                  parm_f32_bits(parm_pow_f32(2.0f, fnan[i])) == f &&
                  parm_f32_bits(parm_fma_f32(fnan[i], 1.0f, 1.0f)) == f &&
                  parm_f32_bits(parm_ceil_f32(fnan[i])) == f,
              "expf, powf, fmaf, ceilf with NaN %d", i);
        /* abs clears the sign bit only */
        check(parm_f32_bits(parm_abs_f32(fnan[i])) == (parm_f32_bits(fnan[i]) & 0x7fffffffu),
              "f32 abs(NaN %d)", i);
        check(parm_f64_bits(parm_cvt_f64_f32(fnan[i])) == d, "f64 (NaN %d)", i);
        check(parm_f32_bits(parm_cvt_f32_f64(dnan[i])) == f, "f32 (NaN %d)", i);
        /* neg flips the sign bit only */
        check(parm_f32_bits(parm_neg_f32(fnan[i])) == (parm_f32_bits(fnan[i]) ^ 0x80000000u),
              "f32 -(NaN %d)", i);
        check(parm_f64_bits(parm_neg_f64(dnan[i])) == (parm_f64_bits(dnan[i]) ^ (1ull << 63)),
              "f64 -(NaN %d)", i);
    }
}

int main(void) {
    double worst = 0;
    for (int i = 0; i < 200000; i++) {
        double x = uniform(-1000, 1000);
        double es = ulps(parm_sin_f64(x), sin(x)), ec = ulps(parm_cos_f64(x), cos(x));
        check(es <= 2, "sin(%.17g) = %.17g, want %.17g", x, parm_sin_f64(x), sin(x));
        check(ec <= 2, "cos(%.17g) = %.17g, want %.17g", x, parm_cos_f64(x), cos(x));
        worst = fmax(worst, fmax(es, ec));
        float xf = (float)uniform(-100, 100);
        check(ulps(parm_sin_f32(xf), sinf(xf)) <= 1 || fabs(parm_sin_f32(xf) - sin(xf)) < 1e-7,
              "sinf(%.17g) = %.17g, want %.17g", xf, parm_sin_f32(xf), sinf(xf));
        check(ulps(parm_cos_f32(xf), cosf(xf)) <= 1 || fabs(parm_cos_f32(xf) - cos(xf)) < 1e-7,
              "cosf(%.17g) = %.17g, want %.17g", xf, parm_cos_f32(xf), cosf(xf));
        double y = uniform(0, 1e6);
        check(same_bits(parm_sqrt_f64(y), sqrt(y)), "sqrt(%.17g) = %.17g, want %.17g", y,
              parm_sqrt_f64(y), sqrt(y));
        check(parm_sqrt_f32((float)y) == sqrtf((float)y), "sqrtf(%.17g) = %.17g, want %.17g", y,
              parm_sqrt_f32((float)y), sqrtf((float)y));
    }
    for (int i = 0; i < 10000; i++) {
        double x = uniform(-1e300, 1e300), s = parm_sin_f64(x), c = parm_cos_f64(x);
        check(s >= -1 && s <= 1 && c >= -1 && c <= 1, "huge sin/cos(%.17g): sin %.17g, cos %.17g",
              x, s, c);
    }
    check(same_bits(parm_sin_f64(0.0), 0.0) && same_bits(parm_sin_f64(-0.0), -0.0), "sin of zeros");
    check(parm_cos_f64(0.0) == 1.0, "cos(%.17g) = %.17g, want %.17g", 0.0, parm_cos_f64(0.0), 1.0);
    check(parm_f64_bits(parm_sin_f64(INFINITY)) == 0x7ff8000000000000ull,
          "sin(inf) is the canonical NaN");
    check(parm_f32_bits(parm_cos_f32(-INFINITY)) == 0x7fffffffu, "cosf(-inf) is the canonical NaN");
    check(parm_f64_bits(parm_sqrt_f64(-1.0)) == 0x7ff8000000000000ull,
          "sqrt(-1) is the canonical NaN");
    check_nans();
    check_accuracy();
    check_special_values();
    check_integer_abs();
    check_fma();
    check(parm_f32_bits(parm_sqrt_f32(-0.0f)) == parm_f32_bits(-0.0f), "sqrt of -0 = %.17g",
          parm_sqrt_f32(-0.0f));
    check(parm_floor_f64(-0.5) == -1 && parm_floor_f64(2.0) == 2 &&
              parm_floor_f64(0x1p60) == 0x1p60,
          "floor");
    printf("math: worst sin/cos error %.2f ulps on [-1000, 1000]\n", worst);
    printf("math: worst errors in ulps:");
    for (int k = 0; k < 10; k++) printf(" %s %.2f", worst_name[k], worst_f[k]);
    printf("\n");
    return check_summary("math");
}
