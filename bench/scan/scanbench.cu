// scanbench.cu: times a parmc-compiled prefix scan of 2^24 int32 (an entry
// of bench/scan/scans.parm) against the 16-byte copy kernel and CUB's
// DeviceScan on the same data, in one run, after checking parmc's result
// against CUB's element by element. Built with one parmc output (its header
// force-included; --prefix bench):
//   parmc --prefix bench -e exscan_blocks_i32 bench/scan/scans.parm -o ex.cu
//   nvcc -O3 -arch=sm_90 -DENTRY=bench_exscan_blocks_i32 -DEXCLUSIVE -include ex.h \
//       bench/scan/scanbench.cu ex.cu -o ex
// (without -DEXCLUSIVE the entry is an inclusive scan). bench/scan/run.sh
// builds and runs it for the scans of blocks.
#include <cub/cub.cuh>

#include <cstdio>
#include <random>
#include <vector>

#include "../timing.cuh"

#ifdef EXCLUSIVE
static const char *const kind = "exclusive";
#else
static const char *const kind = "inclusive";
#endif

int main() {
    const size_t n = (size_t)1 << 24;
    std::vector<int> host(n);
    std::mt19937 rng(26);
    for (auto &x : host) x = (int)(rng() % 201) - 100;   // sums stay far from overflow
    int *in, *out, *ref;
    CHECK(cudaMalloc(&in, n * 4));
    CHECK(cudaMalloc(&out, n * 4));
    CHECK(cudaMalloc(&ref, n * 4));
    CHECK(cudaMemcpy(in, host.data(), n * 4, cudaMemcpyHostToDevice));
    bench_ctx *ctx;
    if (bench_ctx_create(&ctx)) { fprintf(stderr, "bench_ctx_create failed\n"); return 1; }
    cudaStream_t s = bench_ctx_stream(ctx);
    size_t temp_bytes = 0;
    void *temp = nullptr;
    auto cub_scan = [&] {
#ifdef EXCLUSIVE
        CHECK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, ref, (int)n, s));
#else
        CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, ref, (int)n, s));
#endif
    };
    cub_scan();
    CHECK(cudaMalloc(&temp, temp_bytes));
    cub_scan();
    int status = ENTRY(ctx, in, out, n);
    if (status) { fprintf(stderr, "parmc: %s\n", bench_error_string(status)); return 1; }
    CHECK(cudaStreamSynchronize(s));
    std::vector<int> a(n), b(n);
    CHECK(cudaMemcpy(a.data(), out, n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(b.data(), ref, n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) { fprintf(stderr, "MISMATCH at %zu: parmc %d, cub %d\n", i, a[i], b[i]); return 1; }
    printf("check: parmc's %s scan equals CUB's on all %zu elements\n", kind, n);
    float t_copy = time_ms(s, [&] { copy16<<<1024, 256, 0, s>>>((const int4 *)in, (int4 *)out, n / 4); });
    float t_cub = time_ms(s, cub_scan);
    float t_parm = time_ms(s, [&] {
        if (ENTRY(ctx, in, out, n)) { fprintf(stderr, "parmc failed\n"); exit(1); }
    });
    printf("| method (%s scan of 2^24 int32) | ms | copies |\n|---|---|---|\n", kind);
    printf("| 16-byte copy kernel | %.4f | 1.00 |\n", t_copy);
    printf("| cub::DeviceScan | %.4f | %.2f |\n", t_cub, t_cub / t_copy);
    printf("| parmc | %.4f | %.2f (%.0f%% of a copy's speed; CUB/parmc %.2f) |\n", t_parm, t_parm / t_copy,
           100.0 * t_copy / t_parm, t_cub / t_parm);
    bench_ctx_destroy(ctx);
    return 0;
}
