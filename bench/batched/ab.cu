// ab.cu: A/B timing of several parmc builds of one program in one process.
// Each variant's .cu is compiled to its own object with its API's prefix
// renamed to the variant's name (VAR_main and so on, see build.sh); VARIANTS (a -D list of
// X(name, checked) entries) names them. Every checked variant's output is
// compared element by element with CUB's before any timing; unchecked ones
// (timing experiments that compute the wrong thing on purpose) are only timed.
//   ./ab rows LOGN LOGROW [ROUNDS]   2^(LOGN-LOGROW) rows of 2^LOGROW int32
//   ./ab full LOGN [ROUNDS]          one sort of 2^LOGN int32
// Timings: median of 25 CUDA-event-timed calls after 3 warm-ups, per round;
// rounds interleave the variants (and the copy and CUB), the table gives the
// median over rounds and the spread (min..max of the round medians).
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

struct parm_ctx;   // stands for every variant's context type (VAR_ctx)
#define X(name, checked) extern "C" int name##_ctx_create(parm_ctx **); \
    extern "C" int name##_main(parm_ctx *, const int32_t *, int32_t *, size_t); \
    extern "C" cudaStream_t name##_ctx_stream(parm_ctx *);
VARIANTS
#undef X

struct Variant { const char *name; bool checked; int (*create)(parm_ctx **); int (*run)(parm_ctx *, const int32_t *, int32_t *, size_t);
                 cudaStream_t (*stream)(parm_ctx *); parm_ctx *ctx; std::vector<float> t; };
static std::vector<Variant> vars = {
#define X(name, checked) {#name, checked, name##_ctx_create, name##_main, name##_ctx_stream, nullptr, {}},
    VARIANTS
#undef X
};

__global__ void copy16(const int4 *in, int4 *out, size_t n4) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

