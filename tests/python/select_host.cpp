// select_host.cpp: python/parmc/_select.cu's kernels built on the host (one thread a block,
// a subrange's lanes read by its first), with a reference top-k in place of parmc's networks, against the
// reference top-k of the whole rows: the same indices, the values the row's own bits. Rows of
// every length near a subrange's multiples, ties, zeros of both signs and NaNs, both ends,
// every element type, aligned and not (the 16-byte loads and the single ones). Prints
// `N passed, N failed` (tests/sections/80-python.sh).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "../../python/parmc/_select.cu"

static int passed, failed;
static std::mt19937_64 rng(42);

// The top k of the row's positions by key (rank, complemented for the smallest), ties to the
// smaller position: what parmc's networks give.
template <class X, class R> std::vector<int64_t> reference(const X *row, size_t n, size_t k, bool largest, R rank) {
    std::vector<int64_t> pos(n);
    for (size_t i = 0; i < n; i++) pos[i] = (int64_t)i;
    auto key = [&](int64_t i) { return largest ? rank(row[i]) : (decltype(rank(row[i])))~rank(row[i]); };
    std::stable_sort(pos.begin(), pos.end(), [&](int64_t a, int64_t b) { return key(a) > key(b); });
    pos.resize(k);
    return pos;
}

// An element of the row: of a few values, so that ties are many (specials: zeros, NaNs,
// infinities; small bit patterns), or of a pool of random ones (some ties, in every order), or
// random bits.
template <class X> X element(const std::vector<X> &specials, const std::vector<X> &pool, int mix) {
    unsigned pick = (unsigned)(rng() % 8);
    X x;
    uint64_t b = rng();
    if (mix == 0 && pick < 3) return specials[rng() % specials.size()];
    if (mix == 0 && pick < 6) b %= 5;
    if (mix == 1) return pool[rng() % pool.size()];
    memcpy(&x, &b, sizeof x);
    return x;
}

template <class X, class R>
void check(const char *type, size_t rows, size_t n, size_t k, unsigned log_s, bool largest, size_t offset, int mix,
           R rank, int code, const std::vector<X> &specials) {
    std::vector<X> store(rows * n + offset + 16), pool(n / 4 + 1);
    for (X &p : pool) p = element<X>(specials, pool, 2);
    X *x = store.data() + offset;
    for (size_t i = 0; i < rows * n; i++) x[i] = element<X>(specials, pool, mix);
    size_t s = (size_t)1 << log_s, m = (n + s - 1) / s;
    std::vector<X> d(rows * m), c(rows * k * s);
    std::vector<int64_t> ids(rows * k), pos(rows * k);
    std::vector<int32_t> sorted(rows * k);
    int rc = parmc_select_delegates(code, largest, x, d.data(), rows, n, log_s, nullptr);
    for (size_t r = 0; r < rows; r++) {
        std::vector<int64_t> top = reference(d.data() + r * m, m, k, largest, rank);
        std::copy(top.begin(), top.end(), ids.begin() + r * k);
    }
    rc |= parmc_select_candidates(code, largest, x, ids.data(), c.data(), sorted.data(), rows, n, log_s, (unsigned)k,
                                  nullptr);
    for (size_t r = 0; r < rows; r++) {
        std::vector<int64_t> top = reference(c.data() + r * k * s, k * s, k, largest, rank);
        std::copy(top.begin(), top.end(), pos.begin() + r * k);
    }
    rc |= parmc_select_indices(sorted.data(), pos.data(), rows, (unsigned)k, log_s, nullptr);
    bool ok = rc == 0;
    for (size_t r = 0; r < rows && ok; r++) {
        std::vector<int64_t> want = reference(x + r * n, n, k, largest, rank);
        for (size_t q = 0; q < k && ok; q++) ok = pos[r * k + q] == want[q];
    }
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL %s rows %zu n %zu k %zu s %zu %s offset %zu mix %d (rc %d)\n", type, rows, n, k, s,
           largest ? "largest" : "smallest", offset, mix, rc);
}

template <class X, class R> void check_type(const char *type, int code, R rank, std::vector<X> specials) {
    const size_t lengths[] = {1000, 1031, 3000, 4096};
    const size_t ks[] = {1, 2, 7, 8, 40, 64, 255};
    const unsigned logs[] = {2, 3, 5, 6, 8};
    for (size_t n : lengths)
        for (size_t k : ks)
            for (unsigned log_s : logs) {
                if (k * ((size_t)1 << log_s) > n || (n + ((size_t)1 << log_s) - 1) >> log_s < k) continue;
                for (int largest = 0; largest < 2; largest++)
                    for (size_t offset : {(size_t)0, (size_t)1})
                        for (int mix = 0; mix < 3; mix++)
                            check<X>(type, 2, n, k, log_s, largest, offset, mix, rank, code, specials);
            }
}

int main() {
    using namespace parmc_ranks;
    // zeros of both signs, NaNs of both signs and payloads, infinities
    check_type<uint32_t>("f32", F32, F32Rank(),
                         {0x0u, 0x80000000u, 0x7fc00000u, 0xffc00001u, 0x7f800000u, 0xff800000u, 0x3f800000u});
    check_type<uint64_t>("f64", F64, F64Rank(),
                         {0x0ull, 0x8000000000000000ull, 0x7ff8000000000000ull, 0xfff0000000000000ull});
    check_type<uint16_t>("bf16", BF16, BF16Rank(), {0x0, 0x8000, 0x7fc0, 0xff81, 0x7f80, 0xff80});
    check_type<uint16_t>("f16", F16, F16Rank(), {0x0, 0x8000, 0x7e00, 0xfc00});
    check_type<int32_t>("i32", I32, (SignedRank<int32_t, uint32_t>()), {INT32_MIN, INT32_MAX, -1, 0});
    check_type<int64_t>("i64", I64, (SignedRank<int64_t, uint64_t>()), {INT64_MIN, INT64_MAX, -1});
    check_type<int8_t>("i8", I8, (SignedRank<int8_t, uint8_t>()), {-128, 127});
    check_type<uint8_t>("u8", U8, UnsignedRank<uint8_t>(), {0, 255});
    check_type<uint16_t>("u16", U16, UnsignedRank<uint16_t>(), {0, 65535});
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
