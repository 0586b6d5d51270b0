/* parm_ops.h: the run-time operators of parm, for generated C and CUDA code.
 *
 * Every function here gives exactly the results of compiler/ir/scalar_ops.c (the
 * reference interpreter's semantics, docs/language.md "Run-time arithmetic"),
 * bit for bit, in C11 and in CUDA host and device code:
 *   - integers wrap (two's complement), computed in unsigned arithmetic so
 *     that nothing is undefined or implementation-defined;
 *   - x / 0 = 0, x % 0 = x, MIN / -1 = MIN, MIN % -1 = 0;
 *   - shift counts are taken modulo the width (the count's low bits), and >>
 *     of a signed value is arithmetic;
 *   - f32 arithmetic is done in float and f64 in double, each operation
 *     rounded on its own (never contracted into a fused multiply-add);
 *   - float to integer conversion truncates, saturates at the type's bounds
 *     and maps NaN to 0; float or integer to bool is x != 0 (so NaN -> true);
 *     integer to integer wraps; every other conversion is a C cast.
 *
 * Names (t, to, from: bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64):
 *   parm_<op>_<t>(a, b)        binary operator on operands of type t; op is
 *                              the IR's spelling (ir_print.c): add sub mul div
 *                              mod shl shr and or xor (bitwise) eq ne lt le gt
 *                              ge (these return bool) land lor (logical, bool)
 *   parm_<op>_<t>(a)           unary: neg (numbers), not (bool), abs
 *                              (numbers), sqrt sin cos exp log tanh floor
 *                              ceil (f32, f64)
 *   parm_<op>_<t>(a, b[, c])   the functions atan2 pow and fma (f32, f64)
 *   parm_cvt_<to>_<from>(x)    conversion, destination first as in a cast:
 *                              parm_cvt_i32_f32 converts an f32 to an i32
 *   parm_f32_from_bits(u), parm_f64_from_bits(u), parm_f32_bits(x),
 *   parm_f64_bits(x)           a float from its IEEE bits and back
 * Each operator exists for the types the language accepts it on (the table
 * of compiler/front/ast.c), and every pair of types has a conversion.
 *
 * Element C types: bool uint8_t (0 or 1), i8..i64 int8_t..int64_t,
 * u8..u64 uint8_t..uint64_t, f32 float, f64 double.
 *
 * Floating point: CUDA device code uses the __f*_rn / __d*_rn intrinsics,
 * which nvcc never fuses into a multiply-add. In host code (GCC or Clang on
 * x86-64 or AArch64) every operand of a float operator goes through an empty
 * asm (PARM_OPAQUE: no instruction), so the compiler can neither contract a
 * product into a later addition (-ffp-contract=fast is GCC's default outside
 * the ISO modes) nor fold or rewrite across operators: GCC treats the sign
 * and payload of a NaN as insignificant and would turn (-a) + b into b - a,
 * x * -1.0 into -x, or fold 0.0 / 0.0 at compile time into a NaN with other
 * bits than the hardware's. Elsewhere only #pragma STDC FP_CONTRACT OFF is
 * given (honoured by Clang unless -ffp-contract=fast). Options that change
 * IEEE semantics (-ffast-math, nvcc --use_fast_math or -ftz=true, x87
 * arithmetic) are not supported.
 *
 * NaN bits: every operation here that computes a float (add, sub, mul, div,
 * the functions but abs, f32 <-> f64) and gets a NaN returns the canonical
 * NaN of its type, PARM_NAN_F32 (0x7fffffff) or PARM_NAN_F64 (0x7ff8000000000000),
 * whatever the operands' payloads and signs: targets differ in the NaNs they
 * make (x86 makes 0xffc00000 for 0 * inf and propagates an operand's payload
 * and sign, choosing between two NaN operands by the compiler's operand
 * order; a GPU's f32 arithmetic makes 0x7fffffff for every NaN result; its
 * f64 arithmetic propagates like x86). 0x7fffffff is the GPU's own, so f32
 * arithmetic in device code needs no check. neg and abs change the sign bit
 * only, everywhere, and a select moves bits unchanged, so a NaN read from
 * the input keeps its payload until an operation computes with it. The interpreter calls these
 * functions (scalar_ops.c), so it gives the same bits.
 *
 * Includes only <stdint.h> and <math.h>. */
#ifndef PARM_OPS_H
#define PARM_OPS_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define PARM_FN static inline __host__ __device__
#else
#define PARM_FN static inline
#endif

/* Tables that the compiler computed (position-only subexpressions): in CUDA
 * global device memory, read through the read-only data cache where the
 * lanes of a warp read different entries (constant memory would serialise
 * them); the scheduler chooses per kernel (TablePlace in compiler/plan/plan.h).
 * A table that every kernel reads from its copy in constant memory leaves
 * its array unread (unused, without a warning). */
#ifdef __CUDACC__
#define PARM_TABLE __device__ const
#else
#define PARM_TABLE __attribute__((unused)) const
#endif
#ifdef __CUDA_ARCH__
#define PARM_TABLE_READ(t, i) __ldg(&(t)[i])
#else
#define PARM_TABLE_READ(t, i) ((t)[i])
#endif
/* A table in constant memory (CUDA; TABLE_CONSTANT in compiler/plan/plan.h), and
 * the read of a table at an index known at compile time, which the
 * compiler folds into an immediate (TABLE_IMMEDIATE: no __ldg, which it
 * would not fold). */
#ifdef __CUDACC__
#define PARM_CONST_TABLE __constant__ const
#else
#define PARM_CONST_TABLE const
#endif
#define PARM_TABLE_AT(t, i) ((t)[i])

/* PARM_OPAQUE(x): the optimiser no longer knows x's value (no instruction is
 * emitted). x is a float or double variable. */
#if defined(__CUDA_ARCH__)
#define PARM_OPAQUE(x) ((void)0) /* device code uses intrinsics */
#elif defined(__GNUC__) && (defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__)))
#define PARM_OPAQUE(x) __asm__("" : "+x"(x))
#elif defined(__GNUC__) && defined(__aarch64__)
#define PARM_OPAQUE(x) __asm__("" : "+w"(x))
#else
#define PARM_OPAQUE(x) ((void)0)
#endif

/* PARM_REMAT(x), PARM_REMAT64(x): in CUDA device code the compiler no longer
 * knows the 32- or 64-bit integer variable x (no instruction is emitted), so
 * addresses computed from x after this point are computed again instead of
 * being kept alive in registers (or spilled) since an earlier use. The CUDA
 * kernels use it on a thread's shared-memory base at each register round and
 * on its tile indices before the tile is written back. Elsewhere a no-op. */
#if defined(__CUDA_ARCH__)
#define PARM_REMAT(x) __asm__ volatile("" : "+r"(x))
#define PARM_REMAT64(x) __asm__ volatile("" : "+l"(x))
#else
#define PARM_REMAT(x) ((void)0)
#define PARM_REMAT64(x) ((void)0)
#endif

/* PARM_ALIGNED16(p): whether pointer p is 16-byte aligned.
 * PARM_LOAD16(a, src), PARM_STORE16(dst, a): the 16 bytes at src into the
 * array a of registers, and back to dst, with src and dst 16-byte aligned:
 * one vector access in CUDA device code (the kernels' tile copies with
 * --vector-copies), a memcpy elsewhere. */
#define PARM_ALIGNED16(p) ((((unsigned long long)(p)) & 15u) == 0)
#if defined(__CUDA_ARCH__)
#define PARM_LOAD16(a, src) \
    do { \
        const int4 parm_q = *(const int4 *)(const void *)(src); \
        __builtin_memcpy((a), &parm_q, 16); \
    } while (0)
#define PARM_STORE16(dst, a) \
    do { \
        int4 parm_q; \
        __builtin_memcpy(&parm_q, (a), 16); \
        *(int4 *)(void *)(dst) = parm_q; \
    } while (0)
#else /* the CPU emulation of the kernels (tests/emu): traps where a GPU would fault */
#define PARM_LOAD16(a, src) \
    (PARM_ALIGNED16(src) ? (void)__builtin_memcpy((a), (const void *)(src), 16) : __builtin_trap())
#define PARM_STORE16(dst, a) \
    (PARM_ALIGNED16(dst) ? (void)__builtin_memcpy((void *)(dst), (a), 16) : __builtin_trap())
#endif

/* PARM_CP_ASYNC4(dst, src), PARM_CP_ASYNC8(dst, src): an asynchronous copy
 * of the 4 or 8 bytes at src (global memory) to dst (shared memory), in
 * the thread's open group; PARM_CP_COMMIT() closes the group;
 * PARM_CP_WAIT(n) waits until at most n of the thread's groups are still
 * in flight (a literal). The persistent kernels of --tile-buffers load
 * their next tiles with them; the copies are visible to the other threads
 * after the wait and a barrier. cp.async from sm_80 on; before that, a copy
 * in registers that is complete at once. The CPU emulation of the kernels
 * (tests/emu) defines its own, which copy at the wait. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define PARM_CP_ASYNC_(dst, src, n) \
    __asm__ volatile("cp.async.ca.shared.global [%0], [%1], " #n \
                     ";\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)), \
                     "l"(src) \
                     : "memory")
#define PARM_CP_ASYNC4(dst, src) PARM_CP_ASYNC_(dst, src, 4)
#define PARM_CP_ASYNC8(dst, src) PARM_CP_ASYNC_(dst, src, 8)
#define PARM_CP_COMMIT() __asm__ volatile("cp.async.commit_group;\n" ::: "memory")
#define PARM_CP_WAIT(n) __asm__ volatile("cp.async.wait_group " #n ";\n" ::: "memory")
#elif !defined(PARM_CP_ASYNC4)
#define PARM_CP_ASYNC4(dst, src) (void)__builtin_memcpy((void *)(dst), (const void *)(src), 4)
#define PARM_CP_ASYNC8(dst, src) (void)__builtin_memcpy((void *)(dst), (const void *)(src), 8)
#define PARM_CP_COMMIT() ((void)0)
#define PARM_CP_WAIT(n) ((void)0)
#endif

/* Thread-block clusters (sm_90; a LOCAL phase's Phase.cluster_log in
 * compiler/plan/plan.h): PARM_CLUSTER_RANK(), the block's rank in its cluster;
 * PARM_CLUSTER_SYNC(), a barrier of every thread of the cluster that makes
 * their shared-memory writes visible to each other (it is also the block's
 * barrier); PARM_DSMEM(p, r), the generic address of shared pointer p in
 * the shared memory of block r of the cluster. The CPU emulation of the
 * kernels (tests/emu) defines its own. */
