// main.cu: the driver of bench/run.sh (issue 5). One process, one CUDA
// context: copies (the ceilings), then every parmc program of table.cu
// against a naive gather (permutations) or the libraries (sorts), each result
// checked element by element before it is timed.
//
// Output: CSV rows on stdout, one per measurement:
//   section,name,method,type,logn,logrow,bytes,ms,check
// section: memory | perm | sort | kv | batched; bytes: the size of the array
// (one copy reads and writes it once); ms: median of RUNS timed calls after
// WARM warm-up calls, CUDA events on the stream the method runs on; check:
// ok | FAIL | - (not checked: the naive gather is the reference itself).
// Progress and errors go to stderr. Exit status 1 if any check failed.
#include "common.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <vector>

enum { WARM = 3, RUNS = 25, THREADS = 256 };

static cudaStream_t S;  // copies and libraries run here; parmc on its context's stream
static int failures;

// ---------------------------------------------------------------- kernels
__device__ unsigned mix32(unsigned x)  // a bijection of 32 bits
{
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}
__device__ unsigned long long mix64(unsigned long long x)  // a bijection of 64 bits
{
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull; x ^= x >> 27; x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Permutation inputs: distinct and never 0 or -1, so that a wrong index or an
// unwritten (poisoned with 0xff) element shows.
// u8 and i16 cannot be distinct over 2^26 elements; the naive gather of
// the same input is the reference either way.
__device__ void put_distinct(uint8_t *a, size_t i) { a[i] = (uint8_t)mix32((unsigned)i + 1u); }
__device__ void put_distinct(int16_t *a, size_t i) { a[i] = (int16_t)mix32((unsigned)i + 1u); }
__device__ void put_distinct(int32_t *a, size_t i) { a[i] = (int32_t)mix32((unsigned)i + 1u); }
__device__ void put_distinct(int64_t *a, size_t i) { a[i] = (int64_t)mix64(i + 1); }
template <typename T> __global__ void fill_distinct(T *a, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) put_distinct(a, i);
}
// Sort inputs: uniform random 32-bit values with the duplicates random data has.
__global__ void fill_random(uint32_t *a, size_t n, unsigned long long seed)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = (uint32_t)(mix64(i + (seed << 40)) >> 32);
}

// out[y] = in[A^-1 (y ^ c)]: one parity per index bit, no tiling.
struct InvRows {
    unsigned long long row[64];
};
template <typename T>
__global__ void naive_gather(const T *in, T *out, InvRows inv, unsigned long long c, int n)
{
    unsigned long long y = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (y >> n) return;
    unsigned long long v = y ^ c, x = 0;
    for (int i = 0; i < n; i++) x |= (unsigned long long)(__popcll(inv.row[i] & v) & 1) << i;
    out[y] = in[x];
}

template <typename T>
__global__ void count_diff(const T *a, const T *b, size_t n, unsigned long long *bad)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && a[i] != b[i]) atomicAdd(bad, 1ull);
}

__global__ void copy16(const int4 *__restrict__ in, int4 *__restrict__ out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

// A (key, value) record as one 64-bit number, key in the high half: sorting
// these numbers sorts the records by (key, value).
__global__ void combine_kv(const uint32_t *k, const int32_t *v, uint64_t *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (uint64_t)k[i] << 32 | (uint32_t)v[i];
}

__global__ void iota_offsets(int *off, int nseg, int row)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= nseg) off[i] = i * row;
}

static unsigned grid(size_t n) { return (unsigned)((n + THREADS - 1) / THREADS); }

// Set-up work runs on the legacy stream, which the non-blocking streams of
// the methods do not wait for: finish it before anything else starts.
static void settle()
{
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
}
static void poison(void *p, size_t bytes)
{
    CHECK(cudaMemset(p, 0xff, bytes));
    settle();
}