template <class F> static float time_ms(cudaStream_t s, F f) {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++) f();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms(25);
    for (auto &m : ms) {
        CHECK(cudaEventRecord(a, s));
        f();
        CHECK(cudaEventRecord(b, s));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaEventElapsedTime(&m, a, b));
    }
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    CHECK(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s rows LOGN LOGROW [ROUNDS] | full LOGN [ROUNDS]\n", argv[0]); return 2; }
    bool rows = !strcmp(argv[1], "rows");
    int logn = atoi(argv[2]), logrow = rows ? atoi(argv[3]) : logn;
    int rounds = argc > (rows ? 4 : 3) ? atoi(argv[rows ? 4 : 3]) : 5;
    size_t n = (size_t)1 << logn, row = (size_t)1 << logrow, nrows = n / row;
    int *in, *out, *ref, *tmp, *d_off;
    CHECK(cudaMalloc(&in, n * 4));
    CHECK(cudaMalloc(&out, n * 4));
    CHECK(cudaMalloc(&ref, n * 4));
    CHECK(cudaMalloc(&tmp, n * 4));
    std::vector<int> offsets(nrows + 1);
    for (size_t r = 0; r <= nrows; r++) offsets[r] = (int)(r * row);
    CHECK(cudaMalloc(&d_off, (nrows + 1) * 4));
    CHECK(cudaMemcpy(d_off, offsets.data(), (nrows + 1) * 4, cudaMemcpyHostToDevice));
    size_t tb_seg = 0, tb_radix = 0;
    cub::DeviceSegmentedSort::SortKeys(nullptr, tb_seg, in, ref, (int)n, (int)nrows, d_off, d_off + 1);
    cub::DeviceRadixSort::SortKeys(nullptr, tb_radix, in, ref, (int)n);
    size_t tb = std::max(tb_seg, tb_radix);
    void *temp;
    CHECK(cudaMalloc(&temp, tb));
    for (auto &v : vars)
        if (v.create(&v.ctx)) { fprintf(stderr, "%s: parm_ctx_create failed\n", v.name); return 1; }
    cudaStream_t s = vars[0].stream(vars[0].ctx);

    // checks: three fresh random inputs (one with many duplicates), every element
    std::vector<int> host(n), a(n), b(n);
    for (int trial = 0; trial < 3; trial++) {
        std::mt19937 rng(12345 + trial);
        for (auto &x : host) x = trial == 2 ? (int)(rng() % 64) - 32 : (int)rng();
        CHECK(cudaMemcpy(in, host.data(), n * 4, cudaMemcpyHostToDevice));
        if (rows) CHECK(cub::DeviceSegmentedSort::SortKeys(temp, tb, in, ref, (int)n, (int)nrows, d_off, d_off + 1, s));
        else CHECK(cub::DeviceRadixSort::SortKeys(temp, tb, in, ref, (int)n, 0, 32, s));
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(b.data(), ref, n * 4, cudaMemcpyDeviceToHost));
        for (auto &v : vars) {
            if (!v.checked) continue;
            CHECK(cudaMemset(out, 0xa5, n * 4));
            if (v.run(v.ctx, in, out, n)) { fprintf(stderr, "%s: parm_main failed\n", v.name); return 1; }
            CHECK(cudaDeviceSynchronize());
            CHECK(cudaMemcpy(a.data(), out, n * 4, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < n; i++)
                if (a[i] != b[i]) { fprintf(stderr, "CHECK FAILED: %s at %zu: %d, want %d (input %d)\n", v.name, i, a[i], b[i], trial); return 1; }
            printf("check %d: %s equals CUB on all %zu elements\n", trial, v.name, n);
        }
    }
    std::mt19937 rng(777);
    for (auto &x : host) x = (int)rng();
    CHECK(cudaMemcpy(in, host.data(), n * 4, cudaMemcpyHostToDevice));

    std::vector<float> t_copy, t_cub;
    for (int r = 0; r < rounds; r++) {
        t_copy.push_back(time_ms(s, [&] { copy16<<<1024, 256, 0, s>>>((const int4 *)in, (int4 *)tmp, n / 4); }));
        if (r == 0 || r == rounds - 1)
            t_cub.push_back(time_ms(s, [&] {
                if (rows) cub::DeviceSegmentedSort::SortKeys(temp, tb, in, ref, (int)n, (int)nrows, d_off, d_off + 1, s);
                else cub::DeviceRadixSort::SortKeys(temp, tb, in, ref, (int)n, 0, 32, s);
            }));
        for (auto &v : vars)
            v.t.push_back(time_ms(v.stream(v.ctx), [&] { if (v.run(v.ctx, in, out, n)) { fprintf(stderr, "run failed\n"); exit(1); } }));
    }
    printf("\n%s 2^%d%s, %d rounds of (median of 25)\n", rows ? "rows" : "full", logn,
           rows ? (std::string(" in rows of 2^") + argv[3]).c_str() : "", rounds);
    printf("| method | ms (median of rounds) | round min..max | vs first |\n|---|---|---|---|\n");
    float t0 = median(vars[0].t);
    printf("| 16-byte copy | %.4f | %.4f..%.4f | |\n", median(t_copy), *std::min_element(t_copy.begin(), t_copy.end()), *std::max_element(t_copy.begin(), t_copy.end()));
    printf("| %s | %.4f | %.4f..%.4f | |\n", rows ? "cub::DeviceSegmentedSort" : "cub::DeviceRadixSort", median(t_cub),
           *std::min_element(t_cub.begin(), t_cub.end()), *std::max_element(t_cub.begin(), t_cub.end()));
    for (auto &v : vars)
        printf("| %s%s | %.4f | %.4f..%.4f | %.3f |\n", v.name, v.checked ? "" : " (unchecked)", median(v.t),
               *std::min_element(v.t.begin(), v.t.end()), *std::max_element(v.t.begin(), v.t.end()), median(v.t) / t0);
    return 0;
}
