#!/usr/bin/env bash
# bench/topk/run.sh: parmc.topk, CUB's DeviceBatchedTopK and DeviceTopK, torch.topk and a copy
# at the shapes of issue 42 (bench/topk/README.md), on a GPU machine from any directory, with a
# built parmc (build/parmc), PyTorch and nvcc. The CCCL headers: $CCCL_INCLUDE, default
# build/cccl/include (bench/topk/fetch_cccl.sh makes it; carry it to a machine without network).
# The CUB binaries go to build/topk, parmc's programs to $PARMC_CACHE (default build/gpu-cache):
# a second run builds nothing. The table goes to stdout and, when $OUT is set, to $OUT/topk.md.
# Arguments go to run.py (--only 64x131072,1x1048576; --jobs N).
set -u
cd "$(dirname "$0")/../.."
export PARMC=${PARMC:-$PWD/build/parmc}
export PARMC_CACHE=${PARMC_CACHE:-$PWD/build/gpu-cache}
export CCCL_INCLUDE=${CCCL_INCLUDE:-$PWD/build/cccl/include}
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
exec python3 bench/topk/run.py "$@"
