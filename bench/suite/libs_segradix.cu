// libs_segradix.cu: cub::DeviceSegmentedRadixSort (see common.h).
#include "common.h"
#include <cub/device/device_segmented_radix_sort.cuh>

void cub_segradix_keys(Temp &t, const int32_t *in, int32_t *out, int n, int nseg,
                       const int *off, cudaStream_t s)
{
    size_t b = 0;
    CHECK(cub::DeviceSegmentedRadixSort::SortKeys(nullptr, b, in, out, n, nseg, off, off + 1, 0,
                                                  32, s));
    CHECK(cub::DeviceSegmentedRadixSort::SortKeys(t.get(b), b, in, out, n, nseg, off, off + 1, 0,
                                                  32, s));
}
