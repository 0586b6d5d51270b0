// emu.cpp: runs the LOCAL kernels of a parmc CUDA output on the CPU, one
// thread per CUDA thread and one block at a time, so the CUDA back end is
// checked against the interpreter on machines without a GPU. run.sh extracts
// the runtime (ops.h), the kernels (kernels.h) and their launch
// configurations and arguments (launches.h) from the .cu file, and the
// entry's run-time scalar parameters (args.h). Elements are NSLOTS fields of
// one C type SLOT_T (run.sh reads them from the kernels' parameters): int32_t,
// float or double, one or two fields. The input is the standalone main's:
// the scalars before the array, its elements, then the scalars after it.
#include <pthread.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
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
#include "args.h"
#include "kernels.h"

// One kernel call with its arguments bound, run once per thread.
typedef std::function<void()> Kernel;

struct Job {
    const Kernel *k;
    unsigned block, thread;
};

static void *run(void *arg) {
    Job *j = (Job *)arg;
    blockIdx = {j->block, 0, 0};
    threadIdx = {j->thread, 0, 0};
    (*j->k)();
    return nullptr;
}

static void launch(const Kernel &k, unsigned blocks, unsigned threads) {
    std::vector<pthread_t> th(threads);
    std::vector<Job> jobs(threads);
    for (unsigned b = 0; b < blocks; b++) {
        pthread_barrier_init(&barrier, nullptr, threads);
        for (unsigned t = 0; t < threads; t++) {
            jobs[t] = {&k, b, t};
            pthread_create(&th[t], nullptr, run, &jobs[t]);
        }
        for (unsigned t = 0; t < threads; t++) pthread_join(th[t], nullptr);
        pthread_barrier_destroy(&barrier);
    }
}

// Text as the interpreter reads and prints it (runtime/parm_io.h).
/* integers of every width: read wide, wrapped to the type as the interpreter does */
template <typename T> static bool read_value(const std::string &t, T *v) {
    char *end;
    *v = std::is_signed<T>::value ? (T)strtoll(t.c_str(), &end, 10) : (T)strtoull(t.c_str(), &end, 10);
    return *end == 0;
}
template <typename T> static void print_value(T v) {
    if (std::is_signed<T>::value) printf("%lld", (long long)v);
    else printf("%llu", (unsigned long long)v);
}
/* f32 is rounded from the double, as the interpreter reads it */
static bool read_value(const std::string &t, float *v) { char *end; *v = (float)strtod(t.c_str(), &end); return *end == 0; }
static bool read_value(const std::string &t, double *v) { char *end; *v = strtod(t.c_str(), &end); return *end == 0; }
static void print_value(float v) { printf("%.9g", (double)v); }
static void print_value(double v) { printf("%.17g", v); }

static int bad_input(const std::string &t) {
    fprintf(stderr, "emu: bad input value '%s'\n", t.c_str());
    return 1;
}

int main() {
    std::vector<std::string> tok;
    for (char t[64]; scanf("%63s", t) == 1;) tok.push_back(t);
    // the scalars before the array from the front, those after it from
    // `rest`: the array's tokens are [first, after)
    size_t nafter = 0;
#define COUNT_AFTER(name, before) nafter += !(before);
    SCALAR_ARGS(COUNT_AFTER)
    if (nafter > tok.size()) return bad_input("(too few values)");
    size_t first = 0, after = tok.size() - nafter, rest = after;
#define READ_ARG(name, before)                                                        \
    {                                                                                 \
        size_t at = (before) ? first++ : rest++;                                      \
        if (at >= tok.size() || first > after) return bad_input("(too few values)"); \
        if (!read_value(tok[at], &name)) return bad_input(tok[at]);                   \
    }
    SCALAR_ARGS(READ_ARG)
    std::vector<SLOT_T> planes[2][NSLOTS];
    for (size_t i = first; i < after; i++) {
        SLOT_T v;
        if (!read_value(tok[i], &v)) return bad_input(tok[i]);
        planes[0][(i - first) % NSLOTS].push_back(v);
    }
    SLOT_T *src[NSLOTS], *dst[NSLOTS];
    for (int k = 0; k < NSLOTS; k++) {
        planes[1][k].resize(planes[0][k].size());
        src[k] = planes[0][k].data();
        dst[k] = planes[1][k].data();
    }
#define LAUNCH(kernel, blocks, threads, args) \
    launch([&] { kernel args; }, blocks, threads); \
    std::swap(src, dst);
#include "launches.h"
    for (size_t i = 0; i < planes[0][0].size(); i++)
        for (int k = 0; k < NSLOTS; k++) {
            print_value(src[k][i]);
            putchar(k + 1 < NSLOTS ? ' ' : '\n');
        }
}
