// libs_seg.cu: cub::DeviceSegmentedSort (see common.h).
#include "common.h"
#include <cub/device/device_segmented_sort.cuh>

void cub_segsort_keys(Temp &t, const int32_t *in, int32_t *out, int n, int nseg,
                      const int *off, cudaStream_t s)
{
    size_t b = 0;
    CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, b, in, out, n, nseg, off, off + 1, s));
    CHECK(cub::DeviceSegmentedSort::SortKeys(t.get(b), b, in, out, n, nseg, off, off + 1, s));
}
