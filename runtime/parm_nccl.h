/* parm_nccl.h: the CUDA target's contexts for several GPUs (--gpus, plan.h
 * "Ranks"): NAME_ctx_create_nccl makes the context of one rank from an NCCL
 * communicator of as many ranks as the program was compiled for
 * (PARM_RANKS), with the communication stream and the events of its
 * exchanges. The emitted file includes it after parm_host_cuda.h (which
 * tests/sections/50-runtime.sh gives it to compile it on its own). */
#ifndef PARM_NCCL_H
#define PARM_NCCL_H

/* An NCCL call's failure: its error is the context's. */
#define PARM_NCCL(ctx, call) \
    do { \
        ncclResult_t parm_r = (call); \
        if (parm_r != ncclSuccess) { \
            (ctx)->nccl = parm_r; \
            PARM_FAILED(ctx, #call); \
            return PARM_ERROR_CUDA; \
        } \
    } while (0)

int parm_api_ctx_create_nccl(parm_ctx **out, ncclComm_t comm, int rank, int nranks) {
    if (!comm) return PARM_ERROR_NULL;
    int status = parm_api_ctx_create(out);
    if (status) return status;
    if (nranks != PARM_RANKS || rank < 0 || rank >= nranks) return PARM_ERROR_LENGTH;
    parm_ctx *ctx = *out;
    ctx->comm = comm;
    ctx->rank = rank;
    ctx->nranks = nranks;
    /* the communication stream at the highest priority, so that its NCCL
       kernels start while the packs and unpacks fill the GPU */
    int least, greatest;
    PARM_CHECK(ctx, cudaDeviceGetStreamPriorityRange(&least, &greatest));
    PARM_CHECK(ctx,
               cudaStreamCreateWithPriority(&ctx->comm_stream, cudaStreamNonBlocking, greatest));
    PARM_CHECK(ctx, cudaEventCreateWithFlags(&ctx->fork, cudaEventDisableTiming));
    for (int k = 0; k < PARM_PIECES; k++) {
        PARM_CHECK(ctx, cudaEventCreateWithFlags(&ctx->packed[k], cudaEventDisableTiming));
        PARM_CHECK(ctx, cudaEventCreateWithFlags(&ctx->received[k], cudaEventDisableTiming));
    }
    return PARM_OK;
}

#endif
