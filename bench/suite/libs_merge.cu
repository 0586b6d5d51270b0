// libs_merge.cu: cub::DeviceMergeSort wrappers (see common.h).
#include "common.h"
#include <cub/device/device_merge_sort.cuh>

namespace {
struct LessI {
    __device__ bool operator()(int32_t a, int32_t b) const { return a < b; }
};
struct LessU {
    __device__ bool operator()(uint32_t a, uint32_t b) const { return a < b; }
};
}  // namespace

void cub_merge_keys(Temp &t, const int32_t *in, int32_t *out, int n, cudaStream_t s)
{
    size_t b = 0;
    CHECK(cub::DeviceMergeSort::SortKeysCopy(nullptr, b, in, out, n, LessI(), s));
    CHECK(cub::DeviceMergeSort::SortKeysCopy(t.get(b), b, in, out, n, LessI(), s));
}

void cub_merge_pairs(Temp &t, const uint32_t *kin, const int32_t *vin, uint32_t *kout,
                     int32_t *vout, int n, cudaStream_t s)
{
    size_t b = 0;
    CHECK(cub::DeviceMergeSort::SortPairsCopy(nullptr, b, kin, vin, kout, vout, n, LessU(), s));
    CHECK(cub::DeviceMergeSort::SortPairsCopy(t.get(b), b, kin, vin, kout, vout, n, LessU(), s));
}