// ---------------------------------------------------------------- helpers
static float time_ms(cudaStream_t st, const std::function<void()> &f)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (int i = 0; i < WARM; i++) f();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms(RUNS);
    for (int r = 0; r < RUNS; r++) {
        CHECK(cudaEventRecord(a, st));
        f();
        CHECK(cudaEventRecord(b, st));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaEventElapsedTime(&ms[r], a, b));
    }
    CHECK(cudaGetLastError());
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    std::sort(ms.begin(), ms.end());
    return ms[RUNS / 2];
}

template <typename T> static unsigned long long diff(const T *a, const T *b, size_t n)
{
    static unsigned long long *bad;
    if (!bad) CHECK(cudaMalloc(&bad, sizeof *bad));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemset(bad, 0, sizeof *bad));
    count_diff<<<grid(n), THREADS>>>(a, b, n, bad);
    CHECK(cudaGetLastError());
    unsigned long long h;
    CHECK(cudaMemcpy(&h, bad, sizeof h, cudaMemcpyDeviceToHost));
    return h;
}

static const char *verdict(const char *what, unsigned long long bad)
{
    fprintf(stderr, "check %-34s %s (%llu wrong)\n", what, bad ? "FAIL" : "ok", bad);
    failures += bad != 0;
    return bad ? "FAIL" : "ok";
}

static void row(const char *section, const char *name, const char *method, const char *type,
                int logn, int logrow, size_t bytes, float ms, const char *check)
{
    printf("%s,%s,%s,%s,%d,%d,%zu,%.5f,%s\n", section, name, method, type, logn, logrow, bytes,
           ms, check);
    fflush(stdout);
    fprintf(stderr, "%-8s %-16s %-22s %s 2^%d: %.4f ms\n", section, name, method, type, logn, ms);
}

// A parmc program's context, created for the program and destroyed after it.
struct Ctx {
    const Prog &p;
    parm_ctx *ctx = nullptr;
    explicit Ctx(const Prog &q) : p(q)
    {
        int st = p.create(&ctx);
        if (st) { fprintf(stderr, "%s: ctx_create: %s\n", p.name, p.errstr(st)); exit(1); }
    }
    ~Ctx() { p.destroy(ctx); }
    cudaStream_t stream() { return p.stream(ctx); }
    void call(const void *in, void *out, size_t n)
    {
        typedef int (*F)(parm_ctx *, const void *, void *, size_t);
        int st = ((F)p.entry)(ctx, in, out, n);
        if (st) { fprintf(stderr, "%s: %s\n", p.name, p.errstr(st)); exit(1); }
    }
    void call_kv(const uint32_t *kin, const int32_t *vin, uint32_t *kout, int32_t *vout, size_t n)
    {
        typedef int (*F)(parm_ctx *, const uint32_t *, const int32_t *, uint32_t *, int32_t *, size_t);
        int st = ((F)p.entry)(ctx, kin, vin, kout, vout, n);
        if (st) { fprintf(stderr, "%s: %s\n", p.name, p.errstr(st)); exit(1); }
    }
};

// Four work buffers of the largest size (2^28 int32 = 1 GiB each).
static const size_t MAXBYTES = (size_t)1 << 30;
static char *A, *B, *C, *D;
static int *OFF;

// ---------------------------------------------------------------- memory
static std::map<size_t, float> copy_ms;  // bytes -> 16-byte copy time

static void memory(size_t bytes, const char *type, int logn)
{
    if (copy_ms.count(bytes)) return;
    size_t n16 = bytes / 16, n4 = bytes / 4;
    fill_distinct<<<grid(n4), THREADS>>>((int32_t *)A, n4);
    settle();
    auto c16 = [&] { copy16<<<grid(n16), THREADS, 0, S>>>((const int4 *)A, (int4 *)B, n16); };
    auto mc = [&] { CHECK(cudaMemcpyAsync(C, A, bytes, cudaMemcpyDeviceToDevice, S)); };
    poison(B, bytes);
    poison(C, bytes);
    c16();
    mc();
    char what[64];
    snprintf(what, sizeof what, "copy16 %zu bytes", bytes);
    const char *ok16 = verdict(what, diff((int32_t *)A, (int32_t *)B, n4));
    snprintf(what, sizeof what, "cudaMemcpy %zu bytes", bytes);
    const char *okmc = verdict(what, diff((int32_t *)A, (int32_t *)C, n4));
    float t = time_ms(S, c16);
    copy_ms[bytes] = t;
    row("memory", "copy", "copy16", type, logn, 0, bytes, t, ok16);
    row("memory", "copy", "memcpy", type, logn, 0, bytes, time_ms(S, mc), okmc);
}

