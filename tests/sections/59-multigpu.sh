# Several GPUs (--gpus, plan.h "Ranks"). The plans of tests/plan/gpus/NAME.parm
# (the options on its first line, `-- --gpus G ...`) must equal NAME.plan
# (ACCEPT=1 rewrites them). The C target simulates the ranks in one process, each
# rank's slices in allocations of their own, so ASan and UBSan see a phase
# that strays off its rank: the examples and random programs of what the
# distributed back end compiles (randprog.py --chain) must print exactly what
# the interpreter prints, for 2, 4 and 8 GPUs.
CC_TEST=${CC_TEST:-cc}
for src in tests/plan/gpus/*.parm; do
    base=${src%.parm}
    opts=$(sed -n '1s/^-- //p' "$src")
    # shellcheck disable=SC2086  # the options, word by word
    "$PARMC" $opts --dump-plan "$src" >"$TMP/mgplan.out" 2>"$TMP/mgplan.err"
    golden "$base.plan" "$TMP/mgplan.out" $? "plan golden $src ($opts)" "$TMP/mgplan.err"
done
# a permutation that leaves the GPU bits alone exchanges nothing
grep -q ' 0 exchanges between them' tests/plan/gpus/keep.plan && pass || fail "plan: keep.parm exchanges"
# a chain too small to split runs whole on every rank, from its whole input
grep -q 'on 4 GPUs: too small to split' tests/plan/gpus/whole.plan && grep -q 'whole input of node 0' tests/plan/gpus/whole.plan &&
    pass || fail "plan: whole.parm is not the whole chain on every rank"

mkdir -p "$TMP/mg"
# mg_check NAME PROGRAM ENTRY INPUT GPUS [PIECES]: the emitted C (with
# --exchange-pieces PIECES), built with ASan and UBSan, against the
# interpreter
mg_check() {
    local name=$1 prog=$2 entry=$3 input=$4 gpus=$5 pieces=${6:-} d=$TMP/mg
    local opts=(--target=c --gpus "$gpus" --emit-main -e "$entry")
    [ -n "$pieces" ] && opts+=(--exchange-pieces "$pieces")
    if ! "$PARMC" "${opts[@]}" "$prog" -o "$d/prog.c" 2>"$d/err.txt"; then
        fail "emit C for $gpus GPUs: $name: $(head -3 "$d/err.txt")"
        return
    fi
    if ! $CC_TEST -std=c11 -O0 -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
        "$d/prog.c" -o "$d/prog" -lm 2>"$d/err.txt"; then
        fail "compile C for $gpus GPUs: $name: $(head -5 "$d/err.txt")"
        return
    fi
    "$PARMC" --interpret -e "$entry" "$prog" <"$input" >"$d/i.out" 2>/dev/null
    if "$d/prog" <"$input" >"$d/c.out" 2>"$d/err.txt" && cmp -s "$d/c.out" "$d/i.out"; then
        pass
    else
        fail "C for $gpus GPUs differs from the interpreter: $name $(head -3 "$d/err.txt")"
    fi
}

mg_variant() {   # mg_variant EXAMPLE ENTRY-LINE: the example with its entries replaced
    grep -v '^entry ' "$1" >"$TMP/mg/variant.parm"
    echo "$2" >>"$TMP/mg/variant.parm"
}

# a ranged entry whose smallest size gives each of 4 GPUs less than one
# element: that size alone is left out, with a warning, and returns the
# length error; the others agree with the interpreter on 4 GPUs
printf 'entry rng (n : 1..4) (xs : [2^n]i32) = map (\\x -> x * i32 n) xs\n' >"$TMP/mg/ranged.parm"
if "$PARMC" --check --gpus 4 "$TMP/mg/ranged.parm" 2>"$TMP/mg/ranged.err" &&
    grep -q "warning: entry 'rng' is not compiled for n = 1 ('rng' takes 2^1 elements" "$TMP/mg/ranged.err"; then
    pass
else
    fail "a ranged entry on 4 GPUs, its smallest size too small: $(head -2 "$TMP/mg/ranged.err")"
fi
for len in 4 8 16; do
    python3 tests/tools/gen.py i32 $len $len >"$TMP/mg/in.txt"
    mg_check "ranged, 2^n = $len on 4 GPUs" "$TMP/mg/ranged.parm" rng "$TMP/mg/in.txt" 4
done

mg_variant examples/sort.parm "entry main (xs : [2^12]i32) = sort 12 xs"
python3 tests/tools/gen.py i32 4096 1 >"$TMP/mg/in.txt"
for g in 2 4 8; do mg_check "sort 2^12" "$TMP/mg/variant.parm" main "$TMP/mg/in.txt" $g; done
mg_variant examples/bitonic.parm "entry main (xs : [2^9]f32) = bsort 9 xs"
python3 tests/tools/gen.py f32 512 2 >"$TMP/mg/in.txt"
mg_check "bitonic 2^9" "$TMP/mg/variant.parm" main "$TMP/mg/in.txt" 4
mg_variant examples/batched.parm "entry main (xs : [2^12]i32) = rows 2 (bsort 10) xs"
python3 tests/tools/gen.py i32 4096 3 >"$TMP/mg/in.txt"
mg_check "batched 2^2 rows of 2^10" "$TMP/mg/variant.parm" main "$TMP/mg/in.txt" 8
python3 tests/tools/gen.py i32 1024 4 >"$TMP/mg/in.txt"
mg_check "bitrev" examples/permute.parm main "$TMP/mg/in.txt" 2
mg_check "reverse" examples/permute.parm rev "$TMP/mg/in.txt" 8
python3 tests/tools/gen.py i32 4096 5 >"$TMP/mg/in.txt"
mg_check "transpose" examples/permute.parm trans "$TMP/mg/in.txt" 4
python3 tests/tools/gen.py u32,i32 4096 6 >"$TMP/mg/in.txt"
mg_check "kvsort" examples/kvsort.parm main "$TMP/mg/in.txt" 2
# several arrays and results: two arrays zipped, sorted as pairs and unzipped
# are one chain from the parameters' planes to the results' (plan_one_chain)
"$PARMC" --random-input=8 tests/plan/graph_kv.parm >"$TMP/mg/kv2.txt"
for g in 2 4 8; do mg_check "two arrays zipped, sorted, unzipped" tests/plan/graph_kv.parm main "$TMP/mg/kv2.txt" $g; done
mg_variant examples/fft.parm "entry main (xs : [2^10](f32, f32)) = fft 10 xs"
python3 tests/tools/gen.py f32,f32 1024 7 >"$TMP/mg/in.txt"
mg_check "fft 2^10" "$TMP/mg/variant.parm" main "$TMP/mg/in.txt" 4

# a two whose block is larger than a GPU's slice (issue 41 item 7): a body
# that only moves its block's elements (halves swapped or joined by another
# mask, a block taken apart and rebuilt) is a permutation (the rules
# join-half, build-bmmc), which the chain takes on any number of GPUs, from
# 2^3 to 2^12; element code (an element of the block read, a shift's fill
# from it, a reduction of it) is split where the block fits a GPU's slice,
# and where it does not the chain is too small to split and runs whole on
# every rank (Schedule.whole_log)
mg_blocks() {   # mg_blocks NAME BODY SIZES: BODY on xs of 2^n u32 for each n of SIZES, on 2, 4 and 8 GPUs
    # (one element per GPU and up: a slice of one element runs the whole chain)
    local n g
    for n in $3; do
        printf 'entry main (xs : [2^%d]u32) = %s\n' "$n" "$2" >"$TMP/mg/block.parm"
        python3 tests/tools/gen.py u32 $((1 << n)) "$n" >"$TMP/mg/in.txt"
        for g in 1 2 3; do
            [ "$n" -ge "$g" ] && mg_check "$1 on 2^$n" "$TMP/mg/block.parm" main "$TMP/mg/in.txt" $((1 << g))
        done
    done
}
mg_blocks "the identity" 'xs' "3"
mg_blocks "halves swapped" 'two (\ys -> join 1 (half 1 1 ys) (half 1 0 ys)) xs' "3 4 6 9 12"
mg_blocks "halves joined by another mask" 'two (\ys -> map (\y -> y * 3) (join 2 (half 1 1 ys) (half 1 0 ys))) xs' "3 8"
mg_blocks "inner halves swapped" 'two (two (\ys -> join 3 (half 2 1 ys) (half 2 0 ys))) xs' "4 10"
mg_blocks "a block taken apart" 'two (\[a, b, c, d] -> [c, a, d, b]) xs' "3"
mg_blocks "a block's element 0 added" 'two (two (two (\ys -> map (\y -> y + ys ! 0) ys))) xs' "5"
mg_blocks "a shift's fill from the block" 'two (two (two (\ys -> shift 1 (ys ! 1) ys))) xs' "5"
mg_blocks "a block's reduction replicated" 'two (two (two (\ys -> replicate (loglen ys) (reduce (+) 0 ys)))) xs' "5"
mg_blocks "a half's element 0 added" 'two (\ys -> map (\y -> y + ys ! 0) ys) xs' "3 4 5"
mg_blocks "a half's shift filled from it" 'two (\ys -> shift 1 (ys ! 1) ys) xs' "3 4"
mg_blocks "a half's reduction replicated" 'two (\ys -> replicate (loglen ys) (reduce (+) 0 ys)) xs' "3 4 5"
mg_blocks "a quarter's shift filled from it" 'two (two (\ys -> shift 1 (ys ! 1) ys)) xs' "4 5"
for g in 2 4 8; do   # a scalar parameter passed on to every rank's whole chain
    mg_check "a half's element 0 and a scalar added, $g GPUs" tests/backend/gpus_whole.parm main tests/backend/gpus_whole.in $g
done

# entry graphs other than one chain (reductions, a value used twice,
# scalars and results of other lengths, several arrays) are planned for one
# GPU and run whole on every rank (EntryPlan.whole_graph): each gathers the
# array parameters whole and keeps its own slice of each result; the C
# simulation runs every rank's gathers before any rank's nodes, as NCCL's
# all-gather would, so that a result over a parameter is read by no gather
grep -q 'run whole on every rank' tests/plan/gpus/graph.plan &&
    grep -q 'in0 gathered whole from every rank' tests/plan/gpus/graph.plan &&
    grep -q 'out1: the scalar at' tests/plan/gpus/graph.plan &&
    pass || fail "plan: graph.parm is not run whole on every rank"
mg_graphs() {   # mg_graphs PROGRAM GPUS...: each entry of PROGRAM on random input, 2^k GPUs in turn
    local prog=$1 e i=0
    shift
    local gpus=("$@")
    for e in $(sed -n 's/^entry \([A-Za-z0-9_]*\).*/\1/p' "$prog"); do
        "$PARMC" --random-input=$((i + 3)) -e "$e" "$prog" >"$TMP/mg/graph.in"
        mg_check "entry graph $e of $prog" "$prog" "$e" "$TMP/mg/graph.in" "${gpus[i % ${#gpus[@]}]}"
        i=$((i + 1))
    done
}
for g in 2 4 8; do mg_graphs tests/plan/gpus/graph.parm $g; done
mg_graphs tests/plan/graph_centred.parm 2 4 8
mg_graphs tests/plan/graph_fused_reduce.parm 4 2
mg_graphs tests/plan/gather.parm 8 2
mg_graphs tests/plan/graph_shapes.parm 4
mg_graphs tests/plan/scan_staging.parm 2 4 8
mg_graphs tests/backend/lifted.parm 2 4 8
# an entry that returns its parameter and its sum: the sum is every rank's,
# the parameter each rank's slice, also where the caller passes one array
# as both (the result over the parameter: C API, NAME.c)
printf 'entry main (xs : [2^6]i32) = (map (\\x -> x + 1) xs, reduce (+) 0 xs)\n' >"$TMP/mg/over.parm"
"$PARMC" --target=c --gpus 4 "$TMP/mg/over.parm" -o "$TMP/mg/over.c" 2>"$TMP/mg/err.txt"
cat >"$TMP/mg/over_main.c" <<'EOF2'
#include <stdio.h>
#include "over.h"
int main(void) {
    int32_t xs[64], sum = 0;
    for (int i = 0; i < 64; i++) xs[i] = i * 3 - 50;
    over_ctx *ctx;
    if (over_ctx_create(&ctx) || over_main(ctx, xs, xs, &sum, 64)) return 1;
    for (int i = 0; i < 64; i++)
        if (xs[i] != i * 3 - 49) return 2;
    over_ctx_destroy(ctx);
    return sum == 64 * 63 / 2 * 3 - 50 * 64 ? 0 : 3;
}
EOF2
if $CC_TEST -std=c11 -O0 -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all -I"$TMP/mg" \
    "$TMP/mg/over_main.c" "$TMP/mg/over.c" -o "$TMP/mg/over" -lm 2>"$TMP/mg/err.txt" && "$TMP/mg/over"; then
    pass
