#!/bin/sh
# run.sh: build and run the permutation benchmark (bench/perm/NOTES.md).
#
#   bench/perm/run.sh          generate, compile with nvcc, run on the GPU
#   bench/perm/run.sh build    generate and compile only (no GPU needed)
#   bench/perm/run.sh emu      run the generated CUDA kernels on the CPU, on
#                              small arrays (2^14 int32, 2^12 int64)
#
# The generator is C, built with $CC against the compiler's module; the
# kernels are planned for 2^28 int32 and 2^26 int64 elements.
set -eu
cd "$(dirname "$0")/../.."
B=build/perm
mkdir -p "$B"
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -Icompiler/base -Icompiler/plan -Icompiler/back \
    compiler/base/arena.c compiler/base/diag.c compiler/base/f2.c compiler/plan/access_model.c \
    compiler/plan/bmmc_plan.c compiler/back/emit_bmmc.c bench/perm/gen.c -o "$B/gen"

if [ "${1:-}" = emu ]; then
    # The host launchers use <<< >>>, which a host compiler cannot read.
    "$B/gen" 14 12 | sed '/^static cudaError_t/,/^}/d' > "$B/emu_kernels.cuh"
    ${CXX:-c++} -std=c++17 -O1 -pthread -I"$B" bench/perm/emu.cpp -o "$B/emu"
    exec "$B/emu"
fi

"$B/gen" 28 26 > "$B/perm_kernels.cuh"
nvcc -O3 -arch=sm_90 -Xptxas -v -I"$B" bench/perm/main.cu -o "$B/perm" 2> "$B/ptxas.txt"
[ "${1:-}" = build ] && exit 0
exec "$B/perm"
