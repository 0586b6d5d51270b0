// typebench.cu: a parmc sort of keys of KEY_T, or of (KEY_T, VAL_T) records
// by key with VAL_T defined, checked against std::sort on the host, timed,
// and optionally CUB's merge and radix sorts of the same (libs_typed.cu, one
// object per type). For bench/sort/tiles.sh:
//   nvcc -O3 -arch=sm_90 -DKEY_T=double -include prog.h bench/sort/typebench.cu prog.cu libs_typed_f64.o -o tb
//   ./tb NAME LOGN [libs]
// Output: `RESULT NAME-LOGN method ms check` per method, as tilebench.cu.
#include "../timing.cuh"
#include "../suite/common.h"
#include "typed.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <type_traits>
#include <utility>

static char work[64];

static void result(const char *method, float ms, bool ok) {
    printf("RESULT %s %s %.4f %s\n", work, method, ms, ok ? "ok" : "FAIL");
}

// Finite values with duplicates where the type is narrow; no NaN and no -0.0
// (a comparison sort keeps -0.0 and 0.0 in either order).
template <class T> static T random_value(std::mt19937_64 &rng) {
    if (std::is_floating_point<T>::value) return (T)((double)((int64_t)rng() >> 11) * 0x1p-20);
    return (T)rng();
}

template <class T> static std::vector<T> fetch(const T *dev, size_t n) {
    std::vector<T> h(n);
    CHECK(cudaMemcpy(h.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s NAME LOGN [libs]\n", argv[0]); return 2; }
    int logn = atoi(argv[2]);
    bool libs = argc > 3 && !strcmp(argv[3], "libs");
    snprintf(work, sizeof work, "%s-%d", argv[1], logn);
    size_t n = (size_t)1 << logn;
    std::mt19937_64 rng(12345);
    std::vector<KEY_T> keys(n);
    for (auto &x : keys) x = random_value<KEY_T>(rng);
    KEY_T *kin, *kout, *kref;
    CHECK(cudaMalloc(&kin, n * sizeof(KEY_T)));
    CHECK(cudaMalloc(&kout, n * sizeof(KEY_T)));
    CHECK(cudaMalloc(&kref, n * sizeof(KEY_T)));
    CHECK(cudaMemcpy(kin, keys.data(), n * sizeof(KEY_T), cudaMemcpyHostToDevice));
    size_t bytes = n * sizeof(KEY_T);
#ifdef VAL_T
    std::vector<VAL_T> vals(n);
    for (auto &x : vals) x = random_value<VAL_T>(rng);
    VAL_T *vin, *vout, *vref;
    CHECK(cudaMalloc(&vin, n * sizeof(VAL_T)));
    CHECK(cudaMalloc(&vout, n * sizeof(VAL_T)));
    CHECK(cudaMalloc(&vref, n * sizeof(VAL_T)));
    CHECK(cudaMemcpy(vin, vals.data(), n * sizeof(VAL_T), cudaMemcpyHostToDevice));
    bytes += n * sizeof(VAL_T);
#endif
    void *copy_in, *copy_out;   // the 16-byte copy of all the planes' bytes
    CHECK(cudaMalloc(&copy_in, bytes));
    CHECK(cudaMalloc(&copy_out, bytes));
    CHECK(cudaMemset(copy_in, 1, bytes));
    bench_ctx *ctx;
    if (bench_ctx_create(&ctx)) { fprintf(stderr, "bench_ctx_create failed\n"); return 1; }
    cudaStream_t s = bench_ctx_stream(ctx);
#ifdef VAL_T
    auto parm = [&] { return bench_main(ctx, kin, vin, kout, vout, n); };
#else
    auto parm = [&] { return bench_main(ctx, kin, kout, n); };
#endif
    int status = parm();
    if (status) { fprintf(stderr, "bench_main: %s\n", bench_error_string(status)); return 1; }
    CHECK(cudaDeviceSynchronize());
    // keys: exactly std::sort's; records: keys in order, and the same records
    bool ok = true;
#ifdef VAL_T
    std::vector<KEY_T> ko = fetch(kout, n);
    std::vector<VAL_T> vo = fetch(vout, n);
    std::vector<std::pair<KEY_T, VAL_T>> want(n), got(n);
    for (size_t i = 0; i < n; i++) {
        want[i] = {keys[i], vals[i]};
        got[i] = {ko[i], vo[i]};
        if (i && ko[i - 1] > ko[i] && ok) { fprintf(stderr, "%s: keys out of order at %zu\n", work, i); ok = false; }
    }
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    if (ok && want != got) { fprintf(stderr, "%s: the records differ from the input's\n", work); ok = false; }
#else
    std::vector<KEY_T> got = fetch(kout, n);
    std::sort(keys.begin(), keys.end());
    for (size_t i = 0; i < n && ok; i++)
        if (got[i] != keys[i]) { fprintf(stderr, "%s: differs from std::sort at %zu of %zu\n", work, i, n); ok = false; }
#endif
    result("copy16", time_ms(s, [&] { copy16<<<1024, 256, 0, s>>>((const int4 *)copy_in, (int4 *)copy_out, bytes / 16); }),
           true);
    result("parmc", time_ms(s, [&] { if (parm()) { fprintf(stderr, "bench_main failed\n"); exit(1); } }), ok);
    if (libs) {
        Temp t_merge, t_radix;
#ifdef VAL_T
        result("cub_merge", time_ms(s, [&] { typed_merge(t_merge, kin, vin, kref, vref, (int)n, s); }), true);
        result("cub_radix", time_ms(s, [&] { typed_radix(t_radix, kin, vin, kref, vref, (int)n, s); }), true);
#else
        result("cub_merge", time_ms(s, [&] { typed_merge(t_merge, kin, kref, (int)n, s); }), true);
        result("cub_radix", time_ms(s, [&] { typed_radix(t_radix, kin, kref, (int)n, s); }), true);
#endif
    }
    bench_ctx_destroy(ctx);
    return ok ? 0 : 1;
}
