# Tiles of a given size (--tile-bytes; the default is chosen per program) and tile copies in
# 16-byte vectors (--vector-copies): the passes they save, the kernels the
# simulator replays (minimal sectors, no bank conflicts), the emitted C under
# ASan and UBSan and the CUDA kernels emulated on the CPU (tests/emu), each
# against the interpreter. tests/plan/tile128 and vectors are golden plans.
mkdir -p "$TMP/tiles"
tiles_prog() {  # tiles_prog NAME SOURCE ENTRY-LINE: $TMP/tiles/NAME.parm
    { grep -v '^entry ' "$2"; echo "$3"; } >"$TMP/tiles/$1.parm"
}

# passes: the first line of --report, and every access minimal (--strict)
tiles_passes() {    # tiles_passes NAME TILE-BYTES|default PASSES [TILE-LINE]; TILES_FLAGS: more options
    local name=$1 bytes=$2 want=$3 line=${4:-} size=(--tile-bytes "$2")
    [ "$bytes" = default ] && size=()
    # shellcheck disable=SC2086
    if ! "$PARMC" --report --strict "${size[@]}" ${TILES_FLAGS:-} "$TMP/tiles/$name.parm" >"$TMP/tiles/report.txt" 2>&1; then
        fail "tiles: --report --strict $name at $bytes: $(head -3 "$TMP/tiles/report.txt")"
    elif ! head -1 "$TMP/tiles/report.txt" | grep -q ", $want global passes\?$"; then
        fail "tiles: $name at $bytes: $(head -1 "$TMP/tiles/report.txt"), expected $want passes"
    elif [ -n "$line" ] && ! grep -qF "$line" "$TMP/tiles/report.txt"; then
        fail "tiles: $name at $bytes: no kernel with '$line'"
    else
        pass
    fi
}
tiles_prog sort20 examples/sort.parm "entry main (xs : [2^20]i32) = sort 20 xs"
tiles_passes sort20 64K 10 "tile 2^14 (64 KB of shared memory, 2^9 threads)"
tiles_passes sort20 128K 8 "tile 2^15 (128 KB of shared memory, 2^10 threads)"
tiles_passes sort20 16K 14 "tile 2^12 (16 KB of shared memory, 2^7 threads)"
tiles_prog sort24 examples/sort.parm "entry main (xs : [2^24]i32) = sort 24 xs"
tiles_passes sort24 64K 17
tiles_passes sort24 131072 14
tiles_prog kv24 examples/kvsort.parm "entry main (xs : [2^24](u32, i32)) = bsort_by kv 24 xs"
tiles_passes kv24 64K 19
tiles_passes kv24 128K 16 "tile 2^14 (128 KB of shared memory, 2^10 threads)"
printf '%s\n' 'import "sort"' \
    'by_key [(k1, a1, b1), (k2, a2, b2)] = if k1 <= k2 then [(k1, a1, b1), (k2, a2, b2)] else [(k2, a2, b2), (k1, a1, b1)]' \
    'entry main (xs : [2^15](i32, i32, i32)) = bitonic_sort by_key 15 xs' >"$TMP/tiles/rec3.parm"
tiles_passes rec3 64K 5
tiles_passes rec3 192K 3 "tile 2^14 (192 KB of shared memory, 2^10 threads)"

# the default tile doubles where that saves a quarter of the passes: the FFT
# of 2^20 complex f32 takes 3 passes of 32 KB (4 of 16 KB), the sort of 2^20
# keeps 14 of 16 KB (12 of 32 KB would save a seventh)
printf 'import "fft"\nentry main (xs : [2^20](f32, f32)) = fft 20 xs\n' >"$TMP/tiles/fft20.parm"
tiles_passes fft20 default 3 "tile 2^12 (32 KB of shared memory, 2^8 threads)"
tiles_passes fft20 16K 4
tiles_passes sort20 default 14 "tile 2^12 (16 KB of shared memory, 2^7 threads)"
# --segment-bytes 32: segments of a sector leave more of each tile to the
# butterflies (2 passes of 64 KB), every access still minimal in sectors
TILES_FLAGS="--segment-bytes 32" tiles_passes fft20 64K 2 "tile 2^13 (64 KB of shared memory, 2^9 threads)"
TILES_FLAGS="--segment-bytes=64" tiles_passes fft20 128K 2
TILES_FLAGS="--segment-bytes 32" tiles_passes sort20 16K 13

