// cub_segtopk.cu: CUB's DeviceBatchedTopK (CCCL 3.5 or newer) over segments of their own
// lengths, for bench/segmented/topk.py (ctypes): segment s is keys[offsets[s] .. offsets[s+1]),
// its best min(k, length) written to row s of k (values and int32 indices from the segment's
// start), the rest of the row left as it was. Segment lengths and k are per-segment arguments
// (cuda::args::deferred_sequence), each bounded at compile time by SEG_MAX and K_MAX.
//
//     nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -I build/cccl/include \
//          bench/segmented/cub_segtopk.cu -o build/libcubsegtopk.so
//
// cub_segmented_topk_ms(keys, values, indices, segments, offsets, k, deterministic, reps): one
// call, then the median of reps timed ones (CUDA events, a 2 ms sleep kernel queued before each
// start so that the host's work overlaps it); -1 when CUB refuses the call.
#define CUB_DISABLE_TOPK_UNSUPPORTED_ARCH_ASSERT
#include <cub/device/device_batched_topk.cuh>
#include <cuda/iterator>

#include <algorithm>
#include <vector>

#ifndef SEG_MAX
#define SEG_MAX (1 << 16)
#endif
#ifndef K_MAX
#define K_MAX 64
#endif

namespace {

struct segment_keys {   // segment i's first key
    const float *keys;
    const int *offsets;
    __host__ __device__ const float *operator()(int i) const { return keys + offsets[i]; }
};
template <class T> struct row_of {   // row i of k results
    T *p;
    int k;
    __host__ __device__ T *operator()(int i) const { return p + (long long)i * k; }
};
struct index_from_zero {   // every segment's values: 0, 1, 2, ... (the index from its start)
    __host__ __device__ cuda::counting_iterator<int> operator()(int) const { return cuda::counting_iterator<int>{0}; }
};
struct length_of {   // segment i's length, at least 1 (CUB's lower bound; the bench has no empty ones)
    const int *offsets;
    __host__ __device__ int operator()(int i) const { return max(offsets[i + 1] - offsets[i], 1); }
};
struct k_of {   // how many of segment i to select
    const int *offsets;
    int k;
    __host__ __device__ int operator()(int i) const { return min(k, max(offsets[i + 1] - offsets[i], 1)); }
};

__global__ void sleep_ns(long long ns) {
    long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

template <class Env>
double run(const float *keys, float *values, int *indices, int segments, const int *offsets, int k, Env env,
           int reps) {
    auto from = [](auto f) { return cuda::make_transform_iterator(cuda::counting_iterator<int>{0}, f); };
    auto keys_in = from(segment_keys{keys, offsets});
    auto keys_out = from(row_of<float>{values, k});
    auto vals_in = from(index_from_zero{});
    auto vals_out = from(row_of<int>{indices, k});
    auto sizes = cuda::args::deferred_sequence{from(length_of{offsets}), cuda::args::bounds<1, SEG_MAX>()};
    auto ks = cuda::args::deferred_sequence{from(k_of{offsets, k}), cuda::args::bounds<1, K_MAX>()};
    size_t bytes = 0;
    if (cub::DeviceBatchedTopK::MaxPairs(nullptr, bytes, keys_in, keys_out, vals_in, vals_out, sizes, ks, segments,
                                         env) != cudaSuccess)
        return -1;
    void *temp = nullptr;
    if (cudaMalloc(&temp, bytes ? bytes : 1) != cudaSuccess) return -1;
    auto call = [&] {
        return cub::DeviceBatchedTopK::MaxPairs(temp, bytes, keys_in, keys_out, vals_in, vals_out, sizes, ks,
                                                segments, env);
    };
    double ms = -1;
    if (call() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess) {
        cudaEvent_t start, stop;
        cudaEventCreate(&start);
        cudaEventCreate(&stop);
        std::vector<float> times;
        for (int r = 0; r < reps; r++) {
            sleep_ns<<<1, 1>>>(2000000);
            cudaEventRecord(start);
            call();
            cudaEventRecord(stop);
            cudaEventSynchronize(stop);
            float t = 0;
            cudaEventElapsedTime(&t, start, stop);
            times.push_back(t);
        }
        std::sort(times.begin(), times.end());
        ms = times.empty() ? -1 : times[times.size() / 2];
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
        if (cudaGetLastError() != cudaSuccess) ms = -1;
    }
    cudaFree(temp);
    return ms;
}

}  // namespace

namespace ex = cuda::execution;

extern "C" double cub_segmented_topk_ms(const float *keys, float *values, int *indices, int segments,
                                        const int *offsets, int k, int deterministic, int reps) {
    if (k < 1 || k > K_MAX) return -1;
    if (deterministic)
        return run(keys, values, indices, segments, offsets, k,
                   ex::require(ex::determinism::gpu_to_gpu, ex::tie_break::prefer_smaller_index,
                               ex::output_ordering::sorted),
                   reps);
    return run(keys, values, indices, segments, offsets, k,
               ex::require(ex::determinism::not_guaranteed, ex::tie_break::unspecified, ex::output_ordering::unsorted),
               reps);
}
