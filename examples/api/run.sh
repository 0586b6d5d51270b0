#!/bin/sh
# Build and run sort_main.c against parmc's CUDA output (needs nvcc and a GPU).
set -e
cd "$(dirname "$0")/../.."
d=$(mktemp -d)
build/parmc examples/sort.parm -o "$d/sort.cu"
nvcc -O3 -arch=sm_90 -c "$d/sort.cu" -o "$d/sort.o"
cc -O2 -std=c11 -I"$d" -I/usr/local/cuda/include examples/api/sort_main.c "$d/sort.o" \
    -L/usr/local/cuda/lib64 -lcudart -lstdc++ -o "$d/sort_main"
"$d/sort_main"
