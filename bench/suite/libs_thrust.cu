// libs_thrust.cu: thrust::sort with the default order (a radix sort for int)
// and with a comparator (a merge sort), in place on stream s.
#include "common.h"
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

namespace {
struct LessI {
    __device__ bool operator()(int32_t a, int32_t b) const { return a < b; }
};
}  // namespace

void thrust_sort(int32_t *a, size_t n, cudaStream_t s)
{
    thrust::sort(thrust::cuda::par.on(s), thrust::device_ptr<int32_t>(a),
                 thrust::device_ptr<int32_t>(a) + n);
}

void thrust_sort_cmp(int32_t *a, size_t n, cudaStream_t s)
{
    thrust::sort(thrust::cuda::par.on(s), thrust::device_ptr<int32_t>(a),
                 thrust::device_ptr<int32_t>(a) + n, LessI());
}
