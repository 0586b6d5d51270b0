# The CUDA back end without a GPU: the kernels of sorting programs emulated on
# the CPU (tests/emu) must print exactly what the interpreter prints. This
# covers what the C target does not: register rounds, shared-memory slots and
# swizzles, and writes into the next layout.
mkdir -p "$TMP/emu"
emu_check() {   # emu_check NAME ENTRY-LINE SOURCE INPUT [SELECTS]
    # INPUT: a count of random EMU_TYPE values (default i32), "random" for
    # parmc --random-input (scalar parameters too), or an input file.
    # SELECTS: "none" when no comparator may have a run-time direction (the
    # register rounds make every direction a compile-time constant), "some"
    # when one must (the case exists to test the run-time path)
    variant "$3" "$2"
    cp "$TMP/variant.parm" "$TMP/emu/prog.parm"
    case $4 in
    random) "$PARMC" --random-input=9 "$TMP/emu/prog.parm" >"$TMP/emu/in.txt" ;;
    [0-9]*) python3 tests/tools/gen.py "${EMU_TYPE:-i32}" "$4" 9 >"$TMP/emu/in.txt" ;;
    *) cp "$4" "$TMP/emu/in.txt" ;;
    esac
    "$PARMC" --interpret "$TMP/emu/prog.parm" <"$TMP/emu/in.txt" >"$TMP/emu/want.txt"
    if [ -n "${5:-}" ]; then
        "$PARMC" "$TMP/emu/prog.parm" -o "$TMP/emu/dir.cu"
        local n
        n=$(grep -c 'const int pb[0-9]* = ' "$TMP/emu/dir.cu")
        case $5 in
        none) [ "$n" -eq 0 ] || { fail "$1: $n comparator steps with a run-time direction, expected none"; return; } ;;
        some) [ "$n" -gt 0 ] || { fail "$1: no comparator step with a run-time direction is left to test"; return; } ;;
        esac
    fi
    if PARMC=$PARMC sh tests/emu/run.sh "$TMP/emu/prog.parm" "$TMP/emu" <"$TMP/emu/in.txt" >"$TMP/emu/got.txt" 2>"$TMP/emu/err.txt" &&
        cmp -s "$TMP/emu/want.txt" "$TMP/emu/got.txt"; then
        pass
    else
        fail "CUDA emulation of $1: $(head -3 "$TMP/emu/err.txt")"
    fi
}
# other element sizes plan their lanes for other banks (access_model.h)
EMU_TYPE=f64 emu_check "bitonic 2^14 f64" "entry main (xs : [2^14]f64) = bsort 14 xs" examples/bitonic.parm 16384
EMU_TYPE=i16 emu_check "batched i16" "entry main (xs : [2^13]i16) = rows 3 (bsort 10) xs" examples/batched.parm 8192
EMU_TYPE=u8 emu_check "bitonic 2^14 u8" "entry main (xs : [2^14]u8) = bsort 14 xs" examples/bitonic.parm 16384
emu_check "sort 2^16 (5 kernels)" "entry main (xs : [2^16]i32) = sort 16 xs" examples/sort.parm 65536 none
# a one-pass scan of a small array inside a map's function: element code
# in a chain's kernel (emit_elem.c)
emu_check "scan in a map's function" "entry main (xs : [2^12]i32) = map (\\x -> reduce (+) 0 (exscanblocks 2 (+) x (mapi (\\i y -> y * i32 i + x) (replicate 3 x)))) xs" tests/gpu/onepass.parm 4096
# round layouts (plan_rounds.c): a round stores in the next round's layout,
# after a __syncwarp where its warp keeps its slots, else a block barrier;
# this sort has both
variant examples/sort.parm "entry main (xs : [2^17]i32) = sort 17 xs"
"$PARMC" --dump-plan "$TMP/variant.parm" >"$TMP/emu/plan.txt"
grep -q "layout P" "$TMP/emu/plan.txt" && grep -q "a block barrier before the store" "$TMP/emu/plan.txt" && pass ||
    fail "sort 2^17 no longer has round layouts with and without a block barrier"
