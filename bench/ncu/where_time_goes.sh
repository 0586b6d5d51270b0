#!/usr/bin/env bash
# bench/ncu/where_time_goes.sh: Nsight Compute's view of the kernels that
# issue 15's targets are about, next to a 16-byte copy of the same bytes:
# permutations (bit reversal, a BMMC that is not a BPC), every pass of a
# sort of 2^24 i32, and batched sorts of 2^28 i32 in rows of 2^10 and 2^14;
# each sort also with persistent kernels of tile buffers (NAME_tb2, _tb3:
# --tile-buffers 2 or 3), and the sort of 2^24 in tiles of clusters of 4
# blocks (sort24_c4: --cluster-blocks 4).
#
#   bash bench/ncu/where_time_goes.sh [NAME...]   (default: all of them; names below)
#
# Per kernel it prints the duration, DRAM throughput (% of peak), SM and
# shared-memory pipe throughput, achieved occupancy and the warp stall
# reasons per issued instruction, so that a pass slower than a copy shows
# whether it waits on memory (long scoreboard), on shared memory (MIO
# throttle, short scoreboard) or on barriers. Needs nvcc, ncu and an sm_90
# GPU; clocks are left alone (--clock-control none).
set -eu -o pipefail
cd "$(dirname "$0")/../.."
W=${BENCH_WORK:-$(mktemp -d)}
[ -x build/parmc ] || make build/parmc >/dev/null
PARMC=$(realpath build/parmc)
METRICS=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__inst_executed.sum,launch__registers_per_thread,launch__block_size,launch__grid_size

python3 bench/suite/gen.py programs "$W/suite" >/dev/null   # the bench's own permutations
cp "$W/suite/bitrev_i32_26.parm" "$W/suite/bmmc_i32_26.parm" "$W/suite/transpose_i32_28.parm" "$W/"
sed 's/^entry main.*/entry main (xs : [2^24]i32) = sort 24 xs/' examples/sort.parm >"$W/sort24.parm"
sed 's/^entry main.*/entry main (xs : [2^28]i32) = rows 14 (bsort 14) xs/' examples/batched.parm >"$W/rows14.parm"
sed 's/^entry main.*/entry main (xs : [2^28]i32) = rows 18 (bsort 10) xs/' examples/batched.parm >"$W/rows10.parm"
# NAME_tb2, NAME_tb3: NAME with persistent kernels of 2 or 3 tile buffers
# (parmc --tile-buffers: cp.async loads the next tiles during the rounds)
for name in sort24_tb2 sort24_tb3 rows10_tb2 rows14_tb2; do cp "$W/${name%_tb?}.parm" "$W/$name.parm"; done
# sort24_c4: tiles of clusters of 4 blocks (--cluster-blocks 4)
cp "$W/sort24.parm" "$W/sort24_c4.parm"
flags_of() {
    case $1 in
    *_tb2) echo "--tile-buffers 2" ;;
    *_tb3) echo "--tile-buffers 3" ;;
    *_c4) echo "--cluster-blocks 4" ;;
    esac
}
cat >"$W/copy.cu" <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
__global__ void copy16(const int4 *in, int4 *out, size_t n) {  // the bench's reference copy
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}
int main(int argc, char **argv) {
    size_t n = ((size_t)1 << atoi(argv[1])) / 4;
    int4 *a, *b;
    cudaMalloc(&a, n * 16);
    cudaMalloc(&b, n * 16);
    for (int run = 0; run < 2; run++) copy16<<<(unsigned)((n + 255) / 256), 256>>>(a, b, n);
    printf("copy: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
CU

build() {  # NAME LOGN ENTRY: the program compiled with its driver
    [ "$1" != copy ] || { nvcc -O3 -arch=sm_90 "$W/copy.cu" -o "$W/copy"; return; }
    # shellcheck disable=SC2046
    "$PARMC" --prefix bench $(flags_of "$1") "$W/$1.parm" -o "$W/$1.cu"
    nvcc -O3 -arch=sm_90 -include "$W/$1.h" -DENTRY="$3" bench/ncu/run_entry.cu "$W/$1.cu" -o "$W/$1"
}

profile() {  # NAME LOGN ENTRY: the second run's kernels, a line each
    echo "== $1 (2^$2)"
    local kernels=1
    # shellcheck disable=SC2046
    [ "$1" = copy ] || kernels=$("$PARMC" --report $(flags_of "$1") "$W/$1.parm" | grep -c '^kernel')
    ncu --clock-control none --launch-skip "$kernels" --launch-count "$kernels" \
        --metrics "$METRICS" --csv --page raw "$W/$1" "$2" >"$W/$1.csv" 2>"$W/$1.err" ||
        { echo "ncu failed:"; tail -5 "$W/$1.err"; return 0; }
    python3 bench/ncu/summarise.py "$W/$1.csv"
}

WORK="copy 26 -
bitrev_i32_26 26 bench_bitrev_i32_26
bmmc_i32_26 26 bench_bmmc_i32_26
transpose_i32_28 28 bench_transpose_i32_28
sort24 24 bench_main
sort24_tb2 24 bench_main
sort24_tb3 24 bench_main
sort24_c4 24 bench_main
rows10 28 bench_main
rows10_tb2 28 bench_main
rows14 28 bench_main
rows14_tb2 28 bench_main"
chosen() { [ $# -eq 1 ] || [[ " ${*:2} " == *" $1 "* ]]; }
while read -r name logn entry; do
    chosen "$name" "$@" && build "$name" "$logn" "$entry" &
done <<<"$WORK"
wait
while read -r name logn entry; do
    chosen "$name" "$@" && profile "$name" "$logn" "$entry"
done <<<"$WORK"
