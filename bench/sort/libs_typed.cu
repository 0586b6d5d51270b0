// libs_typed.cu: CUB's merge and radix sorts of keys of KEY_T, or of
// (KEY_T, VAL_T) records with VAL_T defined, for bench/sort/typebench.cu
// (one object per element type: nvcc -DKEY_T=double -c libs_typed.cu).
#include "../suite/common.h"
#include "typed.h"

#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>

namespace {
struct Less {
    __device__ bool operator()(KEY_T a, KEY_T b) const { return a < b; }
};
}  // namespace

#ifdef VAL_T
void typed_merge(Temp &t, const KEY_T *k, const VAL_T *v, KEY_T *ko, VAL_T *vo, int n, cudaStream_t s)
{
    size_t b = 0;
    CHECK(cub::DeviceMergeSort::SortPairsCopy(nullptr, b, k, v, ko, vo, n, Less(), s));
    CHECK(cub::DeviceMergeSort::SortPairsCopy(t.get(b), b, k, v, ko, vo, n, Less(), s));
}

void typed_radix(Temp &t, const KEY_T *k, const VAL_T *v, KEY_T *ko, VAL_T *vo, int n, cudaStream_t s)
{
    size_t b = 0;
    CHECK(cub::DeviceRadixSort::SortPairs(nullptr, b, k, ko, v, vo, n, 0, (int)sizeof(KEY_T) * 8, s));
    CHECK(cub::DeviceRadixSort::SortPairs(t.get(b), b, k, ko, v, vo, n, 0, (int)sizeof(KEY_T) * 8, s));
}
#else
void typed_merge(Temp &t, const KEY_T *k, KEY_T *ko, int n, cudaStream_t s)
{
    size_t b = 0;
    CHECK(cub::DeviceMergeSort::SortKeysCopy(nullptr, b, k, ko, n, Less(), s));
    CHECK(cub::DeviceMergeSort::SortKeysCopy(t.get(b), b, k, ko, n, Less(), s));
}

void typed_radix(Temp &t, const KEY_T *k, KEY_T *ko, int n, cudaStream_t s)
{
    size_t b = 0;
    CHECK(cub::DeviceRadixSort::SortKeys(nullptr, b, k, ko, n, 0, (int)sizeof(KEY_T) * 8, s));
    CHECK(cub::DeviceRadixSort::SortKeys(t.get(b), b, k, ko, n, 0, (int)sizeof(KEY_T) * 8, s));
}
#endif