emu_check "sort 2^17 (stores in the next round's layout)" "entry main (xs : [2^17]i32) = sort 17 xs" examples/sort.parm 131072
# --register-bytes 256: 64 i32 a thread, half the threads
PARMC_FLAGS="--register-bytes 256" emu_check "batched, 256 bytes of registers a thread" \
    "entry main (xs : [2^13]i32) = rows 3 (bsort 10) xs" examples/batched.parm 8192
PARMC_FLAGS="--register-bytes 256" EMU_TYPE=f64 emu_check "bitonic 2^14 f64, 256 bytes of registers a thread" \
    "entry main (xs : [2^14]f64) = bsort 14 xs" examples/bitonic.parm 16384
emu_check "bitonic 2^15" "entry main (xs : [2^15]i32) = bsort 15 xs" examples/bitonic.parm 32768 none
emu_check "batched 2^3 rows of 2^10" "entry main (xs : [2^13]i32) = rows 3 (bsort 10) xs" examples/batched.parm 8192 none
emu_check "direction from the block index" "entry main (xs : [2^16]i32) = by_block xs" tests/emu/directions.parm 65536 some
emu_check "direction from the thread index" "entry main (xs : [2^16]i32) = by_thread xs" tests/emu/directions.parm 65536 some
emu_check "groups of 4 and 8 through layouts" "entry main (xs : [2^16]i32) = mixed xs" tests/emu/groups.parm 65536 none
emu_check "group order from the block index" "entry main (xs : [2^16]i32) = by_block xs" tests/emu/groups.parm 65536 some
emu_check "group order from the thread index" "entry main (xs : [2^16]i32) = by_thread xs" tests/emu/groups.parm 65536 some
emu_check "groups of 32" "entry main (xs : [2^12]i32) = wide xs" tests/emu/groups.parm 4096
emu_check "reductions in element code" "entry main (xs : [2^16]i32) = reduced xs" tests/emu/groups.parm 65536
# tables of position-only subexpressions (compiler/optimiser/opt_tables.c)
# read in register rounds with a run-time scalar, and in an elementwise step
emu_check "tables in register rounds" "entry main (s : f32) (xs : [2^14]f32) = dif s 14 xs" tests/backend/tables.parm random
emu_check "tables in an elementwise step" "entry main (xs : [2^12]f32) = mapi (\\i x -> x * f32 (window i)) xs" \
    tests/backend/tables.parm random
# run-time scalar parameters before and after the array, in every kernel
emu_check "scalar parameters" "entry main (d : i32) (xs : [2^16]i32) (e : i32) = shifted d e xs" tests/emu/scalars.parm random
# NaNs from f32 arithmetic in a kernel: the canonical NaN, as in the
# interpreter (this runs runtime/parm_ops.h on the CPU; tests/gpu/run.sh
# checks what a GPU makes)
emu_check "NaNs from f32 arithmetic" "entry main (xs : [2^6]f32) = col 3 (\\[a, b] -> [a * b, a - b]) xs" \
    tests/emu/scalars.parm tests/emu/nan.in
# the scalar functions (exp, tanh, atan2; pow, fma, log, abs, floor) in
# kernels, on special floats (tests/backend/functions.parm)
for entry in col32 col64; do
    grep "^entry $entry " tests/backend/functions.parm | sed "s/^entry $entry /entry main /" >"$TMP/emu/entry.txt"
    "$PARMC" --random-input=9 --special-floats -e "$entry" tests/backend/functions.parm >"$TMP/emu/functions.in"
    emu_check "scalar functions: $entry" "$(cat "$TMP/emu/entry.txt")" tests/backend/functions.parm "$TMP/emu/functions.in"
