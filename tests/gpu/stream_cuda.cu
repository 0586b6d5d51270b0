/* stream_cuda.cu: the caller's stream (docs/api.md), on a sort compiled with
 * --prefix st from an entry main (xs : [2^n]i32):
 *   parmc --prefix st sort.parm -o st.cu
 *   nvcc -O3 -arch=sm_90 -include st.h tests/gpu/stream_cuda.cu st.cu -o stream
 *   stream LOGN
 * Each case queues, on the stream the context is set to, a kernel that
 * spins for a while and only then writes the input (n - 1 - i at i), then
 * the call: a call that ran on another stream, or did not wait for the
 * stream's earlier work, would sort the zeros that were there before. The
 * call must return while the spin still runs (it never synchronises). The
 * cases change the stream between calls, so scratch memory moves from one
 * stream to the next. A stream of another device (with two GPUs) must give
 * ST_ERROR_DEVICE and leave the context as it was, and a context on the
 * second device must work there. Prints PASS/FAIL lines;
 * exit status 0 when all pass. */
#include <stdio.h>
#include <stdlib.h>

static int failures;

static void check(bool ok, const char *what, const char *detail) {
    printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", what, detail ? ": " : "", detail ? detail : "");
    failures += !ok;
}

static void must(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "stream: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

/* Spins for about `cycles` clock cycles, then writes xs[i] = n - 1 - i. */
static __global__ void late_input(int32_t *xs, size_t n, long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        xs[i] = (int32_t)(n - 1 - i);
}

/* One case: the context on `stream` (as given to st_ctx_set_stream; `wait`
 * is the stream to synchronise afterwards), the input written late on it. */
static void run_case(st_ctx *ctx, const char *what, cudaStream_t stream, cudaStream_t wait, int32_t *in, int32_t *out,
                     int32_t *host, size_t n) {
    char detail[160];
    must(cudaMemset(in, 0, n * sizeof *in), "cudaMemset");
    must(cudaMemset(out, 0xff, n * sizeof *out), "cudaMemset");
    must(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    int status = st_ctx_set_stream(ctx, stream);
    if (status) {
        snprintf(detail, sizeof detail, "st_ctx_set_stream: %s", st_error_string(status));
        check(false, what, detail);
        return;
    }
    cudaStream_t used = st_ctx_stream(ctx);
    late_input<<<64, 256, 0, used>>>(in, n, 200000000LL);   /* about 0.1 s */
    must(cudaGetLastError(), "late_input");
    status = st_main(ctx, in, out, n);
    cudaError_t pending = cudaStreamQuery(used);
    if (status) {
        snprintf(detail, sizeof detail, "st_main: %s (%s)", st_error_string(status), st_ctx_message(ctx));
        check(false, what, detail);
        return;
    }
    must(cudaStreamSynchronize(wait), "cudaStreamSynchronize");
    must(cudaMemcpy(host, out, n * sizeof *host, cudaMemcpyDeviceToHost), "cudaMemcpy");
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += host[i] != (int32_t)i;
    snprintf(detail, sizeof detail, "%zu of %zu elements wrong; the stream was %s when the call returned", bad, n,
             pending == cudaErrorNotReady ? "still busy" : "idle (the call waited?)");
    check(bad == 0 && pending == cudaErrorNotReady, what, detail);
}

/* A stream of the caller's destroyed as soon as the call on it returns,
 * its work still running (the frameworks' streams go so): the result is
 * right, and a call on the next stream works (the context does not touch
 * the destroyed stream again; before, freeing the scratch there failed). */
static void run_destroyed(st_ctx *ctx, cudaStream_t next, int32_t *in, int32_t *out, int32_t *host, size_t n) {
    cudaStream_t gone;
    must(cudaStreamCreateWithFlags(&gone, cudaStreamNonBlocking), "cudaStreamCreate");
    must(cudaMemset(in, 0, n * sizeof *in), "cudaMemset");
    must(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    int status = st_ctx_set_stream(ctx, gone);
    late_input<<<64, 256, 0, gone>>>(in, n, 200000000LL);
    must(cudaGetLastError(), "late_input");
    if (!status) status = st_main(ctx, in, out, n);
    must(cudaStreamDestroy(gone), "cudaStreamDestroy");
    must(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    must(cudaMemcpy(host, out, n * sizeof *host, cudaMemcpyDeviceToHost), "cudaMemcpy");
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += host[i] != (int32_t)i;
    check(status == ST_OK && bad == 0, "a stream destroyed while its call runs", st_error_string(status));
    run_case(ctx, "the next stream after a destroyed one", next, next, in, out, host, n);
}

/* A first call on a device loads the kernels there, which may wait for
 * the device: done before the cases, whose calls must not wait. */
static void warm_up(st_ctx *ctx, int32_t *in, int32_t *out, size_t n) {
    if (st_main(ctx, in, out, n) != ST_OK || cudaDeviceSynchronize() != cudaSuccess) {
        fprintf(stderr, "stream: the first call failed\n");
        exit(1);
    }
    late_input<<<1, 32>>>(in, 1, 0);
    must(cudaDeviceSynchronize(), "late_input");
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: stream LOGN\n");
        return 2;
    }
    size_t n = (size_t)1 << atoi(argv[1]);
    int32_t *in, *out, *host = (int32_t *)malloc(n * sizeof *host);
    must(cudaMalloc(&in, n * sizeof *in), "cudaMalloc");
    must(cudaMalloc(&out, n * sizeof *out), "cudaMalloc");
    st_ctx *ctx;
    if (st_ctx_create(&ctx) != ST_OK) {
        fprintf(stderr, "stream: st_ctx_create failed\n");
        return 1;
    }
    warm_up(ctx, in, out, n);
    cudaStream_t own = st_ctx_stream(ctx), mine, other;
    must(cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking), "cudaStreamCreate");
    must(cudaStreamCreate(&other), "cudaStreamCreate");

    run_case(ctx, "the context's own stream", 0, own, in, out, host, n);
    run_case(ctx, "a stream of the caller's", mine, mine, in, out, host, n);
    check(st_ctx_stream(ctx) == mine, "st_ctx_stream returns the caller's stream", NULL);
    run_case(ctx, "another stream of the caller's (the scratch moves)", other, other, in, out, host, n);
    run_case(ctx, "the legacy default stream", cudaStreamLegacy, cudaStreamLegacy, in, out, host, n);
    run_case(ctx, "the per-thread default stream", cudaStreamPerThread, cudaStreamPerThread, in, out, host, n);
    run_case(ctx, "0: the context's own stream again", 0, own, in, out, host, n);
    check(st_ctx_stream(ctx) == own, "st_ctx_stream returns the own stream after 0", NULL);
    run_case(ctx, "the caller's stream again", mine, mine, in, out, host, n);
    run_destroyed(ctx, other, in, out, host, n);
    run_destroyed(ctx, own, in, out, host, n);

    int devices = 0;
    must(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    if (devices > 1) {
        cudaStream_t far;
        must(cudaSetDevice(1), "cudaSetDevice");
        must(cudaStreamCreate(&far), "cudaStreamCreate");
        must(cudaSetDevice(0), "cudaSetDevice");
        int status = st_ctx_set_stream(ctx, far);
        check(status == ST_ERROR_DEVICE && st_ctx_stream(ctx) == mine, "a stream of another device is refused",
              st_error_string(status));
        run_case(ctx, "the context after the refusal", mine, mine, in, out, host, n);
        /* a context on the second device (its kernels' attributes are set
           there too, not only on the first device) */
        st_ctx *ctx1;
        int32_t *in1, *out1;
        must(cudaSetDevice(1), "cudaSetDevice");
        must(cudaMalloc(&in1, n * sizeof *in1), "cudaMalloc");
        must(cudaMalloc(&out1, n * sizeof *out1), "cudaMalloc");
        if (st_ctx_create(&ctx1) == ST_OK) {
            warm_up(ctx1, in1, out1, n);
            run_case(ctx1, "a context on the second device", far, far, in1, out1, host, n);
            check(st_ctx_set_stream(ctx1, mine) == ST_ERROR_DEVICE, "the first device's stream is refused there", NULL);
        } else {
            check(false, "a context on the second device", "st_ctx_create failed");
        }
        st_ctx_destroy(ctx1);
        cudaFree(in1);
        cudaFree(out1);
        must(cudaSetDevice(0), "cudaSetDevice");
    } else {
        printf("SKIP a stream of another device (one GPU)\n");
    }
    check(st_ctx_set_stream(NULL, mine) == ST_ERROR_NULL, "a null context", NULL);

    st_ctx_destroy(ctx);
    must(cudaStreamDestroy(mine), "cudaStreamDestroy");
    must(cudaStreamDestroy(other), "cudaStreamDestroy");
    cudaFree(in);
    cudaFree(out);
    free(host);
    printf("%d failure%s\n", failures, failures == 1 ? "" : "s");
    return failures != 0;
}
