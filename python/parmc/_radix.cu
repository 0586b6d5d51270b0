// _radix.cu: the sort of one long row by CUB's radix sort (the CUDA toolkit's own), which
// parmc.sort and parmc.argsort take where a row is so long that no generated network is
// faster (python/parmc/_radix.py; the crossover measured in bench/rows/long_row.py).
//
// The keys are ranks in PyTorch's order (NaN above +inf, -0.0 with 0.0, as stdlib/sort.parm's
// ranks), complemented for a descending sort, with the index as the value: a radix sort is
// stable, so equal keys keep their order and the result is torch.sort(stable=True)'s. The
// values come back from their keys, read in order, wherever the rank tells the bits (every
// integer, every float but a zero and a NaN, whose signs and payloads the rank does not
// keep): those few are gathered from the input by index, so the result is bit for bit.
#include <cub/device/device_radix_sort.cuh>
#include <cstdint>

namespace {

// The element types, as python/parmc/_radix.py numbers them.
enum Code { F32, F64, F16, BF16, I8, I16, I32, I64, U8, U16, U32, U64 };

template <class K> __device__ K float_rank(K bits, K inf, K sign) {
    K a = bits & (K)(sign - 1);
    if (a > inf) return (K)~(K)0;       // every NaN, above +inf
    if (a == 0) return sign;            // -0.0 with 0.0
    return (bits & sign) ? (K)~bits : (K)(bits | sign);
}

// The bits of rank k where it tells them (false for a zero and a NaN).
template <class K> __device__ bool float_back(K k, K sign, K &bits) {
    if (k == (K)~(K)0 || k == sign) return false;
    bits = (k & sign) ? (K)(k & (K)~sign) : (K)~k;
    return true;
}

template <class X, class K, class F>
__global__ void ranks(const X *x, K *keys, uint32_t *idx, size_t n, bool descending, F rank) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        K k = rank(x[i]);
        keys[i] = descending ? (K)~k : k;
        idx[i] = (uint32_t)i;
    }
}

template <class X, class K, class F>
__global__ void results(const X *x, const K *keys, const uint32_t *idx, X *values, int64_t *indices, size_t n,
                        bool descending, F rank) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t j = idx[i];
        indices[i] = j;
        if (!values) continue;
        X v;
        values[i] = rank.back(descending ? (K)~keys[i] : keys[i], v) ? v : x[j];
    }
}

size_t aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

// The workspace of a sort of n keys of K: two key buffers, two index buffers, CUB's own.
template <class K> size_t workspace(size_t n) {
    size_t temp = 0;
    cub::DoubleBuffer<K> keys(nullptr, nullptr);
    cub::DoubleBuffer<uint32_t> idx(nullptr, nullptr);
    cub::DeviceRadixSort::SortPairs(nullptr, temp, keys, idx, (int64_t)n);
    return 2 * aligned(n * sizeof(K)) + 2 * aligned(n * sizeof(uint32_t)) + aligned(temp);
}

template <class X, class K, class F>
cudaError_t sort(const X *x, X *values, int64_t *indices, size_t n, bool descending, F rank, void *ws,
                 size_t ws_bytes, cudaStream_t s) {
    if (ws_bytes < workspace<K>(n)) return cudaErrorInvalidValue;
    char *p = (char *)ws;
    K *k0 = (K *)p, *k1 = (K *)(p += aligned(n * sizeof(K)));
    uint32_t *i0 = (uint32_t *)(p += aligned(n * sizeof(K))), *i1 = (uint32_t *)(p += aligned(n * sizeof(uint32_t)));
    void *temp = p += aligned(n * sizeof(uint32_t));
    size_t temp_bytes = ws_bytes - (size_t)(p - (char *)ws);
    const int threads = 256, blocks = (int)((n + threads - 1) / threads < 4096 ? (n + threads - 1) / threads : 4096);
    ranks<<<blocks, threads, 0, s>>>(x, k0, i0, n, descending, rank);
    cub::DoubleBuffer<K> keys(k0, k1);
    cub::DoubleBuffer<uint32_t> idx(i0, i1);
    cudaError_t e = cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, idx, (int64_t)n, 0, (int)sizeof(K) * 8, s);
    if (e != cudaSuccess) return e;
    results<<<blocks, threads, 0, s>>>(x, keys.Current(), idx.Current(), values, indices, n, descending, rank);
    return cudaGetLastError();
}

