// main.cu: checks and times the one-pass BMMC kernels of perm_kernels.cuh
// (written by gen.c) against a 16-byte copy, a 4-byte copy and a naive
// gather, on the same buffers in the same run.
//
// Input is a bijective hash of index + 1: distinct and never zero, so a
// wrong index or an unwritten (poisoned) element shows. Every kernel's
// output is compared element by element with the naive gather's. Times are
// medians of REPS runs after WARM warm-up runs, CUDA events around each.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                    cudaGetErrorString(err_));                                        \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define PERM_LAUNCH(f) ((const void *)(f))
#include "perm_kernels.cuh"

enum { WARM = 3, REPS = 25, THREADS = 256 };

struct InvRows {
    unsigned long long row[64];
};

// Bijections of 32 and 64 bits fixing 0 (xorshift-multiply rounds).
__device__ unsigned mix32(unsigned x)
{
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}

__device__ unsigned long long mix64(unsigned long long x)
{
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull; x ^= x >> 27; x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

__device__ void put(int *a, size_t i) { a[i] = (int)mix32((unsigned)i + 1u); }
__device__ void put(long long *a, size_t i) { a[i] = (long long)mix64(i + 1); }

template <typename T> __global__ void fill(T *a, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        put(a, i);
}

// out[y] = in[A^-1 (y ^ c)], one parity per index bit.
template <typename T>
__global__ void naive_gather(const T *in, T *out, InvRows inv, unsigned long long c, int n)
{
    unsigned long long y = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (y >> n)
        return;
    unsigned long long v = y ^ c, x = 0;
    for (int i = 0; i < n; i++)
        x |= (unsigned long long)(__popcll(inv.row[i] & v) & 1) << i;
    out[y] = in[x];
}

template <typename T>
__global__ void count_diff(const T *a, const T *b, size_t n, unsigned long long *bad)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && a[i] != b[i])
        atomicAdd(bad, 1ull);
}

__global__ void copy16(const int4 *__restrict__ in, int4 *__restrict__ out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

__global__ void copy4(const int *__restrict__ in, int *__restrict__ out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

static unsigned grid(size_t n) { return (unsigned)((n + THREADS - 1) / THREADS); }

template <typename F> static float median_ms(F launch)
{
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < WARM; i++)
        launch();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int i = 0; i < REPS; i++) {
        CHECK(cudaEventRecord(start));
        launch();
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float t;
        CHECK(cudaEventElapsedTime(&t, start, stop));
        ms.push_back(t);
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    std::sort(ms.begin(), ms.end());
    return ms[REPS / 2];
}

struct Row {
    char name[64];
    float ms, copy_ms;
    size_t bytes;  // read + written
};

static std::vector<Row> table;

static void add_row(const char *name, float ms, size_t bytes, float copy_ms)
{
    Row r;
    snprintf(r.name, sizeof r.name, "%s", name);
    r.ms = ms;
    r.bytes = bytes;
    r.copy_ms = copy_ms;
    table.push_back(r);
}

template <typename T> static unsigned long long diff(const T *a, const T *b, size_t n)
{
    static unsigned long long *bad;
    if (!bad)
        CHECK(cudaMalloc(&bad, sizeof *bad));
    CHECK(cudaMemset(bad, 0, sizeof *bad));
    count_diff<<<grid(n), THREADS>>>(a, b, n, bad);
    CHECK(cudaGetLastError());
    unsigned long long h;
    CHECK(cudaMemcpy(&h, bad, sizeof h, cudaMemcpyDeviceToHost));
    return h;
}

static int failures;

static void report(const char *name, unsigned long long bad)
{
    printf("check %-22s %s (%llu wrong)\n", name, bad ? "FAIL" : "ok", bad);
    failures += bad != 0;
}

// All cases of one element type on 2^n elements: copies first (the scale),
// then each permutation checked against the naive gather and timed.
template <typename T> static void run_size(int elem_bytes)
{
    int n = -1;
    for (int k = 0; k < PERM_CASES; k++)
        if (perm_cases[k].elem_bytes == elem_bytes)
            n = perm_cases[k].n;
    if (n < 0)
        return;
    size_t count = (size_t)1 << n, bytes = count * sizeof(T);
    T *in, *out, *ref;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMalloc(&ref, bytes));
    fill<<<grid(count), THREADS>>>(in, count);
    CHECK(cudaGetLastError());

    size_t n16 = bytes / 16, n4 = bytes / 4;
    auto c16 = [&] { copy16<<<grid(n16), THREADS>>>((const int4 *)in, (int4 *)out, n16); };
    auto c4 = [&] { copy4<<<grid(n4), THREADS>>>((const int *)in, (int *)out, n4); };
    CHECK(cudaMemset(out, 0xff, bytes));
    c16();
    CHECK(cudaGetLastError());
    report("copy16", diff(in, out, count));
    CHECK(cudaMemset(out, 0xff, bytes));
    c4();
    CHECK(cudaGetLastError());
    report("copy4", diff(in, out, count));
    float copy_ms = median_ms(c16);
    char label[64];
    snprintf(label, sizeof label, "copy 16 B/thread (e%d)", elem_bytes);
    add_row(label, copy_ms, 2 * bytes, copy_ms);
    snprintf(label, sizeof label, "copy 4 B/thread (e%d)", elem_bytes);
    add_row(label, median_ms(c4), 2 * bytes, copy_ms);

    for (int k = 0; k < PERM_CASES; k++) {
        const PermCase *pc = &perm_cases[k];
        if (pc->elem_bytes != elem_bytes)
            continue;
        typedef cudaError_t (*Launch)(const T *, T *, cudaStream_t);
        Launch launch = (Launch)pc->launch;
        InvRows inv;
        memcpy(inv.row, pc->inv, sizeof inv.row);
        auto naive = [&] { naive_gather<<<grid(count), THREADS>>>(in, ref, inv, pc->c, n); };
        naive();
        CHECK(cudaGetLastError());
        CHECK(cudaMemset(out, 0xff, bytes));
        CHECK(launch(in, out, 0));
        CHECK(cudaDeviceSynchronize());
        report(pc->name, diff(out, ref, count));
        add_row(pc->name, median_ms([&] { CHECK(launch(in, out, 0)); }), 2 * bytes, copy_ms);
        // The naive gather once per permutation: at its first tile size.
        size_t stem = strstr(pc->name, "_d") - pc->name;
        if (k == 0 || strncmp(perm_cases[k - 1].name, pc->name, stem + 1)) {
            snprintf(label, sizeof label, "naive %.*s", (int)(strchr(pc->name, '_') - pc->name),
                     pc->name);
            add_row(label, median_ms(naive), 2 * bytes, copy_ms);
        }
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(ref));
}

int main()
{
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount,
           prop.l2CacheSize >> 20);
    run_size<int>(4);
    run_size<long long>(8);
    printf("\n| kernel | ms | GB/s | %% of 16-byte copy |\n|---|---|---|---|\n");
    for (const Row &r : table)
        printf("| %s | %.3f | %.0f | %.1f%% |\n", r.name, r.ms, r.bytes / r.ms / 1e6,
               100.0 * r.copy_ms / r.ms);
    printf("\n%s\n", failures ? "SOME CHECKS FAILED" : "all checks passed");
    return failures ? 1 : 0;
}
