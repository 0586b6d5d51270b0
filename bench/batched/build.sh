#!/usr/bin/env bash
# build.sh OUT NAME:CHECKED:FILE.cu ...   (CHECKED is 1 or 0)
# Renames each parmc output's API (its prefix, read from its header) to NAME_*,
# so that copies of one output (bench/batched/hack.py) link together, compiles
# it, and links them with ab.cu into OUT. Needs nvcc (a GPU is not needed to build).
set -eu
out=$1; shift
dir=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
list=""
objs=""
for spec in "$@"; do
    IFS=: read -r name checked file <<<"$spec"
    h=${file%.cu}.h
    p=$(sed -nE 's/^typedef struct ([A-Za-z0-9_]+)_ctx .*/\1/p' "$h")
    P=$(echo "$p" | tr a-z A-Z) NAME=$(echo "$name" | tr a-z A-Z)
    rename="s/\b${p}_(main|ctx|ctx_create|ctx_destroy|error_string|ctx_stream|ctx_message)\b/${name}_\1/g; s/\b${P}_(OK|ERROR_[A-Z]+|PARMC_H)\b/${NAME}_\1/g"
    sed -E "$rename" "$h" >"$W/$name.h"
    sed -E "$rename; s/#include \"[^\"]*\.h\"/#include \"$name.h\"/" "$file" >"$W/$name.cu"
    nvcc -O3 -arch=sm_90 -c "$W/$name.cu" -o "$W/$name.o" &
    objs="$objs $W/$name.o"
    list="$list X($name, $checked)"
done
echo "#define VARIANTS $list" >"$W/variants.h"
nvcc -O3 -arch=sm_90 -include "$W/variants.h" -c "$dir/ab.cu" -o "$W/ab.o" &
wait
nvcc -arch=sm_90 "$W/ab.o" $objs -o "$out"
rm -rf "$W"
