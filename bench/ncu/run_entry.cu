// run_entry.cu: runs one entry of a parmc program twice on random i32 keys,
// for a profiler to look at (bench/ncu/where_time_goes.sh). Built with the
// program compiled with --prefix bench, its header force-included:
//   nvcc -O3 -arch=sm_90 -include prog.h -DENTRY=bench_main bench/ncu/run_entry.cu prog.cu
//   ./a.out LOGN
#include "../timing.cuh"

__global__ void fill(int32_t *x, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) x[i] = (int32_t)(i * 2654435761u ^ (i >> 7) * 40503u);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s LOGN\n", argv[0]); return 2; }
    size_t n = (size_t)1 << atoi(argv[1]);
    int32_t *in, *out;
    CHECK(cudaMalloc(&in, n * sizeof *in));
    CHECK(cudaMalloc(&out, n * sizeof *out));
    fill<<<(unsigned)((n + 255) / 256), 256>>>(in, n);
    bench_ctx *ctx;
    if (bench_ctx_create(&ctx) != BENCH_OK) { fprintf(stderr, "ctx_create failed\n"); return 1; }
    for (int run = 0; run < 2; run++)
        if (ENTRY(ctx, in, out, n) != BENCH_OK) { fprintf(stderr, "%s\n", bench_ctx_message(ctx)); return 1; }
    CHECK(cudaStreamSynchronize(bench_ctx_stream(ctx)));
    bench_ctx_destroy(ctx);
    printf("ran 2^%s twice\n", argv[1]);
    return 0;
}