done
# entries of any length (docs/language.md, section 7): the first kernel reads
# past the shape as the pad, the last writes only the shape (the emulator
# checks the bytes after the output); a length that is not a power of two,
# rows of odd length, records
# Batcher's odd-even merge sort (bench/sort/batcher.parm): comparators
# guarded by their position, in the loops of register rounds (Round.loops);
# and a tile of 2^2, whose rounds write each pair out
emu_check "Batcher's odd-even merge, masked coli" "entry main (xs : [2^14]i32) = sort 14 xs" bench/sort/batcher.parm 16384
# the same at 2^16: seven kernels, the guards reading the block's bits too
emu_check "Batcher's odd-even merge of 2^16 (7 kernels)" "entry main (xs : [2^16]i32) = sort 16 xs" bench/sort/batcher.parm 65536
# other runs of masked coli (tests/emu/masked.parm): odd-even transposition
# rounds, each split over two kernels by tiles of 2^12; pairs at distance
# 2^3 in index order; guards and directions on scattered bits after pairs
# at distance 1 over two kernels
PARMC_FLAGS="--tile-bytes 16K" emu_check "odd-even transposition rounds, tiles of 2^12" \
    "entry main (xs : [2^14]i32) = transposition 3 14 xs" tests/emu/masked.parm 16384
emu_check "pairs at distance 2^3" "entry main (xs : [2^14]i32) = shifted 3 11 xs" tests/emu/masked.parm 16384
emu_check "guards on scattered bits" "entry main (xs : [2^16]i32) = sparse (shifted 0 16 xs)" tests/emu/masked.parm 65536
# random chains of column stages, masked coli runs among them, and halves
# kept with stages after them joined back (randprog.py --columns;
# RANDPROG_SEED as in 45-optimiser.sh, plus 5), every other one in tiles of
# 2^12, which splits more of them over kernels, and every fourth in tiles of
# clusters of 4 such blocks where that saves passes; an entry graph (the
# halves and joins) through graph.sh, a chain through run.sh
cols_seed=$((${RANDPROG_SEED:-$(date +%s)} + 5))
mkdir -p "$TMP/emu/cols"
python3 tests/tools/randprog.py --columns "$TMP/emu/cols" "${EMU_COLUMNS_COUNT:-10}" "$cols_seed"
for ((k = 0; k < ${EMU_COLUMNS_COUNT:-10}; k++)); do
    prog=$TMP/emu/cols/prog_$k.parm
    "$PARMC" --interpret "$prog" <"$TMP/emu/cols/in_$k.txt" >"$TMP/emu/want.txt"
    tiles=$( ((k % 2)) && echo "--tile-bytes 16K")
    ((k % 4 == 3)) && tiles="--tile-bytes 16K --cluster-blocks 4"
    if "$PARMC" --dump-plan "$prog" | head -1 | grep -q '^graph '; then
        emulate() { PARMC=$PARMC PARMC_FLAGS=$tiles sh tests/emu/graph.sh "$TMP/emu" "$prog"; }
    else
        emulate() { PARMC=$PARMC PARMC_FLAGS=$tiles sh tests/emu/run.sh "$prog" "$TMP/emu"; }
    fi
    if emulate <"$TMP/emu/cols/in_$k.txt" >"$TMP/emu/got.txt" 2>"$TMP/emu/err.txt" &&
        cmp -s "$TMP/emu/want.txt" "$TMP/emu/got.txt"; then
        pass
    else
        fail "CUDA emulation of random program $k (RANDPROG_SEED=$((cols_seed - 5)); randprog.py --columns DIR $((k + 1)) $cols_seed) $tiles: $(head -3 "$TMP/emu/err.txt")"
    fi
done
emu_check "a tile of 2^2: pairs written out" \
    "entry main (xs : [2^2]i32) = col 1 cas (coli 2 (\\i [a, b] -> if i == 0 then cas [a, b] else [a, b]) xs)" \
    bench/sort/batcher.parm 4
"$PARMC" --dump-plan "$TMP/emu/prog.parm" | grep -q "steps as loops" &&
    fail "a tile of 2^2: its round is planned as loops, expected pairs written out" || pass
emu_check "one element: a tile of one" "entry main (xs : [2^0]i32) = mapi (\\i x -> x * 3 + i32 i + 1) xs" \
    tests/emu/scalars.parm 1