#if defined(__CUDACC__)
static __device__ __forceinline__ unsigned parm_cluster_rank(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    unsigned r;
    __asm__("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
#else
    __trap(); /* clusters are sm_90's: compile with -arch=sm_90 */
    return 0;
#endif
}
static __device__ __forceinline__ void parm_cluster_sync(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __asm__ volatile(
        "barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::
            : "memory");
#else
    __trap();
#endif
}
template <typename T> static __device__ __forceinline__ T *parm_dsmem(T *p, unsigned r) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    T *q;
    __asm__("mapa.u64 %0, %1, %2;" : "=l"(q) : "l"(p), "r"(r));
    return q;
#else
    __trap();
    return p;
#endif
}
#define PARM_CLUSTER_RANK() parm_cluster_rank()
#define PARM_CLUSTER_SYNC() parm_cluster_sync()
#define PARM_DSMEM(p, r) parm_dsmem((p), (r))
#endif

/* GCC ignores this pragma (and warns about it); PARM_OPAQUE covers GCC. */
#if !defined(__CUDACC__) && (defined(__clang__) || !defined(__GNUC__))
#pragma STDC FP_CONTRACT OFF
#endif

/* ---- float bits ---- */

PARM_FN float parm_f32_from_bits(uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#elif defined(__GNUC__)
    float f;
    __builtin_memcpy(&f, &u, sizeof f);
    return f;
#else
    union {
        uint32_t u;
        float f;
    } c;
    c.u = u;
    return c.f;
#endif
}

PARM_FN double parm_f64_from_bits(uint64_t u) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)u);
#elif defined(__GNUC__)
    double f;
    __builtin_memcpy(&f, &u, sizeof f);
    return f;
#else
    union {
        uint64_t u;
        double f;
    } c;
    c.u = u;
    return c.f;
#endif
}

PARM_FN uint32_t parm_f32_bits(float x) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#elif defined(__GNUC__)
    uint32_t u;
    __builtin_memcpy(&u, &x, sizeof u);
    return u;
#else
    union {
        uint32_t u;
        float f;
    } c;
    c.f = x;
    return c.u;
#endif
}

PARM_FN uint64_t parm_f64_bits(double x) {
#if defined(__CUDA_ARCH__)
    return (uint64_t)__double_as_longlong(x);
#elif defined(__GNUC__)
    uint64_t u;
    __builtin_memcpy(&u, &x, sizeof u);
    return u;
#else
    union {
        uint64_t u;
        double f;
    } c;
    c.f = x;
    return c.u;
#endif
}

/* ---- the canonical NaNs ---- */

#define PARM_NAN_F32 0x7fffffffu
#define PARM_NAN_F64 0x7ff8000000000000ull

/* x, or the canonical NaN when x is a NaN. */
PARM_FN float parm_canon_f32(float x) { return x != x ? parm_f32_from_bits(PARM_NAN_F32) : x; }
PARM_FN double parm_canon_f64(double x) { return x != x ? parm_f64_from_bits(PARM_NAN_F64) : x; }

/* ---- signed from unsigned of the same width: the two's complement value,
 * without C's implementation-defined out-of-range conversion ---- */

#define PARM_SIGNED_OF(s, S, u, U, SMAX, UMAX) \
    PARM_FN S parm_cvt_##s##_##u(U x) { return x <= SMAX ? (S)x : (S)(-(S)(UMAX - x) - 1); }
PARM_SIGNED_OF(i8, int8_t, u8, uint8_t, INT8_MAX, UINT8_MAX)
PARM_SIGNED_OF(i16, int16_t, u16, uint16_t, INT16_MAX, UINT16_MAX)
PARM_SIGNED_OF(i32, int32_t, u32, uint32_t, INT32_MAX, UINT32_MAX)
PARM_SIGNED_OF(i64, int64_t, u64, uint64_t, INT64_MAX, UINT64_MAX)
#undef PARM_SIGNED_OF

/* ---- integer operators ----
 * (U)(0u + a + b): the sum is computed in unsigned int or wider, never in a
 * promoted int that could overflow; likewise 1u * a * b. */

#define PARM_COMPARE_OPS(t, T) \
    PARM_FN uint8_t parm_eq_##t(T a, T b) { return (uint8_t)(a == b); } \
    PARM_FN uint8_t parm_ne_##t(T a, T b) { return (uint8_t)(a != b); } \
    PARM_FN uint8_t parm_lt_##t(T a, T b) { return (uint8_t)(a < b); } \
    PARM_FN uint8_t parm_le_##t(T a, T b) { return (uint8_t)(a <= b); } \
    PARM_FN uint8_t parm_gt_##t(T a, T b) { return (uint8_t)(a > b); } \
    PARM_FN uint8_t parm_ge_##t(T a, T b) { return (uint8_t)(a >= b); }

/* The orders of 64-bit integers: on the GPU the compare is PTX, which nvcc
 * cannot see into, so a comparator's two selects (if a <= b then [a, b]
 * else [b, a]) keep its one predicate: 2 ISETP and 4 SEL on sm_90, where
 * nvcc made them a minimum and a maximum of their own compares, 4 and 4
 * (there is no 64-bit IMNMX). Packed keys (stdlib/sort.parm) compare so. */
#if defined(__CUDA_ARCH__)
#define PARM_ORDER64(ptx, op, a, b) \
    { \
        unsigned r; \
        asm("{ .reg .pred p; setp." ptx " p, %1, %2; selp.u32 %0, 1, 0, p; }" \
            : "=r"(r) \
            : "l"(a), "l"(b)); \
        return (uint8_t)r; \
    }
#else
#define PARM_ORDER64(ptx, op, a, b) \
    { return (uint8_t)(a op b); }
#endif
#define PARM_COMPARE64_OPS(t, T, ptx_t) \
    PARM_FN uint8_t parm_eq_##t(T a, T b) { return (uint8_t)(a == b); } \
    PARM_FN uint8_t parm_ne_##t(T a, T b) { return (uint8_t)(a != b); } \
    PARM_FN uint8_t parm_lt_##t(T a, T b) PARM_ORDER64("lt." ptx_t, <, a, b) \
        PARM_FN uint8_t parm_le_##t(T a, T b) PARM_ORDER64("le." ptx_t, <=, a, b) \
            PARM_FN uint8_t parm_gt_##t(T a, T b) PARM_ORDER64("gt." ptx_t, >, a, b) \
                PARM_FN uint8_t parm_ge_##t(T a, T b) PARM_ORDER64("ge." ptx_t, >=, a, b)

#define PARM_UNSIGNED_OPS(u, U, BITS, COMPARE) \
    PARM_FN U parm_add_##u(U a, U b) { return (U)(0u + a + b); } \
    PARM_FN U parm_sub_##u(U a, U b) { return (U)(0u + a - b); } \
    PARM_FN U parm_mul_##u(U a, U b) { return (U)(1u * a * b); } \
    PARM_FN U parm_div_##u(U a, U b) { return b == 0 ? (U)0 : (U)(a / b); } \
    PARM_FN U parm_mod_##u(U a, U b) { return b == 0 ? a : (U)(a % b); } \
    PARM_FN U parm_shl_##u(U a, U b) { return (U)((0u + a) << (b & (BITS - 1))); } \
    PARM_FN U parm_shr_##u(U a, U b) { return (U)(a >> (b & (BITS - 1))); } \
    PARM_FN U parm_and_##u(U a, U b) { return (U)(a & b); } \
    PARM_FN U parm_or_##u(U a, U b) { return (U)(a | b); } \
    PARM_FN U parm_xor_##u(U a, U b) { return (U)(a ^ b); } \
    PARM_FN U parm_neg_##u(U a) { return (U)(0u - a); } \
    COMPARE

