// emu.cpp: runs the LOCAL kernels of a parmc CUDA output on the CPU, one
// thread per CUDA thread and one block at a time, so the CUDA back end is
// checked against the interpreter on machines without a GPU. run.sh extracts
// the runtime (ops.h), the kernels (kernels.h) and their launch
// configurations (launches.h) from the .cu file. int32 elements only.
#include <pthread.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

struct Dim {
    unsigned x, y, z;
};
static thread_local Dim threadIdx, blockIdx;
static pthread_barrier_t barrier;
static void __syncthreads() { pthread_barrier_wait(&barrier); }
static unsigned char shared_mem[1 << 18];   // one block runs at a time

#define __global__
#define __launch_bounds__(...)
#include "ops.h"
#include "kernels.h"

typedef void (*Kernel)(const int32_t *, int32_t *);
struct Job {
    Kernel k;
    const int32_t *in;
    int32_t *out;
    unsigned block, thread;
};

static void *run(void *arg) {
    Job *j = (Job *)arg;
    blockIdx = {j->block, 0, 0};
    threadIdx = {j->thread, 0, 0};
    j->k(j->in, j->out);
    return nullptr;
}

static void launch(Kernel k, const int32_t *in, int32_t *out, unsigned blocks, unsigned threads) {
    std::vector<pthread_t> th(threads);
    std::vector<Job> jobs(threads);
    for (unsigned b = 0; b < blocks; b++) {
        pthread_barrier_init(&barrier, nullptr, threads);
        for (unsigned t = 0; t < threads; t++) {
            jobs[t] = {k, in, out, b, t};
            pthread_create(&th[t], nullptr, run, &jobs[t]);
        }
        for (unsigned t = 0; t < threads; t++) pthread_join(th[t], nullptr);
        pthread_barrier_destroy(&barrier);
    }
}

int main() {
    std::vector<int32_t> a, b;
    long v;
    while (scanf("%ld", &v) == 1) a.push_back((int32_t)v);
    b.resize(a.size());
    int32_t *src = a.data(), *dst = b.data();
#define LAUNCH(kernel, blocks, threads) \
    launch(kernel, src, dst, blocks, threads); \
    std::swap(src, dst);
#include "launches.h"
    for (size_t i = 0; i < a.size(); i++) printf("%d\n", src[i]);
}
