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
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <type_traits>
#include <vector>

struct Dim {
    unsigned x, y, z;
};
static thread_local Dim threadIdx, blockIdx;
static Dim gridDim;
// One cluster of blocks runs at a time (a block alone where the kernel has
// no __cluster_dims__): each block of it has its barriers and its shared
// memory, and the cluster a barrier of all its threads.
enum { MAX_CLUSTER = 8 };
static thread_local unsigned emu_rank;   // the thread's block in its cluster
static pthread_barrier_t barrier[MAX_CLUSTER], warp_barrier[MAX_CLUSTER][32], cluster_barrier;
static void __syncthreads() { pthread_barrier_wait(&barrier[emu_rank]); }
static void __syncwarp(unsigned) { pthread_barrier_wait(&warp_barrier[emu_rank][threadIdx.x / 32]); }
alignas(16) static unsigned char shared_mem[MAX_CLUSTER][1 << 18];
static unsigned char *emu_shared() { return shared_mem[emu_rank]; }
#define PARM_CLUSTER_RANK() emu_rank
#define PARM_CLUSTER_SYNC() pthread_barrier_wait(&cluster_barrier)
// p, in this block's shared memory, in block r's
template <typename T> static T *emu_dsmem(T *p, unsigned r) {
    const unsigned char *own = shared_mem[emu_rank], *at = (const unsigned char *)p;
    if (r >= MAX_CLUSTER || at < own || at >= own + sizeof shared_mem[0]) {
        fprintf(stderr, "emu: a cluster access outside shared memory (rank %u)\n", r);
        exit(5);
    }
    return (T *)(void *)(shared_mem[r] + (at - own));
}
#define PARM_DSMEM(p, r) emu_dsmem((p), (r))

#include "cp_async.h"

#define __global__
#define __launch_bounds__(...)
#define __shared__ static   // a permutation kernel's tile: one block runs at a time
#define __align__(n) __attribute__((aligned(n)))
#include "ops.h"
#include "args.h"
#include "kernels.h"

// One kernel call with its arguments bound, run once per thread.
typedef std::function<void()> Kernel;

// An entry of any length (run.sh defines PAD_COLS_LOG, and PAD_ROWS_LOG >= 0
// for rows): its kernels take the shape after the planes, as the launches
// pass it.
#ifdef PAD_COLS_LOG
static uint64_t parm_rows = 1, parm_cols;
#endif

struct Job {
    const Kernel *k;
    unsigned block, thread, rank;
};

static void *run(void *arg) {
    Job *j = (Job *)arg;
    blockIdx = {j->block, 0, 0};
    threadIdx = {j->thread, 0, 0};
    emu_rank = j->rank;
    (*j->k)();
    if (cp_pending()) {
        fprintf(stderr, "emu: block %u thread %u ends with cp.async copies that no wait covered\n", j->block, j->thread);
        exit(4);
    }
    return nullptr;
}

// The kernels' cluster sizes (run.sh: CLUSTER(kernel, blocks) from their
// __cluster_dims__), by name; 1 for the others.
static unsigned cluster_of(const char *kernel) {
#define CLUSTER(name, blocks) if (!strcmp(kernel, #name)) return blocks;
#include "clusters.h"
#undef CLUSTER
    return 1;
}

