# The access simulator (--report): every kernel of every example and of
# random programs reads and writes whole segments (minimum sectors per warp
# access) with conflict-free shared memory (bank congestion 1). --strict exits 1
# when any access is worse, and the last line of each entry says so.
report_ok() {   # report_ok NAME PROGRAM
    # an entry graph without chains has no kernel that the simulator models
    # shellcheck disable=SC2086
    if "$PARMC" --report --strict ${REPORT_FLAGS:-} "$2" >"$TMP/report.txt" 2>&1 && ! grep -q ": no$" "$TMP/report.txt" &&
        grep -q "congestion 1: yes$\|not simulated (.*needs no simulation$" "$TMP/report.txt"; then
        pass
    else
        fail "report $1: $(grep -v '^  \|^kernel' "$TMP/report.txt" | head -3)"
    fi
}
for ex in examples/*.parm; do report_ok "$ex" "$ex"; done
for k in 10 16 24 30; do
    variant examples/sort.parm "entry main (xs : [2^$k]i32) = sort $k xs"
    report_ok "sort 2^$k" "$TMP/variant.parm"
done
variant examples/kvsort.parm "entry main (xs : [2^20](u32, i32)) = bsort_by kv 20 xs"
report_ok "kvsort 2^20" "$TMP/variant.parm"
# element types print whole: the most deeply nested one the back ends take
# (tests/plan/deep_tuple.parm, whose plan is golden in 37-plan.sh)
"$PARMC" --report tests/plan/deep_tuple.parm >"$TMP/report.txt" 2>&1
golden tests/plan/deep_tuple.report "$TMP/report.txt" $? "report golden tests/plan/deep_tuple.parm"
# a tile too small for any conflict-free vector swizzle moves elements, and
# that is not narrow (a random program of seed 112 found it)
report_ok "tests/report/tiny_tile.parm" tests/report/tiny_tile.parm
mkdir -p "$TMP/report"
python3 tests/tools/randprog.py --backend "$TMP/report" 100 "${RANDPROG_SEED:-$(date +%s)}"
for ((k = 0; k < 100; k++)); do report_ok "random program $k" "$TMP/report/prog_$k.parm"; done
# Every element size: 1- and 2-byte lanes of one 32-bit word are served
# together, 8-byte accesses go as two half-warps (access_model.h); sorts of
# each size, whole and in rows, are conflict-free under that model.
for elem in i8 u8 i16 u16 i32 f32 i64 u64 f64 "(i32, f64)" "(u8, i16)"; do
    cmp=asc
    case "$elem" in "("*) cmp=kv_asc ;; esac
    for body in "bitonic_sort $cmp 16 xs" "bitonic_sort_rows $cmp 6 10 xs" "bpm_sort $cmp 12 xs"; do
        n=$(echo "$body" | grep -oE '[0-9]+ xs$' | grep -oE '^[0-9]+')
        [ "$body" = "bitonic_sort_rows $cmp 6 10 xs" ] && n=16
        printf 'import "sort"\nentry main (xs : [2^%d]%s) = %s\n' "$n" "$elem" "$body" >"$TMP/report_t.parm"
        report_ok "$elem: $body" "$TMP/report_t.parm"
        # twice the elements a thread: other rounds, lanes and round layouts
        REPORT_FLAGS="--register-bytes 256" report_ok "$elem: $body, --register-bytes 256" "$TMP/report_t.parm"
    done
done
for k in 16 24; do
    variant examples/sort.parm "entry main (xs : [2^$k]i32) = sort $k xs"
    REPORT_FLAGS="--register-bytes 256" report_ok "sort 2^$k, --register-bytes 256" "$TMP/variant.parm"
done
# Permutations move 16-byte vectors where they
# fit (tests/report/narrow.report below); with --narrow-permutes they move
# one element a thread, and --strict fails, naming each field that would fit.
printf 'import "perm"\nentry main (xs : [2^16](u8, i16, i32)) = bitrev 16 xs\n' >"$TMP/report_n.parm"
report_ok "bitrev of (u8, i16, i32)" "$TMP/report_n.parm"
if "$PARMC" --report --strict --narrow-permutes "$TMP/report_n.parm" >"$TMP/report.txt" 2>&1; then
    fail "report --strict --narrow-permutes: exit 0"
elif grep -q "^  narrow: field 0's 1-byte elements fit 16-byte vectors" "$TMP/report.txt" &&
    grep -q "^  narrow: field 1's 2-byte elements fit 16-byte vectors" "$TMP/report.txt" &&
    grep -q "^  narrow: field 2's 4-byte elements fit 16-byte vectors" "$TMP/report.txt" &&
    grep -q "narrower than the layout allows" "$TMP/report.txt"; then
    pass
else
    fail "report --strict --narrow-permutes: $(grep -v '^kernel' "$TMP/report.txt" | head -4)"
fi
# The sorts' tile copies of 1- and 2-byte fields move 16-byte vectors where
# they fit; with --narrow-copies they move elements, and --strict fails,
# naming the kernels (tuples of one field size too).
for ty in u8 i16 "(u8, u8)"; do
    printf '%s\n' 'import "sort"' 'kv [(a, b), (c, d)] = if a <= c then [(a, b), (c, d)] else [(c, d), (a, b)]' >"$TMP/report_c.parm"
    case $ty in
    "("*) echo "entry main (xs : [2^16]$ty) = bitonic_sort kv 16 xs" >>"$TMP/report_c.parm" ;;
    *) echo "entry main (xs : [2^16]$ty) = bitonic_sort asc 16 xs" >>"$TMP/report_c.parm" ;;
    esac
    report_ok "sort of $ty" "$TMP/report_c.parm"
    if "$PARMC" --report --strict --narrow-copies "$TMP/report_c.parm" >"$TMP/report.txt" 2>&1; then
        fail "report --strict --narrow-copies on $ty: exit 0"
    elif grep -q "^  narrow: the tile copies of [12]-byte fields move one element a thread" "$TMP/report.txt"; then
        pass
    else
        fail "report --strict --narrow-copies on $ty: $(grep -v '^kernel' "$TMP/report.txt" | head -4)"
    fi
done
# Golden reports (tests/report/NAME.report): an entry graph's kernels are
# named as the emitted code names them (plan.h: parm_main_n0_0, ...), the
# entry's line counts its chains' kernels and names its other nodes, and
# every kernel named is one the emitted CUDA defines (issue 24).
for src in tests/report/*.parm; do
    want=${src%.parm}.report
    "$PARMC" --report "$src" >"$TMP/report_got.txt" 2>&1
    golden "$want" "$TMP/report_got.txt" $? "report $src"
    "$PARMC" "$src" -o "$TMP/report_emitted.cu"
    missing=
    for k in $(sed -n 's/^kernel \([a-z0-9_]*\): .*/\1/p' "$TMP/report_got.txt"); do
        grep -q "^static int $k(" "$TMP/report_emitted.cu" || missing="$missing $k"
    done
    phases=$(grep -c '^static int parm_[a-z0-9_]*_[0-9]*(' "$TMP/report_emitted.cu")
    kernels=$(grep -c '^kernel ' "$TMP/report_got.txt")
    [ -z "$missing" ] && [ "$phases" -eq "$kernels" ] && pass ||
        fail "report $src: kernels not in the emitted CUDA:$missing ($kernels reported, $phases emitted)"
