// timing.cuh: what the standalone benchmarks (bench/sort/sortbench.cu,
// bench/fft/fftbench.cu) share: error checks, the 16-byte copy kernel every
// ratio is taken against, and the timing rule.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void copy16(const int4 *in, int4 *out, size_t n4) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

static const int RUNS = 25;

// Median of RUNS calls of f timed with CUDA events on stream s, after two
// warm-up calls: every method runs on the parmc context's stream. before()
// is queued ahead of each start event (a spin kernel there lets the host's
// work for the call overlap the GPU's wait instead of being timed).
template <class F, class B> static float time_ms(cudaStream_t s, F f, B before) {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    f();
    f();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms(RUNS);
    for (int r = 0; r < RUNS; r++) {
        before();
        CHECK(cudaEventRecord(a, s));
        f();
        CHECK(cudaEventRecord(b, s));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaEventElapsedTime(&ms[r], a, b));
    }
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    CHECK(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    return ms[RUNS / 2];
}

template <class F> static float time_ms(cudaStream_t s, F f) { return time_ms(s, f, [] {}); }
