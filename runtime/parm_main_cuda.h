/* parm_main_cuda.h: what the standalone main's run (parm_main.h, which
 * follows it) asks of the CUDA target: device copies of the host's planes,
 * and CUDA events on the context's stream for the timer. It follows
 * parm_host_cuda.h (which tests/sections/50-runtime.sh gives it to compile
 * it on its own). */
#ifndef PARM_MAIN_CUDA_H
#define PARM_MAIN_CUDA_H

/* Device planes of the host's sizes, with the host's bytes where `upload`;
 * what[k] says what plane k is for when it cannot be allocated.
 * A cudaMemcpy from pageable memory may return before its DMA lands, and
 * the context's non-blocking stream does not wait for stream 0: the run
 * waits for the device (parm_main_wait) before its first call. */
static int parm_main_device(parm_ctx *ctx, void **dev, void *const *host, const size_t *bytes,
                            const char *const *what, int count, int upload) {
    for (int k = 0; k < count; k++) {
        cudaError_t e = cudaMalloc(&dev[k], bytes[k] ? bytes[k] : 1);
        if (e == cudaErrorMemoryAllocation) {
            dev[k] = NULL;
            snprintf(ctx->message, sizeof ctx->message, "%s in device memory", what[k]);
            return parm_out_of_memory(ctx, bytes[k], ctx->message);
        }
        PARM_CHECK(ctx, e);
        if (upload) PARM_CHECK(ctx, cudaMemcpy(dev[k], host[k], bytes[k], cudaMemcpyHostToDevice));
    }
    return PARM_OK;
}

static int parm_main_host(parm_ctx *ctx, void *const *host, void *const *dev, const size_t *bytes,
                          int count) {
    for (int k = 0; k < count; k++)
        PARM_CHECK(ctx, cudaMemcpy(host[k], dev[k], bytes[k], cudaMemcpyDeviceToHost));
    return PARM_OK;
}

static void parm_main_free(void **dev, int count) {
    for (int k = 0; k < count; k++)
        if (dev[k]) cudaFree(dev[k]);
}

/* The device's work done: the copies, and the calls queued on the stream. */
static int parm_main_wait(parm_ctx *ctx) {
    PARM_CHECK(ctx, cudaDeviceSynchronize());
    return PARM_OK;
}

typedef struct {
    cudaEvent_t start, stop;
} parm_main_timer;

static int parm_main_timer_create(parm_ctx *ctx, parm_main_timer *t) {
    t->start = t->stop = NULL;
    PARM_CHECK(ctx, cudaEventCreate(&t->start));
    PARM_CHECK(ctx, cudaEventCreate(&t->stop));
    return PARM_OK;
}

static int parm_main_timer_start(parm_ctx *ctx, parm_main_timer *t) {
    PARM_CHECK(ctx, cudaEventRecord(t->start, ctx->stream));
    return PARM_OK;
}

static int parm_main_timer_stop(parm_ctx *ctx, parm_main_timer *t, double *ms) {
    PARM_CHECK(ctx, cudaEventRecord(t->stop, ctx->stream));
    PARM_CHECK(ctx, cudaEventSynchronize(t->stop));
    float f;
    PARM_CHECK(ctx, cudaEventElapsedTime(&f, t->start, t->stop));
    *ms = f;
    return PARM_OK;
}

static void parm_main_timer_destroy(parm_main_timer *t) {
    if (t->start) cudaEventDestroy(t->start);
    if (t->stop) cudaEventDestroy(t->stop);
}

#endif
