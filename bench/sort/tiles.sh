#!/usr/bin/env bash
# bench/sort/tiles.sh: parmc's sorts with each tile size (--tile-bytes)
# against CUB, one command on an sm_90 GPU machine (about 3 minutes):
#
#   bash bench/sort/tiles.sh          build in parallel, check, time, print the table
#   bash bench/sort/tiles.sh build    build only (no GPU needed)
#
# Work: full sorts of i32 (examples/sort.parm's `sort`, the balanced periodic
# merger, at 2^20..2^28, and examples/bitonic.parm's `bsort` at 2^24 and
# 2^28), the key-value
# sort of (u32, i32) at 2^24 (examples/kvsort.parm), Batcher's odd-even
# merge sort written with masked coli at 2^20 (bench/sort/batcher.parm: 57,
# 45, 34 and 25 passes from 16K to 128K, plain tiles only), batched rows
# (examples/batched.parm), and other element types at 2^24: the merger sort
# of u8, i16 and f64 keys and the bitonic sort of (u64, u32) records
# (bench/sort/typebench.cu, checked against std::sort, with CUB's merge and
# radix sorts of the type from libs_typed.cu; TYPES=0 leaves them out). Each program is built once per tile size;
# bench/sort/tilebench.cu checks every result element by element against CUB
# before timing it (median of 25 calls) and times CUB's merge and radix sorts
# (segmented sorts for rows) once per work. The table gives each build's
# passes (parmc --report), its time, its time in 16-byte copies of the array
# (ms / copy ms: a pass at copy speed is 1), and its time against CUB's merge
# sort (or segmented sort).
#
# Each tile size is also built with --vector-copies (the tiles' copies in
# 16-byte vectors; the tile column then reads 64K+vec), except for the
# bitonic sort of 2^28 and the (u64, u32) records.
#
# Each tile size of TILES that BUFFERS of it fit in a block's shared memory
# (227 KB) is also built with --tile-buffers for each count of BUFFERS
# (persistent kernels that load the next tiles with cp.async during the
# rounds; the tile column then reads 64K+b2), except for the u8 sort (cp.async
# moves 4 bytes and up).
#
# About 75 builds and runs; fewer with TILES=128K, SMALL_TILES=, VECTORS=0,
# BUFFERS= or TYPES=0.
#
# Environment: PARMC (default build/parmc, made when missing), TILES (default
# "64K 128K"), SMALL_TILES (also tried at 2^20 and 2^22, default "16K 32K"),
# VECTORS (0: no --vector-copies builds), BUFFERS (default "2 3"; empty: no
# --tile-buffers builds), CLUSTERS (say "2 4 8": each tile also as
# TILE+cN, --cluster-blocks N: tiles N times as large in clusters of N
# blocks; default none), REGISTERS256 (1: each tile also as TILE+r256,
# --register-bytes 256), ONLY (a regular expression: the works whose
# names match, e.g. "bpm_2[46]|batcher"), JOBS (default nproc), TILES_WORK (the build
# directory, default a new temporary one), NVCC (default nvcc).
set -u -o pipefail
MODE=${1:-}
cd "$(dirname "$0")/../.." || exit 1
PARMC=${PARMC:-build/parmc}
[ -x "$PARMC" ] || make build/parmc >/dev/null || exit 1
PARMC=$(realpath "$PARMC")
TILES=${TILES-64K 128K}
SMALL_TILES=${SMALL_TILES-16K 32K}
VECTORS=${VECTORS:-1}
BUFFERS=${BUFFERS-2 3}
CLUSTERS=${CLUSTERS-}
JOBS=${JOBS:-$(nproc)}
W=${TILES_WORK:-$(mktemp -d)}
NVCC="${NVCC:-nvcc} -O3 -arch=sm_90"
T0=$(date +%s)
mkdir -p "$W"
echo "== work directory $W, $JOBS jobs, tiles $TILES (and $SMALL_TILES at 2^20 and 2^22)"

# the works: NAME|SOURCE|ENTRY LINE|DRIVER ARGUMENTS|DRIVER|ITS -D OPTIONS|LIBRARY
# OBJECTS; tilebench.cu for i32 keys and (u32, i32) records, typebench.cu
# with the CUB sorts of libs_typed.cu for other element types
WORKS=""
work() {   # ONLY (a regular expression): the works whose names match
    [[ -n "${ONLY:-}" && ! "$1" =~ $ONLY ]] && return
    WORKS+="$1|$2|$3|$4|$5|$6|$7"$'\n'
}
SUITE_LIBS="libs_merge libs_radix libs_seg libs_segradix"
for k in 20 22 24 26 28; do
    work "bpm_$k" examples/sort.parm "entry main (xs : [2^$k]i32) = sort $k xs" "full $k" tilebench "" "$SUITE_LIBS"
