// bench/graph/main.cu: times the entries of graph.parm (compiled to graph.cu,
// API in graph.h) with CUDA events against kernels of the same bytes: a
// read-only kernel (for reductions) and a 16-byte copy (otherwise). Prints
// one line per measurement: name, ms (median of 20), GB/s, and the ratio to
// its reference. Every result is checked; exit status 1 when one is wrong.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
#include "graph.h"

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("cuda: %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

__global__ void read_only(const int4 *p, size_t n, int *sink) {
    int acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        int4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x7fffffff) *sink = acc;
}

__global__ void copy16(const int4 *p, int4 *q, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) q[i] = p[i];
}

__global__ void fill_ints(int *p, size_t n, unsigned salt) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (int)(((i ^ salt) * 2654435761u) >> 7) % 1000 - 500;
}

template <typename F> static float median_ms(cudaStream_t s, F call) {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    call();
    CHECK(cudaStreamSynchronize(s));
    std::vector<float> ms;
    for (int r = 0; r < 20; r++) {
        CHECK(cudaEventRecord(a, s));
        call();
        CHECK(cudaEventRecord(b, s));
        CHECK(cudaEventSynchronize(b));
        float t;
        CHECK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

static void line(const char *name, float ms, double bytes, float ref_ms) {
    printf("%-40s %9.4f ms %8.1f GB/s  %5.1f%% of its reference\n", name, ms, bytes / ms / 1e6, 100.0 * ref_ms / ms);
}

// The zipped and the paired sort of the same keys and values: equal outputs,
// keys ascending, and the keys a permutation of the input's.
static int check_kv(graph_ctx *ctx, const int *keys, const float *vals, int *ko, float *vo, size_t m) {
    std::vector<int> k_in(m), k_zip(m), k_pairs(m);
    std::vector<float> v_zip(m), v_pairs(m);
    CHECK(cudaMemcpy(k_in.data(), keys, m * 4, cudaMemcpyDeviceToHost));
    cudaStream_t s = graph_ctx_stream(ctx);     /* not ordered with cudaMemcpy's legacy stream */
    graph_kv_zip(ctx, keys, vals, ko, vo, m);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(k_zip.data(), ko, m * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(v_zip.data(), vo, m * 4, cudaMemcpyDeviceToHost));
    graph_kv_pairs(ctx, keys, vals, ko, vo, m);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(k_pairs.data(), ko, m * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(v_pairs.data(), vo, m * 4, cudaMemcpyDeviceToHost));
    std::sort(k_in.begin(), k_in.end());
    size_t vals_differ = 0, first = 0;
    for (size_t i = 0; i < m; i++)
        if (memcmp(&v_zip[i], &v_pairs[i], 4) != 0 && vals_differ++ == 0) first = i;
    bool ok = k_zip == k_pairs && k_zip == k_in && vals_differ == 0;
    if (!ok) {
        unsigned zb, pb;
        memcpy(&zb, &v_zip[first], 4);
        memcpy(&pb, &v_pairs[first], 4);
        printf("WRONG kv sort: keys zipped = paired %d, sorted %d; %zu values differ, the first at %zu: %08x against "
               "%08x (key %d)\n", k_zip == k_pairs, k_zip == k_in, vals_differ, first, zb, pb, k_zip[first]);
    }
    return !ok;
}

// out holds the first q elements of xs sorted, and *sum their sum (wrapping).
static int check_sorted_sum(const int *xs, const int *out, const int *sum, size_t q) {
    std::vector<int> want(q), got(q);
    int total = 0;
    CHECK(cudaMemcpy(want.data(), xs, q * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got.data(), out, q * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&total, sum, 4, cudaMemcpyDeviceToHost));
    std::sort(want.begin(), want.end());
    unsigned wrapped = 0;
    for (int x : want) wrapped += (unsigned)x;
    bool ok = want == got && (unsigned)total == wrapped;
    if (!ok) printf("WRONG sorted_sum: the sort or its sum differs\n");
    return !ok;
}

int main() {
    graph_ctx *ctx;
    if (graph_ctx_create(&ctx)) return 1;
    cudaStream_t s = graph_ctx_stream(ctx);
    const size_t n = (size_t)1 << 28, m = (size_t)1 << 20, f = (size_t)1 << 26;
    int *xs, *out, *sink, *a, *b, *c, *d;
    CHECK(cudaMalloc(&xs, n * 4));
    CHECK(cudaMalloc(&out, n * 4));
    CHECK(cudaMalloc(&sink, 4));
    CHECK(cudaMalloc(&a, m * 4)); CHECK(cudaMalloc(&b, m * 4)); CHECK(cudaMalloc(&c, m * 4)); CHECK(cudaMalloc(&d, m * 4));
    fill_ints<<<4096, 256, 0, s>>>(xs, n, 0);
    fill_ints<<<1024, 256, 0, s>>>(a, m, 0);
    fill_ints<<<1024, 256, 0, s>>>(b, m, 0x5bd1e995u);
    CHECK(cudaStreamSynchronize(s));
    int bad = 0;
    // reductions against a read-only kernel of the same bytes
    float ro = median_ms(s, [&] { read_only<<<132 * 16, 256, 0, s>>>((const int4 *)xs, n / 4, sink); });
    line("read-only kernel, 2^28 i32", ro, n * 4.0, ro);
    float r1 = median_ms(s, [&] { graph_reduce_sum(ctx, xs, out, n); });
    line("reduce (+) over 2^28 i32", r1, n * 4.0, ro);
    float r2 = median_ms(s, [&] { graph_reduce_map(ctx, xs, out + 1, n); });
    line("reduce (+) of a map over 2^28 i32", r2, n * 4.0, ro);
    std::vector<int> h(n);
    CHECK(cudaMemcpy(h.data(), xs, n * 4, cudaMemcpyDeviceToHost));
    int sum = 0, sum3 = 0, got[2];
    for (size_t i = 0; i < n; i++) { sum += h[i]; sum3 += h[i] * 3 + 1; }   // wrapping: + commutes on i32
    CHECK(cudaMemcpy(got, out, 8, cudaMemcpyDeviceToHost));
    if (got[0] != sum || got[1] != sum3) { printf("WRONG reduction: %d %d, want %d %d\n", got[0], got[1], sum, sum3); bad = 1; }
    // the zipped key-value sort against one array of pairs, and the copy
    float cp = median_ms(s, [&] { copy16<<<132 * 16, 256, 0, s>>>((const int4 *)a, (int4 *)c, m / 2); });
    float z = median_ms(s, [&] { graph_kv_zip(ctx, a, (const float *)b, c, (float *)d, m); });
    float p = median_ms(s, [&] { graph_kv_pairs(ctx, a, (const float *)b, c, (float *)d, m); });
    line("16-byte copy, 2^20 (i32, f32)", cp, m * 16.0, cp);
    line("kv sort 2^20 zipped and unzipped", z, m * 16.0, p);
    line("kv sort 2^20 of pairs", p, m * 16.0, p);
    bad |= check_kv(ctx, a, (const float *)b, c, (float *)d, m);
    // a reduction after a sort: in the sort's last pass, no pass of its own
    const size_t q = size_t(1) << 24;
    float st = median_ms(s, [&] { graph_sorted(ctx, xs, out, q); });
    float ss = median_ms(s, [&] { graph_sorted_sum(ctx, xs, out, (int *)sink, q); });
    line("sort 2^24 i32", st, q * 8.0, st);
    line("sort 2^24 i32 and reduce (+) of it", ss, q * 8.0, st);
    bad |= check_sorted_sum(xs, out, (const int *)sink, q);
    // replicate feeding a map: written once, nothing read
    float cf = median_ms(s, [&] { copy16<<<132 * 16, 256, 0, s>>>((const int4 *)xs, (int4 *)out, f / 8); });
    float fm = median_ms(s, [&] { graph_fill_map(ctx, 5, 7, out, f); });
    line("16-byte copy of 2^25 i32 (the bytes the fill writes)", cf, f * 4.0, cf);
    line("map over zip of two replicates, 2^26", fm, f * 4.0, cf);
    std::vector<int> filled(f);
    CHECK(cudaMemcpy(filled.data(), out, f * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < f; i++)
        if (filled[i] != 5 * 3 + 7) { printf("WRONG fill_map at %zu: %d, want 22\n", i, filled[i]); bad = 1; break; }
    graph_ctx_destroy(ctx);
    return bad;
}
