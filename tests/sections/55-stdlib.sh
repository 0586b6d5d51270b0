# The stdlib (stdlib/*.parm, docs/stdlib.md) and imports.
#   - every stdlib function, in programs that import it, on random input
#     through the interpreter, checked by an independent reference
#     (tests/tools/stdlib_ref.py); each permutation must be one bmmc;
#   - -I, transitive and cyclic imports, errors in imported files;
#   - the C back end on stdlib programs (c_vs_interp of 50-backend.sh);
#   - `make install`, and the installed parmc finding its stdlib.
mkdir -p "$TMP/std"

# std_prog TYPE LOG EXPR FILE: a program importing sort, topk and perm, with the
# entry main (xs : [2^LOG]TYPE) = EXPR
std_prog() {
    printf 'import "sort"\nimport "topk"\nimport "perm"\nentry main (xs : [2^%s]%s) = %s\n' "$2" "$1" "$3" >"$4"
}

# std_input TYPE LOG SEED: 2^LOG random values of TYPE, a slice of a pool
# made by gen.py (one pool per type: python3 starts slowly)
std_input() {
    local pool=$TMP/std/pool_${1//[^a-z0-9]/_}.txt len=$((1 << $2))
    [ -e "$pool" ] || python3 tests/tools/gen.py "${1//[() ]/}" 4096 55 >"$pool"
    local from=$(($3 * 97 % (4097 - len) + 1))
    sed -n "$from,$((from + len - 1))p" "$pool"
}

# std_case TYPE LOG SEED EXPR PREP REF-ARGS...: a case for std_run: EXPR on
# random input, rearranged by `stdlib_ref.py prep` with PREP SEED unless PREP
# is -, must pass `stdlib_ref.py check` with REF-ARGS
std_ncases=0
std_names=()
std_refs=()
: >"$TMP/std/prep.txt"
std_case() {
    local k=$((std_ncases++)) type=$1 log=$2 seed=$3 expr=$4 prep=$5
    shift 5
    std_prog "$type" "$log" "$expr" "$TMP/std/$k.parm"
    std_input "$type" "$log" "$seed" >"$TMP/std/$k.in"
    [ "$prep" = - ] || echo "$prep $seed $TMP/std/$k.in" >>"$TMP/std/prep.txt"
    std_names[k]="$expr on [2^$log]$type"
    std_refs[k]="$*"
}

# std_run: the cases through the interpreter, then the reference
std_run() {
    python3 tests/tools/stdlib_ref.py prep "$TMP/std/prep.txt"
    : >"$TMP/std/check.txt"
    local checked=() k
    for ((k = 0; k < std_ncases; k++)); do
        if "$PARMC" --interpret --compare-stages "$TMP/std/$k.parm" <"$TMP/std/$k.in" >"$TMP/std/$k.out" 2>"$TMP/std/err.txt"; then
            echo "$TMP/std/$k.in $TMP/std/$k.out ${std_refs[k]}" >>"$TMP/std/check.txt"
            checked+=("$k")
        else
            fail "stdlib: ${std_names[k]}: $(head -3 "$TMP/std/err.txt")"
        fi
    done
    local i=0 result
    while read -r result; do
        k=${checked[i++]}
        if [ "$result" = ok ]; then pass; else fail "stdlib: ${std_names[k]}: $result"; fi
    done < <(python3 tests/tools/stdlib_ref.py check "$TMP/std/check.txt")
    [ "$i" -eq "${#checked[@]}" ] || fail "stdlib: the reference checked $i of ${#checked[@]} cases"
}

# std_one_pass LOG EXPR: the specialised IR of EXPR is a single bmmc
std_one_pass() {
    std_prog i32 "$1" "$2" "$TMP/std/prog.parm"
    "$PARMC" --dump-ir=specialised "$TMP/std/prog.parm" >"$TMP/std/ir.txt" 2>&1
    if [ "$(grep -c '^    %' "$TMP/std/ir.txt")" = 1 ] && grep -q '= bmmc ' "$TMP/std/ir.txt"; then
        pass
    else
        fail "stdlib: $2 is not one bmmc: $(head -5 "$TMP/std/ir.txt")"
    fi
}

# ---- sort.parm
for n in 0 1 3 6; do
    std_case i32 $n $n "bitonic_sort asc $n xs" - bitonic_sort asc $((1 << n))
    std_case i32 $n $n "bpm_sort asc $n xs" - bpm_sort asc $((1 << n))
done
for n in 2 5; do
    std_case i32 $n $n "bitonic_sort desc $n xs" - bitonic_sort desc $((1 << n))
    std_case i64 $n $n "bpm_sort desc $n xs" - bpm_sort desc $((1 << n))
    std_case "(u32, i32)" $n $n "bitonic_sort kv_asc $n xs" - bitonic_sort asc $((1 << n))
    std_case "(u32, i32)" $n $n "bpm_sort kv_desc $n xs" - bpm_sort desc $((1 << n))
    std_case "(i32, i32)" $n $n "bpm_sort kv_asc $n xs" - bpm_sort asc $((1 << n))
    std_case "(i32, u8)" $n $n "bitonic_sort kv_desc $n xs" - bitonic_sort desc $((1 << n))
done
std_case i32 4 4 "bitonic_sort (cmp_by (\\a b -> a > b)) 4 xs" - bitonic_sort desc 16
std_case "(i32, i32)" 4 4 "bpm_sort (cmp_by (\\(k1, _) (k2, _) -> k1 <= k2)) 4 xs" - bpm_sort asc 16
for n in 1 4 7; do
    std_case i32 $n $n "merge_halves asc $n xs" "halves asc $((1 << n))" merge_halves asc $((1 << n))
    std_case i32 $n $n "bitonic_merge asc $n xs" "bitonic asc $((1 << n))" bitonic_merge asc $((1 << n))
    std_case i32 $n $n "bpm_merge asc $n xs" "interleaved asc $((1 << n))" bpm_merge asc $((1 << n))
done
std_case "(u32, i32)" 5 5 "merge_halves kv_desc 5 xs" "halves desc 32" merge_halves desc 32
std_case i32 5 6 "bitonic_merge desc 5 xs" "bitonic desc 32" bitonic_merge desc 32
std_case i32 0 7 "bitonic_merge asc 0 xs" - bitonic_merge asc 1
std_case "(i32, i32)" 5 8 "bpm_merge kv_desc 5 xs" "interleaved desc 32" bpm_merge desc 32
std_case i32 1 16 "bpm_vcol asc 1 xs" - bpm_vcol asc
std_case i32 5 17 "bpm_vcol desc 5 xs" - bpm_vcol desc
std_case "(u32, i32)" 4 18 "bpm_vcol kv_asc 4 xs" - bpm_vcol asc
# batches: 2^k rows of 2^n
std_case i32 5 9 "bitonic_sort_rows asc 2 3 xs" - bitonic_sort asc 8
std_case i32 6 10 "bpm_sort_rows desc 3 3 xs" - bpm_sort desc 8
std_case "(u32, i32)" 6 11 "bitonic_sort_rows kv_desc 4 2 xs" - bitonic_sort desc 4
std_case i32 4 12 "bpm_sort_rows asc 4 0 xs" - bpm_sort asc 1
std_case i32 6 13 "merge_halves_rows asc 2 4 xs" "halves asc 16" merge_halves asc 16
std_case i32 5 14 "rows 3 (bpm_merge desc 2) xs" "interleaved desc 4" bpm_merge desc 4
std_case i32 3 15 "rows 0 (bitonic_sort asc 3) xs" - bitonic_sort asc 8
# with indices, stably (ties are frequent in 2^n keys drawn from a pool): the
# values and indices of the stable sort, or of its first 2^j (topk.parm)
std_case i32 4 19 "sort_idx idx_asc 4 xs" - sort_idx asc 16 16
std_case i16 5 20 "sort_idx idx_desc 5 xs" - sort_idx desc 32 32
std_case u8 6 21 "sort_idx_rows idx_asc 3 3 xs" - sort_idx asc 8 8
std_case i32 5 22 "sort_idx_rows idx_desc 1 4 xs" - sort_idx desc 16 16
std_case i64 6 23 "topk_idx_rows idx_desc 2 2 xs" - sort_idx desc 16 4
std_case u8 6 24 "topk_idx_rows idx_asc 0 3 xs" - sort_idx asc 64 8
std_case i32 5 25 "topk_idx_rows idx_desc 3 0 xs" - sort_idx desc 4 1

# ---- perm.parm
perm_cases=(
    "1|bitrev 1 xs|bitrev 1" "6|bitrev 6 xs|bitrev 6"
    "1|reverse 1 xs|reverse 1" "5|reverse 5 xs|reverse 5"
    "3|transpose 0 3 xs|transpose 0 3" "5|transpose 2 3 xs|transpose 2 3" "5|transpose 4 1 xs|transpose 4 1"
    "5|bitrotl 5 0 xs|bitrotl 5 0" "5|bitrotl 5 2 xs|bitrotl 5 2" "5|bitrotl 5 7 xs|bitrotl 5 7"
    "6|bitrotl 6 (-1) xs|bitrotl 6 -1" "5|bitrotr 5 2 xs|bitrotr 5 2" "6|bitrotr 6 (-8) xs|bitrotr 6 -8"
    "1|riffle 1 xs|riffle 1" "5|riffle 5 xs|riffle 5" "1|unriffle 1 xs|unriffle 1" "6|unriffle 6 xs|unriffle 6"
    "1|gray 1 xs|gray 1" "6|gray 6 xs|gray 6" "2|ungray 2 xs|ungray 2" "6|ungray 6 xs|ungray 6"
    "3|flip [3] [0] xs|flip 3 0" "6|flip [2, 3, 1] [0, 2] xs|flip 2,3,1 0,2"
    "6|flip [1, 2, 1, 2] [3, 1, 1] xs|flip 1,2,1,2 3,1,1" "6|flip [2, 0, 4] [1, 2] xs|flip 2,0,4 1,2"
    "5|crinkle [3, 2] 0 1 xs|crinkle 3,2 0 1" "5|crinkle [3, 2] 1 2 xs|crinkle 3,2 1 2"
    "6|crinkle [2, 2, 2] 1 0 xs|crinkle 2,2,2 1 0" "4|crinkle [4] 0 4 xs|crinkle 4 0 4"
    "6|crinkle [1, 2, 3] 2 3 xs|crinkle 1,2,3 2 3" "6|crinkle [2, 2, 2] 0 2 xs|crinkle 2,2,2 0 2"
    "5|uncrinkle [3, 2] 0 1 xs|uncrinkle 3,2 0 1" "6|uncrinkle [1, 2, 3] 1 1 xs|uncrinkle 1,2,3 1 1"
    "6|uncrinkle [2, 2, 2] 2 2 xs|uncrinkle 2,2,2 2 2"
)
seed=20
for c in "${perm_cases[@]}"; do
    IFS='|' read -r log expr ref <<<"$c"
    # shellcheck disable=SC2086
    std_case i32 "$log" $((seed++)) "$expr" - $ref
    std_one_pass "$log" "$expr"
done
std_case "(u32, i32)" 5 40 "transpose 3 2 xs" - transpose 3 2
std_case i32 6 41 "uncrinkle [2, 2, 2] 1 2 (crinkle [2, 2, 2] 1 2 xs)" - bitrotl 6 0
std_case i32 6 42 "flip [1, 1, 1, 1, 1, 1] [0, 1, 2, 3, 4, 5] xs" - reverse 6
std_case i32 6 43 "flip [3, 3] [0, 1] (flip [3, 3] [1] xs)" - flip 3,3 0
std_run

# the static helpers on dimension lists, up to the limit of 16 dimensions
cat >"$TMP/std/prog.parm" <<'PARM'
import "perm"
entry main (v : i64) = (v + dims_total [3, 2], v + dims_count [3, 2, 1], v + dims_at [3, 2] 1,
  v + dims_offset [3, 2, 4] 2, v + dims_mask [3, 2] 1,
  v + dims_total [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2])
PARM
if [ "$(echo 0 | "$PARMC" --interpret "$TMP/std/prog.parm" 2>&1 | tr '\n' ' ')" = "5 3 2 5 24 17 " ]; then
    pass
else
    fail "stdlib: the dims_ helpers: $(echo 0 | "$PARMC" --interpret "$TMP/std/prog.parm" 2>&1 | head -3)"
fi

# misuse stops with a diagnostic that names the problem
std_misuse() {   # std_misuse EXPR PATTERN
    std_prog i32 5 "$1" "$TMP/std/prog.parm"
    if "$PARMC" --check "$TMP/std/prog.parm" 2>"$TMP/std/err.txt"; then
        fail "stdlib: $1 was accepted"
    elif grep -q "$2" "$TMP/std/err.txt"; then
        pass
    else
        fail "stdlib: $1: $(head -1 "$TMP/std/err.txt")"
    fi
}
std_misuse "crinkle [3, 2] 1 3 xs" "no equation of 'crinkle_step_out_of_range' matches the arguments: the integer 3"
std_misuse "uncrinkle [3, 2] 0 (-1) xs" "crinkle_step_out_of_range"
std_misuse "flip [3, 2] [2] xs" "no equation of 'no_such_dimension' matches the arguments: the integer 2"
std_misuse "crinkle [3, 2] (-1) 0 xs" "no_such_dimension"
std_misuse "flip [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] [0] xs" "no equation of 'dims_split' matches"

# ---- imports: -I, search order, transitive and cyclic imports
inc=$TMP/std/inc
mkdir -p "$inc/a" "$inc/b" "$inc/c" "$inc/bad"
cat >"$inc/a/mylib.parm" <<'EOF'
-- imports itself and a file that imports it back; its entry is ignored
import "mylib"
import "helper"
scaled n xs = bitonic_sort asc n (map (\x -> x * factor) xs)
entry main (xs : [2^1]i32) = xs
EOF
printf 'import "mylib"\nimport "sort"\nfactor = 2\n' >"$inc/a/helper.parm"
printf 'import "sort"\nfactor = 3\nscaled n xs = bitonic_sort asc n (map (\\x -> x * factor) xs)\n' >"$inc/b/mylib.parm"
printf 'bitrev n xs = xs\n' >"$inc/c/perm.parm"
printf 'import "sort"\nbroken xs = map (\\x -> x + 1.5) xs\n' >"$inc/bad/broken.parm"
printf 'import "mylib"\nentry main (xs : [2^3]i32) = scaled 3 xs\n' >"$TMP/std/uses.parm"
printf '5\n-1\n3\n0\n2\n2\n-4\n7\n' >"$TMP/std/in8.txt"

# import_run NAME EXPECTED-OUTPUT ARGS...: interpret uses.parm with ARGS
import_run() {
    local name=$1 want=$2
    shift 2
    if out=$("$PARMC" "$@" --interpret "$TMP/std/uses.parm" <"$TMP/std/in8.txt" 2>&1) &&
        [ "$(echo $out)" = "$want" ]; then
        pass
    else
        fail "import: $name: $(echo "$out" | head -3)"
    fi
}
import_run "-I DIR" "-8 -2 0 4 4 6 10 14" -I "$inc/a"
import_run "-IDIR" "-8 -2 0 4 4 6 10 14" "-I$inc/a"
import_run "-I order (a first)" "-8 -2 0 4 4 6 10 14" -I "$inc/a" -I "$inc/b"
import_run "-I order (b first)" "-12 -3 0 6 6 9 15 21" -I "$inc/b" -I "$inc/a"

# -I comes before the stdlib
printf 'import "perm"\nentry main (xs : [2^3]i32) = bitrev 3 xs\n' >"$TMP/std/bitrev.parm"
if [ "$("$PARMC" -I "$inc/c" --interpret "$TMP/std/bitrev.parm" <"$TMP/std/in8.txt" | head -2 | tr '\n' ' ')" = "5 -1 " ]; then
    pass
else
    fail "import: an -I directory does not take precedence over the stdlib"
fi

# import_error NAME EXPECTED-FIRST-LINE ARGS...: --check of uses.parm fails
# with exit 1 and that first line on stderr
import_error() {
    local name=$1 want=$2
    shift 2
    "$PARMC" --check "$@" >/dev/null 2>"$TMP/std/err.txt"
    local status=$?
    if [ "$status" -eq 1 ] && [ "$(head -1 "$TMP/std/err.txt")" = "$want" ]; then
        pass
    else
        fail "import: $name: exit $status: $(head -1 "$TMP/std/err.txt")"
    fi
}
stdlib_dir=$(dirname "$PARMC")/../stdlib
import_error "missing import" \
    "$TMP/std/uses.parm:1:1: error: cannot find \"mylib\" (searched: $inc/c, $stdlib_dir)" -I "$inc/c" "$TMP/std/uses.parm"
printf 'import "broken"\nentry main (xs : [2^2]i32) = broken xs\n' >"$TMP/std/broken.parm"
# an error in an imported file is led by the user's call that reached it
import_error "error in an imported file" \
    "$TMP/std/broken.parm:2:30: in the call of 'broken' with <[2^2]>:" -I "$inc/bad" "$TMP/std/broken.parm"
[ "$(sed -n 2p "$TMP/std/err.txt")" = "$inc/bad/broken.parm:2:26: error: type mismatch: expected i32, got the number 1.5" ] &&
    pass || fail "import: error in an imported file: $(sed -n 2p "$TMP/std/err.txt")"
printf 'import "sort"\nasc xs = xs\nentry main (xs : [2^2]i32) = asc xs\n' >"$TMP/std/twice.parm"
import_error "a name defined in two files" \
    "$TMP/std/twice.parm:2:1: error: 'asc' is also defined in $stdlib_dir/sort.parm" "$TMP/std/twice.parm"
if "$PARMC" --check -I >/dev/null 2>&1; [ $? -eq 2 ]; then pass; else fail "import: -I without a directory is not a usage error"; fi

# ---- the C back end on stdlib programs
mkdir -p "$TMP/c"
python3 tests/tools/gen.py i32 1024 50 >"$TMP/std/in1024.txt"
for expr in "bitonic_sort desc 10 xs" "bpm_sort asc 10 xs" "bitonic_sort_rows asc 4 6 xs" \
    "crinkle [4, 3, 3] 1 2 (flip [4, 3, 3] [0, 2] xs)" "gray 10 (bitrotl 10 3 xs)" \
    "sort_idx_rows idx_desc 2 8 xs" "argsort idx_asc 10 xs"; do
    std_prog i32 10 "$expr" "$TMP/std/prog.parm"
    c_vs_interp "stdlib: $expr" "$TMP/std/prog.parm" main "$TMP/std/in1024.txt"
done
std_prog "(u32, i32)" 9 "bpm_sort kv_desc 9 xs" "$TMP/std/prog.parm"
python3 tests/tools/gen.py u32,i32 512 51 >"$TMP/std/kv512.txt"
c_vs_interp "stdlib: bpm_sort kv_desc" "$TMP/std/prog.parm" main "$TMP/std/kv512.txt"

# ---- make install: the installed parmc finds the installed stdlib
prefix=$TMP/std/prefix
if make -s install PREFIX="$prefix" >"$TMP/std/install.txt" 2>&1 &&
    [ -x "$prefix/bin/parmc" ] && [ -f "$prefix/share/parmc/stdlib/sort.parm" ] &&
    [ -f "$prefix/share/parmc/stdlib/perm.parm" ] && [ -f "$prefix/share/man/man1/parmc.1" ]; then
    pass
else
    fail "make install: $(head -3 "$TMP/std/install.txt")"
fi
printf 'import "sort"\nentry main (xs : [2^3]i32) = bitonic_sort desc 3 xs\n' >"$TMP/std/installed.parm"
for how in path PATH; do
    if [ $how = path ]; then
        out=$(cd "$TMP/std" && "$prefix/bin/parmc" --interpret installed.parm <in8.txt 2>&1)
    else   # found through PATH: the stdlib is found through /proc/self/exe
        out=$(cd "$TMP/std" && PATH="$prefix/bin:$PATH" parmc --interpret installed.parm <in8.txt 2>&1)
    fi
    if [ "$(echo $out)" = "7 5 3 2 2 0 -1 -4" ]; then pass; else fail "installed parmc ($how): $out"; fi
done
if "$prefix/bin/parmc" --help | grep -q -- '-I, --include DIR'; then pass; else fail "installed parmc: --help"; fi
if ! command -v groff >/dev/null ||
    groff -man -ww -z "$prefix/share/man/man1/parmc.1" 2>&1 | { ! grep -q .; }; then
    pass
else
    fail "man page: $(groff -man -ww -z "$prefix/share/man/man1/parmc.1" 2>&1 | head -3)"
fi