#define PARM_SIGNED_OPS(s, S, u, U, BITS, COMPARE) \
    PARM_FN S parm_add_##s(S a, S b) { return parm_cvt_##s##_##u((U)(0u + (U)a + (U)b)); } \
    PARM_FN S parm_sub_##s(S a, S b) { return parm_cvt_##s##_##u((U)(0u + (U)a - (U)b)); } \
    PARM_FN S parm_mul_##s(S a, S b) { return parm_cvt_##s##_##u((U)(1u * (U)a * (U)b)); } \
    PARM_FN S parm_neg_##s(S a) { return parm_cvt_##s##_##u((U)(0u - (U)a)); } \
    PARM_FN S parm_div_##s(S a, S b) { \
        if (b == 0) return 0; \
        if (b == -1) return parm_neg_##s(a); \
        return (S)(a / b); \
    } \
    PARM_FN S parm_mod_##s(S a, S b) { \
        if (b == 0) return a; \
        if (b == -1) return 0; \
        return (S)(a % b); \
    } \
    PARM_FN S parm_shl_##s(S a, S b) { \
        return parm_cvt_##s##_##u((U)((0u + (U)a) << ((U)b & (BITS - 1)))); \
    } \
    /* Arithmetic shift without shifting a negative value: for a < 0,      \
     * -1 - a >= 0 and a >> n = -1 - ((-1 - a) >> n). */ \
    PARM_FN S parm_shr_##s(S a, S b) { \
        unsigned n = (unsigned)((U)b & (BITS - 1)); \
        return a < 0 ? (S)(-1 - ((-1 - a) >> n)) : (S)(a >> n); \
    } \
    PARM_FN S parm_and_##s(S a, S b) { return parm_cvt_##s##_##u((U)((U)a & (U)b)); } \
    PARM_FN S parm_or_##s(S a, S b) { return parm_cvt_##s##_##u((U)((U)a | (U)b)); } \
    PARM_FN S parm_xor_##s(S a, S b) { return parm_cvt_##s##_##u((U)((U)a ^ (U)b)); } \
    COMPARE

PARM_UNSIGNED_OPS(u8, uint8_t, 8, PARM_COMPARE_OPS(u8, uint8_t))
PARM_UNSIGNED_OPS(u16, uint16_t, 16, PARM_COMPARE_OPS(u16, uint16_t))
PARM_UNSIGNED_OPS(u32, uint32_t, 32, PARM_COMPARE_OPS(u32, uint32_t))
PARM_UNSIGNED_OPS(u64, uint64_t, 64, PARM_COMPARE64_OPS(u64, uint64_t, "u64"))
PARM_SIGNED_OPS(i8, int8_t, u8, uint8_t, 8, PARM_COMPARE_OPS(i8, int8_t))
PARM_SIGNED_OPS(i16, int16_t, u16, uint16_t, 16, PARM_COMPARE_OPS(i16, int16_t))
PARM_SIGNED_OPS(i32, int32_t, u32, uint32_t, 32, PARM_COMPARE_OPS(i32, int32_t))
PARM_SIGNED_OPS(i64, int64_t, u64, uint64_t, 64, PARM_COMPARE64_OPS(i64, int64_t, "s64"))
#undef PARM_UNSIGNED_OPS
#undef PARM_SIGNED_OPS

/* ---- bool (uint8_t holding 0 or 1) ---- */

PARM_FN uint8_t parm_eq_bool(uint8_t a, uint8_t b) { return (uint8_t)(a == b); }
PARM_FN uint8_t parm_ne_bool(uint8_t a, uint8_t b) { return (uint8_t)(a != b); }
PARM_FN uint8_t parm_and_bool(uint8_t a, uint8_t b) { return (uint8_t)(a & b); }
PARM_FN uint8_t parm_or_bool(uint8_t a, uint8_t b) { return (uint8_t)(a | b); }
PARM_FN uint8_t parm_xor_bool(uint8_t a, uint8_t b) { return (uint8_t)(a ^ b); }
PARM_FN uint8_t parm_land_bool(uint8_t a, uint8_t b) { return (uint8_t)(a && b); }
PARM_FN uint8_t parm_lor_bool(uint8_t a, uint8_t b) { return (uint8_t)(a || b); }
PARM_FN uint8_t parm_not_bool(uint8_t a) { return (uint8_t)!a; }

/* ---- floating point ---- */

/* In device code, f32 results are canonical already (the GPU makes
 * 0x7fffffff for every NaN result); f64 ones are canonicalised. */
#if defined(__CUDA_ARCH__)
#define PARM_FLOAT_ARITH(t, T, canon, add, sub, mul, div) \
    PARM_FN T parm_add_##t(T a, T b) { return canon(add(a, b)); } \
    PARM_FN T parm_sub_##t(T a, T b) { return canon(sub(a, b)); } \
    PARM_FN T parm_mul_##t(T a, T b) { return canon(mul(a, b)); } \
    PARM_FN T parm_div_##t(T a, T b) { return canon(div(a, b)); }
PARM_FLOAT_ARITH(f32, float, , __fadd_rn, __fsub_rn, __fmul_rn, __fdiv_rn)
PARM_FLOAT_ARITH(f64, double, parm_canon_f64, __dadd_rn, __dsub_rn, __dmul_rn, __ddiv_rn)
#else
#define PARM_FLOAT_OP(t, T, name, op) \
    PARM_FN T parm_##name##_##t(T a, T b) { \
        PARM_OPAQUE(a); \
        PARM_OPAQUE(b); \
        return parm_canon_##t(a op b); \
    }
#define PARM_FLOAT_ARITH(t, T) \
    PARM_FLOAT_OP(t, T, add, +) \
    PARM_FLOAT_OP(t, T, sub, -) \
    PARM_FLOAT_OP(t, T, mul, *) \
    PARM_FLOAT_OP(t, T, div, /)
PARM_FLOAT_ARITH(f32, float)
PARM_FLOAT_ARITH(f64, double)
#undef PARM_FLOAT_OP
#endif
#undef PARM_FLOAT_ARITH

/* neg flips the sign bit, of a NaN too (a GPU's neg.f32 would return the
 * canonical NaN, its neg.f64 the NaN unchanged). */
PARM_FN float parm_neg_f32(float a) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(__float_as_uint(a) ^ 0x80000000u);
#else
    PARM_OPAQUE(a);
    return -a;
#endif
}

PARM_FN double parm_neg_f64(double a) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(__double_as_longlong(a) ^ (long long)(1ull << 63));
#else
    PARM_OPAQUE(a);
    return -a;
#endif
}

PARM_COMPARE_OPS(f32, float)
PARM_COMPARE_OPS(f64, double)
#undef PARM_COMPARE_OPS
#undef PARM_COMPARE64_OPS
#undef PARM_ORDER64

/* ---- sqrt, sin, cos ----
 *
 * sqrt is IEEE's correctly rounded square root on every target. sin and cos
 * are parm's own, written with the operators above (never contracted), so
 * every back end and the interpreter (which includes this file) compute the
 * same bits. The argument is reduced by pi/2 split in three parts (Cody and
 * Waite), exact for |x| below about 2^20; Taylor polynomials on |r| < 0.79
 * then give results within 1 ulp (tests/unit/test_math.c: 200,000 arguments
 * in [-1000, 1000] against glibc). Larger arguments lose accuracy, on every
 * target alike. The f32 versions compute in double with shorter polynomials
 * and round once. */

/* sqrt of a negative number or of a NaN is the canonical NaN. Host code on
 * x86-64 uses the SSE2 instruction, so that generated C links without -lm
 * (unless it uses fma); elsewhere it calls the C library's sqrt. */
#if !defined(__CUDA_ARCH__) && defined(__SSE2__)
#include <emmintrin.h>
#endif

PARM_FN float parm_sqrt_f32(float a) {
    if (!(a >= 0.0f)) return parm_f32_from_bits(PARM_NAN_F32); /* sqrt(-0) = -0 passes */
#if defined(__CUDA_ARCH__)
    return __fsqrt_rn(a);
#elif defined(__SSE2__)
    return _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(a)));
#else
    PARM_OPAQUE(a);
    return sqrtf(a);
#endif
}

PARM_FN double parm_sqrt_f64(double a) {
    if (!(a >= 0.0)) return parm_f64_from_bits(PARM_NAN_F64);
#if defined(__CUDA_ARCH__)
    return __dsqrt_rn(a);
#elif defined(__SSE2__)
    return _mm_cvtsd_f64(_mm_sqrt_sd(_mm_setzero_pd(), _mm_set_sd(a)));
#else
    PARM_OPAQUE(a);
    return sqrt(a);
#endif
}

/* floor and ceil without the C library (exact, so every target agrees):
 * below 2^52 in magnitude through int64_t, above it x itself (an integer or
 * an infinity); a NaN gives the canonical NaN, and a zero result keeps x's
 * sign (floor(-0) = -0, ceil(-0.5) = -0), as in IEEE. */
PARM_FN double parm_floor_f64(double x) {
    if (x != x) return parm_f64_from_bits(PARM_NAN_F64);
    if (!(x > -0x1p52 && x < 0x1p52)) return x;
    double t = (double)(int64_t)x;
    t = t > x ? t - 1.0 : t;
    return t == 0.0 ? parm_f64_from_bits(parm_f64_bits(x) & (1ull << 63)) : t;
}

PARM_FN double parm_ceil_f64(double x) {
    if (x != x) return parm_f64_from_bits(PARM_NAN_F64);
    return parm_neg_f64(parm_floor_f64(parm_neg_f64(x)));
}

/* ---- the functions' insides ----
 *
 * sin, cos, exp, log, tanh, atan2 and pow compute, past their special
 * cases, on finite doubles that make no NaN, so their steps use the IEEE
 * operations without the NaN test and select of parm_add_f64 and the others
 * (about 80 of them in an exp), and each function canonicalises its result
 * once: the same bits, since a NaN step, if one were made, would stay a NaN
 * to the end, where only its payload is replaced. The same contraction
 * rules hold as for the operators. */
#if defined(__CUDA_ARCH__)
PARM_FN double parm_dadd(double a, double b) { return __dadd_rn(a, b); }
PARM_FN double parm_dsub(double a, double b) { return __dsub_rn(a, b); }
PARM_FN double parm_dmul(double a, double b) { return __dmul_rn(a, b); }
PARM_FN double parm_ddiv(double a, double b) { return __ddiv_rn(a, b); }
#else
#define PARM_RAW_OP(name, op) \
    PARM_FN double parm_d##name(double a, double b) { \
        PARM_OPAQUE(a); \
        PARM_OPAQUE(b); \
        return a op b; \
    }
