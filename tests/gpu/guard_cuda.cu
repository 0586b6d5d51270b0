// guard_cuda.cu: the CUDA counterpart of tests/tools/guard_main.c. Runs one
// entry of a CUDA output (without --emit-main) through its API with every
// device array between two guard regions filled with a pattern, and checks
// after the call that the guards still hold the pattern and the input is
// unchanged, so that a write past an array or into the input fails.
//
//   guard_entry.py prog.h main > entry.h
//   nvcc -arch=sm_90 -Iruntime -Itests/tools -I. -include entry.h tests/gpu/guard_cuda.cu prog.cu -o guard
//   guard [-a] < input
//
// -a also checks calls whose arrays overlap (docs/api.md), as guard_main.c
// does. Exit status: 0 right, 1 an error from the entry or the input, 3 a
// wrong result, a changed guard or a changed input.
#include <cuda_runtime.h>

#include "guard_io.h"

#define PATTERN 0xa5
#define GUARD_BYTES 4096

static void check(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "guard: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

struct Plane {
    unsigned char *base;    // guard, data, guard
    unsigned char *data;
    size_t bytes;
};

static void plane_new(Plane *p, size_t bytes) {
    p->bytes = bytes;
    check(cudaMalloc((void **)&p->base, bytes + 2 * GUARD_BYTES), "cudaMalloc");
    check(cudaMemset(p->base, PATTERN, bytes + 2 * GUARD_BYTES), "cudaMemset");
    p->data = p->base + GUARD_BYTES;
}

static int plane_guards_intact(const Plane *p) {
    static unsigned char host[2][GUARD_BYTES];
    check(cudaMemcpy(host[0], p->base, GUARD_BYTES, cudaMemcpyDeviceToHost), "cudaMemcpy");
    check(cudaMemcpy(host[1], p->data + p->bytes, GUARD_BYTES, cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < GUARD_BYTES; i++)
            if (host[s][i] != PATTERN) return 0;
    return 1;
}

// Whether device bytes [at, at + bytes) equal host bytes `want`.
static int device_equal(const void *at, const unsigned char *want, size_t bytes) {
    unsigned char *got = (unsigned char *)malloc(bytes + 1);
    if (!got) exit(1);
    check(cudaMemcpy(got, at, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    int same = memcmp(got, want, bytes) == 0;
    free(got);
    return same;
}

// The arrays are filled on stream 0 (cudaMemset, cudaMemcpy from pageable
// memory, which may return before its DMA lands); the context's stream is
// non-blocking, so the call waits for the device first.
static int call(GUARD_API(ctx) *ctx, void **in, void **out, size_t n) {
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    int status = GUARD_CALL(ctx, in, out, n);
    if (!status) check(cudaStreamSynchronize(GUARD_API(ctx_stream)(ctx)), "cudaStreamSynchronize");
    return status;
}

// One call on arrays that overlap: input k copied to in_at[k], output k at
// out_at[k]; the result must be `want` (host planes).
static int overlapped_call(GUARD_API(ctx) *ctx, const char *what, unsigned char *const *host_in, unsigned char *const *want,
                           void **in_at, void **out_at, size_t n) {
    for (int k = 0; k < GUARD_NIN; k++)
        check(cudaMemcpy(in_at[k], host_in[k], in_bytes(k, n), cudaMemcpyHostToDevice), "cudaMemcpy");
    int status = call(ctx, in_at, out_at, n);
    if (status) {
        fprintf(stderr, "guard: %s: %s\n", what, GUARD_API(error_string)(status));
        return 0;
    }
    for (int k = 0; k < GUARD_NOUT; k++)
        if (!device_equal(out_at[k], want[k], out_bytes(k, n))) {
            fprintf(stderr, "guard: %s: field %d differs from the call on separate arrays\n", what, k);
            return 0;
        }
    return 1;
}

// Input field k shares memory with output field k where both exist (as in
// guard_main.c); an output field with no input field of its index gets its own.
static int check_aliasing(GUARD_API(ctx) *ctx, unsigned char *const *host_in, unsigned char *const *want, size_t n) {
    int ok = 1;
    Plane both[GUARD_NIN], alone[GUARD_NOUT];
    void *in_at[GUARD_NIN], *out_at[GUARD_NOUT];
    for (int k = 0; k < GUARD_NIN; k++) {
        size_t most = k < GUARD_NOUT && out_bytes(k, n) > in_bytes(k, n) ? out_bytes(k, n) : in_bytes(k, n);
        plane_new(&both[k], 2 * most);
        in_at[k] = both[k].data;
        if (k < GUARD_NOUT) out_at[k] = both[k].data;
    }
    for (int k = GUARD_NIN; k < GUARD_NOUT; k++) {
        plane_new(&alone[k], out_bytes(k, n));
        out_at[k] = alone[k].data;
    }
    ok &= overlapped_call(ctx, "in place", host_in, want, in_at, out_at, n);
    for (int shift = -1; shift <= 1 && n >= 2; shift += 2) {
        for (int k = 0; k < GUARD_NIN; k++) {
            // half-way, at an element boundary (n may be odd for entries of any length)
            unsigned char *mid = both[k].data + n / 2 * (in_bytes(k, n) / n);
            in_at[k] = shift < 0 ? mid : both[k].data;
            if (k < GUARD_NOUT) out_at[k] = shift < 0 ? both[k].data : mid;
        }
        ok &= overlapped_call(ctx, shift < 0 ? "output half an array below the input" : "output half an array above the input",
                              host_in, want, in_at, out_at, n);
    }
    for (int k = 0; k < GUARD_NIN; k++) {
        ok &= plane_guards_intact(&both[k]);
        cudaFree(both[k].base);
    }
    for (int k = GUARD_NIN; k < GUARD_NOUT; k++) {
        ok &= plane_guards_intact(&alone[k]);
        cudaFree(alone[k].base);
    }
    return ok;
}

static int check_output_overlap(GUARD_API(ctx) *ctx, Plane *in, Plane *out, size_t n) {
    void *in_at[GUARD_NIN], *out_at[GUARD_NOUT];
    for (int k = 0; k < GUARD_NIN; k++) in_at[k] = in[k].data;
    for (int k = 0; k < GUARD_NOUT; k++) out_at[k] = out[0].data;
    int status = call(ctx, in_at, out_at, n);
    if (status != GUARD_STATUS(ERROR_ALIAS)) {
        fprintf(stderr, "guard: overlapping outputs gave '%s', not ERROR_ALIAS\n", GUARD_API(error_string)(status));
        return 0;
    }
    return 1;
}

int main(int argc, char **argv) {
    int aliasing = argc == 2 && !strcmp(argv[1], "-a");
    if (argc > 1 && !aliasing) {
        fprintf(stderr, "usage: %s [-a] < input\n", argv[0]);
        return 2;
    }
    unsigned char *host_in[GUARD_NIN], *host_out[GUARD_NOUT];
    size_t n = read_input(host_in);
    Plane in[GUARD_NIN], out[GUARD_NOUT];
    void *in_at[GUARD_NIN], *out_at[GUARD_NOUT];
    for (int k = 0; k < GUARD_NIN; k++) {
        plane_new(&in[k], in_bytes(k, n));
        check(cudaMemcpy(in[k].data, host_in[k], in[k].bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
        in_at[k] = in[k].data;
    }
    for (int k = 0; k < GUARD_NOUT; k++) {
        plane_new(&out[k], out_bytes(k, n));
        out_at[k] = out[k].data;
    }
    GUARD_API(ctx) *ctx;
    int status = GUARD_API(ctx_create)(&ctx);
    if (!status) status = call(ctx, in_at, out_at, n);
    if (status) {
        fprintf(stderr, "error: %s\n", GUARD_API(error_string)(status));
        if (status == GUARD_STATUS(ERROR_CUDA)) fprintf(stderr, "cuda: %s\n", GUARD_API(ctx_message)(ctx));
        GUARD_API(ctx_destroy)(ctx);
        return 1;
    }
    int ok = 1;
    for (int k = 0; k < GUARD_NIN; k++)
        if (!plane_guards_intact(&in[k]) || !device_equal(in[k].data, host_in[k], in[k].bytes)) {
            fprintf(stderr, "guard: input field %d or its guards changed\n", k);
            ok = 0;
        }
    for (int k = 0; k < GUARD_NOUT; k++) {
        if (!plane_guards_intact(&out[k])) {
            fprintf(stderr, "guard: the guards of output field %d changed\n", k);
            ok = 0;
        }
        host_out[k] = (unsigned char *)malloc(out[k].bytes + 1);
        if (!host_out[k]) return 1;
        check(cudaMemcpy(host_out[k], out[k].data, out[k].bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    }
    print_result(host_out, n);
    if (aliasing && same_types()) ok &= check_aliasing(ctx, host_in, host_out, n);
    if (aliasing && GUARD_NOUT > 1) ok &= check_output_overlap(ctx, in, out, n);
    GUARD_API(ctx_destroy)(ctx);
    for (int k = 0; k < GUARD_NIN; k++) {
        cudaFree(in[k].base);
        free(host_in[k]);
    }
    for (int k = 0; k < GUARD_NOUT; k++) {
        cudaFree(out[k].base);
        free(host_out[k]);
    }
    return ok ? 0 : 3;
}
