// _ranks.cuh: each element type's rank, PyTorch's order as an unsigned key (NaN above +inf,
// -0.0 with 0.0, as stdlib/sort.parm's ranks), and the ways back from a rank, for the
// package's hand-written CUDA (_radix.cu, _select.cu). Host and device functions, so that the
// tests build _select.cu's kernels on the CPU too (tests/python/select_host.cpp).
#pragma once
#include <cstdint>

#ifndef __CUDACC__
#define __host__
#define __device__
#endif

namespace parmc_ranks {

// The element types, as python/parmc/_radix.py numbers them (its CODES).
enum Code { F32, F64, F16, BF16, I8, I16, I32, I64, U8, U16, U32, U64 };

template <class K> __host__ __device__ K float_rank(K bits, K inf, K sign) {
    K a = bits & (K)(sign - 1);
    if (a > inf) return (K)~(K)0;       // every NaN, above +inf
    if (a == 0) return sign;            // -0.0 with 0.0
    return (bits & sign) ? (K)~bits : (K)(bits | sign);
}

// The bits of rank k where it tells them (false for a zero and a NaN).
template <class K> __host__ __device__ bool float_back(K k, K sign, K &bits) {
    if (k == (K)~(K)0 || k == sign) return false;
    bits = (k & sign) ? (K)(k & (K)~sign) : (K)~k;
    return true;
}

// A float type of bits K: its rank, its bits back where the rank tells them, an element of
// any rank (+0.0 for a zero's, the quiet NaN for a NaN's), its lowest element (-inf) and its
// highest (a NaN).
template <class K, K Inf, K Nan> struct FloatRank {
    typedef K Bits;
    static constexpr K sign = (K)((K)1 << (sizeof(K) * 8 - 1));
    __host__ __device__ K operator()(K b) const { return float_rank<K>(b, Inf, sign); }
    __host__ __device__ bool back(K k, K &b) const { return float_back<K>(k, sign, b); }
    __host__ __device__ K value(K k) const {
        K b;
        return back(k, b) ? b : k == sign ? (K)0 : Nan;
    }
    __host__ __device__ K lowest() const { return (K)(Inf | sign); }
    __host__ __device__ K highest() const { return Nan; }
};
typedef FloatRank<uint32_t, 0x7f800000u, 0x7fc00000u> F32Rank;
typedef FloatRank<uint64_t, 0x7ff0000000000000ull, 0x7ff8000000000000ull> F64Rank;
typedef FloatRank<uint16_t, 0x7c00, 0x7e00> F16Rank;
typedef FloatRank<uint16_t, 0x7f80, 0x7fc0> BF16Rank;

template <class S, class U> struct SignedRank {
    typedef S Bits;
    static constexpr U sign = (U)((U)1 << (sizeof(U) * 8 - 1));
    __host__ __device__ U operator()(S v) const { return (U)((U)v ^ sign); }
    __host__ __device__ bool back(U k, S &v) const {
        v = (S)(U)(k ^ sign);
        return true;
    }
    __host__ __device__ S value(U k) const { return (S)(U)(k ^ sign); }
    __host__ __device__ S lowest() const { return (S)sign; }
    __host__ __device__ S highest() const { return (S)(U)(sign - 1); }
};

template <class U> struct UnsignedRank {
    typedef U Bits;
    __host__ __device__ U operator()(U v) const { return v; }
    __host__ __device__ bool back(U k, U &v) const {
        v = k;
        return true;
    }
    __host__ __device__ U value(U k) const { return k; }
    __host__ __device__ U lowest() const { return 0; }
    __host__ __device__ U highest() const { return (U)~(U)0; }
};

}  // namespace parmc_ranks

// Calls F::template run<Bits, Key>(rank) with the rank of the element type code; returns
// cudaErrorInvalidValue's value (1) for a code not known.
#define PARMC_RANKS_DISPATCH(code, CALL)                                                  \
    switch (code) {                                                                       \
    case parmc_ranks::F32: return CALL(uint32_t, uint32_t, parmc_ranks::F32Rank());       \
    case parmc_ranks::F64: return CALL(uint64_t, uint64_t, parmc_ranks::F64Rank());       \
    case parmc_ranks::F16: return CALL(uint16_t, uint16_t, parmc_ranks::F16Rank());       \
    case parmc_ranks::BF16: return CALL(uint16_t, uint16_t, parmc_ranks::BF16Rank());     \
    case parmc_ranks::I8: return CALL(int8_t, uint8_t, (parmc_ranks::SignedRank<int8_t, uint8_t>())); \
    case parmc_ranks::I16:                                                                \
        return CALL(int16_t, uint16_t, (parmc_ranks::SignedRank<int16_t, uint16_t>()));   \
    case parmc_ranks::I32:                                                                \
        return CALL(int32_t, uint32_t, (parmc_ranks::SignedRank<int32_t, uint32_t>()));   \
    case parmc_ranks::I64:                                                                \
        return CALL(int64_t, uint64_t, (parmc_ranks::SignedRank<int64_t, uint64_t>()));   \
    case parmc_ranks::U8: return CALL(uint8_t, uint8_t, parmc_ranks::UnsignedRank<uint8_t>()); \
    case parmc_ranks::U16: return CALL(uint16_t, uint16_t, parmc_ranks::UnsignedRank<uint16_t>()); \
    case parmc_ranks::U32: return CALL(uint32_t, uint32_t, parmc_ranks::UnsignedRank<uint32_t>()); \
    case parmc_ranks::U64: return CALL(uint64_t, uint64_t, parmc_ranks::UnsignedRank<uint64_t>()); \
    }                                                                                     \
    return 1
