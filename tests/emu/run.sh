#!/bin/sh
# run.sh PROGRAM.parm WORKDIR < input: the program's CUDA kernels, emulated on
# the CPU (see emu.cpp); prints the result like --emit-main does.
set -e
parmc=${PARMC:-build/parmc}
src=$(cd "$(dirname "$0")" && pwd)
"$parmc" "$1" -o "$2/p.cu"
awk '/^\/\/ start of parm_ops.h/,/^const char \*parm_error_string/' "$2/p.cu" |
    grep -v '^const char \*parm_error_string' | sed 's/__host__ __device__//; s/__device__//' >"$2/ops.h"
awk '/^__global__/,/^}/' "$2/p.cu" |
    sed 's/extern __shared__ unsigned char parm_shared\[\];/unsigned char *parm_shared = shared_mem;/' >"$2/kernels.h"
grep -o '[A-Za-z0-9_]*_kernel<<<[0-9]*u, [0-9]*' "$2/p.cu" |
    sed 's/<<<\([0-9]*\)u, \([0-9]*\)/, \1, \2/; s/^/LAUNCH(/; s/$/)/' >"$2/launches.h"
${CXX:-c++} -std=c++17 -O1 -w -pthread -I"$2" "$src/emu.cpp" -o "$2/emu"
"$2/emu"
