#!/usr/bin/env bash
# checks.sh build DIR   (no GPU: parmc + nvcc) compiles the programs of
#                       tests/gpu/run.sh and tests/emu/directions.parm with
#                       --emit-main and writes each input and the
#                       interpreter's output into DIR
# checks.sh run DIR     (GPU) runs each program on its input and compares
#                       every element with the interpreter's; memcheck and
#                       racecheck (compute-sanitizer) on the small ones
set -u
cd "$(dirname "$0")/../.."
mode=$1 D=$2
PARMC=${PARMC:-build/parmc}
# name | program file | entry line replacing the file's (empty: unchanged) | entry | input type | values
VARIANTS="sort_12|examples/sort.parm|entry main (xs : [2^12]i32) = sort 12 xs|main|i32|4096
sort_20|examples/sort.parm||main|i32|1048576
bitonic_12|examples/bitonic.parm|entry main (xs : [2^12]f32) = bsort 12 xs|main|f32|4096
bitonic_16|examples/bitonic.parm||main|f32|65536
kvsort_12|examples/kvsort.parm||main|u32,i32|4096
batched_14|examples/batched.parm|entry main (xs : [2^14]i32) = rows 4 (bsort 10) xs|main|i32|16384
batched_20|examples/batched.parm|entry main (xs : [2^20]i32) = rows 10 (bsort 10) xs|main|i32|1048576
bitrev_10|examples/permute.parm||main|i32|1024
reverse_10|examples/permute.parm||rev|i32|1024
transpose_12|examples/permute.parm||trans|i32|4096
dir_block|tests/emu/directions.parm|entry main (xs : [2^16]i32) = by_block xs|main|i32|65536
dir_thread|tests/emu/directions.parm|entry main (xs : [2^16]i32) = by_thread xs|main|i32|65536"
if [ "$mode" = build ]; then
    mkdir -p "$D"
    while IFS='|' read -r name src line entry type count; do
        (
            if [ -n "$line" ]; then grep -v '^entry ' "$src" >"$D/$name.parm"; echo "$line" >>"$D/$name.parm"
            else cp "$src" "$D/$name.parm"; fi
            python3 tests/tools/gen.py "$type" "$count" 42 >"$D/$name.in"
            "$PARMC" --interpret -e "$entry" "$D/$name.parm" <"$D/$name.in" >"$D/$name.want"
            "$PARMC" --emit-main -e "$entry" "$D/$name.parm" -o "$D/$name.cu" &&
                nvcc -O3 -arch=sm_90 "$D/$name.cu" -o "$D/$name" 2>"$D/$name.nvcc" || echo "BUILD FAILED $name"
        ) &
        while [ "$(jobs -r | wc -l)" -ge 2 ]; do sleep 1; done
    done <<<"$VARIANTS"
    wait
    exit 0
fi
pass=0 fail=0
while IFS='|' read -r name src line entry type count; do
    if [ -x "$D/$name" ] && "$D/$name" <"$D/$name.in" >"$D/$name.got" && cmp -s "$D/$name.want" "$D/$name.got"; then
        echo "PASS $name ($count values, element by element against the interpreter)"; pass=$((pass + 1))
    else
        echo "FAIL $name"; fail=$((fail + 1))
    fi
    case $name in sort_20|bitonic_16|batched_20) continue ;; esac
    for tool in memcheck racecheck; do
        compute-sanitizer --tool $tool "$D/$name" <"$D/$name.in" >"$D/$name.$tool" 2>&1
        echo "  $name $tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$D/$name.$tool" | head -1)"
    done
done <<<"$VARIANTS"
echo "$pass passed, $fail failed"
