#!/usr/bin/env bash
# tests/gpu/multigpu.sh: parmc's CUDA for several GPUs (--gpus) on a machine
# with at least GPUS (default 2) NVIDIA GPUs (sm_90) and NCCL, from the
# repository root with a built parmc (build/parmc). Every example (small
# variants, and sort at 2^20) and RANDOM random programs of what the
# distributed back end compiles (randprog.py --chain, seed SEED) are compiled
# with --gpus GPUS --emit-main (one thread per GPU, NCCL between them) and
# must print exactly what the interpreter prints. Some variants and
# PIECES_COUNT random programs of 2^14 to 2^16 elements (randprog.py --chain
# --mid) have their exchanges cut into pieces (--exchange-pieces), so that the
# pipelined exchanges (two streams, events between them) run on the GPUs at
# sizes the default would leave in one piece. The builds run in parallel
# (nvcc is most of the time). Ends with "N passed, M failed".
# NVLink multicast (NVLS) stays off: NCCL_NVLS_ENABLE=0.
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
PARMC=${PARMC:-build/parmc}
GPUS=${GPUS:-2}
RANDOM_COUNT=${RANDOM_COUNT:-16}
PIECES_COUNT=${PIECES_COUNT:-8}
SEED=${SEED:-17}
JOBS=${JOBS:-$(nproc)}
W=$(mktemp -d)
passed=0 failed=0

# name | program file | entry line replacing the example's (empty: unchanged) | entry | input type | values
# name|source|entry line (empty: the source's)|entry|input type|count|parmc options
VARIANTS="sort_12|examples/sort.parm|entry main (xs : [2^12]i32) = sort 12 xs|main|i32|4096
sort_20|examples/sort.parm||main|i32|1048576
sort_20_pieces|examples/sort.parm||main|i32|1048576|--exchange-pieces 32
sort_16_pieces|examples/sort.parm|entry main (xs : [2^16]i32) = sort 16 xs|main|i32|65536|--exchange-pieces 4
bitrev_16_pieces|examples/permute.parm|entry main (xs : [2^16]i32) = bmmc (bitperm 16 (\\i -> 15 - i)) xs|main|i32|65536|--exchange-pieces 8
kvsort_14_pieces|examples/kvsort.parm|entry main (xs : [2^14](u32, i32)) = bsort_by kv 14 xs|main|u32,i32|16384|--exchange-pieces 8
fft_16_pieces|examples/fft.parm||main|f32,f32|65536|--exchange-pieces 4
bitonic_16|examples/bitonic.parm||main|f32|65536
kvsort_12|examples/kvsort.parm||main|u32,i32|4096
batched_14|examples/batched.parm|entry main (xs : [2^14]i32) = rows 4 (bsort 10) xs|main|i32|16384
bitrev_10|examples/permute.parm||main|i32|1024
reverse_10|examples/permute.parm||rev|i32|1024
transpose_12|examples/permute.parm||trans|i32|4096
fft_16|examples/fft.parm||main|f32,f32|65536
ifft_16|examples/fft.parm||inverse|f32,f32|65536"

mkdir -p "$W/rand"
while IFS='|' read -r name src line entry type count opts; do
    if [ -n "$line" ]; then
        { grep -v '^entry ' "$src"; echo "$line"; } >"$W/$name.parm"
    else
        cp "$src" "$W/$name.parm"
    fi
    python3 tests/tools/gen.py "$type" "$count" 5 >"$W/$name.in"
    echo "$opts" >"$W/$name.opts"
    echo "$name $entry" >>"$W/jobs"
done <<<"$VARIANTS"
python3 tests/tools/randprog.py --chain "$W/rand" "$RANDOM_COUNT" "$SEED"
for ((k = 0; k < RANDOM_COUNT; k++)); do
    cp "$W/rand/prog_$k.parm" "$W/rand_$k.parm"
    cp "$W/rand/in_$k.txt" "$W/rand_$k.in"
    : >"$W/rand_$k.opts"
    echo "rand_$k main" >>"$W/jobs"
done
mkdir -p "$W/mid"
python3 tests/tools/randprog.py --chain --mid "$W/mid" "$PIECES_COUNT" "$SEED"
for ((k = 0; k < PIECES_COUNT; k++)); do
    cp "$W/mid/prog_$k.parm" "$W/mid_$k.parm"
    cp "$W/mid/in_$k.txt" "$W/mid_$k.in"
    echo "--exchange-pieces $((2 << (k % 5)))" >"$W/mid_$k.opts"
    echo "mid_$k main" >>"$W/jobs"
done

# each job: the interpreter's output and the CUDA binary
export PARMC GPUS W
build_one() {
    local name=$1 entry=$2
    "$PARMC" --interpret -e "$entry" "$W/$name.parm" <"$W/$name.in" >"$W/$name.want" 2>"$W/$name.err" &&
        "$PARMC" --gpus "$GPUS" $(cat "$W/$name.opts") --emit-main -e "$entry" "$W/$name.parm" -o "$W/$name.cu" 2>>"$W/$name.err" &&
        nvcc -O3 -arch=sm_90 "$W/$name.cu" -o "$W/$name" -lnccl 2>>"$W/$name.err"
}
export -f build_one
echo "building $(wc -l <"$W/jobs") programs for $GPUS GPUs, $JOBS at a time, in $W ..."
# and the C API example of docs/api.md (two GPUs, one thread each)
mkdir -p "$W/api"
{ "$PARMC" --gpus 2 examples/sort.parm -o "$W/api/sort.cu" && nvcc -O3 -arch=sm_90 -c "$W/api/sort.cu" -o "$W/api/sort.o" &&
    cc -O2 -std=c11 -I"$W/api" -I/usr/local/cuda/include examples/api/sort_nccl.c "$W/api/sort.o" \
        -L/usr/local/cuda/lib64 -lcudart -lnccl -lstdc++ -lpthread -o "$W/api/sort_nccl"; } 2>"$W/api/err.txt" &
xargs -P "$JOBS" -L 1 bash -c 'build_one "$0" "$1"' <"$W/jobs"
wait

while read -r name entry; do
    if [ ! -x "$W/$name" ]; then
        echo "FAIL $name: build: $(head -3 "$W/$name.err")"
        failed=$((failed + 1))
    elif "$W/$name" <"$W/$name.in" >"$W/$name.got" 2>"$W/$name.run" && cmp -s "$W/$name.got" "$W/$name.want"; then
        passed=$((passed + 1))
    else
        echo "FAIL $name ($entry): $(head -3 "$W/$name.run"); $(cmp "$W/$name.got" "$W/$name.want" 2>&1 | head -1)"
        failed=$((failed + 1))
    fi
done <"$W/jobs"
if [ "$GPUS" -ge 2 ]; then
    if [ -x "$W/api/sort_nccl" ] && "$W/api/sort_nccl" >"$W/api/out.txt" 2>&1 && grep -q '^sorted' "$W/api/out.txt"; then
        passed=$((passed + 1))
    else
        echo "FAIL examples/api/sort_nccl.c: $(head -3 "$W/api/err.txt" "$W/api/out.txt" 2>/dev/null)"
        failed=$((failed + 1))
    fi
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && rm -rf "$W"
[ "$failed" -eq 0 ]
