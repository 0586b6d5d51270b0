/* emit_target_cuda.c: the CUDA target for the host-side emitters
 * (emit_target.h): device pointers, the context's stream and its checks
 * (runtime/parm_host_cuda.h), NCCL contexts for several GPUs, copies on the
 * stream, the phases as kernels (emit_cuda.c). */
#include "emit.h"

/* With ranks (plan.h, "Ranks"), what the context's NCCL parts are sized by
 * (runtime/parm_host_cuda.h), then the host runtime. */
static void cuda_runtime(FILE *out, const EmitInput *in) {
    if (in->gpu_log)
        fprintf(
            out,
            "#define PARM_RANKS %d    /* compiled for so many GPUs (--gpus) */\n"
            "#define PARM_PIECES %d   /* the most pieces of an exchange (exchange_plan.h) */\n\n",
            1 << in->gpu_log, 1 << EXCHANGE_MAX_PIECE_LOG);
    emit_runtime(out, in, "parm_host_cuda.h", runtime_parm_host_cuda_h);
    if (in->gpu_log) emit_runtime(out, in, "parm_nccl.h", runtime_parm_nccl_h);
}

static void cuda_copy(FILE *out, const char *dst, const char *src, const char *bytes) {
    fprintf(
        out,
        "PARM_CHECK(ctx, cudaMemcpyAsync(%s, %s, %s, cudaMemcpyDeviceToDevice, ctx->stream));\n",
        dst, src, bytes);
}

static void cuda_gather(FILE *out, const char *dst, const char *src, unsigned long long slice,
                        int ranks) {
    (void)ranks;
    fprintf(out,
            "    PARM_NCCL(ctx, ncclAllGather(%s, %s, 0x%llxull, ncclInt8, ctx->comm, "
            "ctx->stream));\n",
            src, dst, slice);
}

/* A grid-stride loop: any grid covers the elements. */
static void cuda_loop(FILE *out, unsigned long long count) {
    fprintf(out,
            "    for (uint64_t x = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; x < %lluull; "
            "x += (uint64_t)gridDim.x * blockDim.x) {\n",
            count);
}

static void cuda_launch(FILE *out, const char *name, unsigned long long blocks, int threads) {
    fprintf(out, "    %s<<<%llu, %d, 0, ctx->stream>>>(", name, blocks, threads);
}

const Target target_cuda = {
    .pointers = "device",
    .restrict_ptr = "__restrict__ ",
    .includes = "#include <stdio.h>\n#include <cuda_runtime.h>\n",
    /* the runtime defines every operator; a program uses a few */
    .before_runtime = "#pragma nv_diag_suppress 177\n",
    .helpers = "",
    .header_includes = "#include <cuda_runtime.h>\n",
    .header_includes_ranks = "#include <nccl.h>\n",
    .header_decls = "/* The stream every entry runs on; entries do not synchronise. */\n"
                    "cudaStream_t {p}_ctx_stream({p}_ctx *ctx);\n"
                    "/* Later calls run on `stream` (0: the context's own stream again); a\n"
                    "   stream of another device gives {P}_ERROR_DEVICE and changes nothing. */\n"
                    "int {p}_ctx_set_stream({p}_ctx *ctx, cudaStream_t stream);\n"
                    "/* The message of the last CUDA error of this context. */\n"
                    "const char *{p}_ctx_message({p}_ctx *ctx);\n",
    .header_decls_ranks =
        "/* Compiled for {G} GPUs (--gpus): the context of rank `rank` of the NCCL\n"
        "   communicator `comm` of nranks = {G} ranks, on the current device. Each rank\n"
        "   calls every entry with its own context and its slice of each array (of\n"
        "   n / {G} elements, n the whole array's length); exchanges are grouped\n"
        "   ncclSend/ncclRecv on the context's stream. {P}_ERROR_LENGTH when nranks is\n"
        "   not {G}; an entry called with a context of {p}_ctx_create gives\n"
        "   {P}_ERROR_NULL. */\n"
        "int {p}_ctx_create_nccl({p}_ctx **ctx, ncclComm_t comm, int rank, int nranks);\n",
    .rank_slices = true,
    .ranks_check =
        "    if (!ctx->comm) return PARM_ERROR_NULL;   /* a context of NAME_ctx_create_nccl */\n",
    .rank_index = "(size_t)ctx->rank",
    .gather = cuda_gather,
    .entry_check = "    int device_status = parm_check_device(ctx);\n"
                   "    if (device_status) return device_status;\n",
    .ctx_message = true,
    .runtime = cuda_runtime,
    .main_name = "parm_main_cuda.h",
    .main_text = runtime_parm_main_cuda_h,
    .main_ranks_name = "parm_main_nccl.h",
    .main_ranks_text = runtime_parm_main_nccl_h,
    .copy = cuda_copy,
    .node_head = "static __global__ void",
    .node_loop = cuda_loop,
    .node_launch = cuda_launch,
    .node_check = "    PARM_CHECK(ctx, cudaGetLastError());\n",
    .reduce_node = emit_graph_reduce_cuda,
    .reduce_call = "    if ((status = %s(ctx, ",
    .reduce_end = "))) return status;\n",
    .scan_node = emit_graph_scan_cuda,
    .reduce_partials = true,
    .phase = emit_cuda_phases,
    .phase_call = emit_cuda_phase_call,
    .exec_start = emit_cuda_exec_start,
    .whole_body = emit_cuda_whole_body,
    .exchange_step = emit_cuda_exchange_step,
};