EMU_TYPE=u8 emu_check "one element: a chain of maps" "entry main (xs : [2^0]u8) = map (\\x -> x + 1) (map (\\x -> x * 5) xs)" \
    tests/emu/scalars.parm 1
emu_padded() {   # emu_padded NAME PROGRAM-TEXT INPUT-COMMAND
    printf 'import "sort"\n%s\n' "$2" >"$TMP/emu/prog.parm"
    eval "$3" >"$TMP/emu/in.txt"
    "$PARMC" --interpret "$TMP/emu/prog.parm" <"$TMP/emu/in.txt" >"$TMP/emu/want.txt"
    if PARMC=$PARMC sh tests/emu/run.sh "$TMP/emu/prog.parm" "$TMP/emu" <"$TMP/emu/in.txt" >"$TMP/emu/got.txt" 2>"$TMP/emu/err.txt" &&
        cmp -s "$TMP/emu/want.txt" "$TMP/emu/got.txt"; then
        pass
    else
        fail "CUDA emulation of $1: $(head -3 "$TMP/emu/err.txt")"
    fi
}
emu_padded "any length: 50001 of 2^16" "entry main (xs : [2^16]i32 pad max) = bitonic_sort asc 16 xs" \
    "python3 tests/tools/gen.py i32 50001 3"
emu_padded "any length: 3 of 2^12" "entry main (xs : [2^12]i32 pad max) = bpm_sort asc 12 xs" \
    "python3 tests/tools/gen.py i32 3 4"
emu_padded "any length: 13 rows of 999" "entry main (xs : [2^4][2^10]i32 pad max) = bitonic_sort_rows asc 4 10 xs" \
    "echo 999; python3 tests/tools/gen.py i32 12987 5"
emu_padded "any length: records, 7 rows of 33" \
    "entry main (xs : [2^3][2^6](f32, f32) pad max) = bitonic_sort_rows kv_lex_asc 3 6 xs" \
    "echo 33; python3 tests/tools/gen.py f32,f32 231 6"

# Entry graphs: the CUDA reductions (per-thread trees, warp shuffles, the
# warps' and the blocks' partials, a fused mapi; tests/emu/graph.parm) and a
# reduce fused into a chain's last phase with the chain's kernels
# (tests/emu/fused.parm), an entry graph of any length, padded and cut
# by kernels of its own (tests/emu/padgraph.parm, a random length), a
# Sklansky scan whose large two bodies run as whole-array stages
# (tests/emu/sklansky.parm), a parm whose function changes the element
# type (tests/emu/retype.parm), reductions moved out of stages' functions
# (tests/emu/invariant.parm), a graph on arrays of one element
# (tests/emu/single.parm), half, join, shift and xs ! k with the scans of
# stdlib/scan.parm (tests/emu/lengths.parm), the work-efficient scans
# (tests/emu/scans.parm), and reductions of rows
# (tests/emu/blocks.parm: rows of a thread, of a warp's segment, of a block
# and of several blocks; tests/emu/blocks_small.parm: blocks of fewer
# threads than a warp; tests/emu/blocks_fields.parm: records, 8-byte
# fields), expands read in place by the reductions, networks and maps
# that read them (tests/emu/expands.parm), chains' closing maps run as
# their last LOCAL phase stores (tests/emu/store_map.parm), a chain that
# reads the caller's shape itself (tests/emu/padchain.parm), and chains that
# read pieces of it in place (tests/emu/slices.parm), emulated on the CPU
# (tests/emu/graph.sh), must be the interpreter's results, bit for bit.
for name in graph fused padgraph padchain sklansky retype invariant single lengths scans blocks blocks_small blocks_fields \
    halves topk expands store_map onepass slices; do
    mkdir -p "$TMP/emu/$name"
    "$PARMC" --random-input=4 "tests/emu/$name.parm" >"$TMP/emu/$name/in.txt"
    "$PARMC" --interpret "tests/emu/$name.parm" <"$TMP/emu/$name/in.txt" >"$TMP/emu/$name/want.txt"
    if PARMC=$PARMC sh tests/emu/graph.sh "$TMP/emu/$name" "$name" <"$TMP/emu/$name/in.txt" >"$TMP/emu/$name/got.txt" \
        2>"$TMP/emu/$name/err.txt" && cmp -s "$TMP/emu/$name/want.txt" "$TMP/emu/$name/got.txt"; then
        pass
    else
        fail "CUDA emulation of the entry graph tests/emu/$name.parm: $(head -3 "$TMP/emu/$name/err.txt")"
    fi
