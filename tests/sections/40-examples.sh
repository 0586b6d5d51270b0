# Every example checks and specialises unchanged, and the interpreter's
# results on random inputs match an independent reference (tests/tools/check.py)
# at several sizes. Sized variants replace the example's entry lines.
for ex in examples/*.parm; do
    if "$PARMC" --check "$ex" 2>"$TMP/ex.err"; then pass; else fail "check $ex"; cat "$TMP/ex.err"; fi
done

# interp_check NAME TYPE COUNT SEED MODE [MODE-ARGS...] with the program in
# $TMP/variant.parm (or $PROG) and the entry in $ENTRY
interp_check() {
    local name=$1 type=$2 count=$3 seed=$4
    shift 4
    python3 tests/tools/gen.py "$type" "$count" "$seed" >"$TMP/in.txt"
    if ! "$PARMC" --interpret --compare-stages -e "${ENTRY:-main}" "${PROG:-$TMP/variant.parm}" <"$TMP/in.txt" >"$TMP/out.txt" 2>"$TMP/err.txt"; then
        fail "interpret $name"
        head -5 "$TMP/err.txt"
    elif python3 tests/tools/check.py "$@" "$TMP/in.txt" "$TMP/out.txt" >"$TMP/check.txt"; then
        pass
    else
        fail "interpret $name: $(cat "$TMP/check.txt")"
    fi
}

for k in 0 1 2 3 5 8 11; do
    variant examples/sort.parm "entry main (xs : [2^$k]i32) = sort $k xs"
    interp_check "sort 2^$k" i32 $((1 << k)) $k sort
done
for k in 1 2 4 9 12; do
    variant examples/bitonic.parm "entry main (xs : [2^$k]f32) = bsort $k xs"
    interp_check "bitonic 2^$k" f32 $((1 << k)) $k sort
done
for k in 1 3 6 9; do
    variant examples/kvsort.parm "entry main (xs : [2^$k](u32, i32)) = bsort_by kv $k xs"
    interp_check "kvsort 2^$k" u32,i32 $((1 << k)) $k sort
done
for kr in "0 3" "2 5" "4 4" "3 1" "6 6"; do
    set -- $kr
    variant examples/batched.parm "entry main (xs : [2^$(($1 + $2))]i32) = rows $1 (bsort $2) xs"
    interp_check "batched 2^$1 rows of 2^$2" i32 $((1 << ($1 + $2))) $2 rows $((1 << $2))
done
PROG=examples/permute.parm ENTRY=main interp_check "bitrev 2^10" i32 1024 1 perm bitrev 10
PROG=examples/permute.parm ENTRY=rev interp_check "reverse 2^10" i32 1024 2 perm reverse 10
PROG=examples/permute.parm ENTRY=trans interp_check "transpose 2^4 x 2^8" i32 4096 3 perm transpose:4:8 12
