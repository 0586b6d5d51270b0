// anybench.cu: times a parmc sort of any length (docs/language.md, section 7)
// against CUB on the same data, with the result checked element by element
// first. Built with one parmc output compiled with --prefix bench:
//   parmc --prefix bench examples/sort_any.parm -o sa.cu
//   nvcc -O3 -arch=sm_90 -include sa.h -DFULL bench/sort/anybench.cu sa.cu -o ab_full
//   ./ab_full N                  N int32 keys (any N up to the entry's size)
//   parmc --prefix bench examples/batched_any.parm -o ba.cu
//   nvcc -O3 -arch=sm_90 -include ba.h bench/sort/anybench.cu ba.cu -o ab_rows
//   ./ab_rows ROWS ROW_LEN       ROWS rows of ROW_LEN int32, row-major, each sorted
// The arrays hold exactly the keys given (cudaMalloc of N or ROWS * ROW_LEN),
// so the comparison with a power-of-two size (run the same binary at 2^k)
// is what the padding costs.
#include <cub/cub.cuh>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "../timing.cuh"

int main(int argc, char **argv) {
#ifdef FULL
    if (argc != 2) { fprintf(stderr, "usage: %s N\n", argv[0]); return 2; }
    size_t nrows = 1, row = strtoull(argv[1], nullptr, 10);
#else
    if (argc != 3) { fprintf(stderr, "usage: %s ROWS ROW_LEN\n", argv[0]); return 2; }
    size_t nrows = strtoull(argv[1], nullptr, 10), row = strtoull(argv[2], nullptr, 10);
#endif
    size_t n = nrows * row;
    std::vector<int> host(n);
    std::mt19937 rng(12345);
    for (auto &x : host) x = (int)rng();
    int *in, *out, *ref, *tmp, *d_off;
    CHECK(cudaMalloc(&in, n * 4));
    CHECK(cudaMalloc(&out, n * 4));
    CHECK(cudaMalloc(&ref, n * 4));
    CHECK(cudaMalloc(&tmp, n * 4));
    CHECK(cudaMemcpy(in, host.data(), n * 4, cudaMemcpyHostToDevice));
    std::vector<int> offsets(nrows + 1);
    for (size_t r = 0; r <= nrows; r++) offsets[r] = (int)(r * row);
    CHECK(cudaMalloc(&d_off, (nrows + 1) * 4));
    CHECK(cudaMemcpy(d_off, offsets.data(), (nrows + 1) * 4, cudaMemcpyHostToDevice));
    size_t tb_radix = 0, tb_seg = 0;
    cub::DeviceRadixSort::SortKeys(nullptr, tb_radix, in, ref, (int)n);
    cub::DeviceSegmentedSort::SortKeys(nullptr, tb_seg, in, ref, (int)n, (int)nrows, d_off, d_off + 1);
    size_t tb = std::max(tb_radix, tb_seg);
    void *temp;
    CHECK(cudaMalloc(&temp, tb));

    bench_ctx *ctx;
    if (bench_ctx_create(&ctx)) { fprintf(stderr, "bench_ctx_create failed\n"); return 1; }
    cudaStream_t s = bench_ctx_stream(ctx);
#ifdef FULL
    auto parm = [&] { return bench_main(ctx, in, out, n); };
    auto cub_sort = [&] { return cub::DeviceRadixSort::SortKeys(temp, tb, in, ref, (int)n, 0, 32, s); };
    const char *cub_name = "cub::DeviceRadixSort";
#else
    auto parm = [&] { return bench_main(ctx, in, out, nrows, row); };
    auto cub_sort = [&] {
        return cub::DeviceSegmentedSort::SortKeys(temp, tb, in, ref, (int)n, (int)nrows, d_off, d_off + 1, s);
    };
    const char *cub_name = "cub::DeviceSegmentedSort";
#endif
    CHECK(cub_sort());
    CHECK(cudaMemsetAsync(out, 0xff, n * 4, s));
    int status = parm();
    if (status) { fprintf(stderr, "bench_main: %s\n", bench_error_string(status)); return 1; }
    CHECK(cudaDeviceSynchronize());
    std::vector<int> a(n), b(n);
    CHECK(cudaMemcpy(a.data(), out, n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(b.data(), ref, n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) { fprintf(stderr, "MISMATCH at %zu: parmc %d, cub %d\n", i, a[i], b[i]); return 1; }
    printf("check: parmc output equals CUB's on all %zu elements (%zu rows of %zu)\n", n, nrows, row);
    float t_copy = time_ms(s, [&] { copy16<<<1024, 256, 0, s>>>((const int4 *)in, (int4 *)tmp, n / 4); });
    float t_parm = time_ms(s, [&] {
        if (parm()) { fprintf(stderr, "bench_main failed\n"); exit(1); }
    });
    float t_cub = time_ms(s, [&] { CHECK(cub_sort()); });
    printf("| method | ms | parmc speed-up |\n|---|---|---|\n");
    printf("| 16-byte copy kernel | %.4f | %.2fx (parmc = %.1f copies) |\n", t_copy, t_copy / t_parm, t_parm / t_copy);
    printf("| %s | %.4f | %.2fx |\n", cub_name, t_cub, t_cub / t_parm);
    printf("| parmc (%zu rows of %zu) | %.4f | 1.00x |\n", nrows, row, t_parm);
    bench_ctx_destroy(ctx);
    cudaFree(in); cudaFree(out); cudaFree(ref); cudaFree(tmp); cudaFree(temp); cudaFree(d_off);
    return 0;
}
