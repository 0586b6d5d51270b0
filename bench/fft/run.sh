#!/usr/bin/env bash
# bench/fft/run.sh: stdlib/fft.parm against cuFFT on a GPU machine (sm_90).
#   bash bench/fft/run.sh     prints a line per transform; PARMC=... to pick parmc
# Each line of FFT_RUNS is LOGN LOGROW [PARMC-OPTIONS]: 2^(LOGN-LOGROW) rows
# of 2^LOGROW points, compiled with the options. The default: the six shapes
# of issue 16 with the default scheduler, then the single transforms with
# the scheduler's levers (the old default tile of 2^20, 32-byte segments).
set -eu -o pipefail
cd "$(dirname "$0")/../.."
PARMC=$(realpath "${PARMC:-build/parmc}")
W=$(mktemp -d)
RUNS=${FFT_RUNS:-"10 10
20 20
24 24
20 10
24 10
24 12
20 20 --tile-bytes=16K
20 20 --segment-bytes=32
20 20 --segment-bytes=32 --tile-bytes=64K
24 24 --segment-bytes=32"}
build() {   # build NAME LOGN LOGROW [OPTIONS]
    local name=$1 logn=$2 logrow=$3
    shift 3
    printf 'import "fft"\nentry main (xs : [2^%d](f32, f32)) = fft_rows %d %d xs\n' "$logn" $((logn - logrow)) "$logrow" >"$W/$name.parm"
    "$PARMC" --report "$@" "$W/$name.parm" >"$W/$name.report"
    "$PARMC" --prefix bench "$@" "$W/$name.parm" -o "$W/$name.cu"
    nvcc -O3 -arch=sm_90 -include "$W/$name.h" bench/fft/fftbench.cu "$W/$name.cu" -lcufft -o "$W/$name"
}
mapfile -t lines <<<"$RUNS"
for i in "${!lines[@]}"; do
    # shellcheck disable=SC2086
    build "fft$i" ${lines[$i]} &
done
wait
for i in "${!lines[@]}"; do
    set -- ${lines[$i]}
    if [ $# -gt 2 ]; then echo "options: ${*:3}"; fi
    grep -m1 "^entry" "$W/fft$i.report"
    "$W/fft$i" "$1" "$2"
done
