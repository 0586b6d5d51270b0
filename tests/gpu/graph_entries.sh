#!/usr/bin/env bash
# Entry graphs through CUDA, on a machine with an NVIDIA GPU (sm_90): every
# entry of tests/backend/graph.parm (issue 12's programs: a whole reduce, a
# zipped key-value sort, scalar parameters, replicate, rot4, several arrays,
# scalar and tuple results, shared values, ranged entries) compiled with
# --emit-main -e ENTRY, run on random input (two seeds) and compared with the
# reference interpreter byte for byte. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
PARMC=${PARMC:-build/parmc}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
PROG=tests/backend/graph.parm
ENTRIES=$(sed -n 's/^entry \([a-z0-9_]*\) .*/\1/p' "$PROG")
for e in $ENTRIES; do
    ("$PARMC" --emit-main -e "$e" "$PROG" -o "$W/$e.cu" && nvcc -O3 -arch=sm_90 "$W/$e.cu" -o "$W/$e" 2>"$W/$e.nvcc") &
done
wait
passed=0 failed=0
for e in $ENTRIES; do
    for seed in 1 2; do
        "$PARMC" --random-input=$seed -e "$e" "$PROG" >"$W/$e.in"
        "$PARMC" --interpret -e "$e" "$PROG" <"$W/$e.in" >"$W/$e.want"
        if [ -x "$W/$e" ] && "$W/$e" <"$W/$e.in" >"$W/$e.got" 2>"$W/$e.err" && cmp -s "$W/$e.want" "$W/$e.got"; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "FAIL graph entry $e seed $seed: $(head -3 "$W/$e.err" "$W/$e.nvcc" 2>/dev/null)"
        fi
    done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
