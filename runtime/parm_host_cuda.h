/* parm_host_cuda.h: the host runtime of the CUDA target: the context, the
 * checks of CUDA calls, the stream, the scratch memory, and what the
 * kernels ask of the host (persistent grids, warp shuffles).
 *
 * The emitted file includes it after its status codes (PARM_OK...) and
 * `typedef struct NAME_ctx parm_ctx;`; compiled for several GPUs (--gpus,
 * plan.h "Ranks") it defines PARM_RANKS (the GPUs) and PARM_PIECES (the
 * most pieces of an exchange, exchange_plan.h) first, and parm_nccl.h
 * follows. The API's own names (NAME_ctx_create) are spelled here with a
 * placeholder prefix, which compiler/back/embed.sh turns into the program's, so
 * that programs of different prefixes link together.
 * tests/sections/50-runtime.sh compiles this header on its own. */
#ifndef PARM_HOST_CUDA_H
#define PARM_HOST_CUDA_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#ifdef PARM_RANKS
#include <nccl.h>
#endif

/* What ctx_destroy releases of an exchange's: with ranks, the communication
 * stream (once its work is done) and the events. */
#ifdef PARM_RANKS
#define PARM_EXCHANGE_DESTROY(ctx) \
    do { \
        if ((ctx)->comm_stream) { \
            cudaStreamSynchronize((ctx)->comm_stream); \
            cudaStreamDestroy((ctx)->comm_stream); \
        } \
        if ((ctx)->fork) cudaEventDestroy((ctx)->fork); \
        for (int parm_k = 0; parm_k < PARM_PIECES; parm_k++) { \
            if ((ctx)->packed[parm_k]) cudaEventDestroy((ctx)->packed[parm_k]); \
            if ((ctx)->received[parm_k]) cudaEventDestroy((ctx)->received[parm_k]); \
        } \
    } while (0)
#else
#define PARM_EXCHANGE_DESTROY(ctx) ((void)(ctx))
#endif

/* The context: calls run on `stream`, its own non-blocking stream unless
 * the caller set one (docs/api.md). The scratch memory is stream-ordered:
 * every call records `done` on its stream at its end, and a change of
 * stream makes the new one wait for that event before the scratch serves
 * it. The old stream is not touched again: the caller may destroy it once
 * its call has been queued (freeing the scratch there, as this did, failed
 * on a stream destroyed since, and every later call with it). */
struct parm_api_ctx {
#ifdef PARM_RANKS
    /* the context of one rank, made from an NCCL communicator of as many
       ranks as the program was compiled for; NCCL's errors are the ctx's too */
    ncclComm_t comm; /* NAME_ctx_create_nccl's */
    int rank, nranks;
    ncclResult_t nccl; /* the last NCCL error */
    /* an exchange's communication stream, forked from and joined to
       `stream` by events, and its per-piece events (emit_exchange) */
    cudaStream_t comm_stream;
    cudaEvent_t fork, packed[PARM_PIECES], received[PARM_PIECES];
#endif
    int device;
    int sms;             /* the device's SMs: persistent kernels' grids */
    int persistent_max;  /* > 0: at most so many persistent blocks */
    cudaStream_t own;    /* created with the context */
    cudaStream_t stream; /* the stream calls run on: own or the caller's */
    void *scratch;       /* allocated on a stream of the context's calls */
    size_t scratch_bytes;
    cudaEvent_t done; /* recorded on `stream` at the end of each call */
    cudaError_t last;
    const char *call; /* the failed call's text and line in this file */
    int line;
    char message[512];   /* parm_api_ctx_message's text */
    size_t failed_bytes; /* the allocation that gave PARM_ERROR_MEMORY, */
    const char *failed;  /* what it was for (the standalone main says) */
};

/* A failed call's error is the status's: it is cleared from the runtime so
   that a later launch check does not find it. The context keeps the call,
   which parm_api_ctx_message names with the error's text. */