// ---------------------------------------------------------------- permutations
template <typename T> static void perm(const Prog &p)
{
    size_t n = (size_t)1 << p.logn, bytes = n * sizeof(T);
    const char *type = sizeof(T) == 1 ? "u8" : sizeof(T) == 2 ? "i16" : sizeof(T) == 4 ? "i32" : "i64";
    memory(bytes, type, p.logn);
    T *in = (T *)A, *out = (T *)B, *ref = (T *)C;
    fill_distinct<<<grid(n), THREADS>>>(in, n);
    settle();
    InvRows inv;
    memcpy(inv.row, p.inv, sizeof inv.row);
    auto naive = [&] { naive_gather<<<grid(n), THREADS, 0, S>>>(in, ref, inv, p.c, p.logn); };
    naive();
    poison(out, bytes);
    Ctx ctx(p);
    ctx.call(in, out, n);
    const char *ok = verdict(p.name, diff(out, ref, n));
    // the 16-byte copy of the same bytes again, right before the permutation:
    // its ratio does not depend on drift between the start of the run and now
    size_t n16 = bytes / 16;
    row("perm", p.group, "copy16", type, p.logn, 0, bytes, time_ms(S, [&] {
        copy16<<<grid(n16), THREADS, 0, S>>>((const int4 *)in, (int4 *)ref, n16);
    }), "-");
    row("perm", p.group, "parmc", type, p.logn, 0, bytes,
        time_ms(ctx.stream(), [&] { ctx.call(in, out, n); }), ok);
    row("perm", p.group, "naive_gather", type, p.logn, 0, bytes, time_ms(S, naive), "-");
}

// ---------------------------------------------------------------- full sorts
static void sorts(int logn)
{
    size_t n = (size_t)1 << logn, bytes = n * 4;
    memory(bytes, "i32", logn);
    int32_t *in = (int32_t *)A, *out = (int32_t *)B, *ref = (int32_t *)C, *tmp = (int32_t *)D;
    fill_random<<<grid(n), THREADS>>>((uint32_t *)in, n, logn);
    settle();
    static Temp t_radix, t_merge;
    cub_radix_keys(t_radix, in, ref, (int)n, S);
    CHECK(cudaDeviceSynchronize());
    char what[64];
    for (int k = 0; k < nprogs; k++) {
        const Prog &p = progs[k];
        if (p.kind != K_SORT || p.logn != logn) continue;
        poison(out, bytes);
        Ctx ctx(p);
        ctx.call(in, out, n);
        const char *ok = verdict(p.name, diff(out, ref, n));
        row("sort", p.group, "parmc", "i32", logn, 0, bytes,
            time_ms(ctx.stream(), [&] { ctx.call(in, out, n); }), ok);
    }
    row("sort", "cub_radix", "cub_radix", "i32", logn, 0, bytes,
        time_ms(S, [&] { cub_radix_keys(t_radix, in, out, (int)n, S); }), "-");
    poison(out, bytes);
    cub_merge_keys(t_merge, in, out, (int)n, S);
    snprintf(what, sizeof what, "cub_merge 2^%d", logn);
    const char *ok = verdict(what, diff(out, ref, n));
    row("sort", "cub_merge", "cub_merge", "i32", logn, 0, bytes,
        time_ms(S, [&] { cub_merge_keys(t_merge, in, out, (int)n, S); }), ok);
    // thrust sorts in place: each timed call copies the input first (cudaMemcpyAsync D2D)
    auto th = [&] { CHECK(cudaMemcpyAsync(tmp, in, bytes, cudaMemcpyDeviceToDevice, S)); thrust_sort(tmp, n, S); };
    auto thc = [&] { CHECK(cudaMemcpyAsync(tmp, in, bytes, cudaMemcpyDeviceToDevice, S)); thrust_sort_cmp(tmp, n, S); };
    th();
    snprintf(what, sizeof what, "thrust 2^%d", logn);
    ok = verdict(what, diff(tmp, ref, n));
    row("sort", "thrust", "thrust", "i32", logn, 0, bytes, time_ms(S, th), ok);
    poison(tmp, bytes);
    thc();
    snprintf(what, sizeof what, "thrust_cmp 2^%d", logn);
    ok = verdict(what, diff(tmp, ref, n));
    row("sort", "thrust_cmp", "thrust_cmp", "i32", logn, 0, bytes, time_ms(S, thc), ok);
}

