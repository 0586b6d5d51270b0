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
    gpu=1
    echo "target:   CUDA (a GPU is present): parmc --emit-main, then nvcc -O3 -arch=sm_90"
    build/parmc --emit-main examples/sort.parm -o "$tmp/sort.cu"
    nvcc -O3 -arch=sm_90 "$tmp/sort.cu" -o "$tmp/sort"
else
    gpu=0
    echo "target:   C (no GPU here): parmc --target=c --emit-main, then cc -O2"
    build/parmc --target=c --emit-main examples/sort.parm -o "$tmp/sort.c"
    cc -std=c11 -O2 "$tmp/sort.c" -o "$tmp/sort"
fi
# "entry main: 2^20 i32, 11 kernels, 11 global passes"
plan=$(build/parmc --report examples/sort.parm | head -1)
passes=$(echo "$plan" | sed -E 's/.* ([0-9]+) global pass(es)?$/\1/')
if [ "$gpu" = 1 ]; then
    echo "program:  $passes CUDA kernels, each one pass over the keys in global memory (parmc --report)"
else
    echo "program:  $passes passes over the keys, one C loop nest each (the CUDA build has one kernel per pass)"
fi
echo "input:    $n random int32 keys"
"$tmp/sort" -r 5 <"$tmp/in.txt" >"$tmp/out.txt" 2>"$tmp/time.txt"
# the compiled program reports "median X ms over 5 runs"
echo "time:     $(sed -E 's/median ([0-9.]+) ms over ([0-9]+) runs/\1 ms per sort (median of \2 runs after one warm-up; '"$([ "$gpu" = 1 ] && echo 'CUDA events' || echo 'wall clock on the CPU')"')/' "$tmp/time.txt")"
echo "first:    $(head -5 "$tmp/out.txt" | tr '\n' ' ')"
echo "last:     $(tail -5 "$tmp/out.txt" | tr '\n' ' ')"
python3 tests/tools/check.py sort "$tmp/in.txt" "$tmp/out.txt"
echo "checked:  sorted, and a permutation of the input ($(wc -l <"$tmp/out.txt") keys; tests/tools/check.py)"
