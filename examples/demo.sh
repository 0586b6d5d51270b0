#!/usr/bin/env bash
# Compile and run examples/sort.parm on 2^20 random int32 keys and show that
# the result is sorted. Run by `make demo`.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=$((1 << 20))
python3 tests/tools/gen.py i32 $n 2026 >"$tmp/in.txt"
echo "sorting $n random int32 keys with examples/sort.parm (reference interpreter)"
time build/parmc --interpret examples/sort.parm <"$tmp/in.txt" >"$tmp/out.txt"
echo "first keys: $(head -5 "$tmp/out.txt" | tr '\n' ' ')"
echo "last keys:  $(tail -5 "$tmp/out.txt" | tr '\n' ' ')"
python3 tests/tools/check.py sort "$tmp/in.txt" "$tmp/out.txt"
echo "sorted: yes ($(wc -l <"$tmp/out.txt") keys, a permutation of the input)"