done
# Textbook networks as a new user writes them (tests/networks/, issue 43):
# Batcher's odd-even merge sort with shift and with masked coli, Parberry's
# pairwise network and odd-even transposition of rows of 2^5, beside the
# stdlib's bpm_sort. Each sorts (its 2^6 entry against its input sorted, rows of 2^5
# for the transposition, and C against the interpreter), and
# tests/networks/passes.report pins the first line of --report of each at
# 2^12, 2^16 and 2^20: its kernels and passes (for an entry graph, its
# chains' kernels and the count of the other nodes, gathers, whose list is
# left out).
for src in tests/networks/*.parm; do
    "$PARMC" --random-input=5 -e s6 "$src" >"$TMP/net_in.txt"
    "$PARMC" --interpret -e s6 "$src" <"$TMP/net_in.txt" >"$TMP/net_out.txt" 2>&1
    rows=64
    [ "$src" = tests/networks/transposition.parm ] && rows=32
    python3 -c 'import sys
xs = [int(l) for l in open(sys.argv[1])]
r = int(sys.argv[2])
print("\n".join(str(x) for i in range(0, len(xs), r) for x in sorted(xs[i:i + r])))' "$TMP/net_in.txt" $rows >"$TMP/net_want.txt"
    cmp -s "$TMP/net_want.txt" "$TMP/net_out.txt" && pass || fail "network $src: the 2^6 entry does not sort"
    c_vs_interp "network $src" "$src" s6 "$TMP/net_in.txt"
done
for src in tests/networks/*.parm; do
    for e in s12 s16 s20; do
        printf '%s ' "${src##*/}"
        "$PARMC" --report -e $e "$src" 2>&1 | head -1 | sed 's/ not simulated (.*/ not simulated/'
    done
done >"$TMP/net_passes.txt"
golden tests/networks/passes.report "$TMP/net_passes.txt" 0 "report of the textbook networks (tests/networks)"