else
    fail "a graph on 4 GPUs whose result is its parameter's array: $(head -3 "$TMP/mg/err.txt")"
fi

# random entry graphs of what the back ends compile (randprog.py --backend,
# arrays of 2^3 to 2^8), 2, 4 and 8 GPUs in turn; those of any length or
# with an array of fewer elements than GPUs are refused, as above
mg_graph_seed=$((${RANDPROG_SEED:-$(date +%s)} + 4))
mg_graph_count=${MULTIGPU_GRAPH_COUNT:-30}
mkdir -p "$TMP/mg/graphs"
python3 tests/tools/randprog.py --backend --sizes=3:8 "$TMP/mg/graphs" "$mg_graph_count" "$mg_graph_seed"
mg_graph_ran=0
for ((k = 0; k < mg_graph_count; k++)); do
    g=$((2 << (k % 3))) prog=$TMP/mg/graphs/prog_$k.parm
    why="random graph $k (RANDPROG_SEED=$((mg_graph_seed - 4)); randprog.py --backend --sizes=3:8 DIR $((k + 1)) $mg_graph_seed)"
    if "$PARMC" --check --gpus "$g" "$prog" 2>"$TMP/mg/err.txt"; then
        mg_check "$why" "$prog" main "$TMP/mg/graphs/in_$k.txt" "$g"
        mg_graph_ran=$((mg_graph_ran + 1))
    elif ! grep -q "takes any length (a pad)\|when each holds at least 1" "$TMP/mg/err.txt"; then
        fail "$why on $g GPUs refused: $(head -2 "$TMP/mg/err.txt")"
    fi
