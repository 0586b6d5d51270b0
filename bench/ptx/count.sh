#!/usr/bin/env bash
# bench/ptx/count.sh PARMC FILE ENTRY: the PTX instructions of each kernel
# of ENTRY in FILE as PARMC compiles it (nvcc -O3 -arch=sm_90 -ptx; no GPU
# needed), with its NaN tests and selects of doubles. A static count, not a
# timing: it tells what a change removes from the kernels until a GPU
# measures it (docs/performance.md).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 PARMC FILE ENTRY" >&2; exit 2; }
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
stdlib=$(cd "$(dirname "$0")/../../stdlib" && pwd)
"$1" -I "$stdlib" -e "$3" "$2" -o "$w/k.cu"
nvcc -O3 -arch=sm_90 -ptx "$w/k.cu" -o "$w/k.ptx"
awk '/\.entry/ { name = $2; sub(/\(.*/, "", name); order[++n] = name }
     /^\t[a-z]/ { count[name]++; if ($1 ~ /^setp\.nan\.f64/) nan[name]++; if ($1 ~ /^selp\.f64/) sel[name]++ }
     END { for (i = 1; i <= n; i++) { k = order[i]; printf "%s: %d instructions, %d setp.nan.f64, %d selp.f64\n", k, count[k], nan[k], sel[k] } }' "$w/k.ptx"
