// _radix.cu: the sort of one long row by CUB's radix sort (the CUDA toolkit's own), which
// parmc.sort and parmc.argsort take where a row is so long that no generated network is
// faster (python/parmc/_radix.py; the crossover measured in bench/rows/long_row.py).
//
// The keys are ranks in PyTorch's order (_ranks.cuh), complemented for a descending sort,
// with the index as the value: a radix sort is stable, so equal keys keep their order and the
// result is torch.sort(stable=True)'s. The values come back from their keys, read in order,
// wherever the rank tells the bits (every integer, every float but a zero and a NaN, whose
// signs and payloads the rank does not keep): those few are gathered from the input by
// index, so the result is bit for bit.
#include <cub/device/device_radix_sort.cuh>
#include <cstdint>

#include "_ranks.cuh"

namespace {

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

}  // namespace

extern "C" size_t parmc_radix_workspace(int code, size_t n) {
    using namespace parmc_ranks;
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
    PARMC_RANKS_DISPATCH(code, PARMC_SORT);
#undef PARMC_SORT
}