done
[ "$mg_graph_ran" -ge $((mg_graph_count / 3)) ] && pass ||
    fail "only $mg_graph_ran of $mg_graph_count random graphs compile for several GPUs"

# pipelined exchanges (plan.h, Phase.piece_log): the C target runs the
# pieces in order through the same kernels, each piece's blocks alone
mg_variant examples/permute.parm 'entry main (xs : [2^16]i32) = bmmc (bitperm 16 (\i -> 15 - i)) xs'
cp "$TMP/mg/variant.parm" "$TMP/mg/bitrev16.parm"
mg_variant examples/sort.parm "entry main (xs : [2^15]i32) = sort 15 xs"
python3 tests/tools/gen.py i32 65536 8 >"$TMP/mg/in16.txt"
python3 tests/tools/gen.py i32 32768 9 >"$TMP/mg/in15.txt"
for g in 2 4 8; do
    mg_check "bitrev 2^16 in 4 pieces" "$TMP/mg/bitrev16.parm" main "$TMP/mg/in16.txt" $g 4
    mg_check "sort 2^15 in 32 pieces" "$TMP/mg/variant.parm" main "$TMP/mg/in15.txt" $g 32
done
"$PARMC" --gpus 2 --exchange-pieces 4 --dump-plan "$TMP/mg/variant.parm" >"$TMP/mg/plan.txt" 2>&1 &&
    grep -q 'pipelined: 2^2 pieces' "$TMP/mg/plan.txt" && ! grep -q 'not pipelined' "$TMP/mg/plan.txt" &&
    pass || fail "sort 2^15 on 2 GPUs: every exchange in 4 pieces"
