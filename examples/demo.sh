#!/usr/bin/env bash
# Compile examples/sort.parm and sort 2^20 random int32 keys with it: CUDA
# when this machine has a GPU and nvcc, the C back end otherwise. The result
# is checked against an independent reference. Run by `make demo`.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=$((1 << 20))
python3 tests/tools/gen.py i32 $n 2026 >"$tmp/in.txt"
if command -v nvcc >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    echo "compiling examples/sort.parm to CUDA (parmc, then nvcc -arch=sm_90)"
    build/parmc --emit-main examples/sort.parm -o "$tmp/sort.cu"
    nvcc -O3 -arch=sm_90 "$tmp/sort.cu" -o "$tmp/sort"
else
    echo "no GPU here: compiling examples/sort.parm with the C back end (parmc --target=c, then cc)"
    build/parmc --target=c --emit-main examples/sort.parm -o "$tmp/sort.c"
    cc -std=c11 -O2 "$tmp/sort.c" -o "$tmp/sort"
fi
build/parmc --report examples/sort.parm | head -1
echo "sorting $n random int32 keys"
"$tmp/sort" -r 5 <"$tmp/in.txt" >"$tmp/out.txt"
echo "first keys: $(head -5 "$tmp/out.txt" | tr '\n' ' ')"
echo "last keys:  $(tail -5 "$tmp/out.txt" | tr '\n' ' ')"
python3 tests/tools/check.py sort "$tmp/in.txt" "$tmp/out.txt"
echo "sorted: yes ($(wc -l <"$tmp/out.txt") keys, a permutation of the input)"
