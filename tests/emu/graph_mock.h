/* graph_mock.h: CUDA device code of entry graphs run on the CPU for
 * tests/emu/graph.sh: a thread per CUDA thread, one block at a time,
 * barriers for __syncthreads, __syncwarp and for warp shuffles (every lane writes its
 * value, then reads its partner's), and the host calls of NAME_run
 * (scratch, copies) on host memory; permutation kernels too. */
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
struct dim3e { unsigned x; };
static thread_local dim3e threadIdx, blockIdx;
static dim3e blockDim, gridDim;
/* One cluster of blocks runs at a time (a block alone where the kernel has
 * no __cluster_dims__): each block of it has its barriers, its warps' and
 * its shared memory, and the cluster a barrier of all its threads. */
enum { EMU_MAX_CLUSTER = 8 };
static thread_local unsigned emu_rank;   /* the thread's block in its cluster */
static std::barrier<> *block_bar[EMU_MAX_CLUSTER], *cluster_bar;
static std::barrier<> *warp_bar[EMU_MAX_CLUSTER][64];
static uint64_t warp_slots[EMU_MAX_CLUSTER][64][32];
#define __syncthreads() block_bar[emu_rank]->arrive_and_wait()
#define __syncwarp(mask) warp_bar[emu_rank][threadIdx.x >> 5]->arrive_and_wait()
#define PARM_CLUSTER_RANK() emu_rank
#define PARM_CLUSTER_SYNC() cluster_bar->arrive_and_wait()
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define PARM_REMAT(x) ((void)0)
#define PARM_REMAT64(x) ((void)0)
#define cudaFuncSetAttribute(...) 0
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor(...) 0
#include "cp_async.h"
alignas(16) static unsigned char emu_shared_mem[EMU_MAX_CLUSTER][232448];   /* each block's dynamic shared memory */
#define emu_shared (emu_shared_mem[emu_rank])
/* p, in this block's shared memory, in block r's */
template <typename T> static T *emu_dsmem(T *p, unsigned r) {
    const unsigned char *own = emu_shared, *at = (const unsigned char *)p;
    if (r >= EMU_MAX_CLUSTER || at < own || at >= own + sizeof emu_shared_mem[0]) {
        fprintf(stderr, "graph emu: a cluster access outside shared memory (rank %u)\n", r);
        exit(5);
    }
    return (T *)(void *)(emu_shared_mem[r] + (at - own));
}
#define PARM_DSMEM(p, r) emu_dsmem((p), (r))
#define __shared__ static
#define PARM_FN static inline
struct uint4 { unsigned x, y, z, w; };
template <typename T> T parm_shfl_down(unsigned mask, T v, int delta) {
    (void)mask;
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned width = blockDim.x - warp * 32 < 32 ? blockDim.x - warp * 32 : 32;
    uint64_t b = 0;
    memcpy(&b, &v, sizeof(T));
    warp_slots[emu_rank][warp][lane] = b;
    warp_bar[emu_rank][warp]->arrive_and_wait();
    if (lane + delta < width) memcpy(&v, &warp_slots[emu_rank][warp][lane + delta], sizeof(T));
    warp_bar[emu_rank][warp]->arrive_and_wait();
    return v;
}
template <typename T> T parm_shfl_up(unsigned mask, T v, int delta) {
    (void)mask;
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint64_t b = 0;
    memcpy(&b, &v, sizeof(T));
    warp_slots[emu_rank][warp][lane] = b;
    warp_bar[emu_rank][warp]->arrive_and_wait();
    if (lane >= (unsigned)delta) memcpy(&v, &warp_slots[emu_rank][warp][lane - delta], sizeof(T));
    warp_bar[emu_rank][warp]->arrive_and_wait();
    return v;
}
/* a scan's look-back (emit_graph.c): blocks run one at a time, in order */
static unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
#define __threadfence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define cudaMemsetAsync(p, v, n, st) (memset(p, v, n), 0)
struct parm_ctx { int stream, device; };
typedef int cudaError_t;        /* a permutation's kernels launch on a stream (emit_bmmc.c) */
typedef int cudaStream_t;
enum { PARM_OK, PARM_ERROR_ALIAS = 6 };
#define PARM_CHECK(ctx, x) ((void)(x))
#define cudaGetLastError() 0
static int parm_scratch(parm_ctx *, size_t bytes, const char *, char **base) { *base = (char *)calloc(bytes + 16, 1); return 0; }
static int parm_call_done(parm_ctx *) { return PARM_OK; }
static inline int parm_overlap(const void *, size_t, const void *, size_t) { return 0; }
#define cudaMemcpyAsync(d, s, n, k, st) memcpy(d, s, n)
template <typename F> static void launch(unsigned grid, unsigned block, F f, unsigned cluster = 1) {
    gridDim.x = grid; blockDim.x = block;
    if (cluster > EMU_MAX_CLUSTER || grid % cluster) {
        fprintf(stderr, "graph emu: %u blocks in clusters of %u\n", grid, cluster);
        exit(5);
    }
    for (unsigned b0 = 0; b0 < grid; b0 += cluster) {
        std::barrier<> cbar(block * cluster);
        cluster_bar = &cbar;
        for (unsigned r = 0; r < cluster; r++) {
            block_bar[r] = new std::barrier<>(block);
            for (unsigned w = 0; w * 32 < block; w++)
                warp_bar[r][w] = new std::barrier<>(block - w * 32 < 32 ? block - w * 32 : 32);
        }
        std::vector<std::thread> ts;
        for (unsigned r = 0; r < cluster; r++)
            for (unsigned t = 0; t < block; t++)
                ts.emplace_back([&, t, r, b0] {
                    threadIdx.x = t;
                    blockIdx.x = b0 + r;
                    emu_rank = r;
                    f();
                    if (cp_pending()) {
                        fprintf(stderr, "graph emu: block %u thread %u ends with cp.async copies that no wait covered\n", b0 + r, t);
                        exit(4);
                    }
                });
        for (auto &t : ts) t.join();
        for (unsigned r = 0; r < cluster; r++) {
            delete block_bar[r];
            for (unsigned w = 0; w * 32 < block; w++) delete warp_bar[r][w];
        }
    }
}
