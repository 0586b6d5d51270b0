// libs_radix.cu: cub::DeviceRadixSort wrappers (see common.h).
#include "common.h"
#include <cub/device/device_radix_sort.cuh>

void cub_radix_keys(Temp &t, const int32_t *in, int32_t *out, int n, cudaStream_t s)
{
    size_t b = 0;
    CHECK(cub::DeviceRadixSort::SortKeys(nullptr, b, in, out, n, 0, 32, s));
    CHECK(cub::DeviceRadixSort::SortKeys(t.get(b), b, in, out, n, 0, 32, s));
}

void cub_radix_keys_u64(Temp &t, const uint64_t *in, uint64_t *out, int n, cudaStream_t s)
{
    size_t b = 0;
    CHECK(cub::DeviceRadixSort::SortKeys(nullptr, b, in, out, n, 0, 64, s));
    CHECK(cub::DeviceRadixSort::SortKeys(t.get(b), b, in, out, n, 0, 64, s));
}

void cub_radix_pairs(Temp &t, const uint32_t *kin, const int32_t *vin, uint32_t *kout,
                     int32_t *vout, int n, cudaStream_t s)
{
    size_t b = 0;
    CHECK(cub::DeviceRadixSort::SortPairs(nullptr, b, kin, kout, vin, vout, n, 0, 32, s));
    CHECK(cub::DeviceRadixSort::SortPairs(t.get(b), b, kin, kout, vin, vout, n, 0, 32, s));
}
