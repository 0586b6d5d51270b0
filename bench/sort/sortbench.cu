// sortbench.cu: times a parmc-compiled sort against a copy kernel and CUB on
// the same data, in one run. Built with one parmc output (its header is
// force-included with -include; compiled with --prefix bench, its entry is bench_main):
//   parmc --prefix bench sort.parm -o sort.cu
//   nvcc -O3 -arch=sm_90 -include sort.h bench/sort/sortbench.cu sort.cu -o sb
//   ./sb full LOGN           whole-array sort of 2^LOGN int32
//   ./sb rows LOGN LOGROW    2^(LOGN-LOGROW) rows of 2^LOGROW int32, each sorted
// Every result is checked element by element against CUB before timing.
#include <cub/cub.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "../timing.cuh"

static cudaStream_t s;    // the parmc context's: every method runs on it

struct Less {
    __device__ bool operator()(int a, int b) const { return a < b; }
};

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s full LOGN | rows LOGN LOGROW\n", argv[0]); return 2; }
    bool rows = !strcmp(argv[1], "rows");
    int logn = atoi(argv[2]), logrow = rows ? atoi(argv[3]) : logn;
    size_t n = (size_t)1 << logn, row = (size_t)1 << logrow, nrows = n / row;
    std::vector<int> host(n);
    std::mt19937 rng(12345);
    for (auto &x : host) x = (int)rng();
    int *in, *out, *ref, *tmp;
    CHECK(cudaMalloc(&in, n * 4));
    CHECK(cudaMalloc(&out, n * 4));
    CHECK(cudaMalloc(&ref, n * 4));
    CHECK(cudaMalloc(&tmp, n * 4));
    CHECK(cudaMemcpy(in, host.data(), n * 4, cudaMemcpyHostToDevice));
    std::vector<int> offsets(nrows + 1);
    for (size_t r = 0; r <= nrows; r++) offsets[r] = (int)(r * row);
    int *d_off;
    CHECK(cudaMalloc(&d_off, (nrows + 1) * 4));
    CHECK(cudaMemcpy(d_off, offsets.data(), (nrows + 1) * 4, cudaMemcpyHostToDevice));

    size_t tb_radix = 0, tb_merge = 0, tb_seg = 0, tb_segr = 0;
    cub::DeviceRadixSort::SortKeys(nullptr, tb_radix, in, ref, (int)n);
    cub::DeviceMergeSort::SortKeysCopy(nullptr, tb_merge, in, ref, (int)n, Less());
    cub::DeviceSegmentedSort::SortKeys(nullptr, tb_seg, in, ref, (int)n, (int)nrows, d_off, d_off + 1);
    cub::DeviceSegmentedRadixSort::SortKeys(nullptr, tb_segr, in, ref, (int)n, (int)nrows, d_off, d_off + 1);
    size_t tb = std::max(std::max(tb_radix, tb_merge), std::max(tb_seg, tb_segr));
    void *temp;
    CHECK(cudaMalloc(&temp, tb));

    // reference result, then parmc's, compared element by element
    if (rows) CHECK(cub::DeviceSegmentedSort::SortKeys(temp, tb, in, ref, (int)n, (int)nrows, d_off, d_off + 1));
    else CHECK(cub::DeviceRadixSort::SortKeys(temp, tb, in, ref, (int)n));
    bench_ctx *ctx;
    if (bench_ctx_create(&ctx)) { fprintf(stderr, "bench_ctx_create failed\n"); return 1; }
    s = bench_ctx_stream(ctx);
    CHECK(cudaMemset(out, 0xff, n * 4));
    int status = bench_main(ctx, in, out, n);
    if (status) { fprintf(stderr, "bench_main: %s\n", bench_error_string(status)); return 1; }
    CHECK(cudaDeviceSynchronize());
    std::vector<int> a(n), b(n);
    CHECK(cudaMemcpy(a.data(), out, n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(b.data(), ref, n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) { fprintf(stderr, "MISMATCH at %zu: parmc %d, cub %d\n", i, a[i], b[i]); return 1; }
    printf("check: parmc output equals CUB's on all %zu elements\n", n);

    float t_copy = time_ms(s, [&] { copy16<<<1024, 256, 0, s>>>((const int4 *)in, (int4 *)tmp, n / 4); });
    float t_memcpy = time_ms(s, [&] { cudaMemcpyAsync(tmp, in, n * 4, cudaMemcpyDeviceToDevice, s); });
    float t_parm = time_ms(s, [&] {
        if (bench_main(ctx, in, out, n)) { fprintf(stderr, "bench_main failed\n"); exit(1); }
    });
    printf("| method | ms | parmc speed-up |\n|---|---|---|\n");
    printf("| 16-byte copy kernel | %.4f | %.2fx (parmc = %.1f copies) |\n", t_copy, t_copy / t_parm, t_parm / t_copy);
    printf("| cudaMemcpy D2D | %.4f | |\n", t_memcpy);
    if (rows) {
        float t_seg = time_ms(s, [&] { cub::DeviceSegmentedSort::SortKeys(temp, tb, in, ref, (int)n, (int)nrows, d_off, d_off + 1, s); });
        float t_segr = time_ms(s, [&] { cub::DeviceSegmentedRadixSort::SortKeys(temp, tb, in, ref, (int)n, (int)nrows, d_off, d_off + 1, 0, 32, s); });
        printf("| cub::DeviceSegmentedSort | %.4f | %.2fx |\n", t_seg, t_seg / t_parm);
        printf("| cub::DeviceSegmentedRadixSort | %.4f | %.2fx |\n", t_segr, t_segr / t_parm);
    } else {
        float t_radix = time_ms(s, [&] { cub::DeviceRadixSort::SortKeys(temp, tb, in, ref, (int)n, 0, 32, s); });
        float t_merge = time_ms(s, [&] { cub::DeviceMergeSort::SortKeysCopy(temp, tb, in, ref, (int)n, Less(), s); });
        float t_thrust = time_ms(s, [&] {
            cudaMemcpyAsync(tmp, in, n * 4, cudaMemcpyDeviceToDevice, s);
            thrust::sort(thrust::cuda::par.on(s), thrust::device_ptr<int>(tmp), thrust::device_ptr<int>(tmp) + n);
        });
        printf("| cub::DeviceRadixSort | %.4f | %.2fx |\n", t_radix, t_radix / t_parm);
        printf("| cub::DeviceMergeSort | %.4f | %.2fx |\n", t_merge, t_merge / t_parm);
        printf("| thrust::sort (incl. a copy of the input) | %.4f | %.2fx |\n", t_thrust, t_thrust / t_parm);
    }
    printf("| parmc | %.4f | 1.00x |\n", t_parm);
    bench_ctx_destroy(ctx);
    cudaFree(in); cudaFree(out); cudaFree(ref); cudaFree(tmp); cudaFree(temp); cudaFree(d_off);
    return 0;
}
