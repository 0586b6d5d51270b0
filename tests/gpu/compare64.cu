// tests/gpu/compare64.cu: runtime/parm_ops.h's orders of 64-bit integers, which the GPU
// computes with PTX (setp) and the host with C, on every pair of edge and
// random values: tests/gpu/run.sh runs it. Exit status 1 when any differs.
#include <cstdio>
#include <cstdint>
#include <vector>
#include "parm_ops.h"
__global__ void k(const int64_t *a, const int64_t *b, uint8_t *o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int64_t x = a[i], y = b[i];
    uint64_t u = (uint64_t)x, v = (uint64_t)y;
    uint8_t *r = o + 8 * i;
    r[0] = parm_lt_i64(x, y); r[1] = parm_le_i64(x, y); r[2] = parm_gt_i64(x, y); r[3] = parm_ge_i64(x, y);
    r[4] = parm_lt_u64(u, v); r[5] = parm_le_u64(u, v); r[6] = parm_gt_u64(u, v); r[7] = parm_ge_u64(u, v);
}
int main() {
    std::vector<int64_t> e = {INT64_MIN, INT64_MIN + 1, -4294967296LL, -4294967295LL, -2147483649LL, -2147483648LL, -1, 0, 1,
                              2147483647LL, 2147483648LL, 4294967295LL, 4294967296LL, INT64_MAX - 1, INT64_MAX};
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < 2000; i++) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; e.push_back((int64_t)s); }
    std::vector<int64_t> a, b;
    for (auto x : e) for (auto y : e) { a.push_back(x); b.push_back(y); }
    int n = (int)a.size();
    int64_t *da, *db; uint8_t *dout;
    cudaMalloc(&da, 8 * n); cudaMalloc(&db, 8 * n); cudaMalloc(&dout, 8 * n);
    cudaMemcpy(da, a.data(), 8 * n, cudaMemcpyHostToDevice); cudaMemcpy(db, b.data(), 8 * n, cudaMemcpyHostToDevice);
    k<<<(n + 255) / 256, 256>>>(da, db, dout, n);
    std::vector<uint8_t> got(8 * n);
    cudaMemcpy(got.data(), dout, 8 * n, cudaMemcpyDeviceToHost);
    long bad = 0;
    for (int i = 0; i < n; i++) {
        int64_t x = a[i], y = b[i]; uint64_t u = (uint64_t)x, v = (uint64_t)y;
        uint8_t w[8] = {parm_lt_i64(x, y), parm_le_i64(x, y), parm_gt_i64(x, y), parm_ge_i64(x, y),
                        parm_lt_u64(u, v), parm_le_u64(u, v), parm_gt_u64(u, v), parm_ge_u64(u, v)};
        for (int j = 0; j < 8; j++) bad += got[8 * i + j] != w[j];
    }
    printf("compare64: %d pairs, %ld differ\n", n, bad);
    return bad != 0;
}
