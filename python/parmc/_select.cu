// _select.cu: the three kernels around a top-k of long rows by delegates (python/parmc/_select.py).
//
// A row of n is cut into subranges of s; a subrange's delegate is its best element. Where an
// element is among the row's top k, its subrange's delegate (as good or better) is among the
// top k of the delegates: fewer than k elements of the row are better than the element, so
// fewer than k delegates are better than its delegate, which comes from another subrange than
// theirs. So the top k of the row are among the k subranges of the top k delegates: a top-k of
// the m = ceil(n/s) delegates picks them, a top-k of their k*s elements (the candidates) gives
// the result. The two top-ks are parmc's own networks; these kernels read the row once for the
// delegates, gather the candidates, and turn the candidates' positions into the row's.
//
// Order and ties are the networks': PyTorch's order of ranks (_ranks.cuh), ties to the smaller
// index. A delegate is an element of its subrange's best rank (for a zero or a NaN, one of the
// same rank), so two delegates tie where their subranges' bests do and the smaller subrange
// wins, as its element has the smaller index. The candidates are laid out in the order of their
// subranges, so a tie among them goes to the smaller index of the row too; the last subrange,
// cut at n, is filled with the type's worst element, which loses to every element of the row
// (below each, or tied and after it).
#include <cstddef>
#include <cstdint>

#include "_ranks.cuh"

#ifdef __CUDACC__
typedef cudaStream_t Stream;
#define PARMC_LAUNCH(kernel, blocks, threads, stream, ...)                                      \
    (kernel<<<(unsigned)(blocks), (threads), 0, (stream)>>>(__VA_ARGS__), (int)cudaGetLastError())
#else
// The tests' build on the host (tests/python/select_host.cpp): a block is one thread, the
// blocks run one after another, and a subrange's lanes are read by its first (delegates).
typedef void *Stream;
struct Dim {
    unsigned x;
};
static Dim blockIdx, threadIdx, blockDim = {1}, gridDim;
#define __global__
static void __syncthreads() {}
template <class F, class... A> static int host_launch(size_t blocks, Stream, F kernel, A... args) {
    gridDim.x = (unsigned)blocks;
    for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++) kernel(args...);
    return 0;
}
#define PARMC_LAUNCH(kernel, blocks, threads, stream, ...) host_launch((blocks), (stream), kernel, __VA_ARGS__)
#endif

