/* Sort 2^20 int32 keys on the GPU with parmc's examples/sort.parm, from C.
 *   parmc examples/sort.parm -o sort.cu && nvcc -O3 -arch=sm_90 -c sort.cu
 *   cc -O2 -I. -I/usr/local/cuda/include sort_main.c sort.o -L/usr/local/cuda/lib64 -lcudart -lstdc++ -o sort_main */
#include <stdio.h>
#include <stdlib.h>
#include "sort.h"

int main(void) {
    size_t n = (size_t)1 << 20;
    int32_t *keys = malloc(n * sizeof *keys), *in, *out;
    for (size_t i = 0; i < n; i++) keys[i] = rand() - RAND_MAX / 2;
    cudaMalloc((void **)&in, n * sizeof *keys);
    cudaMalloc((void **)&out, n * sizeof *keys);
    cudaMemcpy(in, keys, n * sizeof *keys, cudaMemcpyHostToDevice);
    sort_ctx *ctx;
    int status = sort_ctx_create(&ctx);
    if (!status) status = sort_main(ctx, in, out, n);   /* stream-ordered, no sync */
    if (status) { fprintf(stderr, "parmc: %s\n", sort_error_string(status)); return 1; }
    cudaStreamSynchronize(sort_ctx_stream(ctx));   /* the context's stream does not sync with stream 0 */
    cudaMemcpy(keys, out, n * sizeof *keys, cudaMemcpyDeviceToHost);
    for (size_t i = 1; i < n; i++) if (keys[i - 1] > keys[i]) { puts("not sorted"); return 1; }
    printf("sorted %zu keys\n", n);
    sort_ctx_destroy(ctx);
    cudaFree(in); cudaFree(out); free(keys);
    return 0;
}