python3 tests/tools/gen.py u32,i32 16384 10 >"$TMP/mg/in.txt"
mg_variant examples/kvsort.parm "entry main (xs : [2^14](u32, i32)) = bsort_by kv 14 xs"
mg_check "kvsort 2^14 in 8 pieces" "$TMP/mg/variant.parm" main "$TMP/mg/in.txt" 4 8
"$PARMC" --gpus 2 --exchange-pieces 3 --dump-plan examples/sort.parm >/dev/null 2>"$TMP/mg/err.txt"
[ $? = 2 ] && grep -q 'power of two' "$TMP/mg/err.txt" && pass || fail "--exchange-pieces 3 is a usage error"
"$PARMC" --gpus 2 --exchange-pieces 64 --dump-plan examples/sort.parm >/dev/null 2>"$TMP/mg/err.txt"
[ $? = 2 ] && pass || fail "--exchange-pieces 64 is a usage error"

# random programs of 2^14 to 2^16 elements, their exchanges in 2 to 32 pieces
mg_mid=${MULTIGPU_PIECES_COUNT:-6}
mg_mid_seed=$((${RANDPROG_SEED:-$(date +%s)} + 3))
mkdir -p "$TMP/mg/mid"
python3 tests/tools/randprog.py --chain --mid "$TMP/mg/mid" "$mg_mid" "$mg_mid_seed"
for ((k = 0; k < mg_mid; k++)); do
    mg_check "random program $k in pieces (RANDPROG_SEED=$((mg_mid_seed - 3)); randprog.py --chain --mid DIR $((k + 1)) $mg_mid_seed)" \
        "$TMP/mg/mid/prog_$k.parm" main "$TMP/mg/mid/in_$k.txt" $((2 << (k % 3))) $((2 << (k % 5)))