done
# Elements of more than 8 fields, up to the back end's 16 (SCHED_MAX_SLOTS):
# a sort of 12-field records (one chain), and 3-field reductions of large
# blocks from a start read off the block, zipped into 10 fields (a graph)
emu_check "elements of 12 fields" "$(grep '^entry main ' tests/emu/wide.parm)" tests/emu/wide.parm random
variant tests/emu/wide.parm "$(grep '^entry starts ' tests/emu/wide.parm | sed 's/^entry starts /entry main /')"
mkdir -p "$TMP/emu/wide"
cp "$TMP/variant.parm" "$TMP/emu/wide/starts.parm"
"$PARMC" --random-input=4 "$TMP/emu/wide/starts.parm" >"$TMP/emu/wide/in.txt"
"$PARMC" --interpret "$TMP/emu/wide/starts.parm" <"$TMP/emu/wide/in.txt" >"$TMP/emu/wide/want.txt"
if PARMC=$PARMC sh tests/emu/graph.sh "$TMP/emu/wide" "$TMP/emu/wide/starts.parm" <"$TMP/emu/wide/in.txt" \
    >"$TMP/emu/wide/got.txt" 2>"$TMP/emu/wide/err.txt" && cmp -s "$TMP/emu/wide/want.txt" "$TMP/emu/wide/got.txt"; then
    pass
else
    fail "CUDA emulation of 10-field block reductions (tests/emu/wide.parm starts): $(head -3 "$TMP/emu/wide/err.txt")"
fi
# Permutations of 1- and 2-byte fields move 16-byte vectors (BmmcPlan.vec_log):
# bit reversal, transposes, a reversal (the complement moves elements within
# a vector) and random BMMCs with a complement, of u8, i16 and pairs of u8,
# emulated with the planes 16-byte aligned and, for some, not (EMU_MISALIGN=1:
# the kernel then moves elements one by one).
perm_emu() {   # perm_emu TYPE N BODY: emulated, after --report finds vectors
    printf 'entry main (xs : [2^%d]%s) = %s\n' "$2" "$1" "$3" >"$TMP/emu/entry.txt"
    variant examples/permute.parm "$(cat "$TMP/emu/entry.txt")"
    if "$PARMC" --report --strict "$TMP/variant.parm" | grep -q "16-byte vectors"; then
        EMU_TYPE=$(echo "$1" | tr -d '() ') emu_check "$1: $3" "$(cat "$TMP/emu/entry.txt")" examples/permute.parm $((1 << $2))
    else
        fail "$1: $3: no 16-byte vectors in --report"
    fi
}
random_bmmc() {   # random_bmmc N SEED: "bmmc (mat [...], c) xs", A invertible
    python3 -c '
import random, sys
n, rng = int(sys.argv[1]), random.Random(int(sys.argv[2]))
def rank(rows):
    rows, r = list(rows), 0
    for bit in range(n):
        p = next((i for i in range(r, n) if rows[i] >> bit & 1), None)
        if p is None: continue
        rows[r], rows[p] = rows[p], rows[r]
        rows = [x ^ rows[r] if i != r and x >> bit & 1 else x for i, x in enumerate(rows)]
        r += 1
    return r
while True:
    rows = [rng.getrandbits(n) for _ in range(n)]
    if rank(rows) == n: break
print("bmmc (mat [%s], %d) xs" % (", ".join(map(str, rows)), rng.getrandbits(n)))' "$1" "$2"
}
for ty in u8 i16; do
    for body in "bitrev 14 xs" "transpose 5 9 xs" "transpose 9 5 xs" "reverse 14 xs"; do perm_emu $ty 14 "$body"; done
    for seed in 1 2 3; do perm_emu $ty 13 "$(random_bmmc 13 $seed)"; done
    EMU_MISALIGN=1 perm_emu $ty 12 "bitrev 12 xs"
