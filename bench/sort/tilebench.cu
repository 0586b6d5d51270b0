// tilebench.cu: one parmc sort built with one tile size (bench/sort/tiles.sh),
// checked element by element against CUB, then timed, and optionally the
// CUB sorts of the same work. Built with one parmc output compiled with
// --prefix bench (its header force-included) and the CUB wrappers of
// bench/suite:
//   nvcc -O3 -arch=sm_90 -include prog.h bench/sort/tilebench.cu prog.cu libs_*.o -o tb
//   ./tb full LOGN [libs]          i32 keys (bench_main(ctx, in, out, n))
//   ./tb kv LOGN [libs]            (u32, i32) records by key; built with -DKV
//   ./tb rows LOGN LOGROW [libs]   rows of 2^LOGROW i32 keys, each sorted
// Output: one line per method, `RESULT work method ms check`, work being
// full-LOGN, kv-LOGN or rows-LOGN-LOGROW, check ok or FAIL (exit 1 on FAIL).
#include "../timing.cuh"
#include "../suite/common.h"

#include <cstring>

static cudaStream_t s;    // the parmc context's: every method runs on it
static char work[64];

static void result(const char *method, float ms, bool ok) {
    printf("RESULT %s %s %.4f %s\n", work, method, ms, ok ? "ok" : "FAIL");
}

