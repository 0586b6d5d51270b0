#!/usr/bin/env bash
# parmc.sort, parmc.argsort and parmc.topk on a GPU machine (docs/python.md,
# "Sorting"), from the repository root with a built parmc (build/parmc) and
# PyTorch (CuPy too where installed): tests/gpu/sort_ops_gpu.py checks every
# result against torch.sort / torch.topk element by element, then times both
# (CUDA events, medians) and the host cost of a call. Arguments go to the
# script (--quick: small shapes only). The programs are kept in $PARMC_CACHE
# (default build/gpu-cache), so that a second run builds nothing. Then
# tests/gpu/sort_host.py (the host time a call adds to its kernels, 1x1024) and
# examples/python/sample_topk.py (top-k sampling against torch.topk).
# Results go to stdout and, when $OUT is set, to $OUT/sort-ops-report.md.
set -u
cd "$(dirname "$0")/../.."
export PARMC=${PARMC:-$PWD/build/parmc}
export PARMC_CACHE=${PARMC_CACHE:-$PWD/build/gpu-cache}
REPORT=${OUT:-build}/sort-ops-report.md
python3 tests/gpu/sort_ops_gpu.py "$@" 2>&1 | tee "$REPORT"
status=${PIPESTATUS[0]}
echo "## tests/gpu/sort_host.py: the host time a call adds" | tee -a "$REPORT"
python3 tests/gpu/sort_host.py 2>&1 | tee -a "$REPORT"
host=${PIPESTATUS[0]}
echo "## examples/python/sample_topk.py" | tee -a "$REPORT"
python3 examples/python/sample_topk.py 2>&1 | tee -a "$REPORT"
example=${PIPESTATUS[0]}
[ "$status" -eq 0 ] && [ "$host" -eq 0 ] && [ "$example" -eq 0 ]