done
for k in 24 28; do
    work "bitonic_$k" examples/bitonic.parm "entry main (xs : [2^$k]i32) = bsort $k xs" "full $k" tilebench "" "$SUITE_LIBS"
done
work batcher_20 bench/sort/batcher.parm "entry main (xs : [2^20]i32) = sort 20 xs" "full 20" tilebench "" "$SUITE_LIBS"
work kv_24 examples/kvsort.parm "entry main (xs : [2^24](u32, i32)) = bsort_by kv 24 xs" "kv 24" tilebench -DKV "$SUITE_LIBS"
for shape in 16:10 16:12 15:13 14:14; do
    r=${shape%:*} c=${shape#*:}
    work "rows_${r}_$c" examples/batched.parm "entry main (xs : [2^$((r + c))]i32) = rows $r (bsort $c) xs" \
        "rows $((r + c)) $c" tilebench "" "$SUITE_LIBS"
done
# other element types (TYPES=0: none), the merger sort of keys at 2^24 and
# the bitonic sort of (u64, u32) records
if [ "${TYPES:-1}" = 1 ]; then
    for ty in u8:uint8_t i16:int16_t f64:double; do
        t=${ty%:*}
        work "${t}_24" examples/sort.parm "entry main (xs : [2^24]$t) = sort 24 xs" "$t 24" typebench "-DKEY_T=${ty#*:}" "typed_$t"
    done
    work kv64_24 examples/kvsort.parm "entry main (xs : [2^24](u64, u32)) = bsort_by kv 24 xs" "kv64 24" typebench \
        "-DKEY_T=uint64_t -DVAL_T=uint32_t" typed_kv64
fi

# the builds of work NAME: a tile size, with +vec also --vector-copies (16-byte
# vector copies of the tiles; VECTORS=0: none), with +bN --tile-buffers N
tiles_for() {
    local vec="" bufs="" clus=""
    if [ "$VECTORS" = 1 ]; then
        case $1 in
        bitonic_28) ;;
        *) for t in $TILES; do vec+=" $t+vec"; done ;;
        esac
    fi
    for t in $TILES; do
        for n in $BUFFERS; do
            [ $((n * ${t%K})) -le 227 ] && bufs+=" $t+b$n"
        done
        for n in $CLUSTERS; do clus+=" $t+c$n"; done
        [ "${REGISTERS256:-0}" = 1 ] && clus+=" $t+r256"
    done
    case $1 in
    u8_24) echo "64K 64K+vec$clus" ;;              # 2^16 one-byte elements at most: 128K is the same
    kv64_24) echo "$TILES$bufs$clus" ;;            # fields of two sizes: no vectors
    batcher_20) echo "$TILES $SMALL_TILES$clus" ;; # nvcc takes a minute a build
    *_20 | *_22) echo "$TILES $SMALL_TILES$vec$bufs$clus" ;;
    *) echo "$TILES$vec$bufs$clus" ;;
    esac
}
flags_for() {   # the parmc options of build CONFIG
    case $1 in
    *+vec) echo "--tile-bytes ${1%+vec} --vector-copies" ;;
    *+b[0-9]) echo "--tile-bytes ${1%+b?} --tile-buffers ${1##*+b}" ;;
    *+c[0-9]) echo "--tile-bytes ${1%+c?} --cluster-blocks ${1##*+c}" ;;
    *+r256) echo "--tile-bytes ${1%+r256} --register-bytes 256" ;;
    *) echo "--tile-bytes $1" ;;
    esac
}

# jobs (one script each): the CUB wrappers once, then parmc and nvcc per
# work and tile
mkdir -p "$W/jobs"
for lib in $SUITE_LIBS; do
    echo "$NVCC -Ibench/suite -c bench/suite/$lib.cu -o $W/$lib.o >$W/$lib.log 2>&1 || echo FAILED $lib" >"$W/jobs/00_$lib.sh"