// Each element type's rank (PyTorch's order as an unsigned key) and its way back.
struct F32Rank {
    __device__ uint32_t operator()(uint32_t b) const { return float_rank<uint32_t>(b, 0x7f800000u, 0x80000000u); }
    __device__ bool back(uint32_t k, uint32_t &b) const { return float_back<uint32_t>(k, 0x80000000u, b); }
};
struct F64Rank {
    __device__ uint64_t operator()(uint64_t b) const {
        return float_rank<uint64_t>(b, 0x7ff0000000000000ull, 0x8000000000000000ull);
    }
    __device__ bool back(uint64_t k, uint64_t &b) const { return float_back<uint64_t>(k, 0x8000000000000000ull, b); }
};
template <uint16_t Inf> struct HalfRank {
    __device__ uint16_t operator()(uint16_t h) const { return float_rank<uint16_t>(h, Inf, 0x8000); }
    __device__ bool back(uint16_t k, uint16_t &h) const { return float_back<uint16_t>(k, 0x8000, h); }
};
template <class S, class U> struct SignedRank {
    static constexpr U sign = (U)((U)1 << (sizeof(U) * 8 - 1));
    __device__ U operator()(S v) const { return (U)((U)v ^ sign); }
    __device__ bool back(U k, S &v) const { v = (S)(U)(k ^ sign); return true; }
};
template <class U> struct UnsignedRank {
    __device__ U operator()(U v) const { return v; }
    __device__ bool back(U k, U &v) const { v = k; return true; }
};

}  // namespace

extern "C" size_t parmc_radix_workspace(int code, size_t n) {
    switch (code) {
    case F32: case I32: case U32: return workspace<uint32_t>(n);
    case F64: case I64: case U64: return workspace<uint64_t>(n);
    case F16: case BF16: case I16: case U16: return workspace<uint16_t>(n);
    case I8: case U8: return workspace<uint8_t>(n);
    }
    return 0;
}

// Sorts the n elements x (of type code) into values (NULL: the indices alone) and indices,
// descending when asked, on stream s, in the workspace ws of ws_bytes (parmc_radix_workspace);
// n below 2^32. Returns a cudaError_t (cudaErrorInvalidValue for a short workspace, a code
// not known or n too large).
extern "C" int parmc_radix_sort(int code, int descending, const void *x, void *values, int64_t *indices, size_t n,
                                void *ws, size_t ws_bytes, void *stream) {
    if (n >= ((size_t)1 << 32)) return cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    bool d = descending != 0;
#define PARMC_SORT(X, K, RANK) sort<X, K>((const X *)x, (X *)values, indices, n, d, RANK, ws, ws_bytes, s)
    switch (code) {
    case F32: return PARMC_SORT(uint32_t, uint32_t, F32Rank());
    case F64: return PARMC_SORT(uint64_t, uint64_t, F64Rank());
    case F16: return PARMC_SORT(uint16_t, uint16_t, HalfRank<0x7c00>());
    case BF16: return PARMC_SORT(uint16_t, uint16_t, HalfRank<0x7f80>());
    case I8: return PARMC_SORT(int8_t, uint8_t, (SignedRank<int8_t, uint8_t>()));
    case I16: return PARMC_SORT(int16_t, uint16_t, (SignedRank<int16_t, uint16_t>()));
    case I32: return PARMC_SORT(int32_t, uint32_t, (SignedRank<int32_t, uint32_t>()));
    case I64: return PARMC_SORT(int64_t, uint64_t, (SignedRank<int64_t, uint64_t>()));
    case U8: return PARMC_SORT(uint8_t, uint8_t, UnsignedRank<uint8_t>());
    case U16: return PARMC_SORT(uint16_t, uint16_t, UnsignedRank<uint16_t>());
    case U32: return PARMC_SORT(uint32_t, uint32_t, UnsignedRank<uint32_t>());
    case U64: return PARMC_SORT(uint64_t, uint64_t, UnsignedRank<uint64_t>());
    }
#undef PARMC_SORT
    return cudaErrorInvalidValue;
}
