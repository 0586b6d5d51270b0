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
#include <cstring>
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

// An entry of any length (run.sh defines PAD_COLS_LOG, and PAD_ROWS_LOG >= 0
// for rows): its kernels take the shape after the planes.
#ifdef PAD_COLS_LOG
static uint64_t shape_rows = 1, shape_cols;
#define SHAPE , uint64_t, uint64_t
#define SHAPE_ARGS , shape_rows, shape_cols
#else
#define SHAPE
#define SHAPE_ARGS
#endif
#if NSLOTS == 1
typedef void (*Kernel)(const SLOT_T *, SLOT_T * SHAPE);
#define CALL(k, in, out) k(in[0], out[0] SHAPE_ARGS)
#elif NSLOTS == 2
typedef void (*Kernel)(const SLOT_T *, const SLOT_T *, SLOT_T *, SLOT_T * SHAPE);
#define CALL(k, in, out) k(in[0], in[1], out[0], out[1] SHAPE_ARGS)
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

#ifdef PAD_COLS_LOG
#define CANARY 4096
// The input's shape; the kernels run through scratch planes of the padded
// size, the first reading the input and the last writing the output, which
// hold the shape's elements alone (as the plan's buffers, plan.h).
int main() {
    std::vector<SLOT_T> in[NSLOTS], out[NSLOTS], scratch[2][NSLOTS];
    long long row_len = 0;
    if (PAD_ROWS_LOG >= 0 && scanf("%lld", &row_len) != 1) return 1;
    for (bool more = true; more;)
        for (int k = 0; k < NSLOTS && more; k++) {
            SLOT_T v;
            if ((more = read_value(&v))) in[k].push_back(v);
        }
    size_t m = in[0].size();
    shape_cols = PAD_ROWS_LOG >= 0 ? (uint64_t)row_len : m;
    shape_rows = PAD_ROWS_LOG >= 0 ? m / row_len : 1;
    size_t padded = (size_t)1 << (PAD_COLS_LOG + (PAD_ROWS_LOG > 0 ? PAD_ROWS_LOG : 0));
    SLOT_T *src[NSLOTS], *dst[NSLOTS], *outs[NSLOTS], *sc[2][NSLOTS];
    for (int k = 0; k < NSLOTS; k++) {
        out[k].resize(m + CANARY);   // past the end: a pattern that must stay
        memset((void *)(out[k].data() + m), 0xa5, CANARY * sizeof(SLOT_T));
        scratch[0][k].resize(padded);
        scratch[1][k].resize(padded);
        src[k] = in[k].data();
        outs[k] = out[k].data();
        sc[0][k] = scratch[0][k].data();
        sc[1][k] = scratch[1][k].data();
    }
    struct Launch { Kernel k; unsigned blocks, threads; };
    std::vector<Launch> launches;
#define LAUNCH(kernel, blocks, threads) launches.push_back({kernel, blocks, threads});
#include "launches.h"
    for (size_t i = 0; i < launches.size(); i++) {
        for (int k = 0; k < NSLOTS; k++) dst[k] = i + 1 == launches.size() ? outs[k] : sc[i % 2][k];
        launch(launches[i].k, src, dst, launches[i].blocks, launches[i].threads);
        for (int k = 0; k < NSLOTS; k++) src[k] = dst[k];
    }
    for (int k = 0; k < NSLOTS; k++)
        for (size_t i = 0; i < CANARY * sizeof(SLOT_T); i++)
            if (((const unsigned char *)(outs[k] + m))[i] != 0xa5) {
                fprintf(stderr, "emu: a write past the end of the output\n");
                return 3;
            }
    for (size_t i = 0; i < m; i++)
        for (int k = 0; k < NSLOTS; k++) {
            print_value(src[k][i]);
            putchar(k + 1 < NSLOTS ? ' ' : '\n');
        }
}
#else
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
#endif