done
while IFS='|' read -r name src line args driver defs libs; do
    [ -n "$name" ] || continue
    # a typebench work's CUB sorts: libs_typed.cu for its type
    [ "$driver" = typebench ] && echo "$NVCC $defs -c bench/sort/libs_typed.cu -o $W/$libs.o >$W/$libs.log 2>&1 ||" \
        "echo FAILED $libs" >"$W/jobs/00_$libs.sh"
    { grep -v '^entry ' "$src"; echo "$line"; } >"$W/$name.parm"
    logn=$(echo "$args" | cut -d' ' -f2)
    for tile in $(tiles_for "$name"); do
        b=$W/${name}_$tile
        flags=$(flags_for "$tile")
        echo "$PARMC --report $flags $W/$name.parm >$b.report 2>&1 &&" \
            "$PARMC --prefix bench $flags $W/$name.parm -o $b.cu >$b.log 2>&1 &&" \
            "$NVCC $defs -c -include $b.h bench/sort/$driver.cu -o $b.drv.o >>$b.log 2>&1 &&" \
            "$NVCC -c $b.cu -o $b.o >>$b.log 2>&1 || echo FAILED $b" >"$W/jobs/$((100 - logn))_${name}_$tile.sh"
    done
done <<<"$WORKS"
# the CUB wrappers and the largest sorts first: they take longest
printf "%s\n" "$W"/jobs/*.sh | sort | xargs -P "$JOBS" -n 1 sh
for lib in $SUITE_LIBS; do
    [ -f "$W/$lib.o" ] || { echo "== $lib did not build:"; head -20 "$W/$lib.log"; exit 1; }
done
while IFS='|' read -r name src line args driver defs libs; do
    [ -n "$name" ] || continue
    objs=""
    for lib in $libs; do objs+=" $W/$lib.o"; done
    for tile in $(tiles_for "$name"); do
        b=$W/${name}_$tile
        if [ -f "$b.o" ] && [ -f "$b.drv.o" ]; then
            # shellcheck disable=SC2086
            $NVCC "$b.drv.o" "$b.o" $objs -o "$b.bin" 2>>"$b.log" || echo "FAILED link $b"
        else
            echo "== $name at $tile did not build:"
            head -8 "$b.log"
        fi
    done
done <<<"$WORKS"
T1=$(date +%s)
echo "== built in $((T1 - T0)) s"
[ "$MODE" = build ] && exit 0

echo "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); $(${NVCC%% *} --version | tail -1)"
: >"$W/results.txt"
RC=0
while IFS='|' read -r name src line args driver defs libs; do
    [ -n "$name" ] || continue
    first=libs
    for tile in $(tiles_for "$name"); do
        b=$W/${name}_$tile
        [ -x "$b.bin" ] || continue
        passes=$(head -1 "$b.report" | sed -n 's/.*, \([0-9]*\) global pass.*/\1/p')
        # shellcheck disable=SC2086
        timeout 60 "$b.bin" $args $first >"$b.out" 2>"$b.err" || { RC=1; echo "== FAIL $name at $tile: $(head -3 "$b.err")"; }
        sed -n "s/^RESULT /$name $tile ${passes:-?} /p" "$b.out" >>"$W/results.txt"
        first=
    done
done <<<"$WORKS"
T2=$(date +%s)

python3 - "$W/results.txt" <<'PY'
import sys
from collections import OrderedDict
rows = OrderedDict()      # name -> {"tiles": [(tile, passes, ms, check)], "copy": ms, libs...}
for line in open(sys.argv[1]):
    name, tile, passes, work, method, ms, check = line.split()
    r = rows.setdefault(name, {"work": work, "tiles": [], "libs": {}})
    ms = float(ms)
    if method == "parmc":
        r["tiles"].append((tile, passes, ms, check))
    elif method == "copy16":
        r["copy"] = ms
    else:
        r["libs"][method] = ms
print("| work | program | tile | passes | parmc ms | copies | CUB merge (rows: segmented) ms | CUB radix (rows: seg. radix) ms | parmc / CUB merge (segmented) | check |")
print("|---|---|---|---|---|---|---|---|---|---|")
for name, r in rows.items():
    merge = r["libs"].get("cub_merge", r["libs"].get("cub_segmented"))
    radix = r["libs"].get("cub_radix", r["libs"].get("cub_seg_radix"))
    best = min(r["tiles"], key=lambda t: t[2]) if r["tiles"] else None
    for tile, passes, ms, check in r["tiles"]:
        mark = " **best**" if best and tile == best[0] and len(r["tiles"]) > 1 else ""
        print("| %s | %s | %s%s | %s | %.4f | %.1f | %s | %s | %s | %s |" % (
            r["work"], name.rsplit("_", 1)[0] if not name.startswith("rows") else "rows",
            tile, mark, passes, ms, ms / r["copy"] if r.get("copy") else 0,
            "%.4f" % merge if merge else "", "%.4f" % radix if radix else "",
            "%.2fx" % (ms / merge) if merge else "", check))
PY
echo "== checks and timings in $((T2 - T1)) s, all in $((T2 - T0)) s; raw lines in $W/results.txt"
exit "$RC"
