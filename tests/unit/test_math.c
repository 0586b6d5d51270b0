/* test_math.c: checks sqrt, sin and cos of runtime/parm_ops.h (the one
 * definition that the interpreter and every back end use) against the C
 * library: within 2 ulps of glibc's correctly rounded results for |x| <=
 * 1000, exact special values, results in [-1, 1] for huge arguments, and
 * sqrt equal to the C library's bit for bit; and the canonical NaN from
 * every float operation that makes a NaN.
 * Prints "math: N passed, M failed"; exits 1 on any failure. */
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

/* Every operation that computes a NaN gives the canonical NaN of its type,
 * whatever the operands' payloads and signs (docs/language.md, "Floats"). */
static void check_nans(void) {
    const float fnan[] = {parm_f32_from_bits(0x7fc00000u), parm_f32_from_bits(0xffc00000u),
                          parm_f32_from_bits(0x7f800123u), parm_f32_from_bits(0xffc54321u)};
    const double dnan[] = {parm_f64_from_bits(0x7ff8000000000000ull), parm_f64_from_bits(0xfff8000000000000ull),
                           parm_f64_from_bits(0x7ff0000000000123ull), parm_f64_from_bits(0xfff8000000054321ull)};
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
        check(parm_f64_bits(parm_cvt_f64_f32(fnan[i])) == d, "f64 (NaN %d)", i);
        check(parm_f32_bits(parm_cvt_f32_f64(dnan[i])) == f, "f32 (NaN %d)", i);
        /* neg flips the sign bit only */
        check(parm_f32_bits(parm_neg_f32(fnan[i])) == (parm_f32_bits(fnan[i]) ^ 0x80000000u), "f32 -(NaN %d)", i);
        check(parm_f64_bits(parm_neg_f64(dnan[i])) == (parm_f64_bits(dnan[i]) ^ (1ull << 63)), "f64 -(NaN %d)", i);
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
        double y = uniform(0, 1e6);
        check(same_bits(parm_sqrt_f64(y), sqrt(y)), "sqrt(%.17g) = %.17g, want %.17g", y, parm_sqrt_f64(y), sqrt(y));
        check(parm_sqrt_f32((float)y) == sqrtf((float)y), "sqrtf(%.17g) = %.17g, want %.17g", y,
              parm_sqrt_f32((float)y), sqrtf((float)y));
    }
    for (int i = 0; i < 10000; i++) {
        double x = uniform(-1e300, 1e300), s = parm_sin_f64(x), c = parm_cos_f64(x);
        check(s >= -1 && s <= 1 && c >= -1 && c <= 1, "huge sin/cos(%.17g): sin %.17g, cos %.17g", x, s, c);
    }
    check(same_bits(parm_sin_f64(0.0), 0.0) && same_bits(parm_sin_f64(-0.0), -0.0), "sin of zeros");
    check(parm_cos_f64(0.0) == 1.0, "cos(%.17g) = %.17g, want %.17g", 0.0, parm_cos_f64(0.0), 1.0);
    check(parm_f64_bits(parm_sin_f64(INFINITY)) == 0x7ff8000000000000ull, "sin(inf) is the canonical NaN");
    check(parm_f32_bits(parm_cos_f32(-INFINITY)) == 0x7fffffffu, "cosf(-inf) is the canonical NaN");
    check(parm_f64_bits(parm_sqrt_f64(-1.0)) == 0x7ff8000000000000ull, "sqrt(-1) is the canonical NaN");
    check_nans();
    check(parm_f32_bits(parm_sqrt_f32(-0.0f)) == parm_f32_bits(-0.0f), "sqrt of -0 = %.17g", parm_sqrt_f32(-0.0f));
    check(parm_floor_f64(-0.5) == -1 && parm_floor_f64(2.0) == 2 && parm_floor_f64(0x1p60) == 0x1p60, "floor");
    printf("math: worst sin/cos error %.2f ulps on [-1000, 1000]\n", worst);
    return check_summary("math");
}
