# The CUDA back end without a GPU: the kernels of sorting programs emulated on
# the CPU (tests/emu) must print exactly what the interpreter prints. This
# covers what the C target does not: register rounds, shared-memory slots and
# swizzles, and writes into the next layout.
mkdir -p "$TMP/emu"
emu_check() {   # emu_check NAME ENTRY-LINE SOURCE COUNT
    variant "$3" "$2"
    cp "$TMP/variant.parm" "$TMP/emu/prog.parm"
    python3 tests/tools/gen.py i32 "$4" 9 >"$TMP/emu/in.txt"
    "$PARMC" --interpret "$TMP/emu/prog.parm" <"$TMP/emu/in.txt" >"$TMP/emu/want.txt"
    if PARMC=$PARMC sh tests/emu/run.sh "$TMP/emu/prog.parm" "$TMP/emu" <"$TMP/emu/in.txt" >"$TMP/emu/got.txt" 2>"$TMP/emu/err.txt" &&
        cmp -s "$TMP/emu/want.txt" "$TMP/emu/got.txt"; then
        pass
    else
        fail "CUDA emulation of $1: $(head -3 "$TMP/emu/err.txt")"
    fi
}
emu_check "sort 2^16 (5 kernels)" "entry main (xs : [2^16]i32) = sort 16 xs" examples/sort.parm 65536
emu_check "bitonic 2^15" "entry main (xs : [2^15]i32) = bsort 15 xs" examples/bitonic.parm 32768
emu_check "batched 2^3 rows of 2^10" "entry main (xs : [2^13]i32) = rows 3 (bsort 10) xs" examples/batched.parm 8192