done

# random programs (the seed of 45-optimiser.sh plus two), 2, 4 and 8 GPUs in turn
mg_seed=$((${RANDPROG_SEED:-$(date +%s)} + 2))
mg_count=${MULTIGPU_RANDOM_COUNT:-12}
mkdir -p "$TMP/mg/rand"
python3 tests/tools/randprog.py --chain "$TMP/mg/rand" "$mg_count" "$mg_seed"
for ((k = 0; k < mg_count; k++)); do
    mg_check "random program $k (RANDPROG_SEED=$((mg_seed - 2)); randprog.py --chain DIR $((k + 1)) $mg_seed)" \
        "$TMP/mg/rand/prog_$k.parm" main "$TMP/mg/rand/in_$k.txt" $((2 << (k % 3)))
done

# what the distributed back end refuses is refused with a diagnostic (also
# tests/diag/gpus_*.parm); --gpus takes a power of two up to 64
"$PARMC" --gpus 3 --dump-plan examples/sort.parm >/dev/null 2>"$TMP/mg/err.txt"
[ $? = 2 ] && grep -q 'power of two' "$TMP/mg/err.txt" && pass || fail "--gpus 3 is a usage error"
"$PARMC" --gpus 2 --report examples/sort.parm >/dev/null 2>"$TMP/mg/err.txt"
[ $? = 2 ] && pass || fail "--gpus with --report is a usage error"

