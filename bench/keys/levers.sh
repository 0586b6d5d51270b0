#!/usr/bin/env bash
# The scheduler's levers (--register-bytes, --tile-bytes) on packed sorts, top-k and scans
# (each program checked against the interpreter's output first), then ncu.
cd "$(dirname "$0")/../.." && mkdir -p build
export PATH=/usr/local/cuda/bin:$PATH
P=build/parmc
W=build/sweep; mkdir -p $W; OUT=${OUT:-build}
CASES="bench/keys/keys.parm:sort10_packed bench/keys/keys.parm:sort8_packed bench/keys/keys.parm:sort12_i32_packed bench/keys/keys.parm:sort10_i16_narrow bench/keys/keys.parm:topk64_packed bench/keys/keys.parm:topk8_packed bench/keys/keys.parm:topk64_u16_narrow bench/keys/keys.parm:topk64_u16_packed bench/keys/keys.parm:topk64_u16_records17 bench/scan/scans.parm:scan_blocks_i32 bench/scan/scans.parm:exscan_blocks_i32 bench/scan/scans.parm:copy"
LEVERS="default|--register-bytes=256|--tile-bytes=32K|--tile-bytes=128K"
build() {  # file entry k flags
  local f=$1 e=$2 k=$3 fl=$4 b=$W/${e}_$3
  [ "$fl" = default ] && fl=
  $P -I stdlib $fl --emit-main -e $e $f -o $b.cu 2>$b.err && nvcc -O3 -arch=sm_90 $b.cu -o $b 2>>$b.err
}
for c in $CASES; do
  f=${c%%:*} e=${c##*:}
  $P -I stdlib --random-input 1 -e $e $f > $W/$e.in
  (timeout 300 $P -I stdlib --interpret -e $e $f < $W/$e.in > $W/$e.want) &
  IFS='|' read -ra L <<<"$LEVERS"
  for k in "${!L[@]}"; do build $f $e $k "${L[$k]}" & done
done
wait
for round in 1 2; do
for c in $CASES; do
  e=${c##*:}
  IFS='|' read -ra L <<<"$LEVERS"
  for k in "${!L[@]}"; do
    b=$W/${e}_$k
    if [ ! -x $b ]; then echo "$e ${L[$k]}: no build: $(head -c 300 $b.err)"; continue; fi
    if [ $round = 1 ]; then
      $b < $W/$e.in > $b.got 2>/dev/null
      want=$W/$e.want; ref=interpreter
      if [ ! -s $want ] || [ "$(wc -l < $want)" != "$(wc -l < $b.got)" ] && [ $k != 0 ]; then want=$W/${e}_0.got; ref=default; fi
      if cmp -s $b.got $want; then ok="equal to the $ref"; else ok="DIFFERS from the $ref"; fi
    else ok=; fi
    t=$(for p in 1 2 3; do $b -r 30 < $W/$e.in 2>&1 >/dev/null | grep -o 'median [0-9.]* ms'; done | awk '{print $2}' | sort -n | sed -n 2p)
    echo "round $round $e ${L[$k]}: $t ms $ok"
  done
done
done 2>&1 | tee $OUT/sweep.txt
if command -v ncu >/dev/null; then
  for e in sort10_packed topk64_packed; do
    timeout 120 ncu --launch-skip 1 --launch-count 2 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis $W/${e}_0 -r 2 < $W/$e.in > $OUT/ncu-$e.txt 2>&1
    grep -E "Duration|Throughput|Registers|Achieved Occupancy|Stall|Issued Warp|Eligible|Theoretical Occ|Block Limit" $OUT/ncu-$e.txt | head -40
  done
fi
