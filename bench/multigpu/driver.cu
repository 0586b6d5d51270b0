// driver.cu: times a parmc entry on GPUS GPUs (one thread per GPU, one
// context each, NCCL between them; GPUS = 1: parmc's one-GPU API) on keys it
// generates on the GPUs, after checking the result. Built by run.sh with the
// generated program (prefix bench, entry main over [2^N]i32):
//   nvcc -O3 -arch=sm_90 -DGPUS=G -I DIR DIR/prog.cu driver.cu -lnccl
// usage: driver sort|bitrev N_LOG REPEAT
//   sort:   the result is sorted (within and across the slices) and holds the
//           input's multiset (a sum of a hash of every key, before and after);
//   bitrev: element i of the result is element bitrev(i) of the input, every
//           one checked; then grouped ncclSend/ncclRecv of what the
//           permutation sends between the GPUs is timed in the same run.
// Prints one line per measurement: median over REPEAT runs after two warm-up
// runs, CUDA events on each GPU's stream, the slowest GPU's median. The
// result of the first run and that of the last timed run are both checked.
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "prog.h"

#ifndef GPUS
#define GPUS 1
#endif

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
#define NCHECK(call) do { ncclResult_t e_ = (call); if (e_ != ncclSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, ncclGetErrorString(e_)); exit(1); } } while (0)

static __host__ __device__ uint64_t mix(uint64_t x) {
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull; x ^= x >> 33;
    return x;
}

static __global__ void fill(int32_t *a, uint64_t count, uint64_t first) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count; i += (uint64_t)gridDim.x * blockDim.x)
        a[i] = (int32_t)mix(first + i);
}

// sum of mix(key) and the count of i with a[i] > a[i + 1]
static __global__ void scan(const int32_t *a, uint64_t count, unsigned long long *sum, unsigned long long *unsorted) {
    unsigned long long s = 0, u = 0;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count; i += (uint64_t)gridDim.x * blockDim.x) {
        s += mix((uint32_t)a[i]);
        if (i + 1 < count && a[i] > a[i + 1]) u++;
    }
    atomicAdd(sum, s);
    atomicAdd(unsorted, u);
}

static __global__ void check_bitrev(const int32_t *a, uint64_t count, uint64_t first, int n, unsigned long long *bad) {
    unsigned long long b = 0;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count; i += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t y = first + i, x = __brevll(y) >> (64 - n);
        if (a[i] != (int32_t)mix(x)) b++;
    }
    atomicAdd(bad, b);
}

struct Result {
    float ms = 0, nccl_ms = 0;
    unsigned long long sum_in = 0, sum_out = 0, unsorted = 0, bad = 0;
    int32_t first = 0, last = 0;
};

