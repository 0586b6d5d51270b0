# Persistent kernels of several tile buffers (--tile-buffers): which kernels
# get them (--report), their launch, and their CUDA emulated on the CPU
# (tests/emu: cp.async copies land at the wait, poison before it; fewer
# blocks than tiles) against the interpreter, for one and two fields of 4
# and 8 bytes, writes in place and into the next layout, with vectors,
# directions from the block, scalar parameters and an entry graph. A
# missing wait or barrier must fail the emulation.
mkdir -p "$TMP/buf"
buf_prog() {    # buf_prog NAME SOURCE ENTRY-LINE: $TMP/buf/NAME.parm
    { grep -v '^entry ' "$2"; echo "$3"; } >"$TMP/buf/$1.parm"
}
# buf_report NAME "FLAGS" KERNELS-WITH-OVERLAP LINE: --report --strict keeps every
# access minimal and conflict-free, and that many kernels say LINE
buf_report() {
    # shellcheck disable=SC2086
    if "$PARMC" --report --strict $2 "$TMP/buf/$1.parm" >"$TMP/buf/report.txt" 2>&1 &&
        [ "$(grep -c "^  overlap: $4" "$TMP/buf/report.txt")" = "$3" ]; then
        pass
    else
        fail "tile buffers: --report $2 $1: $(grep -c '^  overlap:' "$TMP/buf/report.txt") kernels overlap, expected $3 with '$4': $(head -2 "$TMP/buf/report.txt")"
    fi
}
buf_prog sort20 examples/sort.parm "entry main (xs : [2^20]i32) = sort 20 xs"
buf_report sort20 "--tile-buffers 2 --tile-bytes 64K" 10 "2 tile buffers (128 KB), persistent blocks"
buf_report sort20 "--tile-buffers 3 --tile-bytes 64K --vector-copies" 10 "3 tile buffers (192 KB)"
buf_report sort20 "--tile-buffers 1 --tile-bytes 64K" 0 ""
buf_report sort20 "--tile-bytes 64K" 0 ""
# two tiles of 128 KB do not fit in a block's shared memory
buf_report sort20 "--tile-buffers 2 --tile-bytes 128K" 0 ""
# cp.async copies 4, 8 or 16 bytes: not 1- or 2-byte fields
buf_prog u8 examples/bitonic.parm "entry main (xs : [2^14]u8) = bsort 14 xs"
buf_report u8 "--tile-buffers 2" 0 ""
# an entry of any length makes its pad in registers
printf '%s\n' 'import "sort"' 'entry main (xs : [2^16]i32 pad max) = bitonic_sort asc 16 xs' >"$TMP/buf/any.parm"
buf_report any "--tile-buffers 2" 0 ""
# a reduce fused into a chain's last phase reads that phase's tile: one
# buffer there (the first chain's last kernel)
if "$PARMC" --report --tile-buffers 2 tests/emu/fused.parm >"$TMP/buf/report.txt" 2>&1 &&
    [ "$(sed -n '/^chain parm_main_n0:/,/^chain parm_main_n3:/p' "$TMP/buf/report.txt" |
        awk '/^kernel /{ k = $2 } /^  overlap:/{ printf "%s ", k }')" = "parm_main_n0_0: parm_main_n0_1: " ]; then
    pass
else
    fail "tile buffers: the phase with a fused reduce keeps one tile buffer: $(head -3 "$TMP/buf/report.txt")"
fi

# the launch: one block of 512 threads per SM for two 64 KB buffers, a grid
# from the kernel's occupancy, 128 KB of dynamic shared memory
if "$PARMC" --tile-buffers 2 --tile-bytes 64K "$TMP/buf/sort20.parm" -o "$TMP/buf/s.cu" &&
    [ "$(grep -c '__launch_bounds__(512, 1)' "$TMP/buf/s.cu")" = 10 ] &&
    [ "$(grep -c '_kernel<<<parm_persistent_grid(ctx, 64u, per_sm), 512, 131072, ctx->stream>>>' "$TMP/buf/s.cu")" = 10 ] &&
    [ "$(grep -c 'cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, parm_main_[0-9]*_kernel, 512, 131072)' "$TMP/buf/s.cu")" = 10 ] &&
    [ "$(grep -c 'PARM_CP_WAIT(0);' "$TMP/buf/s.cu")" = 10 ]; then
    pass
else
    fail "tile buffers: launch bounds, grid and shared memory of persistent kernels"
fi

# usage
for bad in 0 4 2x ""; do
    "$PARMC" --report --tile-buffers "$bad" "$TMP/buf/sort20.parm" >/dev/null 2>"$TMP/buf/err.txt"
    [ $? -eq 2 ] && grep -q "^parmc: error: --tile-buffers takes 1, 2 or 3, not '$bad'" "$TMP/buf/err.txt" && pass ||
        fail "tile buffers: --tile-buffers '$bad' is a usage error"
