# Back ends. The emitted C (--target=c --emit-main) must print exactly what
# the interpreter prints: every example at small sizes, and random programs.
# Each program runs twice: through its standalone main, and through its API
# from tests/tools/guard_main.c, with every array in its own pages (inputs
# read-only, each array ending at an inaccessible page), which also checks
# calls with overlapping arrays (in place and by half).
# (The emitted CUDA's nvcc compiles: 50-cuda-compile.sh; c_vs_interp: tests/lib.sh.)
mkdir -p "$TMP/c"
for k in 1 3 6 10 13; do
    variant examples/sort.parm "entry main (xs : [2^$k]i32) = sort $k xs"
    cp "$TMP/variant.parm" "$TMP/c/sort.parm"
    python3 tests/tools/gen.py i32 $((1 << k)) $k >"$TMP/c/in.txt"
    c_vs_interp "sort 2^$k" "$TMP/c/sort.parm" main "$TMP/c/in.txt"
done
for k in 2 9 12; do
    variant examples/bitonic.parm "entry main (xs : [2^$k]f32) = bsort $k xs"
    cp "$TMP/variant.parm" "$TMP/c/bitonic.parm"
    python3 tests/tools/gen.py f32 $((1 << k)) $k >"$TMP/c/in.txt"
    c_vs_interp "bitonic 2^$k" "$TMP/c/bitonic.parm" main "$TMP/c/in.txt"
done
# runs of masked coli (comparators guarded by their position): Batcher's
# odd-even merge sort in one kernel and in seven, and tests/emu/masked.parm's
# networks, over two kernels where their columns span more than a tile
for k in 12 16; do
    variant bench/sort/batcher.parm "entry main (xs : [2^$k]i32) = sort $k xs"
    cp "$TMP/variant.parm" "$TMP/c/batcher.parm"
    python3 tests/tools/gen.py i32 $((1 << k)) $k >"$TMP/c/in.txt"
    c_vs_interp "Batcher's odd-even merge 2^$k" "$TMP/c/batcher.parm" main "$TMP/c/in.txt"
done
for body in "transposition 3 16 xs" "shifted 3 13 xs" "sparse (shifted 0 16 xs)"; do
    variant tests/emu/masked.parm "entry main (xs : [2^16]i32) = $body"
    cp "$TMP/variant.parm" "$TMP/c/masked.parm"
    python3 tests/tools/gen.py i32 65536 3 >"$TMP/c/in.txt"
    c_vs_interp "masked coli: $body" "$TMP/c/masked.parm" main "$TMP/c/in.txt"
done
# random chains of column stages with masked coli runs (randprog.py
# --columns, as 54-cuda-emu.sh runs them), in tiles of 2^12
cols_seed=$((${RANDPROG_SEED:-$(date +%s)} + 5))
mkdir -p "$TMP/c/cols"
python3 tests/tools/randprog.py --columns "$TMP/c/cols" "${COLUMNS_COUNT:-20}" "$cols_seed"
for ((k = 0; k < ${COLUMNS_COUNT:-20}; k++)); do
    "$PARMC" --tile-bytes 16K --target=c --emit-main "$TMP/c/cols/prog_$k.parm" -o "$TMP/c/cols/prog.c" &&
        $CC_TEST -std=c11 -O1 "$TMP/c/cols/prog.c" -o "$TMP/c/cols/prog" -lm &&
        "$TMP/c/cols/prog" <"$TMP/c/cols/in_$k.txt" >"$TMP/c/cols/c.out" &&
        "$PARMC" --interpret "$TMP/c/cols/prog_$k.parm" <"$TMP/c/cols/in_$k.txt" | cmp -s - "$TMP/c/cols/c.out" && pass ||
        fail "C differs from the interpreter: random program $k (RANDPROG_SEED=$((cols_seed - 5)); randprog.py --columns DIR $((k + 1)) $cols_seed), --tile-bytes 16K"
