// emu.cpp: runs the generated CUDA kernels on the CPU, one pthread per CUDA
// thread and one block at a time, so that the emitted CUDA text is checked
// before any GPU time is spent. Built by `run.sh emu` on kernels for small
// arrays, with their host launchers cut out (they need nvcc's <<< >>>).
#include <pthread.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct Dim {
    unsigned x, y, z;
};
static thread_local Dim threadIdx, blockIdx;
static pthread_barrier_t barrier;

static void __syncthreads() { pthread_barrier_wait(&barrier); }

// Static locals are shared by every thread of the process, which is what
// __shared__ means while a single block runs.
#define __global__
#define __shared__ static
#define __launch_bounds__(n)
#define __restrict__ __restrict
#define PERM_LAUNCH(f) nullptr
#include "emu_kernels.cuh"

struct Job {
    const void *kernel;
    const void *in;
    void *out;
    unsigned block, thread;
};

template <typename T> static void *run_thread(void *arg)
{
    const Job *j = (const Job *)arg;
    blockIdx = {j->block, 0, 0};
    threadIdx = {j->thread, 0, 0};
    ((void (*)(const T *, T *))j->kernel)((const T *)j->in, (T *)j->out);
    return nullptr;
}

template <typename T>
static void launch(const void *kernel, const T *in, T *out, unsigned blocks, unsigned threads)
{
    std::vector<pthread_t> tid(threads);
    std::vector<Job> jobs(threads);
    for (unsigned b = 0; b < blocks; b++) {
        pthread_barrier_init(&barrier, nullptr, threads);
        for (unsigned t = 0; t < threads; t++) {
            jobs[t] = {kernel, in, out, b, t};
            pthread_create(&tid[t], nullptr, run_thread<T>, &jobs[t]);
        }
        for (unsigned t = 0; t < threads; t++)
            pthread_join(tid[t], nullptr);
        pthread_barrier_destroy(&barrier);
    }
}

template <typename T> static long check(const PermCase *pc)
{
    size_t size = (size_t)1 << pc->n;
    std::vector<T> in(size), out(size, (T)-1);
    for (size_t x = 0; x < size; x++)
        in[x] = (T)((x + 1) * 0x9e3779b97f4a7c15ull >> 7);
    launch<T>(pc->kernel, in.data(), out.data(), 1u << (pc->n - pc->tile_log),
              1u << pc->thread_log);
    long bad = 0;
    for (size_t y = 0; y < size; y++) {
        uint64_t v = y ^ pc->c, x = 0;
        for (int i = 0; i < pc->n; i++)
            x |= (uint64_t)__builtin_parityll(pc->inv[i] & v) << i;
        bad += out[y] != in[x];
    }
    return bad;
}

int main()
{
    int failures = 0;
    for (int k = 0; k < PERM_CASES; k++) {
        const PermCase *pc = &perm_cases[k];
        long bad = pc->elem_bytes == 8 ? check<long long>(pc) : check<int>(pc);
        printf("emu %-20s %s (%ld wrong)\n", pc->name, bad ? "FAIL" : "ok", bad);
        failures += bad != 0;
    }
    return failures ? 1 : 0;
}
