#!/usr/bin/env bash
# The one-pass scans (scanblocks, exscanblocks) on a machine with an NVIDIA
# GPU (sm_90): every entry of tests/gpu/onepass.parm and tests/emu/onepass.parm
# checked against the interpreter by tests/gpu/graph_entries.sh, and the
# whole-array scan of 2^24 run 20 more times on one input (the look-back's
# races); then the scans of 2^24 int32 against the copy kernel and CUB's
# DeviceScan in one process each (bench/scan/scanbench.cu, which checks the
# result against CUB's first).
# SKIP_CHECK=1 times only; CUB_ENTRIES: the entries of bench/scan/scans.parm
# to time (default the one-pass scans and the two-pass exscan_blocks);
# BENCH_ENTRIES: entries to time with `parmc bench` as well.
# The checks end with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
P=${PARMC:-build/parmc}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
if [ -z "${SKIP_CHECK:-}" ]; then
    PARMC=$P GRAPH_PROGS="tests/gpu/onepass.parm tests/emu/onepass.parm" bash tests/gpu/graph_entries.sh
    b=$W/whole
    "$P" --emit-main -e whole tests/gpu/onepass.parm -o "$b.cu" && nvcc -O3 -arch=sm_90 "$b.cu" -o "$b"
    "$P" --random-input=1 -e whole tests/gpu/onepass.parm >"$b.in"
    "$P" --interpret -e whole tests/gpu/onepass.parm <"$b.in" >"$b.want"
    pass=0 fail=0
    for i in $(seq 20); do
        if "$b" <"$b.in" >"$b.got" 2>"$b.err" && cmp -s "$b.want" "$b.got"; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "FAIL whole, run $i"
        fi
    done
    echo "the whole-array scan, repeated: $pass passed, $fail failed"
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
for e in ${BENCH_ENTRIES:-}; do "$P" bench -r 20 -e "$e" bench/scan/scans.parm 2>&1 | tail -2; done
for e in ${CUB_ENTRIES:-onepass_ex_i32 onepass_i32 exscan_blocks_i32}; do
    flag=$(case $e in *ex*) echo -DEXCLUSIVE ;; esac)
    "$P" --prefix bench -e "$e" bench/scan/scans.parm -o "$W/cub_$e.cu"
    # shellcheck disable=SC2086
    nvcc -O3 -arch=sm_90 -DENTRY="bench_$e" $flag -include "$W/cub_$e.h" bench/scan/scanbench.cu "$W/cub_$e.cu" -o "$W/cub_$e"
    "$W/cub_$e"
done