PARM_RAW_OP(add, +)
PARM_RAW_OP(sub, -)
PARM_RAW_OP(mul, *)
PARM_RAW_OP(div, /)
#undef PARM_RAW_OP
#endif

/* sin r and cos r for |r| < 0.79: Taylor coefficients (-1)^k/(2k+1)! and
 * (-1)^k/(2k)!, Horner's rule in r^2, to degree 17 and 16 for f64 results.
 * Results rounded to f32 need degree 11 and 12 only (the next terms are below
 * 1e-11). */
#define PARM_HORNER2(r2, c0, c1) parm_dadd(c0, parm_dmul(r2, c1))
#define PARM_HORNER3(r2, c0, c1, c2) parm_dadd(c0, parm_dmul(r2, PARM_HORNER2(r2, c1, c2)))
#define PARM_HORNER4(r2, c0, c1, c2, c3) parm_dadd(c0, parm_dmul(r2, PARM_HORNER3(r2, c1, c2, c3)))
#define PARM_HORNER5(r2, c0, c1, c2, c3, c4) \
    parm_dadd(c0, parm_dmul(r2, PARM_HORNER4(r2, c1, c2, c3, c4)))
#define PARM_HORNER6(r2, c0, c1, c2, c3, c4, c5) \
    parm_dadd(c0, parm_dmul(r2, PARM_HORNER5(r2, c1, c2, c3, c4, c5)))
#define PARM_HORNER8(r2, c0, c1, c2, c3, c4, c5, c6, c7) \
    PARM_HORNER3(r2, c0, c1, parm_dadd(c2, parm_dmul(r2, PARM_HORNER5(r2, c3, c4, c5, c6, c7))))

PARM_FN double parm_sin_kernel(double r, int for_f32) {
    if (r == 0.0) return r; /* sin(-0) = -0 */
    double r2 = parm_dmul(r, r);
    double p = for_f32 ? PARM_HORNER5(r2, -0x1.5555555555555p-3, 0x1.1111111111111p-7,
                                      -0x1.a01a01a01a01ap-13, 0x1.71de3a556c734p-19,
                                      -0x1.ae64567f544e4p-26)
                       : PARM_HORNER8(r2, -0x1.5555555555555p-3, 0x1.1111111111111p-7,
                                      -0x1.a01a01a01a01ap-13, 0x1.71de3a556c734p-19,
                                      -0x1.ae64567f544e4p-26, 0x1.6124613a86d09p-33,
                                      -0x1.ae7f3e733b81fp-41, 0x1.952c77030ad4ap-49);
    return parm_dadd(r, parm_dmul(parm_dmul(r, r2), p));
}

PARM_FN double parm_cos_kernel(double r, int for_f32) {
    double r2 = parm_dmul(r, r);
    double p = for_f32 ? PARM_HORNER6(r2, -0x1.0p-1, 0x1.5555555555555p-5, -0x1.6c16c16c16c17p-10,
                                      0x1.a01a01a01a01ap-16, -0x1.27e4fb7789f5cp-22,
                                      0x1.1eed8eff8d898p-29)
                       : PARM_HORNER8(r2, -0x1.0p-1, 0x1.5555555555555p-5, -0x1.6c16c16c16c17p-10,
                                      0x1.a01a01a01a01ap-16, -0x1.27e4fb7789f5cp-22,
                                      0x1.1eed8eff8d898p-29, -0x1.93974a8c07c9dp-37,
                                      0x1.ae7f3e733b81fp-45);
    return parm_dadd(1.0, parm_dmul(r2, p));
}
#undef PARM_HORNER2
#undef PARM_HORNER3
#undef PARM_HORNER4
#undef PARM_HORNER5
#undef PARM_HORNER6
#undef PARM_HORNER8

/* x = r + q·pi/2 (mod 2 pi) with q in 0..3: one reduction suffices below
 * |x| ~ 2^20; beyond, |r| stays above pi/4 and the reduction is repeated (at
 * most 40 times reach |r| < 1 from any finite x), so results stay in
 * [-1, 1] though they are no longer accurate. */
PARM_FN double parm_reduce_quadrant(double x, double *q) {
    const double two_over_pi = 0x1.45f306dc9c883p-1;
    const double pio2_hi = 0x1.921fb54400000p+0, pio2_mid = 0x1.0b4611a600000p-34,
                 pio2_lo = 0x1.3198a2e037073p-69;
    double r = x;
    *q = 0.0;
    for (int round = 0; round == 0 || (round < 40 && !(r >= -0.79 && r <= 0.79)); round++) {
        double k = parm_floor_f64(parm_dadd(parm_dmul(r, two_over_pi), 0.5));
        r = parm_dsub(r, parm_dmul(k, pio2_hi));
        r = parm_dsub(r, parm_dmul(k, pio2_mid));
        r = parm_dsub(r, parm_dmul(k, pio2_lo));
        *q = parm_dadd(*q, parm_dsub(k, parm_dmul(4.0, parm_floor_f64(parm_dmul(k, 0.25)))));
    }
    return r;
}

/* sin x (quarter_turns 0) or cos x = sin(x + pi/2) (quarter_turns 1). Both
 * polynomials are evaluated and one selected, so that GPU threads of a warp
 * whose arguments lie in different quadrants do not diverge. */
PARM_FN double parm_sin_quadrant(double x, int quarter_turns, int for_f32) {
    double q, r = parm_reduce_quadrant(x, &q);
    double s = parm_sin_kernel(r, for_f32), c = parm_cos_kernel(r, for_f32);
    int quadrant = ((int)q + quarter_turns) & 3;
    double v = quadrant & 1 ? c : s;
    return quadrant & 2 ? parm_neg_f64(v) : v;
}

/* A NaN or infinite argument gives the canonical NaN (x - x is NaN for
 * both). */
PARM_FN double parm_trig_f64(double x, int quarter_turns) {
    if (parm_dsub(x, x) != 0.0) return parm_f64_from_bits(PARM_NAN_F64);
    return parm_canon_f64(parm_sin_quadrant(x, quarter_turns, 0));
}

PARM_FN float parm_trig_f32(float x, int quarter_turns) {
    if (parm_sub_f32(x, x) != 0.0f) return parm_f32_from_bits(PARM_NAN_F32);
    return (float)parm_sin_quadrant((double)x, quarter_turns, 1); /* finite: never a NaN */
}

PARM_FN double parm_sin_f64(double x) { return parm_trig_f64(x, 0); }
PARM_FN double parm_cos_f64(double x) { return parm_trig_f64(x, 1); }
PARM_FN float parm_sin_f32(float x) { return parm_trig_f32(x, 0); }
PARM_FN float parm_cos_f32(float x) { return parm_trig_f32(x, 1); }

/* ---- conversions: parm_cvt_<to>_<from> ---- */

#define PARM_CVT_SAME(t, T) \
    PARM_FN T parm_cvt_##t##_##t(T x) { return x; }
PARM_CVT_SAME(bool, uint8_t)
PARM_CVT_SAME(i8, int8_t)
PARM_CVT_SAME(i16, int16_t)
PARM_CVT_SAME(i32, int32_t)
PARM_CVT_SAME(i64, int64_t)
PARM_CVT_SAME(u8, uint8_t)
PARM_CVT_SAME(u16, uint16_t)
PARM_CVT_SAME(u32, uint32_t)
PARM_CVT_SAME(u64, uint64_t)
PARM_CVT_SAME(f32, float)
PARM_CVT_SAME(f64, double)
#undef PARM_CVT_SAME

/* to bool: x != 0, for floats too (NaN != 0) */
#define PARM_CVT_BOOL(from, F) \
    PARM_FN uint8_t parm_cvt_bool_##from(F x) { return (uint8_t)(x != 0); }
PARM_CVT_BOOL(i8, int8_t)
PARM_CVT_BOOL(i16, int16_t)
PARM_CVT_BOOL(i32, int32_t)
PARM_CVT_BOOL(i64, int64_t)
PARM_CVT_BOOL(u8, uint8_t)
PARM_CVT_BOOL(u16, uint16_t)
PARM_CVT_BOOL(u32, uint32_t)
PARM_CVT_BOOL(u64, uint64_t)
PARM_CVT_BOOL(f32, float)
PARM_CVT_BOOL(f64, double)
#undef PARM_CVT_BOOL

/* integer or bool to unsigned: C's conversion wraps */
#define PARM_CVT_UINT(to, T, from, F) \
    PARM_FN T parm_cvt_##to##_##from(F x) { return (T)x; }
#define PARM_CVT_UINT_FROM_INTS(to, T) \
    PARM_CVT_UINT(to, T, bool, uint8_t) \
    PARM_CVT_UINT(to, T, i8, int8_t) \
    PARM_CVT_UINT(to, T, i16, int16_t) \
    PARM_CVT_UINT(to, T, i32, int32_t) \
    PARM_CVT_UINT(to, T, i64, int64_t)
