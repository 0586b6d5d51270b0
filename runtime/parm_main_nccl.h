/* parm_main_nccl.h: the standalone main for several GPUs (--gpus, plan.h
 * "Ranks"): an NCCL communicator over the first PARM_RANKS devices
 * (ncclCommInitAll) and one thread per rank, each with its own context
 * (NAME_ctx_create_nccl) running the entry on its slice of every plane
 * (docs/api.md, "Several GPUs"); the median printed is rank 0's. It follows
 * parm_nccl.h and parm_main.h (which tests/sections/50-runtime.sh gives it
 * to compile it on its own). */
#ifndef PARM_MAIN_NCCL_H
#define PARM_MAIN_NCCL_H

#include <thread>
#include <vector>

/* Rank r's slice of the planes `whole`: the r-th of PARM_RANKS equal parts,
 * into host and bytes (of whole->count planes each); a plane every rank
 * holds whole is rank 0's to write back, the others' into `spare` (so
 * that no two threads write one host plane). */
static parm_main_planes parm_main_slice(const parm_main_planes *whole, int r, void **host,
                                        size_t *bytes, std::vector<std::vector<char>> &spare) {
    spare.resize((size_t)whole->count);
    for (int k = 0; k < whole->count; k++) {
        if (!whole->whole || !whole->whole[k]) {
            bytes[k] = whole->bytes[k] / PARM_RANKS;
            host[k] = (char *)whole->host[k] + (size_t)r * bytes[k];
            continue;
        }
        bytes[k] = whole->bytes[k];
        host[k] = whole->host[k];
        if (r) {
            spare[(size_t)k].resize(bytes[k] ? bytes[k] : 1);
            host[k] = spare[(size_t)k].data();
        }
    }
    parm_main_planes slice = {host, bytes, whole->what, whole->count, NULL};
    return slice;
}

static int parm_main_rank(int r, ncclComm_t comm, parm_main_fn call, size_t n,
                          const parm_main_planes *in, const parm_main_planes *out, int repeat) {
    parm_ctx *ctx = NULL;
    if (cudaSetDevice(r) != cudaSuccess) return PARM_ERROR_DEVICE;
    int status = parm_api_ctx_create_nccl(&ctx, comm, r, PARM_RANKS);
    if (status) return status;
    std::vector<void *> in_host((size_t)in->count + 1), out_host((size_t)out->count + 1);
    std::vector<size_t> in_bytes((size_t)in->count + 1), out_bytes((size_t)out->count + 1);
    std::vector<std::vector<char>> in_spare, out_spare;
    parm_main_planes in_slice = parm_main_slice(in, r, in_host.data(), in_bytes.data(), in_spare);
    parm_main_planes out_slice = parm_main_slice(out, r, out_host.data(), out_bytes.data(),
                                                 out_spare);
    status = parm_main_execute(ctx, call, n, &in_slice, &out_slice, repeat,
                               r == 0 ? " (rank 0)" : NULL);
    if (status == PARM_ERROR_CUDA) fprintf(stderr, "rank %d: %s\n", r, parm_api_ctx_message(ctx));
    if (status == PARM_ERROR_MEMORY && ctx->failed)
        fprintf(stderr, "rank %d: " PARM_MSG_ALLOC "\n", r, ctx->failed_bytes, ctx->failed);
    parm_api_ctx_destroy(ctx);
    return status;
}

/* The entry on every rank at once (parm_main_execute's work, per rank); the
 * first rank's failure is the status. */
static int parm_main_ranks(parm_main_fn call, size_t n, const parm_main_planes *in,
                           const parm_main_planes *out, int repeat) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < PARM_RANKS) {
        fprintf(stderr, "compiled for %d GPUs, %d present\n", PARM_RANKS, devices);
        return PARM_ERROR_DEVICE;
    }
    ncclComm_t comms[PARM_RANKS];
    int devs[PARM_RANKS], status[PARM_RANKS];
    for (int r = 0; r < PARM_RANKS; r++) devs[r] = r;
    ncclResult_t init = ncclCommInitAll(comms, PARM_RANKS, devs);
    if (init != ncclSuccess) {
        fprintf(stderr, "nccl: %s\n", ncclGetErrorString(init));
        return PARM_ERROR_CUDA;
    }
    std::vector<std::thread> threads;
    for (int r = 0; r < PARM_RANKS; r++)
        threads.emplace_back(
            [&, r] { status[r] = parm_main_rank(r, comms[r], call, n, in, out, repeat); });
    for (auto &t : threads) t.join();
    int first = PARM_OK;
    for (int r = 0; r < PARM_RANKS; r++) {
        ncclCommDestroy(comms[r]);
        if (!first) first = status[r];
    }
    return first;
}

#endif
