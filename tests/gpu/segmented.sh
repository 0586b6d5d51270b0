#!/usr/bin/env bash
# parmc.segmented_sort and segmented_topk on a GPU machine (docs/python.md,
# "Segments"), from the repository root with a built parmc (build/parmc),
# PyTorch and nvcc: tests/python/test_segmented.py on CUDA tensors, then
# bench/segmented/run.py against CUB's DeviceSegmentedSort in the same run.
# Results go to stdout and, when $OUT is set, to $OUT/segmented-report.md.
set -u
cd "$(dirname "$0")/../.."
export PARMC=${PARMC:-$PWD/build/parmc}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export PARMC_CACHE=${PARMC_CACHE:-$PWD/build/gpu-cache}
REPORT=${OUT:-$W}/segmented-report.md
: >"$REPORT"
nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 bench/segmented/cub_segmented.cu -o "$W/libcubseg.so" &
PARMC_TEST_LIBRARY=torch python3 tests/python/run.py test_segmented >"$W/out" 2>"$W/err"
status=$?
tee -a "$REPORT" <"$W/out"
[ $status -eq 0 ] || sed -n '1,60p' "$W/err"
wait
PYTHONPATH=python python3 bench/segmented/run.py "$W/libcubseg.so" 2>&1 | grep -v '^parmc: buil' | tee -a "$REPORT"
exit $status