# the launch bounds ask for the blocks per SM that fit: two of 64 KB, one of 128 KB
if "$PARMC" --tile-bytes 128K "$TMP/tiles/sort20.parm" -o "$TMP/tiles/s128.cu" &&
    "$PARMC" --tile-bytes 64K "$TMP/tiles/sort20.parm" -o "$TMP/tiles/s64.cu" &&
    [ "$(grep -c '__launch_bounds__(1024, 1)' "$TMP/tiles/s128.cu")" = 8 ] &&
    [ "$(grep -c '__launch_bounds__(512, 2)' "$TMP/tiles/s64.cu")" = 10 ] &&
    grep -q 'cudaFuncAttributeMaxDynamicSharedMemorySize, 131072' "$TMP/tiles/s128.cu"; then
    pass
else
    fail "tiles: launch bounds and dynamic shared memory of 128 KB tiles"
fi

# usage: a size outside 16K..227K or not a number, and an action that does not schedule
for bad in 15K 228K 300000 12x K ""; do
    "$PARMC" --report --tile-bytes "$bad" "$TMP/tiles/sort20.parm" >/dev/null 2>"$TMP/tiles/err.txt"
    [ $? -eq 2 ] && grep -q "^parmc: error: --tile-bytes '$bad': expected bytes" "$TMP/tiles/err.txt" && pass ||
        fail "tiles: --tile-bytes '$bad' is a usage error"
done
for bad in 16 48 256 1K ""; do
    "$PARMC" --report --segment-bytes "$bad" "$TMP/tiles/sort20.parm" >/dev/null 2>"$TMP/tiles/err.txt"
    [ $? -eq 2 ] && grep -q "^parmc: error: --segment-bytes '$bad': expected 32, 64 or 128" "$TMP/tiles/err.txt" && pass ||
        fail "tiles: --segment-bytes '$bad' is a usage error"
done
echo 1 2 | "$PARMC" --interpret --tile-bytes 128K "$TMP/tiles/sort20.parm" >/dev/null 2>"$TMP/tiles/err.txt"
[ $? -eq 2 ] && grep -q "has no effect with --interpret" "$TMP/tiles/err.txt" && pass ||
    fail "tiles: --tile-bytes with --interpret is a usage error"

# C (ASan, UBSan) and the CUDA kernels emulated, against the interpreter
# (the C back end has no vector copies: with them, the CUDA kernels alone)
tiles_c() {     # tiles_c NAME TILE-BYTES, input in $TMP/tiles/in.txt; TILES_FLAGS: more options
    local name=$1 bytes=$2 d=$TMP/tiles
    # shellcheck disable=SC2086
    if "$PARMC" --target=c --emit-main --tile-bytes "$bytes" ${TILES_FLAGS:-} "$d/$name.parm" -o "$d/prog.c" 2>"$d/err.txt" &&
        ${CC_TEST:-cc} -std=c11 -O1 -fsanitize=address,undefined -fno-sanitize-recover=all "$d/prog.c" -o "$d/prog" 2>"$d/err.txt" &&
        "$d/prog" <"$d/in.txt" >"$d/got.txt" 2>"$d/err.txt" && cmp -s "$d/want.txt" "$d/got.txt"; then
        pass
    else
        fail "tiles: C of $name at $bytes differs from the interpreter: $(head -3 "$d/err.txt")"
    fi
}
tiles_run() {   # tiles_run NAME TILE-BYTES INPUT-COMMAND; TILES_FLAGS: more options
    local name=$1 bytes=$2 d=$TMP/tiles
    eval "$3" >"$d/in.txt"
    "$PARMC" --interpret "$d/$name.parm" <"$d/in.txt" >"$d/want.txt"
    case "${TILES_FLAGS:-}" in *--vector-copies*) ;; *) tiles_c "$name" "$bytes" ;; esac
    mkdir -p "$d/emu"
    if PARMC_FLAGS="--tile-bytes $bytes ${TILES_FLAGS:-}" sh tests/emu/run.sh "$d/$name.parm" "$d/emu" <"$d/in.txt" >"$d/got.txt" 2>"$d/err.txt" &&
        cmp -s "$d/want.txt" "$d/got.txt"; then
        pass
    else
        fail "tiles: CUDA emulation of $name at $bytes ${TILES_FLAGS:-}${EMU_MISALIGN:+(misaligned)}: $(head -3 "$d/err.txt")"
    fi
}
tiles_prog sort16 examples/sort.parm "entry main (xs : [2^16]i32) = sort 16 xs"
tiles_run sort16 128K "python3 tests/tools/gen.py i32 65536 11"
tiles_prog kv15 examples/kvsort.parm "entry main (xs : [2^15](i32, i32)) = bsort_by kv 15 xs"
tiles_run kv15 128K "python3 tests/tools/gen.py i32,i32 32768 13"
tiles_run rec3 192K "python3 tests/tools/gen.py i32,i32,i32 32768 14"
tiles_prog rows examples/batched.parm "entry main (xs : [2^16]i32) = rows 1 (bsort 15) xs"
tiles_run rows 227K "python3 tests/tools/gen.py i32 65536 15"
TILES_FLAGS="--segment-bytes 32" tiles_run sort16 16K "python3 tests/tools/gen.py i32 65536 23"
TILES_FLAGS="--segment-bytes 64" tiles_run kv15 32K "python3 tests/tools/gen.py i32,i32 32768 24"
tiles_prog fft16 examples/fft.parm "entry main (xs : [2^16](f32, f32)) = fft 16 xs"
TILES_FLAGS="--segment-bytes 32" tiles_run fft16 16K "python3 tests/tools/gen.py f32,f32 65536 25"