done
# special floats (--special-floats: NaN, infinities, -0, subnormals) through
# a sort, arithmetic after a sort, and a reduction, f32 and f64
printf '%s\n' 'import "sort"' 'entry main (xs : [2^6]f32) = bitonic_sort asc 6 xs' \
    'entry m64 (xs : [2^5]f64) = map (\x -> x * 2.0 + 1.0) (bitonic_sort desc 5 xs)' \
    'entry red (xs : [2^6]f32) = reduce (+) 0.0 xs' >"$TMP/c/special.parm"
for e in main m64 red; do
    "$PARMC" --random-input=3 --special-floats -e $e "$TMP/c/special.parm" >"$TMP/c/in.txt"
    c_vs_interp "special floats: $e" "$TMP/c/special.parm" $e "$TMP/c/in.txt"
done
python3 tests/tools/gen.py u32,i32 4096 5 >"$TMP/c/in.txt"
c_vs_interp "kvsort" examples/kvsort.parm main "$TMP/c/in.txt"
variant examples/batched.parm "entry main (xs : [2^14]i32) = rows 4 (bsort 10) xs"
cp "$TMP/variant.parm" "$TMP/c/batched.parm"
python3 tests/tools/gen.py i32 16384 6 >"$TMP/c/in.txt"
c_vs_interp "batched 2^4 rows of 2^10" "$TMP/c/batched.parm" main "$TMP/c/in.txt"
python3 tests/tools/gen.py i32 1024 7 >"$TMP/c/in.txt"
c_vs_interp "bitrev" examples/permute.parm main "$TMP/c/in.txt"
c_vs_interp "reverse" examples/permute.parm rev "$TMP/c/in.txt"
python3 tests/tools/gen.py i32 4096 8 >"$TMP/c/in.txt"
c_vs_interp "transpose" examples/permute.parm trans "$TMP/c/in.txt"
# in place at 2^16 (the guard's -a): 24,576 of 65,536 elements were wrong (issue 11)
variant examples/permute.parm "entry main (xs : [2^16]i32) = bitrev 16 xs"
cp "$TMP/variant.parm" "$TMP/c/bitrev16.parm"
python3 tests/tools/gen.py i32 65536 8 >"$TMP/c/in.txt"
c_vs_interp "bitrev 2^16" "$TMP/c/bitrev16.parm" main "$TMP/c/in.txt"

# two bodies on groups of 2^k elements (tests/emu/groups.parm), and the
# issue's `rot4` on 2^10 elements of i64
for e in mixed by_block by_thread; do
    variant tests/emu/groups.parm "entry main (xs : [2^16]i32) = $e xs"
    cp "$TMP/variant.parm" "$TMP/c/groups.parm"
    python3 tests/tools/gen.py i32 65536 11 >"$TMP/c/in.txt"
    c_vs_interp "groups: $e" "$TMP/c/groups.parm" main "$TMP/c/in.txt"
done
variant tests/emu/groups.parm "entry main (xs : [2^12]i32) = wide xs"
cp "$TMP/variant.parm" "$TMP/c/groups.parm"
python3 tests/tools/gen.py i32 4096 13 >"$TMP/c/in.txt"
c_vs_interp "groups: 32 elements" "$TMP/c/groups.parm" main "$TMP/c/in.txt"
variant tests/emu/groups.parm "entry main (xs : [2^12](u8, i8, u8, i8)) = wide_fields xs"
cp "$TMP/variant.parm" "$TMP/c/groups.parm"
python3 tests/tools/gen.py u8,i8,u8,i8 4096 14 >"$TMP/c/in.txt"
c_vs_interp "groups: 32 elements of 4 fields" "$TMP/c/groups.parm" main "$TMP/c/in.txt"
variant tests/emu/groups.parm "entry main (xs : [2^16]i32) = reduced xs"
cp "$TMP/variant.parm" "$TMP/c/groups.parm"
python3 tests/tools/gen.py i32 65536 15 >"$TMP/c/in.txt"
c_vs_interp "groups: reductions in element code" "$TMP/c/groups.parm" main "$TMP/c/in.txt"
variant tests/emu/groups.parm "entry main (xs : [2^16](i32, i32)) = reduced_pairs xs"
cp "$TMP/variant.parm" "$TMP/c/groups.parm"
python3 tests/tools/gen.py i32,i32 65536 16 >"$TMP/c/in.txt"
c_vs_interp "groups: zip, unzip and reductions in element code" "$TMP/c/groups.parm" main "$TMP/c/in.txt"
variant tests/emu/groups.parm "entry main (xs : [2^10]i64) = twos 8 rot4 xs"
cp "$TMP/variant.parm" "$TMP/c/groups.parm"
python3 tests/tools/gen.py i64 1024 12 >"$TMP/c/in.txt"
c_vs_interp "groups: rot4 on 2^10 i64" "$TMP/c/groups.parm" main "$TMP/c/in.txt"

