#!/usr/bin/env bash
# GPU checks and timings, run on a machine with an NVIDIA GPU (sm_90) from the
# repository root with a built parmc (build/parmc):
#   1. every example (and small variants) compiled to CUDA with --emit-main and
#      checked element by element against the reference interpreter;
#   2. the same through the API (tests/gpu/guard_cuda.cu): guard regions
#      around every array checked after the call, the input compared with
#      its copy, and calls in place and with overlapping arrays; also the
#      back-end regressions of tests/backend;
#   2a. every operator, built-in function (exp, atan2, pow, fma, ...) and
#      conversion on edge values (tests/unit/test_emit_elem.c's
#      bodies) run on the GPU, bit for bit against the interpreter, NaNs included;
#      the 64-bit orders (PTX on the GPU) against the host's (tests/gpu/compare64.cu);
#      the caller's stream (tests/gpu/stream_cuda.cu);
#   2b. compute-sanitizer memcheck and racecheck on each small variant;
#   2c. entries of any length (tests/anylen/entries.parm) on random lengths
#      and shapes, standalone and guarded, and under memcheck;
#   3. bench/sort/sortbench: parmc sorts against a copy kernel and CUB;
#      bench/sort/anybench: sorts of any length (10^7 keys, 10^6 rows of
#      1000) against the same at a power of two, and torch.sort;
#   4. entry graphs (tests/gpu/graph_entries.sh) and the C API example;
#   5. parmc test on the examples and the stdlib, with CUDA.
# Results go to stdout and, when $OUT is set, to $OUT/gpu-report.md.
set -u
cd "$(dirname "$0")/../.."
PARMC=${PARMC:-build/parmc}
W=$(mktemp -d)
REPORT=${OUT:-$W}/gpu-report.md
NVCC="nvcc -O3 -arch=sm_90"
log() { echo "$*" | tee -a "$REPORT"; }
: >"$REPORT"
log "# GPU report: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%F)"

# name | program file | entry line replacing the example's (empty: unchanged) | entry | input type | values
VARIANTS="sort_12|examples/sort.parm|entry main (xs : [2^12]i32) = sort 12 xs|main|i32|4096
sort_20|examples/sort.parm||main|i32|1048576
bitonic_12|examples/bitonic.parm|entry main (xs : [2^12]f32) = bsort 12 xs|main|f32|4096
bitonic_16|examples/bitonic.parm||main|f32|65536
kvsort_12|examples/kvsort.parm||main|u32,i32|4096
batched_14|examples/batched.parm|entry main (xs : [2^14]i32) = rows 4 (bsort 10) xs|main|i32|16384
bitrev_10|examples/permute.parm||main|i32|1024
reverse_10|examples/permute.parm||rev|i32|1024
transpose_12|examples/permute.parm||trans|i32|4096
fft_10|examples/fft.parm|entry main (xs : [2^10](f32, f32)) = fft 10 xs|main|f32,f32|1024
fft_16|examples/fft.parm||main|f32,f32|65536
ifft_16|examples/fft.parm||inverse|f32,f32|65536
sort_16_tb2|examples/sort.parm|entry main (xs : [2^16]i32) = sort 16 xs|main|i32|65536
kvsort_14_tb3|examples/kvsort.parm|entry main (xs : [2^14](u32, i32)) = bsort_by kv 14 xs|main|u32,i32|16384
batched_14_tb2|examples/batched.parm|entry main (xs : [2^14]i32) = rows 4 (bsort 10) xs|main|i32|16384"
# variants *_tb2, *_tb3: persistent kernels of 2 or 3 tile buffers
# (--tile-buffers), on at most PARM_PERSISTENT_BLOCKS=3 blocks (the
# generated context reads it) so that each block takes several tiles
flags_of() {
    case $1 in
    *_tb2) echo "--tile-buffers 2" ;;
    *_tb3) echo "--tile-buffers 3 --tile-bytes 16K --vector-copies" ;;
    esac
}
export PARM_PERSISTENT_BLOCKS=3

build() {   # build NAME SOURCE ENTRY-LINE ENTRY
    local name=$1 src=$2 line=$3 entry=$4
    if [ -n "$line" ]; then
        grep -v '^entry ' "$src" >"$W/$name.parm"
        echo "$line" >>"$W/$name.parm"
    else
        cp "$src" "$W/$name.parm"
    fi
    # shellcheck disable=SC2046
    "$PARMC" $(flags_of "$name") --emit-main -e "$entry" "$W/$name.parm" -o "$W/$name.cu" &&
        $NVCC "$W/$name.cu" -o "$W/$name" 2>"$W/$name.nvcc"
    build_guard "$name" "$entry"
}