PARM_CVT_UINT_FROM_INTS(u8, uint8_t)
PARM_CVT_UINT_FROM_INTS(u16, uint16_t)
PARM_CVT_UINT_FROM_INTS(u32, uint32_t)
PARM_CVT_UINT_FROM_INTS(u64, uint64_t)
PARM_CVT_UINT(u8, uint8_t, u16, uint16_t)
PARM_CVT_UINT(u8, uint8_t, u32, uint32_t)
PARM_CVT_UINT(u8, uint8_t, u64, uint64_t)
PARM_CVT_UINT(u16, uint16_t, u8, uint8_t)
PARM_CVT_UINT(u16, uint16_t, u32, uint32_t)
PARM_CVT_UINT(u16, uint16_t, u64, uint64_t)
PARM_CVT_UINT(u32, uint32_t, u8, uint8_t)
PARM_CVT_UINT(u32, uint32_t, u16, uint16_t)
PARM_CVT_UINT(u32, uint32_t, u64, uint64_t)
PARM_CVT_UINT(u64, uint64_t, u8, uint8_t)
PARM_CVT_UINT(u64, uint64_t, u16, uint16_t)
PARM_CVT_UINT(u64, uint64_t, u32, uint32_t)
#undef PARM_CVT_UINT_FROM_INTS
#undef PARM_CVT_UINT

/* integer or bool to signed: wrap to the unsigned type of the width, then
 * reinterpret (parm_cvt_i<N>_u<N>, defined above) */
#define PARM_CVT_SINT(to, T, tou, TU, from, F) \
    PARM_FN T parm_cvt_##to##_##from(F x) { return parm_cvt_##to##_##tou((TU)x); }
PARM_CVT_SINT(i8, int8_t, u8, uint8_t, bool, uint8_t)
PARM_CVT_SINT(i8, int8_t, u8, uint8_t, u16, uint16_t)
PARM_CVT_SINT(i8, int8_t, u8, uint8_t, u32, uint32_t)
PARM_CVT_SINT(i8, int8_t, u8, uint8_t, u64, uint64_t)
PARM_CVT_SINT(i8, int8_t, u8, uint8_t, i16, int16_t)
PARM_CVT_SINT(i8, int8_t, u8, uint8_t, i32, int32_t)
PARM_CVT_SINT(i8, int8_t, u8, uint8_t, i64, int64_t)
PARM_CVT_SINT(i16, int16_t, u16, uint16_t, bool, uint8_t)
PARM_CVT_SINT(i16, int16_t, u16, uint16_t, u8, uint8_t)
PARM_CVT_SINT(i16, int16_t, u16, uint16_t, u32, uint32_t)
PARM_CVT_SINT(i16, int16_t, u16, uint16_t, u64, uint64_t)
PARM_CVT_SINT(i16, int16_t, u16, uint16_t, i8, int8_t)
PARM_CVT_SINT(i16, int16_t, u16, uint16_t, i32, int32_t)
PARM_CVT_SINT(i16, int16_t, u16, uint16_t, i64, int64_t)
PARM_CVT_SINT(i32, int32_t, u32, uint32_t, bool, uint8_t)
PARM_CVT_SINT(i32, int32_t, u32, uint32_t, u8, uint8_t)
PARM_CVT_SINT(i32, int32_t, u32, uint32_t, u16, uint16_t)
PARM_CVT_SINT(i32, int32_t, u32, uint32_t, u64, uint64_t)
PARM_CVT_SINT(i32, int32_t, u32, uint32_t, i8, int8_t)
PARM_CVT_SINT(i32, int32_t, u32, uint32_t, i16, int16_t)
PARM_CVT_SINT(i32, int32_t, u32, uint32_t, i64, int64_t)
PARM_CVT_SINT(i64, int64_t, u64, uint64_t, bool, uint8_t)
PARM_CVT_SINT(i64, int64_t, u64, uint64_t, u8, uint8_t)
PARM_CVT_SINT(i64, int64_t, u64, uint64_t, u16, uint16_t)
PARM_CVT_SINT(i64, int64_t, u64, uint64_t, u32, uint32_t)
PARM_CVT_SINT(i64, int64_t, u64, uint64_t, i8, int8_t)
PARM_CVT_SINT(i64, int64_t, u64, uint64_t, i16, int16_t)
PARM_CVT_SINT(i64, int64_t, u64, uint64_t, i32, int32_t)
#undef PARM_CVT_SINT

/* float to integer: NaN -> 0, saturate at the bounds, else truncate. The
 * bounds are powers of two, exact in float and double, so comparing in the
 * source type is comparing in double as scalar_ops.c does. */
#define PARM_CVT_FSINT(to, T, from, F, HALF, TMIN, TMAX) \
    PARM_FN T parm_cvt_##to##_##from(F x) { \
        if (isnan(x)) return 0; \
        if (x <= -(F)HALF) return TMIN; \
        if (x >= (F)HALF) return TMAX; \
        return (T)x; \
    }
#define PARM_CVT_FUINT(to, T, from, F, FULL, TMAX) \
    PARM_FN T parm_cvt_##to##_##from(F x) { \
        if (isnan(x) || x <= 0) return 0; \
        if (x >= (F)FULL) return TMAX; \
        return (T)x; \
    }
PARM_CVT_FSINT(i8, int8_t, f32, float, 128.0, INT8_MIN, INT8_MAX)
PARM_CVT_FSINT(i16, int16_t, f32, float, 32768.0, INT16_MIN, INT16_MAX)
PARM_CVT_FSINT(i32, int32_t, f32, float, 2147483648.0, INT32_MIN, INT32_MAX)
PARM_CVT_FSINT(i64, int64_t, f32, float, 9223372036854775808.0, INT64_MIN, INT64_MAX)
PARM_CVT_FSINT(i8, int8_t, f64, double, 128.0, INT8_MIN, INT8_MAX)
PARM_CVT_FSINT(i16, int16_t, f64, double, 32768.0, INT16_MIN, INT16_MAX)
PARM_CVT_FSINT(i32, int32_t, f64, double, 2147483648.0, INT32_MIN, INT32_MAX)
PARM_CVT_FSINT(i64, int64_t, f64, double, 9223372036854775808.0, INT64_MIN, INT64_MAX)
PARM_CVT_FUINT(u8, uint8_t, f32, float, 256.0, UINT8_MAX)
PARM_CVT_FUINT(u16, uint16_t, f32, float, 65536.0, UINT16_MAX)
PARM_CVT_FUINT(u32, uint32_t, f32, float, 4294967296.0, UINT32_MAX)
PARM_CVT_FUINT(u64, uint64_t, f32, float, 18446744073709551616.0, UINT64_MAX)
PARM_CVT_FUINT(u8, uint8_t, f64, double, 256.0, UINT8_MAX)
PARM_CVT_FUINT(u16, uint16_t, f64, double, 65536.0, UINT16_MAX)
PARM_CVT_FUINT(u32, uint32_t, f64, double, 4294967296.0, UINT32_MAX)
PARM_CVT_FUINT(u64, uint64_t, f64, double, 18446744073709551616.0, UINT64_MAX)
#undef PARM_CVT_FSINT
#undef PARM_CVT_FUINT

/* integer or bool to float: one rounding, to nearest even */
#define PARM_CVT_FLOAT(to, T, from, F) \
    PARM_FN T parm_cvt_##to##_##from(F x) { return (T)x; }
#define PARM_CVT_FLOAT_FROM_INTS(to, T) \
    PARM_CVT_FLOAT(to, T, bool, uint8_t) \
    PARM_CVT_FLOAT(to, T, i8, int8_t) \
    PARM_CVT_FLOAT(to, T, i16, int16_t) \
    PARM_CVT_FLOAT(to, T, i32, int32_t) \
    PARM_CVT_FLOAT(to, T, i64, int64_t) \
    PARM_CVT_FLOAT(to, T, u8, uint8_t) \
    PARM_CVT_FLOAT(to, T, u16, uint16_t) \
    PARM_CVT_FLOAT(to, T, u32, uint32_t) \
    PARM_CVT_FLOAT(to, T, u64, uint64_t)
PARM_CVT_FLOAT_FROM_INTS(f32, float)
PARM_CVT_FLOAT_FROM_INTS(f64, double)

/* between floats: a NaN becomes the canonical NaN of the result type (x86
 * keeps the sign and payload bits that fit, a GPU makes its own) */
PARM_FN float parm_cvt_f32_f64(double x) {
    if (x != x) return parm_f32_from_bits(PARM_NAN_F32);
    PARM_OPAQUE(x);
    return (float)x;
}

PARM_FN double parm_cvt_f64_f32(float x) {
    if (x != x) return parm_f64_from_bits(PARM_NAN_F64);
    PARM_OPAQUE(x);
    return (double)x;
}

#undef PARM_CVT_FLOAT_FROM_INTS
#undef PARM_CVT_FLOAT

/* ---- abs, floor, ceil, fma, exp, log, tanh, atan2, pow ----
 *
 * abs, floor and ceil are exact. abs clears a float's sign bit (of a NaN
 * too, as neg flips it) and wraps on the signed minimum (abs of -128 as i8
 * is -128, as unary minus gives); on unsigned integers it is the identity.
 * fma is IEEE's correctly rounded fused multiply-add: the C library's fma
 * and fmaf on the host (so a program that uses it links with -lm) and
 * __fma_rn and __fmaf_rn on a GPU, which are all correctly rounded, so the
 * targets agree bit for bit.
 *
 * exp, log, tanh, atan2 and pow are parm's own, computed in f64 with the
 * operators above (never contracted) and, where one double does not hold
 * enough precision, with pairs of doubles (hi + lo) whose sums and products
 * are exact (Knuth's two-sum, Dekker's two-product with Veltkamp's split),
 * so every back end and the interpreter compute the same bits. Each rounds
 * once at the end: within 0.75 ulp of the exact result, as
 * tests/unit/test_math.c measures against the C library's long double
 * functions (docs/language.md, 6.3). The f32 versions compute in plain
 * doubles and round once to f32 (below). */