done
perm_emu "(u8, u8)" 13 "transpose 6 7 xs"
# 4- and 8-byte fields move vectors too (an 8-byte element is one unit of
# the tile's stores, not two words)
for ty in i32 i64; do
    for body in "bitrev 13 xs" "transpose 5 8 xs" "transpose 8 5 xs"; do perm_emu $ty 13 "$body"; done
done
perm_emu f32 13 "$(random_bmmc 13 4)"
perm_emu f64 12 "$(random_bmmc 12 5)"
EMU_MISALIGN=1 perm_emu i32 12 "bitrev 12 xs"
# Tiles of clusters (--cluster-blocks, Phase.cluster_log): a tile of several
# blocks' shared memory, remote rounds and the write through the cluster's
# (PARM_DSMEM), cluster barriers; emu.cpp runs a cluster's blocks together
cluster_emu() {   # cluster_emu BLOCKS TYPE NAME ENTRY-LINE SOURCE COUNT
    variant "$5" "$4"
    if "$PARMC" --report --cluster-blocks "$1" --tile-bytes 16K "$TMP/variant.parm" | grep -q "^  cluster: $1 blocks"; then
        pass
    else
        fail "$3: not in clusters of $1 blocks"
    fi
    EMU_TYPE=$2 PARMC_FLAGS="--cluster-blocks $1 --tile-bytes 16K" emu_check "$3 in clusters of $1" "$4" "$5" "$6"
}
cluster_emu 4 i32 "bitonic 2^16" "entry main (xs : [2^16]i32) = bsort 16 xs" examples/bitonic.parm 65536
cluster_emu 8 i32 "sort 2^16" "entry main (xs : [2^16]i32) = sort 16 xs" examples/sort.parm 65536
cluster_emu 2 f64 "bitonic 2^15 f64" "entry main (xs : [2^15]f64) = bsort 15 xs" examples/bitonic.parm 32768
cluster_emu 4 i32 "Batcher's merge sort 2^15" "entry main (xs : [2^15]i32) = sort 15 xs" bench/sort/batcher.parm 32768
# an entry graph whose chain is in clusters (graph_mock.h runs them too)
mkdir -p "$TMP/emu/clg"
variant examples/bitonic.parm 'entry main (xs : [2^16]i32) = let s = reduce max 0 xs in bsort 16 (map (\x -> x - s) xs)'
cp "$TMP/variant.parm" "$TMP/emu/clg/prog.parm"
"$PARMC" --random-input=2 "$TMP/emu/clg/prog.parm" >"$TMP/emu/clg/in.txt"
"$PARMC" --interpret "$TMP/emu/clg/prog.parm" <"$TMP/emu/clg/in.txt" >"$TMP/emu/clg/want.txt"
if "$PARMC" --report --tile-bytes 16K --cluster-blocks 4 "$TMP/emu/clg/prog.parm" | grep -q "^  cluster: 4 blocks" &&
    PARMC=$PARMC PARMC_FLAGS="--tile-bytes 16K --cluster-blocks 4" sh tests/emu/graph.sh "$TMP/emu/clg" \
        "$TMP/emu/clg/prog.parm" <"$TMP/emu/clg/in.txt" >"$TMP/emu/clg/got.txt" 2>"$TMP/emu/clg/err.txt" &&
    cmp -s "$TMP/emu/clg/want.txt" "$TMP/emu/clg/got.txt"; then
    pass
else
    fail "CUDA emulation of an entry graph in clusters: $(head -3 "$TMP/emu/clg/err.txt")"
fi