static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The checks of one result (sortedness and the multiset's hash sum, or
// every element of the bit reversal), the first and last keys of the slice.
static void check_result(const char *mode, int n, int r, uint64_t slice, const int32_t *in, const int32_t *out,
                         unsigned long long *counts, cudaStream_t stream, Result *res) {
    CHECK(cudaMemsetAsync(counts, 0, 4 * sizeof(unsigned long long), stream));
    scan<<<4096, 256, 0, stream>>>(in, slice, counts, counts + 1);
    if (!strcmp(mode, "sort")) scan<<<4096, 256, 0, stream>>>(out, slice, counts + 2, counts + 3);
    else check_bitrev<<<4096, 256, 0, stream>>>(out, slice, r * slice, n, counts + 3);
    unsigned long long host[4];
    CHECK(cudaMemcpyAsync(host, counts, sizeof host, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaMemcpyAsync(&res->first, out, 4, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaMemcpyAsync(&res->last, out + slice - 1, 4, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    res->sum_in = host[0];
    res->sum_out = host[2];
    res->unsorted = !strcmp(mode, "sort") ? host[3] : 0;
    res->bad = !strcmp(mode, "sort") ? 0 : host[3];
}

static void rank_main(int r, ncclComm_t comm, const char *mode, int n, int repeat, Result *res) {
    CHECK(cudaSetDevice(r));
    const uint64_t slice = (1ull << n) / GPUS;
    bench_ctx *ctx;
#if GPUS > 1
    if (bench_ctx_create_nccl(&ctx, comm, r, GPUS)) { fprintf(stderr, "rank %d: no context\n", r); exit(1); }
#else
    (void)comm;
    if (bench_ctx_create(&ctx)) { fprintf(stderr, "no context\n"); exit(1); }
#endif
    cudaStream_t stream = bench_ctx_stream(ctx);
    int32_t *in, *out;
    unsigned long long *counts;
    CHECK(cudaMalloc(&in, slice * 4));
    CHECK(cudaMalloc(&out, slice * 4));
    CHECK(cudaMalloc(&counts, 4 * sizeof(unsigned long long)));
    fill<<<4096, 256, 0, stream>>>(in, slice, r * slice);
    int status = bench_main(ctx, in, out, (size_t)1 << n);
    if (status) { fprintf(stderr, "rank %d: %s: %s\n", r, bench_error_string(status), bench_ctx_message(ctx)); exit(1); }
    check_result(mode, n, r, slice, in, out, counts, stream, res);
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    std::vector<float> ms;
    for (int i = 0; i < repeat + 2; i++) {
        CHECK(cudaEventRecord(start, stream));
        if (bench_main(ctx, in, out, (size_t)1 << n)) exit(1);
        CHECK(cudaEventRecord(stop, stream));
        CHECK(cudaEventSynchronize(stop));
        float t;
        CHECK(cudaEventElapsedTime(&t, start, stop));
        if (i >= 2) ms.push_back(t);
    }
    res->ms = median(ms);
    // the output of the last timed run is checked too (a race between
    // the pipelined exchange's streams would show here)
    Result again;
    check_result(mode, n, r, slice, in, out, counts, stream, &again);
    res->unsorted += again.unsorted + (again.sum_out != res->sum_out);
    res->bad += again.bad;
#if GPUS > 1
    if (!strcmp(mode, "bitrev")) {
        // what the bit reversal sends: each GPU sends the elements whose low
        // log2(GPUS) bits name another GPU, (GPUS-1)/GPUS of its slice, in
        // one chunk per peer, grouped
        const uint64_t chunk = slice / GPUS * 4;
        std::vector<float> t;
        for (int i = 0; i < repeat + 2; i++) {
            CHECK(cudaEventRecord(start, stream));
            NCHECK(ncclGroupStart());
            for (int p = 0; p < GPUS; p++) {
                if (p == r) continue;
                NCHECK(ncclSend((char *)in + p * chunk, chunk, ncclInt8, p, comm, stream));
                NCHECK(ncclRecv((char *)out + p * chunk, chunk, ncclInt8, p, comm, stream));
            }
            NCHECK(ncclGroupEnd());
            CHECK(cudaEventRecord(stop, stream));
            CHECK(cudaEventSynchronize(stop));
            float x;
            CHECK(cudaEventElapsedTime(&x, start, stop));
            if (i >= 2) t.push_back(x);
        }
        res->nccl_ms = median(t);
    }
#endif
    cudaFree(in);
    cudaFree(out);
    cudaFree(counts);
    bench_ctx_destroy(ctx);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: driver sort|bitrev N_LOG REPEAT\n"); return 2; }
    const char *mode = argv[1];
    int n = atoi(argv[2]), repeat = atoi(argv[3]);
    ncclComm_t comms[GPUS] = {};
#if GPUS > 1
    int devs[GPUS];
    for (int r = 0; r < GPUS; r++) devs[r] = r;
    NCHECK(ncclCommInitAll(comms, GPUS, devs));
#endif
    Result res[GPUS];
    std::vector<std::thread> threads;
    for (int r = 0; r < GPUS; r++) threads.emplace_back(rank_main, r, comms[r], mode, n, repeat, &res[r]);
    for (auto &t : threads) t.join();
#if GPUS > 1
    for (int r = 0; r < GPUS; r++) ncclCommDestroy(comms[r]);
#endif
    float ms = 0, nccl_ms = 0;
    unsigned long long in_sum = 0, out_sum = 0, unsorted = 0, bad = 0;
    for (int r = 0; r < GPUS; r++) {
        ms = std::max(ms, res[r].ms);
        nccl_ms = std::max(nccl_ms, res[r].nccl_ms);
        in_sum += res[r].sum_in;
        out_sum += res[r].sum_out;
        unsorted += res[r].unsorted + (r + 1 < GPUS && res[r].last > res[r + 1].first);
        bad += res[r].bad;
    }
    bool ok = !strcmp(mode, "sort") ? unsorted == 0 && in_sum == out_sum : bad == 0;
    printf("%s 2^%d i32 on %d GPU%s: %s, median %.3f ms over %d runs", mode, n, GPUS, GPUS > 1 ? "s" : "",
           ok ? "checked" : "WRONG", ms, repeat);
    if (!strcmp(mode, "sort"))
        printf(" (sorted, multiset checksum %016llx %s)", out_sum, in_sum == out_sum ? "equal" : "DIFFERS");
    if (nccl_ms > 0) {
        double bytes = (double)((1ull << n) / GPUS * 4) * (GPUS - 1) / GPUS;
        printf("; NCCL send/recv of the same %.2f GiB per GPU: %.3f ms (%.0f GB/s per direction); ratio %.2f",
               bytes / (1 << 30), nccl_ms, bytes / nccl_ms / 1e6, nccl_ms / ms);
    }
    printf("\n");
    return ok ? 0 : 1;
}
