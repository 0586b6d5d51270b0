#!/usr/bin/env bash
# bench/scan/run.sh: the scans of bench/scan/scans.parm timed on the GPU,
# each entry with `parmc bench` (the default tiles), then the exclusive
# Blelloch scan in 3 passes instead of 5, with tiles of 128 KB and with
# segments of 32 bytes, compiled and run as `parmc bench` does (nvcc -O3,
# the emitted main's median of 20 runs after a warm-up).
# Last, the scans of blocks and the one-pass scans against CUB's DeviceScan and the copy kernel in
# one process (bench/scan/scanbench.cu, checked element by element first).
# Usage: bash bench/scan/run.sh [ENTRY...] (default: every entry)
set -eu
cd "$(dirname "$0")/../.."
PARMC=${PARMC:-build/parmc}
W=${SCAN_WORK:-$(mktemp -d)}
mkdir -p "$W"
if [ $# -eq 0 ]; then
    "$PARMC" bench -r 20 bench/scan/scans.parm
else
    for e in "$@"; do "$PARMC" bench -r 20 -e "$e" bench/scan/scans.parm; done
fi
e=exscan_blelloch_i32
"$PARMC" --random-input=1 -e "$e" bench/scan/scans.parm >"$W/$e.in"
for flags in "--tile-bytes 131072" "--segment-bytes 32"; do
    # shellcheck disable=SC2086
    "$PARMC" $flags --emit-main -e "$e" bench/scan/scans.parm -o "$W/$e.cu"
    nvcc -O3 -arch=native "$W/$e.cu" -o "$W/$e"
    printf '%s %s: ' "$e" "$flags"
    "$W/$e" -r 20 <"$W/$e.in" 2>&1 >/dev/null | grep median
done
for e in exscan_blocks_i32 scan_blocks_i32 onepass_ex_i32 onepass_i32; do
    flag=$(case $e in *ex*) echo -DEXCLUSIVE ;; esac)
    "$PARMC" --prefix bench -e "$e" bench/scan/scans.parm -o "$W/cub_$e.cu"
    # shellcheck disable=SC2086
    nvcc -O3 -arch=native -DENTRY="bench_$e" $flag -include "$W/cub_$e.h" bench/scan/scanbench.cu "$W/cub_$e.cu" \
        -o "$W/cub_$e"
    "$W/cub_$e"
done