build_guard() {   # build_guard NAME ENTRY: $W/NAME.parm through its API, as $W/NAME.guard
    local name=$1 entry=$2
    mkdir -p "$W/api_$name"
    # shellcheck disable=SC2046
    "$PARMC" $(flags_of "$name") "$W/$name.parm" -o "$W/api_$name/prog.cu" || return
    python3 tests/tools/guard_entry.py "$W/api_$name/prog.h" "$entry" >"$W/api_$name/entry.h"
    case $? in
    0) ;;
    3) : >"$W/api_$name/graph"; return ;;   # an entry graph: no guard driver (tests/tools/graph_alias.c, in C)
    *) return ;;
    esac
    $NVCC -Iruntime -Itests/tools -I"$W/api_$name" -include "$W/api_$name/entry.h" tests/gpu/guard_cuda.cu \
            "$W/api_$name/prog.cu" -o "$W/$name.guard" 2>"$W/$name.guard.nvcc"
}

# the back-end regressions (tests/backend/NAME.parm on NAME.in)
REGRESSIONS=$(ls tests/backend/*.parm)

log "## Builds"
while IFS='|' read -r name src line entry type count; do
    build "$name" "$src" "$line" "$entry" &
done <<<"$VARIANTS"
# the sort benchmarks: parmc's sort at 2^20 and 2^24, the batched example as is
for k in 20 24 28; do
    grep -v '^entry ' examples/sort.parm >"$W/bsort_$k.parm"
    echo "entry main (xs : [2^$k]i32) = sort $k xs" >>"$W/bsort_$k.parm"
    ("$PARMC" --prefix bench "$W/bsort_$k.parm" -o "$W/bsort_$k.cu" &&
        $NVCC -include "$W/bsort_$k.h" bench/sort/sortbench.cu "$W/bsort_$k.cu" -o "$W/sb_sort_$k" 2>"$W/sb_$k.nvcc") &
done
for prog in $REGRESSIONS; do
    name=regress_$(basename "$prog" .parm)
    cp "$prog" "$W/$name.parm"
    build_guard "$name" main &
done
# the caller's stream: the 2^20 sort through tests/gpu/stream_cuda.cu
("$PARMC" --prefix st examples/sort.parm -o "$W/st.cu" &&
    $NVCC -include "$W/st.h" tests/gpu/stream_cuda.cu "$W/st.cu" -o "$W/stream" 2>"$W/stream.nvcc") &
("$PARMC" --prefix bench examples/batched.parm -o "$W/bbatched.cu" &&
    $NVCC -include "$W/bbatched.h" bench/sort/sortbench.cu "$W/bbatched.cu" -o "$W/sb_batched" 2>"$W/sb_b.nvcc") &
# entries of any length (docs/language.md, section 7): the any-length sorts
# timed by bench/sort/anybench.cu, and 2^20 rows of 2^10 without a pad
("$PARMC" --prefix bench examples/sort_any.parm -o "$W/bsort_any.cu" &&
    $NVCC -DFULL -include "$W/bsort_any.h" bench/sort/anybench.cu "$W/bsort_any.cu" -o "$W/ab_full" 2>"$W/ab_full.nvcc") &
("$PARMC" --prefix bench examples/batched_any.parm -o "$W/bbatched_any.cu" &&
    $NVCC -include "$W/bbatched_any.h" bench/sort/anybench.cu "$W/bbatched_any.cu" -o "$W/ab_rows" 2>"$W/ab_rows.nvcc") &
grep -v '^entry ' examples/batched.parm >"$W/bbatched30.parm"
echo "entry main (xs : [2^30]i32) = rows 20 (bsort 10) xs" >>"$W/bbatched30.parm"
("$PARMC" --prefix bench "$W/bbatched30.parm" -o "$W/bbatched30.cu" &&
    $NVCC -include "$W/bbatched30.h" bench/sort/sortbench.cu "$W/bbatched30.cu" -o "$W/sb_batched30" 2>"$W/sb_b30.nvcc") &
# every entry of tests/anylen/entries.parm, alone with the imports
ANYLEN=$(sed -n 's/^entry \([a-z0-9_]*\) .*/\1/p' tests/anylen/entries.parm)
for e in $ANYLEN; do
    { grep '^import' tests/anylen/entries.parm; grep "^entry $e " tests/anylen/entries.parm; } >"$W/any_$e.parm"
    ("$PARMC" --emit-main -e "$e" "$W/any_$e.parm" -o "$W/any_$e.cu" && $NVCC "$W/any_$e.cu" -o "$W/any_$e" 2>"$W/any_$e.nvcc"
        build_guard "any_$e" "$e") &
done
wait
ls "$W" | grep -v '\.' | tee -a "$REPORT"

log "## Element-by-element checks against the interpreter"
while IFS='|' read -r name src line entry type count; do
    python3 tests/tools/gen.py "$type" "$count" 42 >"$W/$name.in"
    "$PARMC" --interpret -e "$entry" "$W/$name.parm" <"$W/$name.in" >"$W/$name.want"
    if [ -x "$W/$name" ] && "$W/$name" <"$W/$name.in" >"$W/$name.got" && cmp -s "$W/$name.want" "$W/$name.got"; then
        log "PASS $name ($count values)"
    else
        log "FAIL $name"
    fi
done <<<"$VARIANTS"

log "## Through the API: guard regions, unchanged input, calls in place and overlapping"
guard_check() {   # guard_check NAME ENTRY INPUT
    local name=$1 entry=$2 input=$3
    if [ -e "$W/api_$name/graph" ]; then
        log "SKIP guarded $name: an entry graph, which guard_cuda.cu does not drive (its aliasing is checked in C by tests/tools/graph_alias.c)"
        return
    fi
    "$PARMC" --interpret -e "$entry" "$W/$name.parm" <"$input" >"$W/$name.gwant"
    if [ -x "$W/$name.guard" ] && "$W/$name.guard" -a <"$input" >"$W/$name.ggot" 2>"$W/$name.gerr" &&
        cmp -s "$W/$name.gwant" "$W/$name.ggot"; then
        log "PASS guarded $name"
    else
        log "FAIL guarded $name: $(head -3 "$W/$name.gerr" "$W/$name.guard.nvcc" 2>/dev/null)"
    fi
}
while IFS='|' read -r name src line entry type count; do
    guard_check "$name" "$entry" "$W/$name.in"
done <<<"$VARIANTS"
for prog in $REGRESSIONS; do
    guard_check "regress_$(basename "$prog" .parm)" main "${prog%.parm}.in"
done

log "## Every operator on edge values, bit for bit (NaN payloads included)"
# tests/unit/test_emit_elem.c's bodies and inputs with the interpreter's
# output bits; its program, built with nvcc, runs each body on the GPU. A
# machine without re2c and lemon takes them from ELEM_KEEP (default
# build/elem), made beforehand by PARM_TEST_KEEP=build/elem build/unit/test_emit_elem.
keep_elem() {
    if [ -f "${ELEM_KEEP:-build/elem}/prog.c" ]; then
        cp -r "${ELEM_KEEP:-build/elem}" "$W/elem" && echo "(from ${ELEM_KEEP:-build/elem})" >"$W/elem.log"
    else
        make -s build/unit/test_emit_elem >"$W/elem.make" 2>&1 && PARM_TEST_KEEP="$W/elem" build/unit/test_emit_elem >"$W/elem.log"
    fi
}
if keep_elem && $NVCC -x cu -Iruntime "$W/elem/prog.c" -o "$W/elem/gpu" 2>"$W/elem.nvcc" &&
    "$W/elem/gpu" <"$W/elem/in.txt" >"$W/elem/got.txt" && cmp -s "$W/elem/expected.txt" "$W/elem/got.txt"; then
    log "PASS operators: $(grep -o '[0-9]* inputs; [0-9]* NaN results' "$W/elem.log")"
else
    log "FAIL operators: $(cmp "$W/elem/expected.txt" "$W/elem/got.txt" 2>&1 | head -1; tail -2 "$W/elem.make" "$W/elem.nvcc" 2>/dev/null)"
fi

# the 64-bit orders, PTX on the GPU, on pairs that the bodies above do not reach
if $NVCC -Iruntime tests/gpu/compare64.cu -o "$W/compare64" 2>"$W/compare64.nvcc" && "$W/compare64" >"$W/compare64.out"; then
    log "PASS $(cat "$W/compare64.out")"
else
    log "FAIL $(cat "$W/compare64.out" "$W/compare64.nvcc" 2>/dev/null | head -3)"
fi

log "## Entries of any length (tests/anylen/entries.parm): random lengths and shapes, standalone and guarded"
for e in $ANYLEN; do
    for seed in 1 2 3 4; do
        "$PARMC" --random-input=$seed -e "$e" "$W/any_$e.parm" >"$W/any_$e.in"
        "$PARMC" --interpret -e "$e" "$W/any_$e.parm" <"$W/any_$e.in" >"$W/any_$e.want"
        if [ -x "$W/any_$e" ] && "$W/any_$e" <"$W/any_$e.in" >"$W/any_$e.got" && cmp -s "$W/any_$e.want" "$W/any_$e.got"; then
            log "PASS any length $e seed $seed"
        else
            log "FAIL any length $e seed $seed: $(head -3 "$W/any_$e.nvcc" 2>/dev/null)"
        fi
        guard_check "any_$e" "$e" "$W/any_$e.in"
    done
done
for e in sort16 rows; do
    "$PARMC" --random-input=2 -e "$e" "$W/any_$e.parm" >"$W/any_$e.in"
    compute-sanitizer --tool memcheck "$W/any_$e" <"$W/any_$e.in" >"$W/any_$e.memcheck" 2>&1
    log "any length $e memcheck: $(grep -E 'ERROR SUMMARY' "$W/any_$e.memcheck" | head -1)"
done

log "## The caller's stream (tests/gpu/stream_cuda.cu)"
if [ -x "$W/stream" ]; then
    "$W/stream" 20 2>&1 | tee -a "$REPORT"
else
    log "FAIL stream: $(head -3 "$W/stream.nvcc")"
fi

log "## compute-sanitizer"
while IFS='|' read -r name src line entry type count; do
    case $name in sort_20|bitonic_16|fft_16|ifft_16) continue ;; esac
    for tool in memcheck racecheck; do
        compute-sanitizer --tool $tool "$W/$name" <"$W/$name.in" >"$W/$name.$tool" 2>&1
        log "$name $tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$W/$name.$tool" | head -1)"
    done
