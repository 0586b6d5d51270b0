#!/usr/bin/env bash
# bench/multigpu/pieces.sh: the bit reversal of 2^30 i32 and the sort of
# 2^31 i32 on GPUS GPUs (default 2) with each --exchange-pieces in PIECES
# (default "1 2 4 8 32"), to choose the default cut of exchanges:
#   GPUS=2 bash bench/multigpu/pieces.sh
set -eu -o pipefail
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0   # NVLink multicast stays off on shared machines
PARMC=$(realpath "${PARMC:-build/parmc}")
GPUS=${GPUS:-2}
W=$(mktemp -d)
NVCC="nvcc -O3 -arch=sm_90"
build() {   # build NAME ENTRY-LINE PIECES
    local d=$W/$1
    mkdir -p "$d"
    { grep -v '^entry ' examples/sort.parm; echo "$2"; } >"$d/prog.parm"
    "$PARMC" --gpus "$GPUS" --exchange-pieces "$3" --prefix bench "$d/prog.parm" -o "$d/prog.cu" &&
        $NVCC -DGPUS="$GPUS" -I"$d" "$d/prog.cu" bench/multigpu/driver.cu -o "$d/bench" -lnccl 2>"$d/nvcc.txt" ||
        echo "build $1 failed: $(head -5 "$d/nvcc.txt")"
}
for p in ${PIECES:-1 2 4 8 32}; do
    build "bitrev_$p" "entry main (xs : [2^30]i32) = bmmc (bitperm 30 (\\i -> 29 - i)) xs" "$p" &
    build "sort31_$p" "entry main (xs : [2^31]i32) = sort 31 xs" "$p" &
done
wait
for p in ${PIECES:-1 2 4 8 32}; do
    echo "--exchange-pieces $p:"
    "$W/bitrev_$p/bench" bitrev 30 10
    "$W/sort31_$p/bench" sort 31 5
done
rm -rf "$W"
