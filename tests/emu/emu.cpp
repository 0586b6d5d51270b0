// emu.cpp: runs the LOCAL kernels of a parmc CUDA output on the CPU, one
// thread per CUDA thread and one block at a time, so the CUDA back end is
// checked against the interpreter on machines without a GPU. run.sh extracts
// the runtime (ops.h), the kernels (kernels.h) and their launch
// configurations (launches.h) from the .cu file. Elements are NSLOTS fields
// of one C type SLOT_T (run.sh reads them from the kernels' parameters):
// int32_t, float or double, one or two fields.
#include <pthread.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <type_traits>
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

#if NSLOTS == 1
typedef void (*Kernel)(const SLOT_T *, SLOT_T *);
#define CALL(k, in, out) k(in[0], out[0])
#elif NSLOTS == 2
typedef void (*Kernel)(const SLOT_T *, const SLOT_T *, SLOT_T *, SLOT_T *);
#define CALL(k, in, out) k(in[0], in[1], out[0], out[1])
#endif

struct Job {
    Kernel k;
    SLOT_T *const *in;
    SLOT_T *const *out;
    unsigned block, thread;
};

static void *run(void *arg) {
    Job *j = (Job *)arg;
    blockIdx = {j->block, 0, 0};
    threadIdx = {j->thread, 0, 0};
    CALL(j->k, j->in, j->out);
    return nullptr;
}

static void launch(Kernel k, SLOT_T *const *in, SLOT_T *const *out, unsigned blocks, unsigned threads) {
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

// Text as the interpreter reads and prints it (runtime/parm_io.h).
/* integers of every width: read wide, wrapped to the type as the interpreter does */
template <typename T> static bool read_value(T *v) {
    long long x;
    bool ok = scanf("%lld", &x) == 1;
    *v = (T)x;
    return ok;
}
template <typename T> static void print_value(T v) {
    if (std::is_signed<T>::value) printf("%lld", (long long)v);
    else printf("%llu", (unsigned long long)v);
}
static bool read_value(float *v) { char t[64]; bool ok = scanf("%63s", t) == 1; *v = strtof(t, nullptr); return ok; }
static bool read_value(double *v) { char t[64]; bool ok = scanf("%63s", t) == 1; *v = strtod(t, nullptr); return ok; }
static void print_value(float v) { printf("%.9g", (double)v); }
static void print_value(double v) { printf("%.17g", v); }

int main() {
    std::vector<SLOT_T> planes[2][NSLOTS];
    for (bool more = true; more;)
        for (int k = 0; k < NSLOTS && more; k++) {
            SLOT_T v;
            if ((more = read_value(&v))) planes[0][k].push_back(v);
        }
    SLOT_T *src[NSLOTS], *dst[NSLOTS];
    for (int k = 0; k < NSLOTS; k++) {
        planes[1][k].resize(planes[0][k].size());
        src[k] = planes[0][k].data();
        dst[k] = planes[1][k].data();
    }
#define LAUNCH(kernel, blocks, threads) \
    launch(kernel, src, dst, blocks, threads); \
    std::swap(src, dst);
#include "launches.h"
    for (size_t i = 0; i < planes[0][0].size(); i++)
        for (int k = 0; k < NSLOTS; k++) {
            print_value(src[k][i]);
            putchar(k + 1 < NSLOTS ? ' ' : '\n');
        }
}