PARM_FN float parm_abs_f32(float a) { return parm_f32_from_bits(parm_f32_bits(a) & 0x7fffffffu); }
PARM_FN double parm_abs_f64(double a) {
    return parm_f64_from_bits(parm_f64_bits(a) & ~(1ull << 63));
}
#define PARM_ABS_SIGNED(s, S) \
    PARM_FN S parm_abs_##s(S a) { return a < 0 ? parm_neg_##s(a) : a; }
#define PARM_ABS_UNSIGNED(u, U) \
    PARM_FN U parm_abs_##u(U a) { return a; }
PARM_ABS_SIGNED(i8, int8_t)
PARM_ABS_SIGNED(i16, int16_t)
PARM_ABS_SIGNED(i32, int32_t)
PARM_ABS_SIGNED(i64, int64_t)
PARM_ABS_UNSIGNED(u8, uint8_t)
PARM_ABS_UNSIGNED(u16, uint16_t)
PARM_ABS_UNSIGNED(u32, uint32_t)
PARM_ABS_UNSIGNED(u64, uint64_t)
#undef PARM_ABS_SIGNED
#undef PARM_ABS_UNSIGNED

PARM_FN float parm_floor_f32(float x) { return parm_cvt_f32_f64(parm_floor_f64((double)x)); }
PARM_FN float parm_ceil_f32(float x) { return parm_cvt_f32_f64(parm_ceil_f64((double)x)); }

PARM_FN float parm_fma_f32(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
    return parm_canon_f32(__fmaf_rn(a, b, c)); /* in case the GPU's fma kept a payload */
#else
    PARM_OPAQUE(a);
    PARM_OPAQUE(b);
    PARM_OPAQUE(c);
    return parm_canon_f32(fmaf(a, b, c));
#endif
}

PARM_FN double parm_fma_f64(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
    return parm_canon_f64(__fma_rn(a, b, c));
#else
    PARM_OPAQUE(a);
    PARM_OPAQUE(b);
    PARM_OPAQUE(c);
    return parm_canon_f64(fma(a, b, c));
#endif
}

/* A double-double: the unevaluated sum hi + lo with |lo| <= ulp(hi) / 2. */
typedef struct {
    double hi, lo;
} parm_dd;

PARM_FN parm_dd parm_dd_of(double hi, double lo) {
    parm_dd r;
    r.hi = hi;
    r.lo = lo;
    return r;
}

/* a + b exactly (Knuth's two-sum). */
PARM_FN parm_dd parm_two_sum(double a, double b) {
    double s = parm_dadd(a, b), bb = parm_dsub(s, a);
    return parm_dd_of(s, parm_dadd(parm_dsub(a, parm_dsub(s, bb)), parm_dsub(b, bb)));
}

/* a * b exactly (Dekker), for |a|, |b| < 2^995 and a product that does not
 * underflow: each factor split into halves of 26 bits (Veltkamp), whose
 * four products are exact. */
PARM_FN parm_dd parm_split(double a) {
    double c = parm_dmul(0x1.0000002p27, a);
    double hi = parm_dsub(c, parm_dsub(c, a));
    return parm_dd_of(hi, parm_dsub(a, hi));
}

PARM_FN parm_dd parm_two_prod(double a, double b) {
    double p = parm_dmul(a, b);
    parm_dd x = parm_split(a), y = parm_split(b);
    double e = parm_dsub(parm_dmul(x.hi, y.hi), p);
    e = parm_dadd(e, parm_dmul(x.hi, y.lo));
    e = parm_dadd(e, parm_dmul(x.lo, y.hi));
    return parm_dd_of(p, parm_dadd(e, parm_dmul(x.lo, y.lo)));
}

/* hi + lo renormalised, for |hi| >= |lo| or hi = 0. */
PARM_FN parm_dd parm_dd_norm(double hi, double lo) {
    double s = parm_dadd(hi, lo);
    return parm_dd_of(s, parm_dsub(lo, parm_dsub(s, hi)));
}

/* Sums, products and quotients of double-doubles, to about 2^-100 of the
 * result: enough for the functions below, which round once to a double. */
PARM_FN parm_dd parm_dd_add(parm_dd a, parm_dd b) {
    parm_dd s = parm_two_sum(a.hi, b.hi);
    return parm_dd_norm(s.hi, parm_dadd(s.lo, parm_dadd(a.lo, b.lo)));
}

PARM_FN parm_dd parm_dd_neg(parm_dd a) {
    return parm_dd_of(parm_neg_f64(a.hi), parm_neg_f64(a.lo));
}

PARM_FN parm_dd parm_dd_mul(parm_dd a, parm_dd b) {
    parm_dd p = parm_two_prod(a.hi, b.hi);
    double cross = parm_dadd(parm_dmul(a.hi, b.lo), parm_dmul(a.lo, b.hi));
    return parm_dd_norm(p.hi, parm_dadd(p.lo, cross));
}

PARM_FN parm_dd parm_dd_div(parm_dd a, parm_dd b) {
    double q = parm_ddiv(a.hi, b.hi);
    parm_dd r = parm_dd_add(a, parm_dd_neg(parm_dd_mul(b, parm_dd_of(q, 0.0))));
    return parm_dd_norm(q, parm_ddiv(r.hi, b.hi));
}

PARM_FN double parm_dd_round(parm_dd a) { return parm_dadd(a.hi, a.lo); }

/* 2^k for -1022 <= k <= 1023, and x * 2^k for |k| <= 2044 in two exact
 * steps (the second rounds where the result is subnormal or overflows). */
PARM_FN double parm_pow2_f64(int k) { return parm_f64_from_bits((uint64_t)(k + 1023) << 52); }

PARM_FN double parm_scale_f64(double x, int k) {
    int h = k / 2;
    return parm_dmul(parm_dmul(x, parm_pow2_f64(h)), parm_pow2_f64(k - h));
}

/* ln 2 = PARM_LN2_HI + PARM_LN2_LO to 2^-86; PARM_LN2_HI has 32 significant
 * bits, so k * PARM_LN2_HI is exact for |k| < 2^21. */
#define PARM_LN2_HI 0x1.62e42fee00000p-1
#define PARM_LN2_LO 0x1.a39ef35793c76p-33

/* k ln 2 as a double-double, k an integer below 2^21 in magnitude. */
PARM_FN parm_dd parm_k_ln2(double k) {
    return parm_dd_add(parm_dd_of(parm_dmul(k, PARM_LN2_HI), 0.0), parm_two_prod(k, PARM_LN2_LO));
}

/* P(r) = (e^r - 1 - r - r^2/2) / r^3 for |r| <= 0.35: the Taylor
 * coefficients 1/n! from n = 3 to 16. */
PARM_FN double parm_exp_series(double r) {
    const double c[] = {0x1.5555555555555p-3,  0x1.5555555555555p-5,  0x1.1111111111111p-7,
                        0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-13, 0x1.a01a01a01a01ap-16,
                        0x1.71de3a556c734p-19, 0x1.27e4fb7789f5cp-22, 0x1.ae64567f544e4p-26,
                        0x1.1eed8eff8d898p-29, 0x1.6124613a86d09p-33, 0x1.93974a8c07c9dp-37,
                        0x1.ae7f3e733b81fp-41};
    double p = 0x1.ae7f3e733b81fp-45;
    for (int i = 12; i >= 0; i--) p = parm_dadd(c[i], parm_dmul(r, p));
    return p;
}

/* k = z / ln 2 rounded (a double holding an integer). */
PARM_FN double parm_ln2_multiple(double z) {
    return parm_floor_f64(parm_dadd(parm_dmul(z, 0x1.71547652b82fep+0), 0.5));
}

/* e^z = 2^k (1 + m) for a double-double z with |z.hi| <= 746: k = z / ln 2
 * rounded, r = z - k ln 2 (|r| <= 0.35, z.hi - k PARM_LN2_HI exact by
 * Sterbenz's lemma), and m = e^r - 1 = r + r^2/2 + r^3 P(r); the terms r
 * and r^2/2 in double-doubles. */
PARM_FN parm_dd parm_expm1_reduced(parm_dd z, int *k) {
    double kd = parm_ln2_multiple(z.hi);
    parm_dd r = parm_dd_add(parm_two_sum(parm_dsub(z.hi, parm_dmul(kd, PARM_LN2_HI)), z.lo),
                            parm_dd_neg(parm_two_prod(kd, PARM_LN2_LO)));
    double x = r.hi, p = parm_exp_series(x);
    parm_dd half_r2 = parm_two_prod(x, parm_dmul(0.5, x));
    double cubic = parm_dmul(parm_dmul(x, parm_dmul(x, x)), p);
    parm_dd m = parm_dd_add(r, half_r2);
    *k = (int)kd;
    return parm_dd_norm(m.hi, parm_dadd(m.lo, parm_dadd(cubic, parm_dmul(r.lo, x))));
}

/* e^z for a double-double z: 0 below -746, inf above 710. */
PARM_FN double parm_exp_dd(parm_dd z) {
    if (z.hi != z.hi) return parm_f64_from_bits(PARM_NAN_F64);
    if (z.hi > 710.0) return parm_f64_from_bits(0x7ff0000000000000ull);
    if (z.hi < -746.0) return 0.0;
    int k;
    parm_dd m = parm_expm1_reduced(z, &k);
    return parm_scale_f64(parm_dd_round(parm_dd_add(parm_dd_of(1.0, 0.0), m)), k);
}