# back-end regressions (tests/backend/NAME.parm on NAME.in), under ASan and
# UBSan; where NAME.out exists (hand-checked), the interpreter must print it
for prog in tests/backend/*.parm; do
    C_EXTRA_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
        c_vs_interp "regression $prog" "$prog" main "${prog%.parm}.in"
    [ -e "${prog%.parm}.out" ] || continue
    if "$PARMC" --interpret "$prog" <"${prog%.parm}.in" 2>&1 | cmp -s - "${prog%.parm}.out"; then
        pass
    else
        fail "interpreter differs from ${prog%.parm}.out"
    fi
done

# the scalar functions (exp, log, tanh, atan2, pow, fma, abs, floor, ceil):
# every entry of tests/backend/functions.parm (its main runs in the loop
# above) on random input with special floats, under ASan and UBSan
for entry in f64s f32s ints col32 col64; do
    "$PARMC" --random-input=7 --special-floats -e "$entry" tests/backend/functions.parm >"$TMP/c/in.txt"
    C_EXTRA_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
        c_vs_interp "scalar functions: $entry" tests/backend/functions.parm "$entry" "$TMP/c/in.txt"
done

# the functions of two and parm on blocks larger than a thread's registers,
# run as whole-array stages: shifts and elements at static positions
# (tests/backend/lifted.parm: two-lift, two-reduce-blocks) and reductions
# that meet other reductions of the block (tests/backend/block_totals.parm:
# two-reduce-blocks, two-reduce-zip), shifts whose fill the block computes
# (tests/backend/shift_fill.parm: shift-fill-map), and reductions whose
# start the block computes and scalar code on several reductions' totals
# (tests/backend/block_starts.parm: two-reduce-start, two-sink-scalars); every entry
# (each main runs in the loop above) on random input, under ASan and UBSan
for entry in lifted:kogge lifted:firsts lifted:fields lifted:parms lifted:parm_shift lifted:out lifted:nested \
    lifted:spread lifted:mixed lifted:flags lifted:small_rows lifted:converted block_totals:combined block_totals:variance block_totals:softmaxes \
    block_totals:chained block_totals:columns block_totals:inner shift_fill:down shift_fill:pairs shift_fill:total \
    shift_fill:nested shift_fill:scan block_starts:sub block_starts:fsum block_starts:total block_starts:pairs \
    block_starts:let_max block_starts:chained block_starts:parm_start block_starts:left_operand block_starts:replicated \
    lifted:outside_small lifted:outside_scalar lifted:outside_shifted lifted:outside_reduce \
    lifted:outside_parm lifted:outside_vcolumn; do
    prog=tests/backend/${entry%%:*}.parm
    "$PARMC" --random-input=7 -e "${entry#*:}" "$prog" >"$TMP/c/in.txt"
    C_EXTRA_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
        c_vs_interp "$entry" "$prog" "${entry#*:}" "$TMP/c/in.txt"
done

# half-bmmc and half-join keep the value they return (issue 41 item 0):
# every entry of tests/backend/half_join_kept.parm (its main runs in the
# loop above) on random input, under ASan and UBSan, and through every IR
# stage (--compare-stages)
for entry in main upper upper_param at2 at4 upper4; do
    "$PARMC" --random-input=7 -e "$entry" tests/backend/half_join_kept.parm >"$TMP/c/in.txt"
    [ "$entry" = main ] || C_EXTRA_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
        c_vs_interp "half_join_kept:$entry" tests/backend/half_join_kept.parm "$entry" "$TMP/c/in.txt"
    "$PARMC" --interpret --compare-stages -e "$entry" tests/backend/half_join_kept.parm <"$TMP/c/in.txt" >/dev/null 2>"$TMP/c/err.txt" &&
        pass || fail "half_join_kept: $entry: the optimised program differs: $(head -3 "$TMP/c/err.txt")"
done

# position-only subexpressions as tables: every entry of
# tests/backend/tables.parm (its main runs in the loop above) on random
# input, under ASan and UBSan, with the entries that must make tables
for entry in ints split bools narrow cheap pairs butterflies summed twice chained; do
    "$PARMC" --random-input=7 -e "$entry" tests/backend/tables.parm >"$TMP/c/in.txt"
    C_EXTRA_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
        c_vs_interp "tables: $entry" tests/backend/tables.parm "$entry" "$TMP/c/in.txt"
    "$PARMC" --interpret --compare-stages -e "$entry" tests/backend/tables.parm <"$TMP/c/in.txt" >/dev/null 2>"$TMP/c/err.txt" &&
        pass || fail "tables: $entry: the optimised program differs: $(head -3 "$TMP/c/err.txt")"
done
tables=$(for entry in main ints split bools narrow cheap pairs butterflies summed twice chained; do
    "$PARMC" --dump-ir -e "$entry" tests/backend/tables.parm | grep -c ' = table '; done | tr '\n' ' ')
[ "$tables" = "1 2 2 1 1 0 1 8 2 2 1 " ] && pass || fail "tables: tables per entry: $tables"

# where tables live (compiler/plan/table_place.c): tests/plan/table_places.parm
# has a table in constant memory, tables read as immediates and tables in
# global memory (its plan is golden, section 37); --report counts them per
# kernel, its C equals the interpreter, and so do its CUDA kernels emulated
# (the emulator runs LOCAL kernels of an entry named main)
places=tests/plan/table_places.parm
for want in "rows:1 in global memory (read-only cache), 1 in constant memory" \
    "butterflies:5 in global memory (read-only cache), 4 in the kernel's code (immediates)" "widen:1 in constant memory"; do
    entry=${want%%:*}
    "$PARMC" --report -e "$entry" "$places" | grep -qF "entries, " &&
        "$PARMC" --report -e "$entry" "$places" | grep -qF "bytes; ${want#*:}" && pass ||
        fail "tables: --report of $entry: $("$PARMC" --report -e "$entry" "$places" | grep tables)"
    "$PARMC" --random-input=7 -e "$entry" "$places" >"$TMP/c/in.txt"
    C_EXTRA_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
        c_vs_interp "table places: $entry" "$places" "$entry" "$TMP/c/in.txt"
    [ "$entry" = widen ] && continue
    { grep -v '^entry ' "$places"; grep "^entry $entry " "$places" | sed "s/^entry $entry /entry main /"; } >"$TMP/c/places.parm"
    "$PARMC" --interpret "$TMP/c/places.parm" <"$TMP/c/in.txt" >"$TMP/c/want.txt"
    mkdir -p "$TMP/c/emu"
    if PARMC=$PARMC sh tests/emu/run.sh "$TMP/c/places.parm" "$TMP/c/emu" <"$TMP/c/in.txt" >"$TMP/c/got.txt" 2>"$TMP/c/err.txt" &&
        cmp -s "$TMP/c/want.txt" "$TMP/c/got.txt"; then
        pass
    else
        fail "tables: CUDA emulation of $entry: $(head -3 "$TMP/c/err.txt")"
    fi
done
if command -v nvcc >/dev/null; then
    if "$PARMC" "$places" -o "$TMP/c/places.cu" 2>"$TMP/c/err.txt" &&
        [ "$(grep -c '^static PARM_CONST_TABLE ' "$TMP/c/places.cu")" = 2 ] &&
        nvcc -arch=sm_90 -O1 -c "$TMP/c/places.cu" -o "$TMP/c/places.o" 2>"$TMP/c/err.txt"; then
        pass
    else
        fail "tables: CUDA of $places with tables in constant memory: $(head -5 "$TMP/c/err.txt")"
    fi
fi

# run-time scalar parameters: every entry of tests/backend/scalar_params.parm
# (its main runs in the loop above)
# arrays of one element: tiles of one, ranged entries at n = 0 (input 3
# picks it), a pad of one element given none
for entry in ident indexed widened sorted graph filled ranged padded taken; do
    "$PARMC" --random-input=3 -e "$entry" tests/backend/one_element.parm >"$TMP/c/in.txt"
    C_EXTRA_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
        c_vs_interp "one element: $entry" tests/backend/one_element.parm "$entry" "$TMP/c/in.txt"
done
# the entry shapes whose CUDA 50-cuda-compile compiles without warnings
# (tests/backend/entry_shapes.parm; its main, an identity, runs above)
for entry in total several pairs swapped scaled lengths unstored ignored; do
    "$PARMC" --random-input=5 -e "$entry" tests/backend/entry_shapes.parm >"$TMP/c/in.txt"
    c_vs_interp "entry shapes: $entry" tests/backend/entry_shapes.parm "$entry" "$TMP/c/in.txt"
done
echo >"$TMP/c/in.txt"
c_vs_interp "one element: padded, given none" tests/backend/one_element.parm padded "$TMP/c/in.txt"

# work in a stage's function that does not depend on its parameters runs
# once at the entry's level (hoist-invariant)
for entry in nested columns records operator parms scalars floats taken; do
    "$PARMC" --random-input=7 -e "$entry" tests/backend/invariant.parm >"$TMP/c/in.txt"
    C_EXTRA_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
        c_vs_interp "invariant work: $entry" tests/backend/invariant.parm "$entry" "$TMP/c/in.txt"
done

for entry in after widen blocks shifted ranged zipped zipped_first; do
    "$PARMC" --random-input=7 -e "$entry" tests/backend/scalar_params.parm >"$TMP/c/in.txt"
    c_vs_interp "scalar parameters: $entry" tests/backend/scalar_params.parm "$entry" "$TMP/c/in.txt"
done

# values of enclosing bodies read by reduce operators and other bodies
# (issue 24): every entry of tests/backend/reduce_reads.parm (its main runs
# in the loop above) on random input, and through every stage
for entry in in_block deep returned elem inner mapped pairs halves; do
    "$PARMC" --random-input=7 -e "$entry" tests/backend/reduce_reads.parm >"$TMP/c/in.txt"
    c_vs_interp "reduce reads: $entry" tests/backend/reduce_reads.parm "$entry" "$TMP/c/in.txt"
    "$PARMC" --interpret --compare-stages -e "$entry" tests/backend/reduce_reads.parm <"$TMP/c/in.txt" >/dev/null 2>"$TMP/c/err.txt" &&
        pass || fail "reduce reads: $entry: the stages differ: $(head -3 "$TMP/c/err.txt")"
done

# entry graphs: every entry of tests/backend/graph.parm (its main runs in the
# loop above) on random input, under ASan and UBSan, and its CUDA through nvcc
for entry in kv kv_unzip scaled replicated rotated lengths mixed twice centred sub float_sum pairs filled scalars \
    taken built ranged_sum ranged_kv fused fused_pairs padded; do
    "$PARMC" --random-input=7 -e "$entry" tests/backend/graph.parm >"$TMP/c/in.txt"
    C_EXTRA_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
        c_vs_interp "entry graph: $entry" tests/backend/graph.parm "$entry" "$TMP/c/in.txt"
done
# a call whose inputs overlap its outputs (in place, by half) gives the
# result of the call on separate arrays; outputs that overlap are refused
if "$PARMC" --target=c tests/backend/graph.parm -o "$TMP/c/graph_api.c" 2>"$TMP/c/err.txt" &&
    $CC_TEST -std=c11 -O1 -Wall -Wextra -Werror -fsanitize=address,undefined -I"$TMP/c" tests/tools/graph_alias.c \
        "$TMP/c/graph_api.c" -o "$TMP/c/graph_alias" 2>"$TMP/c/err.txt" && "$TMP/c/graph_alias" >"$TMP/c/err.txt" 2>&1; then
    pass
else
    fail "entry graph aliasing: $(head -5 "$TMP/c/err.txt")"
fi
# the same for results over a segment entry's starts or lengths, which its
# nodes read to the last (copied first where a result overlaps them)
if "$PARMC" --target=c tests/backend/segments_alias.parm -o "$TMP/c/segments_api.c" 2>"$TMP/c/err.txt" &&
    $CC_TEST -std=c11 -O1 -Wall -Wextra -Werror -fsanitize=address,undefined -I"$TMP/c" tests/tools/segments_alias.c \
        "$TMP/c/segments_api.c" -o "$TMP/c/segments_alias" -lm 2>"$TMP/c/err.txt" &&
    "$TMP/c/segments_alias" >"$TMP/c/err.txt" 2>&1; then
    pass
else
    fail "segment entries' aliasing: $(head -5 "$TMP/c/err.txt")"
fi

# the one-pass scans (scanblocks, exscanblocks) through C: blocks of every
# size, i64, u8, i16 and bool, a scan in a two and in a map's function, a
# map of one (the largest two entries of tests/gpu/onepass.parm are for the
# GPU)
for e in blockmax bytes small intwo mapped flags inmap; do
    "$PARMC" --random-input=5 -e $e tests/gpu/onepass.parm >"$TMP/c/onepass_in.txt"
    c_vs_interp "one-pass scan $e" tests/gpu/onepass.parm $e "$TMP/c/onepass_in.txt"
done

# random programs of what the back ends compile today (randprog.py
# --backend; the seed of 45-optimiser.sh plus one), through c_vs_interp.
# Every fifth one, up to RANDPROG_ASAN of them, is built with AddressSanitizer
# and UBSan, which see a write past a buffer even when the output is right
# (at -O0: with -O1, gcc takes a minute on the C of a long chain). Programs
# at sizes up to 2^34 (--backend --big) must compile to C that cc accepts and
# to CUDA (nvcc for the first two, when present).
rand_seed=$((${RANDPROG_SEED:-$(date +%s)} + 1))
count=${BACKEND_RANDOM_COUNT:-300}
asan_count=${RANDPROG_ASAN:-20}
big_count=${RANDPROG_BIG_COUNT:-20}

rand_name() {   # rand_name K OPTIONS: how to regenerate program K
    echo "random program $1 (RANDPROG_SEED=$((rand_seed - 1)); randprog.py $2 DIR $(($1 + 1)) $rand_seed)"
}


first_error() {  # the first line of FILE that names an error, else its first 3
    grep -m1 -E 'error|ERROR' "$1" || head -3 "$1"
}

# big_compiles NAME PROGRAM NVCC: C (through cc -c) and CUDA (through nvcc
# when NVCC is yes)
big_compiles() {
    local name=$1 prog=$2 d=$TMP/c/big
    mkdir -p "$d"
    if ! "$PARMC" --target=c --emit-main "$prog" -o "$d/prog.c" 2>"$d/err.txt"; then
        fail "emit C $name: $(first_error "$d/err.txt")"
    elif ! $CC_TEST -std=c11 -O0 -Wall -Wextra -Werror -c "$d/prog.c" -o "$d/prog.o" 2>"$d/err.txt"; then
        fail "compile C $name: $(head -5 "$d/err.txt")"
    elif ! "$PARMC" "$prog" -o "$d/prog.cu" 2>"$d/err.txt"; then
        fail "emit CUDA $name: $(first_error "$d/err.txt")"
    elif [ "$3" = yes ] && ! nvcc -arch=sm_90 -O1 -c "$d/prog.cu" -o "$d/prog.o" 2>"$d/err.txt"; then
        fail "compile CUDA $name: $(head -5 "$d/err.txt")"
    else
        pass
    fi
}

# random_program K: program K through C (its standalone main and the guarded
# API, every fifth under ASan and UBSan) and its CUDA emitted, in $C_DIR
random_program() {
    local k=$1 flags=
    ((k % 5 == 0 && k / 5 < asan_count)) && flags="-O0 -g -fsanitize=address,undefined -fno-sanitize-recover=all"
    C_EXTRA_FLAGS=$flags c_vs_interp "$(rand_name "$k" --backend)" "$TMP/c/rand/prog_$k.parm" main "$TMP/c/rand/in_$k.txt"
    # the CUDA of the same program: its shared-memory planes are aligned
    if "$PARMC" "$TMP/c/rand/prog_$k.parm" -o "$C_DIR/prog.cu" 2>"$C_DIR/err.txt" &&
        python3 tests/tools/shared_align.py "$C_DIR/prog.cu" >"$C_DIR/err.txt"; then
        pass
    else
        fail "CUDA of $(rand_name "$k" --backend): $(head -3 "$C_DIR/err.txt")"
    fi
}

# The random programs in TEST_JOBS workers (default: one per core), each in
# a subshell of its own directory that hands its counts back in a file.
mkdir -p "$TMP/c/rand" "$TMP/c/rand_big"
python3 tests/tools/randprog.py --backend "$TMP/c/rand" "$count" "$rand_seed"
workers=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
worker_pids=()
for ((w = 0; w < workers; w++)); do
    (
        passed=0 failed=0 C_DIR=$TMP/c/w$w
        mkdir -p "$C_DIR"
        for ((k = w; k < count; k += workers)); do random_program "$k"; done
        echo "$passed $failed" >"$TMP/c/w$w.counts"
    ) >"$TMP/c/w$w.log" 2>&1 &
    worker_pids+=($!)
done
wait "${worker_pids[@]}"
for ((w = 0; w < workers; w++)); do
    cat "$TMP/c/w$w.log"
    if read -r p f <"$TMP/c/w$w.counts"; then
        passed=$((passed + p)) failed=$((failed + f))
    else
        fail "random-program worker $w ended without its counts"
    fi
done
# random programs of 1- and 2-byte fields at 2^9 to 2^12 elements
# (randprog.py --narrow), whose permutations plan 16-byte vectors: the C
# moves their elements by the vector kernels' tile layout
narrow_count=${RANDPROG_NARROW_COUNT:-30}
mkdir -p "$TMP/c/rand_narrow"
python3 tests/tools/randprog.py --backend --narrow "$TMP/c/rand_narrow" "$narrow_count" "$rand_seed"
for ((k = 0; k < narrow_count; k++)); do
    c_vs_interp "$(rand_name "$k" "--backend --narrow")" "$TMP/c/rand_narrow/prog_$k.parm" main "$TMP/c/rand_narrow/in_$k.txt"
done
python3 tests/tools/randprog.py --backend --big "$TMP/c/rand_big" "$big_count" "$rand_seed"
nvcc_left=0
command -v nvcc >/dev/null && nvcc_left=2
for ((k = 0; k < big_count; k++)); do
    big_compiles "$(rand_name "$k" "--backend --big")" "$TMP/c/rand_big/prog_$k.parm" \
        "$( ((k < nvcc_left)) && echo yes)"
done
