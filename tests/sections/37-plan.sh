# The back end's plan: tests/plan/NAME.parm's --dump-plan must equal
# NAME.plan (ACCEPT=1 rewrites it), with the options in NAME.flags if there
# is one. The sanitizer build also checks every plan it makes against
# plan_verify's invariants, here and in every test that compiles.
for src in tests/plan/*.parm; do
    base=${src%.parm}
    plan_flags=$(cat "$base.flags" 2>/dev/null)
    # shellcheck disable=SC2086
    "$PARMC" --dump-plan $plan_flags "$src" >"$TMP/plan.out" 2>"$TMP/plan.err"
    golden "$base.plan" "$TMP/plan.out" $? "plan golden $src" "$TMP/plan.err"
done
# -e NAME prints one entry's plan; without it, every entry's
"$PARMC" --dump-plan -e rev examples/permute.parm >"$TMP/plan.out" 2>&1
[ "$(grep -c '^plan ' "$TMP/plan.out")" = 1 ] && grep -q '^plan rev: ' "$TMP/plan.out" && pass ||
    fail "plan: --dump-plan -e rev prints the plan of rev alone"
"$PARMC" --dump-plan examples/permute.parm >"$TMP/plan.out" 2>&1
[ "$(grep -c '^plan ' "$TMP/plan.out")" = 3 ] && pass || fail "plan: --dump-plan prints every entry's plan"
# Sorts of rows with indices carry i32 indices and widen them as their last
# phase stores (stdlib/sort.parm, Phase.store_map): records of 8 bytes, so
# rows of 2^10 along the first of two dimensions (parmc.sort with dim=0) are
# one pass with their transposes (3 with i64 indices), rows of 2^16 five
# (six with i64 indices). A closing map that only permutations follow runs
# after them, as the last phase stores (close_with_map): a top-k along the
# first dimension (parmc.topk with dim=0) is three passes, one per node
# (five when its last node mapped and then permuted).
sort_phases() {   # sort_phases ENTRY PHASES: phases of every plan together
    printf 'import "topk"\n%s\n' "$1" >"$TMP/sort.parm"
    local got
    got=$("$PARMC" --dump-plan "$TMP/sort.parm" 2>&1 | grep -c '^phase ')
    if [ "$got" = "$2" ] && "$PARMC" --dump-plan "$TMP/sort.parm" | grep -q '^    store through map'; then
        pass
    else
        fail "plan: $1 takes $got phases (expected $2, the last storing through the index map)"
    fi
}
sort_phases 'entry main (xs : [2^17]i32) = bmmc (bitperm 17 (\i -> if i < 3 then i + 10 else if i < 13 then i - 3 else i)) (sort_records_rows idx_asc 7 10 (bmmc (bitperm 17 (\i -> if i < 10 then i + 3 else if i < 13 then i - 10 else i)) xs))' 1
sort_phases 'entry main (xs : [2^18]i32) = sort_records_rows idx_desc 2 16 xs' 5
sort_phases 'entry main (xs0 : [2^19]f32) = bmmc (bitperm 10 (\i -> if i < 3 then i + 3 else if i < 6 then i - 3 else i)) (topk_records_rows idx_desc 7 3 (bmmc (bitperm 19 (\i -> if i < 12 then i + 3 else if i < 15 then i - 12 else i)) xs0))' 3
# The same with packed keys (stdlib/sort.parm), which parmc.sort and
# parmc.topk take for floats: unpacked as the last phase stores.
sort_phases 'entry main (xs : [2^17]u32) = bmmc (bitperm 17 (\i -> if i < 3 then i + 10 else if i < 13 then i - 3 else i)) (sort_packed_rows (pack32 rank_f32 sign32 false) (unpack32 unrank_f32 false) 7 10 (bmmc (bitperm 17 (\i -> if i < 10 then i + 3 else if i < 13 then i - 10 else i)) xs))' 1
sort_phases 'entry main (xs : [2^18]u16) = sort_packed_rows (pack16 rank_bf16 true) unpack16 2 16 xs' 5
sort_phases 'entry main (xs0 : [2^19]u32) = bmmc (bitperm 10 (\i -> if i < 3 then i + 3 else if i < 6 then i - 3 else i)) (topk_packed_rows (pack32 rank_f32 sign32 true) (unpack32 unrank_f32 true) 7 3 (bmmc (bitperm 19 (\i -> if i < 12 then i + 3 else if i < 15 then i - 12 else i)) xs0))' 3
# A top-k whose whole result is shorter than a segment (one row, k = 8:
# 64 bytes of keys) writes it from its one block (plan_half.c): two kernels
# for a row of 2^17 (four and a gather before), one for a row of 2^10.
sort_phases 'entry main (xs0 : [2^17]u32) = topk_packed_rows (pack32 rank_f32 sign32 true) (unpack32 unrank_f32 true) 0 3 xs0' 2
sort_phases 'entry main (xs0 : [2^10]u32) = topk_packed_rows (pack32 rank_f32 sign32 true) (unpack32 unrank_f32 true) 0 3 xs0' 1
sort_phases 'entry main (xs0 : [2^12]i32) = topk_records_rows idx_asc 0 0 xs0' 1
# Runs of masked coli (comparators guarded by their position) are LOCAL
# steps, grouped as xor columns are: a phase holds the steps whose pair
# vectors, (2^j - 1) * 2^d for Batcher's pairs (x, x + 2^d), span at most
# its tile. Batcher's odd-even merge sort (bench/sort/batcher.parm) takes as
# few passes as any grouping of its columns in order into tiles allows:
# 1 at 2^12, 7 at 2^16 (tiles of 2^14), 56 and the final permutation at
# 2^20 (tiles of 2^12; docs/scheduling.md says why no tiling of 2^12 does it
# in fewer than 31); odd-even transposition rounds and pairs at a distance
# in index order that fit a tile are one pass (tests/emu/masked.parm).
batcher_phases() {   # batcher_phases K PHASES
    variant bench/sort/batcher.parm "entry main (xs : [2^$1]i32) = sort $1 xs"
    local got
    got=$("$PARMC" --dump-plan "$TMP/variant.parm" 2>&1 | sed -n '1s/.*, \([0-9]*\) phases\{0,1\},.*/\1/p')
    [ "$got" = "$2" ] && pass || fail "plan: Batcher's odd-even merge sort of 2^$1 takes $got phases, expected $2"
}
batcher_phases 12 1
batcher_phases 16 7
batcher_phases 20 57
for body in "transposition 32 5 xs" "shifted 2 3 xs" "sparse (shifted 0 5 xs)"; do
    variant tests/emu/masked.parm "entry main (xs : [2^5]i32) = $body"
    "$PARMC" --dump-plan "$TMP/variant.parm" 2>&1 | head -1 | grep -q ', 1 phase,' && pass ||
        fail "plan: the masked coli $body of 2^5 is not one phase"
