#!/usr/bin/env bash
# bench/fft/run.sh: stdlib/fft.parm against cuFFT on a GPU machine (sm_90).
#   bash bench/fft/run.sh [OUT-DIR]     prints a line per size; PARMC=... to pick parmc
# Sizes: LOGN LOGROW pairs (2^(LOGN-LOGROW) rows of 2^LOGROW points).
set -eu -o pipefail
cd "$(dirname "$0")/../.."
PARMC=$(realpath "${PARMC:-build/parmc}")
W=$(mktemp -d)
SIZES=${FFT_SIZES:-"10 10 20 20 24 24 20 10 24 10 24 12"}
set -- $SIZES
build() {   # build LOGN LOGROW
    local name="fft_$1_$2"
    printf 'import "fft"\nentry main (xs : [2^%d](f32, f32)) = fft_rows %d %d xs\n' "$1" $(($1 - $2)) "$2" >"$W/$name.parm"
    "$PARMC" --report "$W/$name.parm" >"$W/$name.report"
    "$PARMC" --prefix bench "$W/$name.parm" -o "$W/$name.cu"
    nvcc -O3 -arch=sm_90 -include "$W/$name.h" bench/fft/fftbench.cu "$W/$name.cu" -lcufft -o "$W/$name"
}
pairs=()
while [ $# -ge 2 ]; do pairs+=("$1 $2"); shift 2; done
for p in "${pairs[@]}"; do build $p & done
wait
for p in "${pairs[@]}"; do
    set -- $p
    grep -m1 "^entry" "$W/fft_$1_$2.report"
    "$W/fft_$1_$2" "$1" "$2"
done