template <class T> static bool same(const T *dev_a, const T *dev_b, size_t n, const char *what) {
    std::vector<T> a(n), b(n);
    CHECK(cudaMemcpy(a.data(), dev_a, n * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(b.data(), dev_b, n * sizeof(T), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) {
            fprintf(stderr, "%s: %s differs at %zu of %zu\n", work, what, i, n);
            return false;
        }
    return true;
}

// Uniform random 32-bit values (with the duplicates random data has), made
// on the GPU: a bijection of the index and the seed.
__global__ void fill_random(uint32_t *a, size_t n, unsigned long long seed) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = i + (seed << 40);
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull; x ^= x >> 27; x *= 0x94d049bb133111ebull;
    a[i] = (uint32_t)((x ^ (x >> 31)) >> 32);
}

// A record as one 64-bit number, key in the high half: sorting these sorts
// the records by (key, value), so two sorts by key agree on them whatever
// order they give records of equal keys.
__global__ void combine(const uint32_t *k, const int32_t *v, uint64_t *out, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = (uint64_t)k[i] << 32 | (uint32_t)v[i];
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s full|kv LOGN [libs] | rows LOGN LOGROW [libs]\n", argv[0]); return 2; }
    bool rows = !strcmp(argv[1], "rows");
    int logn = atoi(argv[2]), logrow = rows ? atoi(argv[3]) : logn;
    bool libs = argc > (rows ? 4 : 3) && !strcmp(argv[rows ? 4 : 3], "libs");
    if (rows) snprintf(work, sizeof work, "rows-%d-%d", logn, logrow);
    else snprintf(work, sizeof work, "%s-%d", argv[1], logn);
    size_t n = (size_t)1 << logn, nrows = n >> logrow;
    uint32_t *in, *out, *ref, *vin, *vout, *vref;
    CHECK(cudaMalloc(&in, n * 4));
    CHECK(cudaMalloc(&out, n * 4));
    CHECK(cudaMalloc(&ref, n * 4));
    CHECK(cudaMalloc(&vin, n * 4));
    CHECK(cudaMalloc(&vout, n * 4));
    CHECK(cudaMalloc(&vref, n * 4));
    fill_random<<<(unsigned)((n + 255) / 256), 256>>>(in, n, 1);
    fill_random<<<(unsigned)((n + 255) / 256), 256>>>(vin, n, 2);
    CHECK(cudaDeviceSynchronize());
    std::vector<int> offsets(nrows + 1);
    for (size_t r = 0; r <= nrows; r++) offsets[r] = (int)(r << logrow);
    int *off;
    CHECK(cudaMalloc(&off, (nrows + 1) * 4));
    CHECK(cudaMemcpy(off, offsets.data(), (nrows + 1) * 4, cudaMemcpyHostToDevice));
    Temp t_radix, t_merge;
    bench_ctx *ctx;
    if (bench_ctx_create(&ctx)) { fprintf(stderr, "bench_ctx_create failed\n"); return 1; }
    s = bench_ctx_stream(ctx);
#ifdef KV
    Temp t_check;
    auto parm = [&] { return bench_main(ctx, in, (const int32_t *)vin, out, (int32_t *)vout, n); };
#else
    Temp t_seg, t_segr;
    int32_t *ki = (int32_t *)in, *ko = (int32_t *)out, *kr = (int32_t *)ref;
    auto parm = [&] { return bench_main(ctx, ki, ko, n); };
#endif
    // parmc's result against CUB's, element by element
    CHECK(cudaMemset(out, 0xff, n * 4));
    CHECK(cudaMemset(vout, 0xff, n * 4));
    CHECK(cudaDeviceSynchronize());
    int status = parm();
    if (status) { fprintf(stderr, "bench_main: %s\n", bench_error_string(status)); return 1; }
    CHECK(cudaDeviceSynchronize());
    bool ok;
#ifdef KV
    cub_radix_pairs(t_radix, in, (const int32_t *)vin, ref, (int32_t *)vref, (int)n, s);
    CHECK(cudaStreamSynchronize(s));
    ok = same(out, ref, n, "the keys");
    uint64_t *pa, *pb, *sa, *sb;
    CHECK(cudaMalloc(&pa, n * 8));
    CHECK(cudaMalloc(&pb, n * 8));
    CHECK(cudaMalloc(&sa, n * 8));
    CHECK(cudaMalloc(&sb, n * 8));
    combine<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(out, (const int32_t *)vout, pa, n);
    combine<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(in, (const int32_t *)vin, pb, n);
    cub_radix_keys_u64(t_check, pa, sa, (int)n, s);
    cub_radix_keys_u64(t_check, pb, sb, (int)n, s);
    CHECK(cudaStreamSynchronize(s));
    ok = ok && same(sa, sb, n, "the records");
    CHECK(cudaFree(pa)); CHECK(cudaFree(pb)); CHECK(cudaFree(sa)); CHECK(cudaFree(sb));
#else
    if (rows) cub_segsort_keys(t_seg, ki, kr, (int)n, (int)nrows, off, s);
    else cub_radix_keys(t_radix, ki, kr, (int)n, s);
    CHECK(cudaStreamSynchronize(s));
    ok = same(ko, kr, n, "the keys");
#endif
    // the copy of every plane (records: keys and values)
    float t_copy = time_ms(s, [&] {
        copy16<<<1024, 256, 0, s>>>((const int4 *)in, (int4 *)ref, n / 4);
#ifdef KV
        copy16<<<1024, 256, 0, s>>>((const int4 *)vin, (int4 *)vref, n / 4);
#endif
    });
    result("copy16", t_copy, true);
    float t_parm = time_ms(s, [&] { if (parm()) { fprintf(stderr, "bench_main failed\n"); exit(1); } });
    result("parmc", t_parm, ok);
    if (libs) {
#ifdef KV
        result("cub_merge", time_ms(s, [&] { cub_merge_pairs(t_merge, in, (const int32_t *)vin, ref, (int32_t *)vref, (int)n, s); }), true);
        result("cub_radix", time_ms(s, [&] { cub_radix_pairs(t_radix, in, (const int32_t *)vin, ref, (int32_t *)vref, (int)n, s); }), true);
#else
        if (rows) {
            result("cub_segmented", time_ms(s, [&] { cub_segsort_keys(t_seg, ki, kr, (int)n, (int)nrows, off, s); }), true);
            result("cub_seg_radix", time_ms(s, [&] { cub_segradix_keys(t_segr, ki, kr, (int)n, (int)nrows, off, s); }), true);
        } else {
            result("cub_merge", time_ms(s, [&] { cub_merge_keys(t_merge, ki, kr, (int)n, s); }), true);
            result("cub_radix", time_ms(s, [&] { cub_radix_keys(t_radix, ki, kr, (int)n, s); }), true);
        }
#endif
    }
    bench_ctx_destroy(ctx);
    return ok ? 0 : 1;
}