done
# Plans have no fixed caps: 40 rounds of i32/f32 maps around comparators
# make 80 phases (once more than a fixed buffer table held: a crash): each
# map is run by the load of the comparators' phase after it (Phase.map),
# and the last by the store of the phase before it (Phase.store_map).
{
    echo 'cas [a, b] = if a <= b then [a, b] else [b, a]'
    echo 'step xs = map (\x -> i32 x) (vcolumn cas (map (\x -> f32 x) (vcolumn cas xs)))'
    printf 'entry main (xs : [2^6]i32) = '
    for ((k = 0; k < 40; k++)); do printf 'step ('; done
    printf 'xs'
    for ((k = 0; k < 40; k++)); do printf ')'; done
    echo
} >"$TMP/many.parm"
python3 tests/tools/gen.py i32 64 3 >"$TMP/many.in"
if "$PARMC" --dump-plan "$TMP/many.parm" | grep -q '80 phases' &&
    "$PARMC" --target=c --emit-main "$TMP/many.parm" -o "$TMP/many.c" && cc -std=c11 -O1 "$TMP/many.c" -o "$TMP/many" &&
    "$TMP/many" <"$TMP/many.in" >"$TMP/many.out" && "$PARMC" --interpret "$TMP/many.parm" <"$TMP/many.in" | cmp -s - "$TMP/many.out"; then
    pass
else
    fail "plan: 80 phases compile to C and agree with the interpreter"
fi
# The passes over memory of each scan of tests/plan/passes/scan.parm (issue
# 26): per entry, the phases of its chains and its other nodes, by kind,
# those on the whole array apart (a chain's length from its plan line,
# another node's from its own).
scan_passes() {
    local src=tests/plan/passes/scan.parm entry
    for entry in $(sed -n 's/^entry \([a-z_]*\) .*/\1/p' "$src"); do
        "$PARMC" --dump-plan -e "$entry" "$src" >"$TMP/scan_plan.out" || return 1
        echo "$entry:"
        awk '/^plan / { len = $3 }
             /^phase / { sub(",", "", $3); print $3 " phases", len }
             /^node / && $3 != "chain" { sub(",", "", $5); print $3 " nodes", $5 }' "$TMP/scan_plan.out" |
            awk '{ print "  " $1 " " $2 " on " ($3 == "2^24" ? "2^24" : "fewer elements") }' | LC_ALL=C sort | uniq -c
    done
}
scan_passes >"$TMP/scan_passes.out" 2>&1
golden tests/plan/passes/scan.out "$TMP/scan_passes.out" $? "plan: the passes of the stdlib scans at 2^24"
# A grid of more blocks than its x dimension holds (rows of two bytes in an
# array of 2^40) is split in the plan (PlanNode.grid_y_log), which the CUDA
# launch and the block number follow; rows of 2^12 there need no split.
printf 'entry main (xs : [2^40]u8) = reduceblocks 1 (+) 0 xs\nentry wide (xs : [2^40]u8) = reduceblocks 12 (+) 0 xs\n' \
    >"$TMP/grid.parm"
"$PARMC" --dump-plan "$TMP/grid.parm" >"$TMP/grid.plan" 2>/dev/null
"$PARMC" -e main "$TMP/grid.parm" -o "$TMP/grid.cu" 2>/dev/null
if grep -q '2^39 rows, .*, a grid of 2^30 by 2^1 blocks$' "$TMP/grid.plan" &&
    [ "$(grep -c 'a grid of' "$TMP/grid.plan")" = 1 ] &&
    grep -q '<<<dim3(1073741824u, 2u), 256, 0, ctx->stream>>>' "$TMP/grid.cu" &&
    grep -q 'blk = blockIdx.x + ((uint64_t)blockIdx.y << 30);' "$TMP/grid.cu"; then
    pass
else
    fail "plan: the grid of 2^39 rows split in y: $(grep -m1 'node 0' "$TMP/grid.plan")"
fi
