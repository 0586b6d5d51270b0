#!/usr/bin/env bash
# parmc.segmented_sort and segmented_topk on a GPU machine (docs/python.md,
# "Segments"), from the repository root with a built parmc (build/parmc),
# PyTorch and nvcc: tests/python/test_segmented.py on CUDA tensors, then
# bench/segmented/run.py against CUB's DeviceSegmentedSort and
# bench/segmented/topk.py against CUB's DeviceBatchedTopK (CCCL 3.5 or newer:
# its headers at $CCCL_INCLUDE, default build/cccl/include, which
# bench/topk/fetch_cccl.sh makes; without them it is left out, and says so)
# in the same run. BENCH (default "sort topk") names the benchmarks to run.
# Results go to stdout and, when $OUT is set, to $OUT/segmented-report.md.
set -u
cd "$(dirname "$0")/../.."
export PARMC=${PARMC:-$PWD/build/parmc}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export PARMC_CACHE=${PARMC_CACHE:-$PWD/build/gpu-cache}
REPORT=${OUT:-$W}/segmented-report.md
: >"$REPORT"
BENCH=${BENCH-sort topk}
CCCL_INCLUDE=${CCCL_INCLUDE:-$PWD/build/cccl/include}
nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 bench/segmented/cub_segmented.cu -o "$W/libcubseg.so" &
if [ -f "$CCCL_INCLUDE/cub/device/device_batched_topk.cuh" ]; then
    nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -I "$CCCL_INCLUDE" bench/segmented/cub_segtopk.cu \
        -o "$W/libcubsegtopk.so" &
fi
PARMC_TEST_LIBRARY=torch python3 tests/python/run.py test_segmented >"$W/out" 2>"$W/err"
status=$?
tee -a "$REPORT" <"$W/out"
[ $status -eq 0 ] || sed -n '1,60p' "$W/err"
wait
case " $BENCH " in *" sort "*)
    PYTHONPATH=python python3 bench/segmented/run.py "$W/libcubseg.so" 2>&1 | grep -v '^parmc: buil' | tee -a "$REPORT" ;;
esac
case " $BENCH " in *" topk "*)
    if [ -f "$W/libcubsegtopk.so" ]; then
        PYTHONPATH=python python3 bench/segmented/topk.py "$W/libcubsegtopk.so" 2>&1 | grep -v '^parmc: buil' |
            tee -a "$REPORT"
    else
        echo "segmented top-k against CUB left out: no DeviceBatchedTopK under $CCCL_INCLUDE" | tee -a "$REPORT"
    fi ;;
esac
exit $status