done
echo 1 2 | "$PARMC" --interpret --tile-buffers 2 "$TMP/buf/sort20.parm" >/dev/null 2>"$TMP/buf/err.txt"
[ $? -eq 2 ] && grep -q "has no effect with --interpret" "$TMP/buf/err.txt" && pass ||
    fail "tile buffers: --tile-buffers with --interpret is a usage error"

# the CUDA kernels emulated against the interpreter
buf_emu() {     # buf_emu NAME "FLAGS" INPUT-COMMAND [PARMC]: whether the emulation prints the interpreter's result
    local d=$TMP/buf
    eval "$3" >"$d/in.txt"
    "$PARMC" --interpret "$d/$1.parm" <"$d/in.txt" >"$d/want.txt"
    mkdir -p "$d/emu"
    PARMC=${4:-$PARMC} PARMC_FLAGS="$2" sh tests/emu/run.sh "$d/$1.parm" "$d/emu" <"$d/in.txt" >"$d/got.txt" 2>"$d/err.txt" &&
        cmp -s "$d/want.txt" "$d/got.txt"
}
buf_run() {     # buf_run NAME "FLAGS" INPUT-COMMAND
    if buf_emu "$@"; then
        pass
    else
        fail "tile buffers: CUDA emulation of $1 with $2${EMU_MISALIGN:+ (misaligned)}: $(head -3 "$TMP/buf/err.txt")"
    fi
}
buf_prog sort16 examples/sort.parm "entry main (xs : [2^16]i32) = sort 16 xs"
buf_run sort16 "--tile-buffers 2 --tile-bytes 16K" "python3 tests/tools/gen.py i32 65536 31"
buf_run sort16 "--tile-buffers 3" "python3 tests/tools/gen.py i32 65536 32"
buf_prog kv15 examples/kvsort.parm "entry main (xs : [2^15](i32, i32)) = bsort_by kv 15 xs"
buf_run kv15 "--tile-buffers 3 --tile-bytes 32K --vector-copies" "python3 tests/tools/gen.py i32,i32 32768 33"
buf_prog f64 examples/bitonic.parm "entry main (xs : [2^14]f64) = bsort 14 xs"
buf_run f64 "--tile-buffers 2 --tile-bytes 16K" "python3 tests/tools/gen.py f64 16384 34"
# in place, with the write-back in vectors (and without, misaligned)
buf_prog rows examples/batched.parm "entry main (xs : [2^16]i32) = rows 6 (bsort 10) xs"
buf_run rows "--tile-buffers 2 --vector-copies" "python3 tests/tools/gen.py i32 65536 35"
EMU_MISALIGN=1 buf_run rows "--tile-buffers 3 --vector-copies" "python3 tests/tools/gen.py i32 65536 36"
buf_prog dir tests/emu/directions.parm "entry main (xs : [2^16]i32) = by_block xs"
buf_run dir "--tile-buffers 2 --tile-bytes 16K" "python3 tests/tools/gen.py i32 65536 37"
buf_prog scalars tests/emu/scalars.parm "entry main (d : i32) (xs : [2^16]i32) (e : i32) = shifted d e xs"
buf_run scalars "--tile-buffers 3 --tile-bytes 16K" "\"$PARMC\" --random-input=9 \"$TMP/buf/scalars.parm\""

# the emulation catches a wait that lets the tile's own copies in flight
# (a parmc whose output waits for one group too few) and a missing barrier
cat >"$TMP/buf/broken.sh" <<EOF
#!/bin/sh
"$PARMC" "\$@" && for out; do :; done && sed -i "\$BREAK" "\$out"
EOF
chmod +x "$TMP/buf/broken.sh"
for broken in 's/PARM_CP_WAIT(0);/PARM_CP_WAIT(1);/' 's/PARM_CP_WAIT(0);/PARM_CP_WAIT(0); if (0)/'; do
    if BREAK=$broken buf_emu sort16 "--tile-buffers 2 --tile-bytes 16K" "python3 tests/tools/gen.py i32 65536 38" \
        "$TMP/buf/broken.sh"; then
        fail "tile buffers: the emulation missed a broken wait ($broken)"
    else
        pass
    fi
done

# an entry graph whose chains overlap, beside the phase with a fused reduce
# (tests/emu/graph.sh)
mkdir -p "$TMP/buf/graph"
"$PARMC" --random-input=5 tests/emu/fused.parm >"$TMP/buf/graph/in.txt"
"$PARMC" --interpret tests/emu/fused.parm <"$TMP/buf/graph/in.txt" >"$TMP/buf/graph/want.txt"
if PARMC=$PARMC PARMC_FLAGS="--tile-buffers 3" sh tests/emu/graph.sh "$TMP/buf/graph" fused <"$TMP/buf/graph/in.txt" \
    >"$TMP/buf/graph/got.txt" 2>"$TMP/buf/graph/err.txt" && cmp -s "$TMP/buf/graph/want.txt" "$TMP/buf/graph/got.txt"; then
    pass
else
    fail "tile buffers: CUDA emulation of the entry graph tests/emu/fused.parm: $(head -3 "$TMP/buf/graph/err.txt")"
fi