namespace {

const unsigned THREADS = 256;
const size_t MAX_BLOCKS = 8192;   // the kernels loop over what a grid of these does not cover

size_t blocks_for(size_t items) {
    size_t b = (items + THREADS - 1) / THREADS;
    return b < 1 ? 1 : b < MAX_BLOCKS ? b : MAX_BLOCKS;
}

// V elements read by one load (16 bytes where the row allows it: delegates_of).
template <class X, unsigned V> struct alignas(sizeof(X) * V) Chunk {
    X x[V];
};

// The greatest key of the lanes' group (aligned groups of `lanes` lanes of a warp).
template <class K> __device__ K group_max(K key, unsigned lanes) {
#ifdef __CUDACC__
    for (unsigned o = lanes / 2; o; o /= 2) {
        K other;
        if (sizeof(K) <= 4) other = (K)__shfl_xor_sync(0xffffffffu, (unsigned)key, o);
        else other = (K)__shfl_xor_sync(0xffffffffu, (unsigned long long)key, o);
        key = other > key ? other : key;
    }
#else
    (void)lanes;
#endif
    return key;
}

// The greatest key of one lane's part of a subrange [start, end) of a row: its loads of V
// elements at lane, lane + lanes, ... The key is the rank, complemented for the smallest.
template <class X, class K, class R, unsigned V>
__device__ K lane_best(const X *row, size_t start, size_t end, uint32_t lane, uint32_t lanes, bool largest, R rank) {
    K best = 0;
    for (size_t e = start + lane * V; e < end; e += (size_t)lanes * V) {
        Chunk<X, V> c = *(const Chunk<X, V> *)(row + e);
        for (unsigned v = 0; v < V; v++) {
            K key = largest ? (K)rank(c.x[v]) : (K)~rank(c.x[v]);
            best = key > best ? key : best;
        }
    }
    return best;
}

// d[r*m + j]: the delegate of row r's subrange j, read by 2^log_lanes lanes of a warp (on the
// host, by the group's first lane for them all), V elements a load. Every lane of a warp runs
// the loop's rounds alike (the shuffles), those past the last subrange with nothing to read.
// rows*m is below 2^32 (delegates_of).
template <class X, class K, class R, unsigned V>
__global__ void delegates(const X *x, X *d, size_t rows, size_t n, unsigned log_s, uint32_t m, unsigned log_lanes,
                          bool largest, R rank) {
    uint32_t subs = (uint32_t)(rows * m), lanes = 1u << log_lanes;
    size_t threads = (((size_t)subs << log_lanes) + 31) / 32 * 32, s = (size_t)1 << log_s;
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < threads; t += (size_t)gridDim.x * blockDim.x) {
        uint32_t sub = (uint32_t)(t >> log_lanes), lane = (uint32_t)t & (lanes - 1);
        K best = 0;
        if (sub < subs) {
            uint32_t r = sub / m, j = sub - r * m;
            const X *row = x + r * n;
            size_t start = (size_t)j << log_s, end = start + s < n ? start + s : n;
#ifdef __CUDACC__
            best = lane_best<X, K, R, V>(row, start, end, lane, lanes, largest, rank);
#else
            for (uint32_t l = 0; l < lanes && lane == 0; l++) {
                K b = lane_best<X, K, R, V>(row, start, end, l, lanes, largest, rank);
                best = b > best ? b : best;
            }
#endif
        }
        best = group_max(best, lanes);
        if (sub < subs && lane == 0) d[sub] = rank.value(largest ? best : (K)~best);
    }
}

// For each row r (a block): sorted[r*k ..], the k subranges ids[r*k ..] in increasing order
// (each one's place: how many are smaller, as they differ), then c[r*k*s ..], their elements
// in that order, `pad` past n.
template <class X>
__global__ void candidates(const X *x, const int64_t *ids, X *c, int32_t *sorted, size_t rows, size_t n,
                           unsigned log_s, unsigned k, X pad) {
    size_t s = (size_t)1 << log_s;
    for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const int64_t *id = ids + r * k;
        int32_t *order = sorted + r * k;
        for (unsigned p = threadIdx.x; p < k; p += blockDim.x) {
            int64_t me = id[p];
            unsigned before = 0;
            for (unsigned q = 0; q < k; q++) before += id[q] < me;
            order[before] = (int32_t)me;
        }
        __syncthreads();
        const X *row = x + r * n;
        X *out = c + r * k * s;
        for (size_t e = threadIdx.x; e < k * s; e += blockDim.x) {
            size_t at = ((size_t)order[e >> log_s] << log_s) | (e & (s - 1));
            out[e] = at < n ? row[at] : pad;
        }
        __syncthreads();
    }
}

// pos[i], a candidate's position in its row's k*s, made its position in the row of n.
__global__ void row_indices(const int32_t *sorted, int64_t *pos, size_t count, unsigned k, unsigned log_s) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        int64_t p = pos[i];
        pos[i] = ((int64_t)sorted[i / k * k + (p >> log_s)] << log_s) | (p & (((int64_t)1 << log_s) - 1));
    }
}

// The lanes (their log) that read one subrange of 2^log_s elements, V a load: four loads
// each where there are that many, at most a warp's.
unsigned log_lanes_of(unsigned log_s, unsigned v) {
    unsigned log_loads = log_s;
    for (unsigned w = v; w > 1; w /= 2) log_loads--;
    return log_loads < 2 ? 0 : log_loads - 2 < 5 ? log_loads - 2 : 5;
}