// ---------------------------------------------------------------- key-value sorts
static void kvsorts(int logn)
{
    size_t n = (size_t)1 << logn, bytes = n * 8;
    memory(bytes, "u32+i32", logn);
    uint32_t *kin = (uint32_t *)A, *kout = (uint32_t *)B, *kref = (uint32_t *)C;
    int32_t *vin = (int32_t *)(kin + n), *vout = (int32_t *)(kout + n), *vref = (int32_t *)(kref + n);
    uint64_t *x = (uint64_t *)D, *xs = x + n, *y = xs + n, *ys = y + n;  // 4 x 2^24 x 8 B = 512 MiB
    fill_random<<<grid(n), THREADS>>>(kin, n, 100 + logn);
    settle();
    fill_distinct<<<grid(n), THREADS>>>(vin, n);
    settle();
    static Temp t_radix, t_merge, t_u64;
    cub_radix_pairs(t_radix, kin, vin, kref, vref, (int)n, S);
    combine_kv<<<grid(n), THREADS, 0, S>>>(kin, vin, y, n);
    cub_radix_keys_u64(t_u64, y, ys, (int)n, S);  // the input's records sorted by (key, value)
    CHECK(cudaDeviceSynchronize());
    // keys equal to CUB's, and the records a permutation of the input's
    auto check = [&](const char *what) {
        unsigned long long bad = diff(kout, kref, n);
        combine_kv<<<grid(n), THREADS, 0, S>>>(kout, vout, x, n);
        cub_radix_keys_u64(t_u64, x, xs, (int)n, S);
        bad += diff(xs, ys, n);
        return verdict(what, bad);
    };
    for (int k = 0; k < nprogs; k++) {
        const Prog &p = progs[k];
        if (p.kind != K_KV || p.logn != logn) continue;
        poison(kout, bytes);
        Ctx ctx(p);
        ctx.call_kv(kin, vin, kout, vout, n);
        CHECK(cudaDeviceSynchronize());
        const char *ok = check(p.name);
        row("kv", p.group, "parmc", "u32+i32", logn, 0, bytes,
            time_ms(ctx.stream(), [&] { ctx.call_kv(kin, vin, kout, vout, n); }), ok);
    }
    poison(kout, bytes);
    cub_radix_pairs(t_radix, kin, vin, kout, vout, (int)n, S);
    const char *ok = check("cub_radix_pairs");
    row("kv", "cub_radix", "cub_radix", "u32+i32", logn, 0, bytes,
        time_ms(S, [&] { cub_radix_pairs(t_radix, kin, vin, kout, vout, (int)n, S); }), ok);
    poison(kout, bytes);
    cub_merge_pairs(t_merge, kin, vin, kout, vout, (int)n, S);
    ok = check("cub_merge_pairs");
    row("kv", "cub_merge", "cub_merge", "u32+i32", logn, 0, bytes,
        time_ms(S, [&] { cub_merge_pairs(t_merge, kin, vin, kout, vout, (int)n, S); }), ok);
}

