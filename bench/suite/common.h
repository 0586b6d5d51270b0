// common.h: shared by the issue-5 benchmark harness (bench/run.sh).
// main.cu holds the driver, libs_*.cu wrap the library sorts (each its own
// translation unit so that they compile in parallel), table.cu is written by
// gen.py and lists the parmc programs that compiled.
#pragma once
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef CHECK   // bench/timing.cuh's, where a driver includes both
#define CHECK(call)                                                                           \
    do {                                                                                      \
        cudaError_t err_ = (call);                                                            \
        if (err_ != cudaSuccess) {                                                            \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                     \
                    cudaGetErrorString(err_));                                                \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)
#endif

// Temporary storage of one library method, grown on demand (the first call
// is a warm-up call, so no allocation falls into a timed run).
struct Temp {
    void *p = nullptr;
    size_t bytes = 0;
    void *get(size_t want)
    {
        if (want > bytes) {
            if (p) CHECK(cudaFree(p));
            CHECK(cudaMalloc(&p, want));
            bytes = want;
        }
        return p;
    }
};

// libs_radix.cu
void cub_radix_keys(Temp &t, const int32_t *in, int32_t *out, int n, cudaStream_t s);
void cub_radix_keys_u64(Temp &t, const uint64_t *in, uint64_t *out, int n, cudaStream_t s);
void cub_radix_pairs(Temp &t, const uint32_t *kin, const int32_t *vin, uint32_t *kout,
                     int32_t *vout, int n, cudaStream_t s);
// libs_merge.cu
void cub_merge_keys(Temp &t, const int32_t *in, int32_t *out, int n, cudaStream_t s);
void cub_merge_pairs(Temp &t, const uint32_t *kin, const int32_t *vin, uint32_t *kout,
                     int32_t *vout, int n, cudaStream_t s);
// libs_thrust.cu: sort in place (the caller copies the input first)
void thrust_sort(int32_t *a, size_t n, cudaStream_t s);
void thrust_sort_cmp(int32_t *a, size_t n, cudaStream_t s);
// libs_seg.cu, libs_segradix.cu: nseg segments given by offsets (nseg + 1 ints)
void cub_segsort_keys(Temp &t, const int32_t *in, int32_t *out, int n, int nseg,
                      const int *off, cudaStream_t s);
void cub_segradix_keys(Temp &t, const int32_t *in, int32_t *out, int n, int nseg,
                       const int *off, cudaStream_t s);

// The parmc programs (table.cu). Each program NAME is compiled to NAME.cu,
// so its API's prefix is NAME (NAME_ctx_create, NAME_NAME for its entry
// NAME) and all of them link into one binary. parm_ctx stands for every
// program's context type (NAME_ctx), which the harness only passes on.
struct parm_ctx;
enum Kind { K_PERM, K_SORT, K_KV, K_BATCH };
struct Prog {
    const char *name;   // entry name, e.g. bitrev_i32_24
    int kind;           // Kind
    const char *group;  // perm: bitrev, transpose, ...; sort: bpm, bitonic; batched: rows
    int logn;           // 2^logn elements
    int esize;          // bytes per element (kv: key bytes + value bytes)
    int logrow;         // batched: 2^logrow elements per row
    void *entry;        // <name>_<name>, cast by kind
    int (*create)(parm_ctx **);
    void (*destroy)(parm_ctx *);
    cudaStream_t (*stream)(parm_ctx *);
    const char *(*errstr)(int);
    unsigned long long inv[64];  // perm: rows of A^-1 (x = A^-1 (y ^ c))
    unsigned long long c;        // perm: complement
};
extern Prog progs[];
extern int nprogs;
