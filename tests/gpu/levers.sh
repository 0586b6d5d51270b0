#!/usr/bin/env bash
# The scheduler's levers on a GPU (sm_90): programs compiled with bigger
# tiles (--tile-bytes), 16-byte vector copies (--vector-copies) and
# persistent kernels of several tile buffers (--tile-buffers), run
# through --emit-main on random input and compared with the reference
# interpreter byte for byte, then through their API with guard regions and
# overlapping calls (tests/gpu/guard_cuda.cu). Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
PARMC=${PARMC:-build/parmc}
[ -x "$PARMC" ] || make build/parmc >/dev/null || exit 1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
NVCC="nvcc -O3 -arch=sm_90"

# NAME|PROGRAM (the source's entries replaced)|SOURCE|INPUT TYPE|COUNT
PROGS="sort18|entry main (xs : [2^18]i32) = sort 18 xs|examples/sort.parm|i32|262144
kv16|entry main (xs : [2^16](u32, i32)) = bsort_by kv 16 xs|examples/kvsort.parm|u32,i32|65536
f64|entry main (xs : [2^16]f64) = bsort 16 xs|examples/bitonic.parm|f64|65536
u8|entry main (xs : [2^17]u8) = bsort 17 xs|examples/bitonic.parm|u8|131072
i16|entry main (xs : [2^17]i16) = bsort 17 xs|examples/bitonic.parm|i16|131072
rows|entry main (xs : [2^18]i32) = rows 3 (bsort 15) xs|examples/batched.parm|i32|262144
rsort|entry main (xs : [2^16]i32) = reverse 16 (sort 16 xs)|examples/sort.parm|i32|65536"
FLAGS="--tile-bytes=128K|--vector-copies|--tile-bytes=128K --vector-copies|--tile-bytes=16K --vector-copies|--tile-buffers=2|--tile-buffers=3 --tile-bytes=16K --vector-copies"
# the persistent kernels of --tile-buffers on at most 5 blocks (the
# generated context reads it): each block takes several tiles
export PARM_PERSISTENT_BLOCKS=5

while IFS='|' read -r name line src type count; do
    { [ "$name" = rsort ] && echo 'import "perm"'; grep -v '^entry ' "$src"; echo "$line"; } >"$W/$name.parm"
    python3 tests/tools/gen.py "$type" "$count" 7 >"$W/$name.in"
    "$PARMC" --interpret "$W/$name.parm" <"$W/$name.in" >"$W/$name.want" &
done <<<"$PROGS"
builds=""
while IFS='|' read -r name line src type count; do
    IFS='|' read -ra sets <<<"$FLAGS"
    for k in "${!sets[@]}"; do
        b=$W/${name}_$k
        builds+="$name|$k|${sets[$k]}"$'\n'
        # shellcheck disable=SC2086
        ("$PARMC" ${sets[$k]} --emit-main "$W/$name.parm" -o "$b.cu" && $NVCC "$b.cu" -o "$b" 2>"$b.nvcc" &&
            mkdir -p "$b.api" && "$PARMC" ${sets[$k]} "$W/$name.parm" -o "$b.api/prog.cu" &&
            python3 tests/tools/guard_entry.py "$b.api/prog.h" main >"$b.api/entry.h" &&
            $NVCC -Iruntime -Itests/tools -I"$b.api" -include "$b.api/entry.h" tests/gpu/guard_cuda.cu "$b.api/prog.cu" \
                -o "$b.guard" 2>>"$b.nvcc") &
    done
done <<<"$PROGS"
wait
passed=0 failed=0
while IFS='|' read -r name k flags; do
    [ -n "$name" ] || continue
    b=$W/${name}_$k
    if [ -x "$b" ] && "$b" <"$W/$name.in" >"$b.got" 2>"$b.err" && cmp -s "$W/$name.want" "$b.got"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL $name $flags: $(head -3 "$b.err" "$b.nvcc" 2>/dev/null)"
    fi
    if [ -x "$b.guard" ] && "$b.guard" -a <"$W/$name.in" >"$b.ggot" 2>"$b.gerr" && cmp -s "$W/$name.want" "$b.ggot"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL guarded $name $flags: $(head -3 "$b.gerr" "$b.nvcc" 2>/dev/null)"
    fi
done <<<"$builds"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
