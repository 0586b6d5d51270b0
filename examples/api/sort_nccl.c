/* Sort 2^20 int32 keys on two GPUs with parmc's examples/sort.parm, from C:
 * one thread per GPU, each with its own context and its half of the keys,
 * NCCL between the GPUs (docs/api.md, "Several GPUs").
 *   parmc --gpus 2 examples/sort.parm -o sort.cu && nvcc -O3 -arch=sm_90 -c sort.cu
 *   cc -O2 -I. -I/usr/local/cuda/include sort_nccl.c sort.o -L/usr/local/cuda/lib64 -lcudart -lnccl -lstdc++ -lpthread -o sort_nccl */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "sort.h"   /* includes nccl.h */

#define GPUS 2
static const size_t n = (size_t)1 << 20;   /* the whole array */
static int32_t *keys;
static ncclComm_t comms[GPUS];

static void *rank_main(void *arg) {
    int r = (int)(intptr_t)arg;
    size_t slice = n / GPUS;               /* rank r holds keys r*slice .. (r+1)*slice-1 */
    int32_t *in, *out;
    cudaSetDevice(r);
    cudaMalloc((void **)&in, slice * sizeof *keys);
    cudaMalloc((void **)&out, slice * sizeof *keys);
    cudaMemcpy(in, keys + r * slice, slice * sizeof *keys, cudaMemcpyHostToDevice);
    cudaDeviceSynchronize();               /* the context's stream does not wait for stream 0 */
    sort_ctx *ctx;
    int status = sort_ctx_create_nccl(&ctx, comms[r], r, GPUS);   /* on device r */
    if (!status) status = sort_main(ctx, in, out, n);   /* this rank's slices, the whole length */
    if (status) {
        fprintf(stderr, "rank %d: %s\n", r, sort_error_string(status));
        exit(1);
    }
    cudaStreamSynchronize(sort_ctx_stream(ctx));
    cudaMemcpy(keys + r * slice, out, slice * sizeof *keys, cudaMemcpyDeviceToHost);
    sort_ctx_destroy(ctx);
    cudaFree(in);
    cudaFree(out);
    return NULL;
}

int main(void) {
    keys = malloc(n * sizeof *keys);
    for (size_t i = 0; i < n; i++) keys[i] = rand() - RAND_MAX / 2;
    int devs[GPUS] = {0, 1};
    if (ncclCommInitAll(comms, GPUS, devs) != ncclSuccess) {
        fputs("NCCL: no communicator over GPUs 0 and 1\n", stderr);
        return 1;
    }
    pthread_t threads[GPUS];
    for (int r = 0; r < GPUS; r++) pthread_create(&threads[r], NULL, rank_main, (void *)(intptr_t)r);
    for (int r = 0; r < GPUS; r++) pthread_join(threads[r], NULL);
    for (int r = 0; r < GPUS; r++) ncclCommDestroy(comms[r]);
    for (size_t i = 1; i < n; i++)
        if (keys[i - 1] > keys[i]) {
            puts("not sorted");
            return 1;
        }
    printf("sorted %zu keys on %d GPUs\n", n, GPUS);
    free(keys);
    return 0;
}