// ---------------------------------------------------------------- batched sorts
static void batched(int logn, int logrow)
{
    size_t n = (size_t)1 << logn, bytes = n * 4;
    int nseg = 1 << (logn - logrow);
    memory(bytes, "i32", logn);
    int32_t *in = (int32_t *)A, *out = (int32_t *)B, *ref = (int32_t *)C;
    fill_random<<<grid(n), THREADS>>>((uint32_t *)in, n, 200 + logrow);
    settle();
    iota_offsets<<<grid(nseg + 1), THREADS>>>(OFF, nseg, 1 << logrow);
    settle();
    static Temp t_seg, t_segr;
    cub_segsort_keys(t_seg, in, ref, (int)n, nseg, OFF, S);
    CHECK(cudaDeviceSynchronize());
    char what[64];
    for (int k = 0; k < nprogs; k++) {
        const Prog &p = progs[k];
        if (p.kind != K_BATCH || p.logn != logn || p.logrow != logrow) continue;
        poison(out, bytes);
        Ctx ctx(p);
        ctx.call(in, out, n);
        const char *ok = verdict(p.name, diff(out, ref, n));
        row("batched", p.group, "parmc", "i32", logn, logrow, bytes,
            time_ms(ctx.stream(), [&] { ctx.call(in, out, n); }), ok);
    }
    row("batched", "cub_segsort", "cub_segsort", "i32", logn, logrow, bytes,
        time_ms(S, [&] { cub_segsort_keys(t_seg, in, out, (int)n, nseg, OFF, S); }), "-");
    poison(out, bytes);
    cub_segradix_keys(t_segr, in, out, (int)n, nseg, OFF, S);
    snprintf(what, sizeof what, "cub_segradix 2^%d x 2^%d", logn - logrow, logrow);
    const char *ok = verdict(what, diff(out, ref, n));
    row("batched", "cub_segradix", "cub_segradix", "i32", logn, logrow, bytes,
        time_ms(S, [&] { cub_segradix_keys(t_segr, in, out, (int)n, nseg, OFF, S); }), ok);
}

// ---------------------------------------------------------------- main
static bool wanted(int argc, char **argv, const char *section)
{
    if (argc < 2) return true;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], section)) return true;
    return false;
}

int main(int argc, char **argv)
{
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    fprintf(stderr, "device: %s, %d SMs, L2 %d MB, %d programs\n", prop.name,
            prop.multiProcessorCount, prop.l2CacheSize >> 20, nprogs);
    CHECK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&A, MAXBYTES));
    CHECK(cudaMalloc(&B, MAXBYTES));
    CHECK(cudaMalloc(&C, MAXBYTES));
    CHECK(cudaMalloc(&D, MAXBYTES));
    CHECK(cudaMalloc(&OFF, ((1 << 20) + 1) * sizeof(int)));
    printf("section,name,method,type,logn,logrow,bytes,ms,check\n");
    // bring the clocks up: about half a second of 1 GiB copies before any timing
    for (int i = 0; i < 500; i++)
        copy16<<<grid(MAXBYTES / 16), THREADS, 0, S>>>((const int4 *)A, (int4 *)B, MAXBYTES / 16);
    CHECK(cudaDeviceSynchronize());

    if (wanted(argc, argv, "memory"))
        for (int logn : {20, 22, 24, 26, 28}) memory((size_t)4 << logn, "i32", logn);
    if (wanted(argc, argv, "perm"))
        for (int k = 0; k < nprogs; k++) {
            if (progs[k].kind != K_PERM) continue;
            switch (progs[k].esize) {
            case 1: perm<uint8_t>(progs[k]); break;
            case 2: perm<int16_t>(progs[k]); break;
            case 4: perm<int32_t>(progs[k]); break;
            default: perm<int64_t>(progs[k]); break;
            }
        }
    if (wanted(argc, argv, "sort"))
        for (int logn : {20, 22, 24, 26, 28}) sorts(logn);
    if (wanted(argc, argv, "kv")) kvsorts(24);
    if (wanted(argc, argv, "batched")) {
        // 2^28 in four row lengths, then examples/batched.parm's 2^16 x 2^10
        const int shapes[][2] = {{28, 8}, {28, 10}, {28, 12}, {28, 14}, {26, 10}};
        for (const auto &sh : shapes) batched(sh[0], sh[1]);
    }
    fprintf(stderr, "%s\n", failures ? "SOME CHECKS FAILED" : "all checks passed");
    return failures ? 1 : 0;
}
