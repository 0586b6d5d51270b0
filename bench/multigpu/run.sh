#!/usr/bin/env bash
# bench/multigpu/run.sh: parmc on several GPUs (--gpus), on a machine with at
# least GPUS (default 2) NVIDIA GPUs (sm_90) and NCCL, from the repository
# root with a built parmc (build/parmc). Every result is checked before it
# is timed (driver.cu): element by element for the permutation, sortedness
# and a multiset checksum for the sorts.
#   (a) a BMMC that moves the GPU bits (bit reversal of 2^30 i32) against
#       grouped ncclSend/ncclRecv of the same bytes, measured in the same run,
#       and the same with its exchange not pipelined (--exchange-pieces 1);
#   (b) the sort of examples/sort.parm on 2^31 i32: GPUS GPUs against one;
#   (c) the same sort of 2^33 i32 on GPUS GPUs (2^35 does not fit: see
#       docs/performance.md, "Several GPUs").
# Prints the table; with $OUT set, also writes it to $OUT/multigpu.md.
# NVLink multicast (NVLS) stays off: NCCL_NVLS_ENABLE=0.
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
PARMC=${PARMC:-build/parmc}
GPUS=${GPUS:-2}
REPEAT=${REPEAT:-10}
W=$(mktemp -d)
REPORT=${OUT:-$W}/multigpu.md
NVCC="nvcc -O3 -arch=sm_90"

# build NAME GPUS ENTRY-LINE [PARMC-OPTION...]: $W/NAME/bench from
# examples/sort.parm's functions and ENTRY-LINE, with bench/multigpu/driver.cu
build() {
    local d=$W/$1
    mkdir -p "$d"
    { grep -v '^entry ' examples/sort.parm; echo "$3"; } >"$d/prog.parm"
    local gpus=()
    [ "$2" -gt 1 ] && gpus=(--gpus "$2")
    "$PARMC" "${gpus[@]}" "${@:4}" --prefix bench "$d/prog.parm" -o "$d/prog.cu" &&
        $NVCC -DGPUS="$2" -I"$d" "$d/prog.cu" bench/multigpu/driver.cu -o "$d/bench" -lnccl 2>"$d/nvcc.txt" ||
        echo "build $1 failed: $(head -5 "$d/nvcc.txt")"
}

echo "building (in parallel) in $W ..."
build bitrev "$GPUS" "entry main (xs : [2^30]i32) = bmmc (bitperm 30 (\\i -> 29 - i)) xs" &
build bitrev_serial "$GPUS" "entry main (xs : [2^30]i32) = bmmc (bitperm 30 (\\i -> 29 - i)) xs" --exchange-pieces 1 &
build sort31 "$GPUS" "entry main (xs : [2^31]i32) = sort 31 xs" &
build sort31_one 1 "entry main (xs : [2^31]i32) = sort 31 xs" &
build sort33 "$GPUS" "entry main (xs : [2^33]i32) = sort 33 xs" &
wait

: >"$REPORT"
log() { echo "$*" | tee -a "$REPORT"; }
log "# parmc on $GPUS GPUs: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%F)"
log ""
log '```'
run() { [ -x "$W/$1/bench" ] && "$W/$1/bench" "$2" "$3" "$REPEAT" 2>&1 | tee -a "$REPORT" "$W/$1.out"; }
run bitrev bitrev 30
echo "(the same, its exchange in one piece: --exchange-pieces 1)" | tee -a "$REPORT"
run bitrev_serial bitrev 30
run sort31 sort 31
run sort31_one sort 31
run sort33 sort 33
log '```'
t2=$(sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' "$W/sort31.out" 2>/dev/null)
t1=$(sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' "$W/sort31_one.out" 2>/dev/null)
[ -n "$t1" ] && [ -n "$t2" ] && log "sort of 2^31 i32: $GPUS GPUs $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", a / b }')x faster than one ($t1 ms against $t2 ms)"
rm -rf "$W"