done <<<"$VARIANTS"

log "## Timings (CUDA events, median of 25 after warm-up)"
for b in "sb_sort_20 full 20" "sb_sort_24 full 24" "sb_sort_28 full 28" "sb_batched rows 26 10"; do
    set -- $b
    log "### $*"
    "$W/$1" "$2" "$3" ${4:-} 2>&1 | tee -a "$REPORT"
done

log "### Any length: 10^7 keys against 2^24, 10^6 rows of 1000 against 2^20 rows of 2^10 (same binaries), and 2^20 rows of 2^10 without a pad"
for b in "ab_full 10000000" "ab_full 16777216" "ab_rows 1000000 1000" "ab_rows 1048576 1024" "sb_batched30 rows 30 10"; do
    set -- $b
    log "#### $*"
    "$W/$1" "$2" ${3:-} ${4:-} 2>&1 | tee -a "$REPORT"
done

log "### torch.sort(dim=-1) on the same shapes (2^16 rows of 2^10, 10^6 rows of 1000, 2^20 rows of 2^10 int32), when torch is present"
python3 - <<'PY' 2>&1 | tee -a "$REPORT"
try:
    import torch
except ImportError:
    print("torch: not installed")
    raise SystemExit
for rows, cols in ((1 << 16, 1 << 10), (10**6, 1000), (1 << 20, 1 << 10)):
    x = torch.randint(-2**31, 2**31 - 1, (rows, cols), dtype=torch.int32, device="cuda")
    for _ in range(3):
        torch.sort(x, dim=-1)
    times = []
    for _ in range(25):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); torch.sort(x, dim=-1); b.record(); b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    print("| torch.sort(dim=-1) (values and indices), %d rows of %d | %.4f |" % (rows, cols, times[len(times) // 2]))
    del x
    torch.cuda.empty_cache()
PY

log "## Entry graphs through CUDA (tests/gpu/graph_entries.sh: every entry of tests/backend/graph.parm)"
PARMC=$PARMC bash tests/gpu/graph_entries.sh 2>&1 | tail -5 | tee -a "$REPORT"

log "## The C API example (examples/api/sort_main.c)"
sh examples/api/run.sh 2>&1 | tee -a "$REPORT"

log "## In-source test blocks through CUDA (parmc test, docs/testing.md)"
PARMC_CUDA=1 "$PARMC" test examples/*.parm stdlib/*.parm 2>&1 | tee -a "$REPORT" | tail -1