template <class X, class K, class R>
int delegates_of(const X *x, X *d, size_t rows, size_t n, unsigned log_s, bool largest, R rank, Stream s) {
    const unsigned wide = 16 / sizeof(X);
    size_t m = (n + ((size_t)1 << log_s) - 1) >> log_s;
    if (rows * m >= ((size_t)1 << 32) || log_s > 20) return 1;     // cudaErrorInvalidValue
    // 16-byte loads where every row starts at a multiple of 16 bytes and a subrange is whole loads
    if (n % wide == 0 && (uintptr_t)x % 16 == 0 && ((size_t)1 << log_s) % wide == 0) {
        unsigned log_lanes = log_lanes_of(log_s, wide);
        auto kernel = delegates<X, K, R, 16 / sizeof(X)>;
        return PARMC_LAUNCH(kernel, blocks_for((rows * m) << log_lanes), THREADS, s, x, d, rows, n, log_s,
                            (uint32_t)m, log_lanes, largest, rank);
    }
    unsigned log_lanes = log_lanes_of(log_s, 1);
    auto kernel = delegates<X, K, R, 1>;
    return PARMC_LAUNCH(kernel, blocks_for((rows * m) << log_lanes), THREADS, s, x, d, rows, n, log_s, (uint32_t)m,
                        log_lanes, largest, rank);
}

template <class X, class R>
int candidates_of(const X *x, const int64_t *ids, X *c, int32_t *sorted, size_t rows, size_t n, unsigned log_s,
                  unsigned k, bool largest, R rank, Stream s) {
    auto kernel = candidates<X>;
    size_t blocks = rows < MAX_BLOCKS ? rows : MAX_BLOCKS;
    return PARMC_LAUNCH(kernel, blocks, THREADS, s, x, ids, c, sorted, rows, n, log_s, k,
                        largest ? rank.lowest() : rank.highest());
}

}  // namespace

// The delegates d (rows x ceil(n / 2^log_s) elements) of the rows x (rows x n elements of type
// code, PyTorch's order; the smallest's where largest is 0), on stream. Returns a cudaError_t.
extern "C" int parmc_select_delegates(int code, int largest, const void *x, void *d, size_t rows, size_t n,
                                      unsigned log_s, void *stream) {
#define PARMC_DELEGATES(X, K, RANK) \
    delegates_of<X, K>((const X *)x, (X *)d, rows, n, log_s, largest != 0, RANK, (Stream)stream)
    PARMC_RANKS_DISPATCH(code, PARMC_DELEGATES);
#undef PARMC_DELEGATES
}

// The candidates c (rows x k*2^log_s elements) of the subranges ids (rows x k, the top-k of the
// delegates), each row's subranges in increasing order into sorted (rows x k). Returns a
// cudaError_t.
extern "C" int parmc_select_candidates(int code, int largest, const void *x, const int64_t *ids, void *c,
                                       int32_t *sorted, size_t rows, size_t n, unsigned log_s, unsigned k,
                                       void *stream) {
#define PARMC_CANDIDATES(X, K, RANK) \
    candidates_of<X>((const X *)x, ids, (X *)c, sorted, rows, n, log_s, k, largest != 0, RANK, (Stream)stream)
    PARMC_RANKS_DISPATCH(code, PARMC_CANDIDATES);
#undef PARMC_CANDIDATES
}

// pos (rows x k, the top-k's positions among the candidates) made positions in the rows.
extern "C" int parmc_select_indices(const int32_t *sorted, int64_t *pos, size_t rows, unsigned k, unsigned log_s,
                                    void *stream) {
    auto kernel = row_indices;
    return PARMC_LAUNCH(kernel, blocks_for(rows * k), THREADS, (Stream)stream, sorted, pos, rows * k, k, log_s);
}