#define PARM_FAILED(ctx, text) ((ctx)->call = (text), (ctx)->line = __LINE__)
#define PARM_CHECK(ctx, call) \
    do { \
        cudaError_t parm_e = (call); \
        if (parm_e != cudaSuccess) { \
            (ctx)->last = parm_e; \
            PARM_FAILED(ctx, #call); \
            (void)cudaGetLastError(); \
            return PARM_ERROR_CUDA; \
        } \
    } while (0)

/* "error (call at line N of FILE)": the error's text with the failed call. */
static const char *parm_message(parm_ctx *ctx, const char *error) {
    if (!ctx->call) return error;
    snprintf(ctx->message, sizeof ctx->message, "%s (%s at line %d of %s)", error, ctx->call,
             ctx->line, __FILE__);
    return ctx->message;
}

int parm_api_ctx_create(parm_ctx **out) {
    if (!out) return PARM_ERROR_NULL;
    parm_ctx *ctx = (parm_ctx *)calloc(1, sizeof *ctx);
    *out = ctx;
    if (!ctx) return PARM_ERROR_MEMORY;
    PARM_CHECK(ctx, cudaGetDevice(&ctx->device));
    PARM_CHECK(ctx, cudaDeviceGetAttribute(&ctx->sms, cudaDevAttrMultiProcessorCount, ctx->device));
    /* tests: persistent grids of at most PARM_PERSISTENT_BLOCKS blocks, so
       that small arrays give each block several tiles (tests/gpu) */
    const char *blocks = getenv("PARM_PERSISTENT_BLOCKS");
    ctx->persistent_max = blocks ? atoi(blocks) : 0;
    PARM_CHECK(ctx, cudaStreamCreateWithFlags(&ctx->own, cudaStreamNonBlocking));
    ctx->stream = ctx->own;
    PARM_CHECK(ctx, cudaEventCreateWithFlags(&ctx->done, cudaEventDisableTiming));
    return PARM_OK;
}

void parm_api_ctx_destroy(parm_ctx *ctx) {
    if (!ctx) return;
    if (ctx->scratch && ctx->own) {
        /* behind the last call, wherever it ran */
        cudaStreamWaitEvent(ctx->own, ctx->done, 0);
        cudaFreeAsync(ctx->scratch, ctx->own);
    }
    PARM_EXCHANGE_DESTROY(ctx);
    if (ctx->own) {
        cudaStreamSynchronize(ctx->own);
        cudaStreamDestroy(ctx->own);
    }
    if (ctx->done) cudaEventDestroy(ctx->done);
    free(ctx);
}

cudaStream_t parm_api_ctx_stream(parm_ctx *ctx) { return ctx ? ctx->stream : 0; }

/* A warp shuffle of any element type: its bits in a 32- or 64-bit word
 * through `shuffle` (one of the __shfl_*_sync below). */
template <typename T, typename F> __device__ __forceinline__ T parm_shfl_bits(T v, F shuffle) {
    if (sizeof(T) == 8) {
        unsigned long long b;
        memcpy(&b, &v, 8);
        b = shuffle(b);
        memcpy(&v, &b, 8);
        return v;
    }
    unsigned b = 0;
    memcpy(&b, &v, sizeof(T));
    b = shuffle(b);
    memcpy(&v, &b, sizeof(T));
    return v;
}

/* From the lane delta above (reductions), and from the lane delta below
 * (scans). */
template <typename T> __device__ __forceinline__ T parm_shfl_down(unsigned mask, T v, int delta) {
    return parm_shfl_bits(v, [=](auto b) { return __shfl_down_sync(mask, b, delta); });
}

template <typename T> __device__ __forceinline__ T parm_shfl_up(unsigned mask, T v, int delta) {
    return parm_shfl_bits(v, [=](auto b) { return __shfl_up_sync(mask, b, delta); });
}

int parm_api_ctx_set_stream(parm_ctx *ctx, cudaStream_t stream) {
    if (!ctx) return PARM_ERROR_NULL;
    if (!stream) stream = ctx->own;
    if (stream == ctx->stream) return PARM_OK;
#if CUDART_VERSION >= 12080
    int device;
    PARM_CHECK(ctx, cudaStreamGetDevice(stream, &device));
    if (device != ctx->device) return PARM_ERROR_DEVICE;
#endif
    if (ctx->scratch) PARM_CHECK(ctx, cudaStreamWaitEvent(stream, ctx->done, 0));
    ctx->stream = stream;
    return PARM_OK;
}

/* The message of the last error: with ranks, NCCL's if NCCL failed. */
#ifdef PARM_RANKS
const char *parm_api_ctx_message(parm_ctx *ctx) {
    if (!ctx) return "no context";
    return parm_message(ctx, ctx->nccl != ncclSuccess ? ncclGetErrorString(ctx->nccl)
                                                      : cudaGetErrorString(ctx->last));
}
#else
const char *parm_api_ctx_message(parm_ctx *ctx) {
    return ctx ? parm_message(ctx, cudaGetErrorString(ctx->last)) : "no context";
}
#endif

/* The grid of a persistent kernel (--tile-buffers) of `tiles` tiles: the
   blocks that the device's SMs hold at once, at most one per tile. */
static inline unsigned long long parm_persistent_grid(const parm_ctx *ctx, unsigned long long tiles,
                                                      int per_sm) {
    unsigned long long grid = (unsigned long long)ctx->sms * (unsigned long long)per_sm;
    if (ctx->persistent_max > 0 && grid > (unsigned long long)ctx->persistent_max)
        grid = ctx->persistent_max;
    return grid < tiles ? grid : tiles;
}

static int parm_check_device(parm_ctx *ctx) {
    int device;
    PARM_CHECK(ctx, cudaGetDevice(&device));
    return device == ctx->device ? PARM_OK : PARM_ERROR_DEVICE;
}

/* An allocation of `bytes` for `what` that failed: CUDA's error is cleared,
   not left for a later launch check to find. */
static int parm_out_of_memory(parm_ctx *ctx, size_t bytes, const char *what) {
    (void)cudaGetLastError();
    ctx->failed_bytes = bytes;
    ctx->failed = what;
    return PARM_ERROR_MEMORY;
}

/* The scratch memory of a call (`what`: whose), stream-ordered (no
   synchronisation) and kept for later calls. */
static int parm_scratch(parm_ctx *ctx, size_t bytes, const char *what, char **base) {
    if (ctx->scratch_bytes < bytes) {
        if (ctx->scratch) PARM_CHECK(ctx, cudaFreeAsync(ctx->scratch, ctx->stream));
        ctx->scratch = NULL;
        ctx->scratch_bytes = 0;
        cudaError_t e = cudaMallocAsync(&ctx->scratch, bytes, ctx->stream);
        if (e == cudaErrorMemoryAllocation) {
            ctx->scratch = NULL;
            return parm_out_of_memory(ctx, bytes, what);
        }
        PARM_CHECK(ctx, e);
        ctx->scratch_bytes = bytes;
    }
    *base = (char *)ctx->scratch;
    return PARM_OK;
}

/* The end of a call (NAME_run's last step): `done` on its stream, which a
   later change of stream waits for before the scratch serves another. */
static int parm_call_done(parm_ctx *ctx) {
    if (ctx->scratch) PARM_CHECK(ctx, cudaEventRecord(ctx->done, ctx->stream));
    return PARM_OK;
}

#endif