/* e^w - 1 for 0 <= w <= 44 as a double-double: (2^k - 1) + 2^k m. */
PARM_FN parm_dd parm_expm1_dd(double w) {
    int k;
    parm_dd m = parm_expm1_reduced(parm_dd_of(w, 0.0), &k);
    if (k == 0) return m;
    double t = parm_pow2_f64(k);
    return parm_dd_add(parm_two_sum(t, -1.0), parm_dd_of(parm_dmul(m.hi, t), parm_dmul(m.lo, t)));
}

/* Q(z) = (atanh s / s - 1 - z/3) / z^2 for z = s^2 <= 0.03: the
 * coefficients 1/(2n + 1) from n = 2 to 13. */
PARM_FN double parm_atanh_series(double z) {
    const double c[] = {0x1.999999999999ap-3, 0x1.2492492492492p-3, 0x1.c71c71c71c71cp-4,
                        0x1.745d1745d1746p-4, 0x1.3b13b13b13b14p-4, 0x1.1111111111111p-4,
                        0x1.e1e1e1e1e1e1ep-5, 0x1.af286bca1af28p-5, 0x1.8618618618618p-5,
                        0x1.642c8590b2164p-5, 0x1.47ae147ae147bp-5};
    double q = 0x1.2f684bda12f68p-5;
    for (int i = 10; i >= 0; i--) q = parm_dadd(c[i], parm_dmul(z, q));
    return q;
}

/* x = 2^k m with sqrt(1/2) <= m < sqrt(2), for a positive finite x;
 * returns m. */
