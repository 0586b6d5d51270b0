// CUB's DeviceSegmentedSort::StableSortPairs on float keys with int values, timed with CUDA
// events (bench/segmented/run.py loads it with ctypes and checks its output against
// parmc.segmented_sort's). Returns the median of `reps` runs after two warm-up runs, in ms,
// or a negative number when a CUDA call fails.
#include <algorithm>
#include <vector>
#include <cub/device/device_segmented_sort.cuh>

extern "C" double cub_segmented_sort_ms(const float *keys_in, float *keys_out, const int *values_in,
                                        int *values_out, int n, int segments, const int *offsets, int reps) {
    size_t bytes = 0;
    if (cub::DeviceSegmentedSort::StableSortPairs(nullptr, bytes, keys_in, keys_out, values_in, values_out, n,
                                                   segments, offsets, offsets + 1) != cudaSuccess)
        return -1;
    void *scratch = nullptr;
    if (cudaMalloc(&scratch, bytes) != cudaSuccess) return -2;
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    std::vector<float> times;
    for (int r = 0; r < reps + 2; r++) {
        cudaEventRecord(start);
        cub::DeviceSegmentedSort::StableSortPairs(scratch, bytes, keys_in, keys_out, values_in, values_out, n,
                                                  segments, offsets, offsets + 1);
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        if (r >= 2) times.push_back(ms);
    }
    cudaError_t last = cudaGetLastError();
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(scratch);
    if (last != cudaSuccess) return -3;
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}