static void launch(const Kernel &k, unsigned blocks, unsigned threads, unsigned cluster = 1) {
    if (cluster > MAX_CLUSTER || blocks % cluster) {
        fprintf(stderr, "emu: %u blocks in clusters of %u\n", blocks, cluster);
        exit(5);
    }
    std::vector<pthread_t> th(threads * cluster);
    std::vector<Job> jobs(threads * cluster);
    gridDim = {blocks, 1, 1};
    for (unsigned b0 = 0; b0 < blocks; b0 += cluster) {
        pthread_barrier_init(&cluster_barrier, nullptr, threads * cluster);
        for (unsigned r = 0; r < cluster; r++) {
            pthread_barrier_init(&barrier[r], nullptr, threads);
            for (unsigned w = 0; w * 32 < threads; w++)
                pthread_barrier_init(&warp_barrier[r][w], nullptr, threads - w * 32 < 32 ? threads - w * 32 : 32);
        }
        for (unsigned r = 0; r < cluster; r++)
            for (unsigned t = 0; t < threads; t++) {
                jobs[r * threads + t] = {&k, b0 + r, t, r};
                pthread_create(&th[r * threads + t], nullptr, run, &jobs[r * threads + t]);
            }
        for (unsigned t = 0; t < threads * cluster; t++) pthread_join(th[t], nullptr);
        pthread_barrier_destroy(&cluster_barrier);
        for (unsigned r = 0; r < cluster; r++) {
            pthread_barrier_destroy(&barrier[r]);
            for (unsigned w = 0; w * 32 < threads; w++) pthread_barrier_destroy(&warp_barrier[r][w]);
        }
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

#ifdef PAD_COLS_LOG
#define CANARY 4096
// The input's shape; the kernels run through scratch planes of the padded
// size, the first reading the input and the last writing the output, which
// hold the shape's elements alone (as the plan's buffers, plan.h).
int main() {
    std::vector<SLOT_T> in[NSLOTS], out[NSLOTS], scratch[2][NSLOTS];
    std::vector<std::string> tok;
    for (char t[64]; scanf("%63s", t) == 1;) tok.push_back(t);
    size_t first = 0;
    long long row_len = 0;
    if (PAD_ROWS_LOG >= 0 && (tok.empty() || !read_value(tok[first++], &row_len) || row_len <= 0))
        return bad_input("(no row length)");
    for (size_t i = first; i < tok.size(); i++) {
        SLOT_T v;
        if (!read_value(tok[i], &v)) return bad_input(tok[i]);
        in[(i - first) % NSLOTS].push_back(v);
    }
    size_t m = in[0].size();
    parm_cols = PAD_ROWS_LOG >= 0 ? (uint64_t)row_len : m;
    parm_rows = PAD_ROWS_LOG >= 0 ? m / row_len : 1;
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
    // a permutation's kernels, one per field (LAUNCH_FIELD), are one phase
    // (`more`: the next launch is of the same phase)
    struct Launch { Kernel k; unsigned blocks, threads; bool more; unsigned cluster; };
    std::vector<Launch> launches;
#define LAUNCH(kernel, blocks, threads, args) launches.push_back({[&] { kernel args; }, blocks, threads, false, cluster_of(#kernel)});
#define LAUNCH_FIELD(kernel, blocks, threads, args) launches.push_back({[&] { kernel args; }, blocks, threads, true, 1});
#define FIELDS_END() launches.back().more = false;
#include "launches.h"
    size_t phases = 0, phase = 0;
    for (const Launch &l : launches) phases += !l.more;
    for (size_t i = 0; i < launches.size(); i++) {
        if (i == 0 || !launches[i - 1].more)
            for (int k = 0; k < NSLOTS; k++) dst[k] = phase + 1 == phases ? outs[k] : sc[phase % 2][k];
        launch(launches[i].k, launches[i].blocks, launches[i].threads, launches[i].cluster);
        if (launches[i].more) continue;
        for (int k = 0; k < NSLOTS; k++) src[k] = dst[k];
        phase++;
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
    // MISALIGN (run.sh, EMU_MISALIGN=1): every plane starts one element past
    // a 16-byte boundary, so the kernels take their element-wise copies
    // instead of the 16-byte vectors of --vector-copies
#ifdef MISALIGN
    const size_t skew = 1;
#else
    const size_t skew = 0;
#endif
    size_t count = planes[0][0].size();
    SLOT_T *src[NSLOTS], *dst[NSLOTS];
    for (int k = 0; k < NSLOTS; k++) {
        planes[0][k].insert(planes[0][k].begin(), skew, SLOT_T());
        planes[1][k].resize(planes[0][k].size());
        src[k] = planes[0][k].data() + skew;
        dst[k] = planes[1][k].data() + skew;
    }
#define LAUNCH(kernel, blocks, threads, args) \
    launch([&] { kernel args; }, blocks, threads, cluster_of(#kernel)); \
    std::swap(src, dst);
#define LAUNCH_FIELD(kernel, blocks, threads, args) launch([&] { kernel args; }, blocks, threads);
#define FIELDS_END() std::swap(src, dst);
#include "launches.h"
    for (size_t i = 0; i < count; i++)
        for (int k = 0; k < NSLOTS; k++) {
            print_value(src[k][i]);
            putchar(k + 1 < NSLOTS ? ' ' : '\n');
        }
}
#endif