PARM_FN double parm_log_reduce(double x, int *k) {
    *k = 0;
    if (x < 0x1p-1022) {
        x = parm_dmul(x, 0x1p54);
        *k = -54;
    }
    uint64_t bits = parm_f64_bits(x);
    *k += (int)(bits >> 52) - 1023;
    double m = parm_f64_from_bits((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
    if (m > 0x1.6a09e667f3bcdp+0) {
        m = parm_dmul(m, 0.5);
        *k += 1;
    }
    return m;
}

/* ln x for a positive finite x, as a double-double: x = 2^k m with
 * sqrt(1/2) <= m < sqrt(2), f = m - 1 (exact), s = f / (2 + f), and
 * ln m = 2 atanh s = 2s + 2s^3/3 + 2s^5 Q(s^2) (|s| < 0.172, Q with the
 * coefficients 1/(2n + 1) to n = 12); 2s and 2s^3/3 in double-doubles. */
PARM_FN parm_dd parm_log_dd(double x) {
    int k;
    double f = parm_dsub(parm_log_reduce(x, &k), 1.0);
    parm_dd s = parm_dd_div(parm_dd_of(f, 0.0), parm_two_sum(2.0, f));
    parm_dd s2 = parm_dd_mul(s, s), s3 = parm_dd_mul(s2, s);
    double q = parm_atanh_series(s2.hi);
    parm_dd cube = parm_dd_mul(s3, parm_dd_of(0x1.5555555555555p-1, 0x1.5555555555555p-55));
    double rest = parm_dmul(parm_dmul(2.0, parm_dmul(s3.hi, s2.hi)), q);
    parm_dd ln_m = parm_dd_add(parm_dd_of(parm_dmul(2.0, s.hi), parm_dmul(2.0, s.lo)),
                               parm_dd_norm(cube.hi, parm_dadd(cube.lo, rest)));
    return parm_dd_add(parm_k_ln2((double)k), ln_m);
}

#define PARM_INF_F64 0x7ff0000000000000ull

/* e^x overflows to inf above 709.78 and underflows to 0 below -745.13. */
PARM_FN double parm_exp_f64(double x) { return parm_canon_f64(parm_exp_dd(parm_dd_of(x, 0.0))); }

/* ln of a negative number (-inf too) or of a NaN is the canonical NaN,
 * ln(+-0) = -inf, ln(inf) = inf. */
PARM_FN double parm_log_f64(double x) {
    if (!(x >= 0.0)) return parm_f64_from_bits(PARM_NAN_F64);
    if (x == 0.0) return parm_f64_from_bits(PARM_INF_F64 | (1ull << 63));
    if (x > 0x1.fffffffffffffp+1023) return x;
    return parm_canon_f64(parm_dd_round(parm_log_dd(x)));
}

/* tanh x = e/(e + 2) with e = e^(2|x|) - 1, the sign of x; x itself below
 * 2^-28 in magnitude (-0 included), +-1 from 22 on. */
PARM_FN double parm_tanh_f64(double x) {
    if (x != x) return parm_f64_from_bits(PARM_NAN_F64);
    double a = parm_abs_f64(x), t;
    if (a < 0x1p-28) return x;
    if (a >= 22.0) {
        t = 1.0;
    } else {
        parm_dd e = parm_expm1_dd(parm_dmul(2.0, a));
        t = parm_dd_round(parm_dd_div(e, parm_dd_add(e, parm_dd_of(2.0, 0.0))));
    }
    return parm_canon_f64(x < 0.0 ? parm_neg_f64(t) : t);
}

/* atan(j/8) for j = 0..8, as a double-double. */
PARM_FN parm_dd parm_atan_table(int j) {
    const double hi[] = {0.0,
                         0x1.fd5ba9aac2f6ep-4,
                         0x1.f5b75f92c80ddp-3,
                         0x1.6f61941e4def1p-2,
                         0x1.dac670561bb4fp-2,
                         0x1.1e00babdefeb4p-1,
                         0x1.4978fa3269ee1p-1,
                         0x1.700a7c5784634p-1,
                         0x1.921fb54442d18p-1};
    const double lo[] = {0.0,
                         -0x1.cd37686760c17p-59,
                         0x1.8ab6e3cf7afbdp-57,
                         -0x1.c63aae6f6e918p-56,
                         0x1.a2b7f222f65e2p-56,
                         -0x1.928df287a668fp-58,
                         0x1.2419a87f2a458p-56,
                         -0x1.8c34d25aadef6p-56,
                         0x1.1a62633145c07p-55};
    return parm_dd_of(hi[j], lo[j]);
}

/* u^3 R(u^2) = atan u - u for |u| <= 1/16: the Taylor coefficients
 * (-1)^n/(2n + 1) from n = 1 to 8. */
PARM_FN double parm_atan_series(double u) {
    const double coef[] = {-0x1.5555555555555p-2, 0x1.999999999999ap-3,  -0x1.2492492492492p-3,
                           0x1.c71c71c71c71cp-4,  -0x1.745d1745d1746p-4, 0x1.3b13b13b13b14p-4,
                           -0x1.1111111111111p-4};
    double u2 = parm_dmul(u, u), r = 0x1.e1e1e1e1e1e1ep-5;
    for (int i = 6; i >= 0; i--) r = parm_dadd(coef[i], parm_dmul(u2, r));
    return parm_dmul(parm_dmul(u, u2), r);
}

/* The j of the table entry nearest to t. */
PARM_FN int parm_atan_index(double t) {
    return (int)parm_floor_f64(parm_dadd(parm_dmul(t, 8.0), 0.5));
}

/* atan t for a double-double 0 <= t <= 1: atan(j/8) from the table for the
 * nearest j, plus atan u = u + u^3 R(u^2) with u = (t - j/8) / (1 + t j/8),
 * |u| <= 1/16. */
PARM_FN parm_dd parm_atan_dd(parm_dd t) {
    int j = parm_atan_index(t.hi);
    double c = parm_dmul((double)j, 0.125);
    parm_dd num = parm_dd_add(t, parm_dd_of(parm_neg_f64(c), 0.0));
    parm_dd den = parm_dd_add(parm_dd_of(1.0, 0.0), parm_dd_mul(t, parm_dd_of(c, 0.0)));
    parm_dd u = parm_dd_div(num, den);
    return parm_dd_add(parm_atan_table(j),
                       parm_dd_norm(u.hi, parm_dadd(u.lo, parm_atan_series(u.hi))));
}

/* x = 2^e m with 1 <= m < 2, for a positive finite x; returns e. */
PARM_FN int parm_exponent_f64(double x) {
    int e = 0;
    if (x < 0x1p-1022) {
        x = parm_dmul(x, 0x1p64);
        e = -64;
    }
    return e + (int)(parm_f64_bits(x) >> 52) - 1023;
}

/* atan2 y x of finite nonzero y and x: t = min/max of |y| and |x| scaled
 * together to max in [1, 2) (exact), as a double-double quotient, or the
 * rounded quotient where it is below 2^-60 (atan t = t there); then
 * pi/2 - atan t where |y| > |x|, pi - that where x < 0, and y's sign. */
PARM_FN double parm_atan2_finite(double y, double x) {
    double a = parm_abs_f64(y), b = parm_abs_f64(x);
    int steep = a > b;
    double num = steep ? b : a, den = steep ? a : b;
    int e = parm_exponent_f64(den);
    double n = parm_scale_f64(num, -e), d = parm_scale_f64(den, -e);
    parm_dd ang = n < 0x1p-60 ? parm_dd_of(parm_ddiv(num, den), 0.0)
                              : parm_atan_dd(parm_dd_div(parm_dd_of(n, 0.0), parm_dd_of(d, 0.0)));
    if (steep)
        ang = parm_dd_add(parm_dd_of(0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54),
                          parm_dd_neg(ang));
    if (x < 0.0)
        ang = parm_dd_add(parm_dd_of(0x1.921fb54442d18p+1, 0x1.1a62633145c07p-53),
                          parm_dd_neg(ang));
    double r = parm_dd_round(ang);
    return y < 0.0 ? parm_neg_f64(r) : r;
}

/* C99 Annex F (F.9.1.4): a NaN gives the canonical NaN; y = +-0 gives +-0
 * for x = +0 or x > 0 and +-pi for x = -0 or x < 0; x = +-0 gives +-pi/2;
 * y = +-inf gives +-pi/4 for x = inf, +-3pi/4 for x = -inf, else +-pi/2;
 * x = inf gives +-0 and x = -inf +-pi for a finite y (+- is y's sign). */
PARM_FN double parm_atan2_f64(double y, double x) {
    if (y != y || x != x) return parm_f64_from_bits(PARM_NAN_F64);
    const double pi = 0x1.921fb54442d18p+1, half_pi = 0x1.921fb54442d18p+0;
    int x_negative = (parm_f64_bits(x) >> 63) != 0,
        y_infinite = parm_abs_f64(y) > 0x1.fffffffffffffp+1023;
    double r;
    if (y == 0.0) r = x_negative ? pi : 0.0;
    else if (x == 0.0) r = half_pi;
    else if (y_infinite && parm_abs_f64(x) > 0x1.fffffffffffffp+1023)
        r = x_negative ? 0x1.2d97c7f3321d2p+1 : 0x1.921fb54442d18p-1;
    else if (y_infinite) r = half_pi;
    else if (parm_abs_f64(x) > 0x1.fffffffffffffp+1023) r = x_negative ? pi : 0.0;
    else return parm_canon_f64(parm_atan2_finite(y, x));
    return (parm_f64_bits(y) >> 63) ? parm_neg_f64(r) : r;
}

/* Whether y (finite) is an integer, and an odd one (none from 2^53 on). */
PARM_FN int parm_is_integer_f64(double y) { return parm_floor_f64(y) == y; }
PARM_FN int parm_is_odd_f64(double y) {
    double h = parm_dmul(y, 0.5);
    return parm_is_integer_f64(y) && parm_floor_f64(h) != h;
}

/* x^y in *r for the special x and y of C99 Annex F (F.9.4.4), returning 1;
 * 0 where none applies: x^(+-0) = 1 and 1^y = 1, y a NaN even; otherwise a
 * NaN gives the canonical NaN; 0^y and inf^y are 0 or inf (with x's sign
 * for an odd integer y), x^(+-inf) is 0 or inf (1 for x = -1); a negative
 * finite x to a finite non-integer power is the canonical NaN. */
PARM_FN int parm_pow_special(double x, double y, double *r) {
    const double inf = parm_f64_from_bits(PARM_INF_F64);
    double ax = parm_abs_f64(x), ay = parm_abs_f64(y);
    int y_odd = parm_is_odd_f64(y), x_negative = (parm_f64_bits(x) >> 63) != 0;
    if (y == 0.0 || x == 1.0) *r = 1.0;
    else if (x != x || y != y) *r = parm_f64_from_bits(PARM_NAN_F64);
    else if (ay > 0x1.fffffffffffffp+1023)
        *r = ax == 1.0 ? 1.0 : (ax < 1.0) == (y < 0.0) ? inf : 0.0;
    else if (x == 0.0 || ax > 0x1.fffffffffffffp+1023) {
        *r = (x == 0.0) == (y < 0.0) ? inf : 0.0;
        if (y_odd && x_negative) *r = parm_neg_f64(*r);
    } else if (x < 0.0 && !parm_is_integer_f64(y)) *r = parm_f64_from_bits(PARM_NAN_F64);
    else return 0;
    return 1;
}

/* x^y = e^(y ln |x|), with ln |x| and the product as double-doubles (where
 * the product is beyond e's range or y beyond 2^900, whose split would
 * overflow, the rounded product), and the sign of x for an odd integer y. */
PARM_FN double parm_pow_f64(double x, double y) {
    double r;
    if (parm_pow_special(x, y, &r)) return r;
    parm_dd ln = parm_log_dd(parm_abs_f64(x));
    double z = parm_dmul(ln.hi, y);
    int rounded = parm_abs_f64(z) > 746.0 || parm_abs_f64(y) > 0x1p900;
    r = parm_exp_dd(rounded ? parm_dd_of(z, 0.0) : parm_dd_mul(ln, parm_dd_of(y, 0.0)));
    return parm_canon_f64(x < 0.0 && parm_is_odd_f64(y) ? parm_neg_f64(r) : r);
}

#undef PARM_INF_F64

/* The f32 versions: the same reductions and series in plain doubles, whose
 * error (a few 2^-53 of the result) is far below an f32's half ulp (2^-25),
 * rounded once to f32; about a third of the f64 versions' work. Their
 * special values are the f64 versions'. */

/* e^z = 2^k (1 + m) for |z| <= 160, in plain doubles. */
PARM_FN double parm_expm1_plain(double z, int *k) {
    double kd = parm_ln2_multiple(z);
    double r = parm_dsub(parm_dsub(z, parm_dmul(kd, PARM_LN2_HI)), parm_dmul(kd, PARM_LN2_LO));
    double r2 = parm_dmul(r, r);
    *k = (int)kd;
    return parm_dadd(r, parm_dmul(r2, parm_dadd(0.5, parm_dmul(r, parm_exp_series(r)))));
}

/* e^z rounded to f32: inf above 89, 0 below -104 (beyond f32's range). */
PARM_FN float parm_exp_to_f32(double z) {
    if (z > 89.0) return parm_f32_from_bits(0x7f800000u);
    if (z < -104.0) return 0.0f;
    int k;
    double m = parm_expm1_plain(z, &k);
    return parm_cvt_f32_f64(parm_scale_f64(parm_dadd(1.0, m), k));
}

/* ln x for a positive finite x: k ln 2 + 2s + 2s z (1/3 + z Q(z)), z = s^2. */
PARM_FN double parm_log_plain(double x) {
    int k;
    double f = parm_dsub(parm_log_reduce(x, &k), 1.0);
    double s = parm_ddiv(f, parm_dadd(2.0, f)), z = parm_dmul(s, s), kd = (double)k;
    double q = parm_dadd(0x1.5555555555555p-2, parm_dmul(z, parm_atanh_series(z)));
    double ln_m = parm_dadd(parm_dmul(2.0, s), parm_dmul(parm_dmul(2.0, parm_dmul(s, z)), q));
    return parm_dadd(parm_dmul(kd, PARM_LN2_HI), parm_dadd(parm_dmul(kd, PARM_LN2_LO), ln_m));
}

/* atan2 of finite nonzero y and x, in plain doubles (f32 arguments: their
 * quotient is a normal double). */
PARM_FN double parm_atan2_plain(double y, double x) {
    double a = parm_abs_f64(y), b = parm_abs_f64(x);
    int steep = a > b;
    double t = steep ? parm_ddiv(b, a) : parm_ddiv(a, b);
    int j = parm_atan_index(t);
    double c = parm_dmul((double)j, 0.125);
    double u = parm_ddiv(parm_dsub(t, c), parm_dadd(1.0, parm_dmul(t, c)));
    parm_dd base = parm_atan_table(j);
    double ang = parm_dadd(base.hi, parm_dadd(base.lo, parm_dadd(u, parm_atan_series(u))));
    if (steep) ang = parm_dsub(0x1.921fb54442d18p+0, ang);
    if (x < 0.0) ang = parm_dsub(0x1.921fb54442d18p+1, ang);
    return y < 0.0 ? parm_neg_f64(ang) : ang;
}

PARM_FN float parm_exp_f32(float x) {
    if (x != x) return parm_f32_from_bits(PARM_NAN_F32);
    return parm_exp_to_f32((double)x);
}

PARM_FN float parm_log_f32(float x) {
    if (!(x > 0.0f) || x > 0x1.fffffep+127f) return parm_cvt_f32_f64(parm_log_f64((double)x));
    return parm_cvt_f32_f64(parm_log_plain((double)x));
}

/* x itself below 2^-12 in magnitude (x^3/3 is below half an ulp), +-1 from
 * 10 on, else e/(e + 2) with e = e^(2|x|) - 1 = 2^k m + (2^k - 1). */
PARM_FN float parm_tanh_f32(float x) {
    if (x != x) return parm_f32_from_bits(PARM_NAN_F32);
    double a = parm_abs_f64((double)x), t = 1.0;
    if (a < 0x1p-12) return x;
    if (a < 10.0) {
        int k;
        double e = parm_expm1_plain(parm_dmul(2.0, a), &k);
        if (k) e = parm_dadd(parm_scale_f64(e, k), parm_dsub(parm_pow2_f64(k), 1.0));
        t = parm_ddiv(e, parm_dadd(e, 2.0));
    }
    return parm_cvt_f32_f64(x < 0.0f ? parm_neg_f64(t) : t);
}

PARM_FN float parm_atan2_f32(float y, float x) {
    double yd = (double)y, xd = (double)x;
    int finite = parm_abs_f64(yd) <= 0x1.fffffep+127 && parm_abs_f64(xd) <= 0x1.fffffep+127;
    if (!finite || y == 0.0f || x == 0.0f) return parm_cvt_f32_f64(parm_atan2_f64(yd, xd));
    return parm_cvt_f32_f64(parm_atan2_plain(yd, xd));
}

PARM_FN float parm_pow_f32(float x, float y) {
    double r, xd = (double)x, yd = (double)y;
    if (parm_pow_special(xd, yd, &r)) return parm_cvt_f32_f64(r);
    float p = parm_exp_to_f32(parm_dmul(yd, parm_log_plain(parm_abs_f64(xd))));
    return x < 0.0f && parm_is_odd_f64(yd) ? parm_neg_f32(p) : p;
}

#undef PARM_OPAQUE

#endif
