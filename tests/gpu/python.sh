#!/usr/bin/env bash
# The Python package on a GPU machine (docs/python.md), from the repository root
# with a built parmc (build/parmc) and PyTorch (CuPy too where installed):
#   tests/gpu/python_gpu.py: PyTorch tensors against torch.sort, the current
#   stream and stream=, the checks of device arrays, torch.compile, the call
#   overhead; CuPy arrays against cupy.sort (skipped, with the reason, when CuPy
#   is missing); then the examples in examples/python/.
# Results go to stdout and, when $OUT is set, to $OUT/python-report.md.
set -u
cd "$(dirname "$0")/../.."
export PARMC=${PARMC:-$PWD/build/parmc}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export PARMC_CACHE=${PARMC_CACHE:-$W/cache}
REPORT=${OUT:-$W}/python-report.md
log() { echo "$*" | tee -a "$REPORT"; }
: >"$REPORT"
log "# Python package on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%F)"
log "python $(python3 -c 'import sys; print(sys.version.split()[0])'), torch $(python3 -c 'import torch; print(torch.__version__)' 2>&1 | tail -1), cupy $(python3 -c 'import cupy; print(cupy.__version__)' 2>&1 | tail -1)"

PYTHONPATH=tests/gpu python3 tests/python/run.py python_gpu >"$W/out" 2>"$W/err"
status=$?
tee -a "$REPORT" <"$W/out"
grep -i 'us a call' "$W/err" | tee -a "$REPORT"
[ $status -eq 0 ] || sed -n '1,80p' "$W/err"

log "## python3 bench/python_overhead.py --target cuda"
python3 bench/python_overhead.py --target cuda 2>&1 | tee -a "$REPORT"
log "## examples/python/batched_sort.py: 2^20 rows of 2^10, then 10^6 rows of 1000"
python3 examples/python/batched_sort.py --rows 1048576 --length 1024 2>&1 | tee -a "$REPORT"
python3 examples/python/batched_sort.py --rows 1000000 --length 1000 2>&1 | tee -a "$REPORT"
log "## examples/python/permute_cupy.py"
python3 examples/python/permute_cupy.py 2>&1 | tee -a "$REPORT"
log "$(grep -c '^ok ' "$W/out") passed, $(grep -c '^FAIL ' "$W/out") failed, $(grep -c '^skip ' "$W/out") skipped"
[ $status -eq 0 ]