# --vector-copies: every kernel of these loads its tiles in 16-byte vectors
# (and writes them so, in place or into the next layout), still with minimal
# sectors and no bank conflicts; planes that are not 16-byte aligned take
# the element-wise copies (EMU_MISALIGN: the emulation traps on a vector
# access there); an entry of any length has none
tiles_vectors() {   # tiles_vectors NAME KERNELS [WRITES: of them, writing into the next layout in vectors]
    if "$PARMC" --report --strict --vector-copies "$TMP/tiles/$1.parm" >"$TMP/tiles/report.txt" 2>&1 &&
        [ "$(grep -c '^  vectors: the tile load' "$TMP/tiles/report.txt")" = "$2" ] &&
        [ "$(grep -c '^  vectors: the tile load and the write ' "$TMP/tiles/report.txt")" = "${3:-0}" ]; then
        pass
    else
        fail "tiles: --vector-copies $1: $(grep -c '^  vectors:' "$TMP/tiles/report.txt") kernels with vectors, expected $2: $(grep -v '^ \|^kernel' "$TMP/tiles/report.txt" | head -3)"
    fi
}
tiles_vectors sort20 14 14
for t in u8 i16 f64; do
    tiles_prog "bitonic_$t" examples/bitonic.parm "entry main (xs : [2^14]$t) = bsort 14 xs"
    # shellcheck disable=SC2046
    tiles_vectors "bitonic_$t" $([ $t = f64 ] && echo 3 3 || echo 1 0)
    TILES_FLAGS=--vector-copies tiles_run "bitonic_$t" 64K "python3 tests/tools/gen.py $t 16384 16"
done
TILES_FLAGS=--vector-copies tiles_run sort16 64K "python3 tests/tools/gen.py i32 65536 17"
TILES_FLAGS=--vector-copies EMU_MISALIGN=1 tiles_run sort16 128K "python3 tests/tools/gen.py i32 65536 18"
TILES_FLAGS=--vector-copies tiles_run kv15 128K "python3 tests/tools/gen.py i32,i32 32768 19"
TILES_FLAGS=--vector-copies EMU_MISALIGN=1 tiles_run rec3 192K "python3 tests/tools/gen.py i32,i32,i32 32768 20"
TILES_FLAGS=--vector-copies tiles_passes rec3 192K 3
# a last write whose complement reverses each vector (reverse after the sort)
{ echo 'import "perm"'; grep -v '^entry ' examples/sort.parm; echo 'entry main (xs : [2^16]i32) = reverse 16 (sort 16 xs)'; } \
    >"$TMP/tiles/rsort.parm"
TILES_FLAGS=--vector-copies tiles_run rsort 64K "python3 tests/tools/gen.py i32 65536 21"
TILES_FLAGS=--vector-copies EMU_MISALIGN=1 tiles_run rsort 64K "python3 tests/tools/gen.py i32 65536 22"
tiles_vectors rsort 5 5
printf '%s\n' 'import "sort"' 'entry main (xs : [2^16]i32 pad max) = bitonic_sort asc 16 xs' >"$TMP/tiles/any.parm"
tiles_vectors any 0

# parmc itself: the 2^30 sort to CUDA in under 0.5 s of CPU and 100 MB
# (the release build; the sanitizer build takes about 3 times as much)
if [ -x build/parmc ] && [ -x /usr/bin/time ]; then
    tiles_prog sort30 examples/sort.parm "entry main (xs : [2^30]i32) = sort 30 xs"
    /usr/bin/time -f '%U %S %M' -o "$TMP/tiles/time.txt" build/parmc "$TMP/tiles/sort30.parm" -o "$TMP/tiles/sort30.cu"
    read -r user sys kb <"$TMP/tiles/time.txt"
    if awk -v u="$user" -v s="$sys" -v k="$kb" 'BEGIN { exit !(u + s < 0.5 && k < 100 * 1024) }'; then
        pass
    else
        fail "tiles: parmc compiles the 2^30 sort in $user s user, $sys s system, $((kb / 1024)) MB (bounds 0.5 s, 100 MB)"
    fi
fi