# The CUDA for several GPUs (NCCL) compiles, its standalone main included,
# where nvcc and NCCL's header are present (a GPU is not needed); the GPU
# machines run it: tests/gpu/multigpu.sh.
mg_check "key-value sort and a scalar, 4 GPUs" tests/backend/gpus_kv.parm main tests/backend/gpus_kv.in 4
if command -v nvcc >/dev/null && printf '#include <nccl.h>\n' | nvcc -x cu -E - >/dev/null 2>&1; then
    if "$PARMC" --gpus 4 --emit-main tests/backend/gpus_kv.parm -o "$TMP/mg/kv.cu" 2>"$TMP/mg/err.txt" &&
        nvcc -arch=sm_90 -Werror all-warnings -c "$TMP/mg/kv.cu" -o "$TMP/mg/kv.o" 2>"$TMP/mg/err.txt"; then
        pass
    else
        fail "CUDA for 4 GPUs: $(head -5 "$TMP/mg/err.txt")"
    fi
    # an entry that returns its parameter: each rank copies its slice (plan_one_copy)
    printf 'entry main (xs : [2^3]i32) = xs\n' >"$TMP/mg/identity.parm"
    if "$PARMC" --gpus 4 --emit-main "$TMP/mg/identity.parm" -o "$TMP/mg/identity.cu" 2>"$TMP/mg/err.txt" &&
        grep -q 'cudaMemcpyAsync(out\[0\], P\[0\], 0x8u' "$TMP/mg/identity.cu" &&
        nvcc -arch=sm_90 -Werror all-warnings -c "$TMP/mg/identity.cu" -o "$TMP/mg/identity.o" 2>"$TMP/mg/err.txt"; then
        pass
    else
        fail "CUDA for 4 GPUs of the identity: not a copy of a rank's 8 bytes $(head -5 "$TMP/mg/err.txt")"
    fi
    # an exchange in pieces with runs (the layout's first) and one with a pack (its second)
    printf 'cas [a, b] = if a <= b then [a, b] else [b, a]\n%s\n' \
        'entry main (xs : [2^16]i32) = col 2 cas (bmmc (bitperm 16 (\i -> 15 - i)) (col 2 cas xs))' >"$TMP/mg/layout.parm"
    if "$PARMC" --gpus 4 --exchange-pieces 8 "$TMP/mg/layout.parm" -o "$TMP/mg/layout.cu" 2>"$TMP/mg/err.txt" &&
        [ "$(grep -c 'ncclGroupStart' "$TMP/mg/layout.cu")" = 2 ] &&
        nvcc -arch=sm_90 -Werror all-warnings -c "$TMP/mg/layout.cu" -o "$TMP/mg/layout.o" 2>"$TMP/mg/err.txt"; then
        pass
    else
        fail "CUDA for 4 GPUs, exchanges in pieces: $(head -5 "$TMP/mg/err.txt")"
    fi
    # an entry graph run whole on every rank: an all-gather per parameter
    # plane, a scalar result whole on every rank
    if "$PARMC" --gpus 4 --emit-main -e centred tests/plan/gpus/graph.parm -o "$TMP/mg/graph.cu" 2>"$TMP/mg/err.txt" &&
        [ "$(grep -c 'ncclAllGather' "$TMP/mg/graph.cu")" = 1 ] &&
        grep -q 'out_whole\[3\] = {0, 1, 1}' "$TMP/mg/graph.cu" &&
        nvcc -arch=sm_90 -O1 -Werror all-warnings -c "$TMP/mg/graph.cu" -o "$TMP/mg/graph.o" 2>"$TMP/mg/err.txt"; then
        pass
    else
        fail "CUDA for 4 GPUs, an entry graph run whole: $(head -5 "$TMP/mg/err.txt")"
    fi
    # a chain too small to split: each rank all-gathers the whole input
    if "$PARMC" --gpus 8 --emit-main tests/backend/gpus_whole.parm -o "$TMP/mg/whole.cu" 2>"$TMP/mg/err.txt" &&
        [ "$(grep -c 'ncclAllGather' "$TMP/mg/whole.cu")" = 2 ] &&
        nvcc -arch=sm_90 -O1 -Werror all-warnings -c "$TMP/mg/whole.cu" -o "$TMP/mg/whole.o" 2>"$TMP/mg/err.txt"; then
        pass
    else
        fail "CUDA for 8 GPUs, a chain too small to split: $(head -5 "$TMP/mg/err.txt")"
    fi
    # the C API example of docs/api.md against the header it includes
    if "$PARMC" --gpus 2 examples/sort.parm -o "$TMP/mg/sort.cu" 2>"$TMP/mg/err.txt" &&
        cc -std=c11 -Wall -Wextra -Werror -I"$TMP/mg" -I"$(dirname "$(command -v nvcc)")/../include" -c examples/api/sort_nccl.c \
            -o "$TMP/mg/sort_nccl.o" 2>"$TMP/mg/err.txt"; then
        pass
    else
        fail "examples/api/sort_nccl.c: $(head -5 "$TMP/mg/err.txt")"
    fi
fi

# the manifest says how many GPUs the program was compiled for
"$PARMC" --gpus 4 --target=c examples/permute.parm -o "$TMP/mg/perm.c" 2>/dev/null &&
    grep -q '"gpus": 4,' "$TMP/mg/perm.json" && pass || fail "manifest: \"gpus\": 4"
