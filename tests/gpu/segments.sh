#!/usr/bin/env bash
# Entries with segments (docs/language.md 7.3) on the GPU, from the
# repository root with a built parmc: the segment entries of
# tests/anylen/entries.parm and a segmented sort of 2^10 rows of up to 2^8
# (key, position) records, compiled to CUDA with --emit-main and run on
# random disjoint segments (parmc --random-input) and on mostly empty rows
# (tests/tools/sparse_segments.py: the blocks of empty rows return at once),
# each output compared with the interpreter's; then a bad segment table, whose message must be the
# interpreter's. Results go to stdout and, when $OUT is set, to
# $OUT/segments-report.md.
set -u
cd "$(dirname "$0")/../.."
PARMC=${PARMC:-build/parmc}
W=$(mktemp -d)
REPORT=${OUT:-$W}/segments-report.md
: >"$REPORT"
{
    grep '^import' tests/anylen/entries.parm
    grep '^entry seg' tests/anylen/entries.parm
    echo 'entry segbig (xs : [2^10][2^8]f32 pad (1.0/0.0), segments st ln) (st : [2^10]i64) (ln : [2^10]i64) = bitonic_sort_rows idx_asc 10 8 (mapi (\i x -> (x, i32 (i & 255))) xs)'
} >"$W/prog.parm"
entries="segkv segsums segboth segbig seglive seglong segcut"
for e in $entries; do
    ("$PARMC" --emit-main -e "$e" "$W/prog.parm" -o "$W/$e.cu" && nvcc -O3 -arch=sm_90 "$W/$e.cu" -o "$W/$e" 2>"$W/$e.nvcc") &
done
wait
passed=0 failed=0
for e in $entries; do
    for seed in 1 2 3 4 5 6; do
        "$PARMC" --random-input="$seed" -e "$e" "$W/prog.parm" >"$W/in.txt"
        "$PARMC" --interpret -e "$e" "$W/prog.parm" <"$W/in.txt" >"$W/want.txt"
        if [ -x "$W/$e" ] && "$W/$e" <"$W/in.txt" >"$W/got.txt" && cmp -s "$W/want.txt" "$W/got.txt"; then
            echo "ok $e seed $seed ($(wc -l <"$W/want.txt") lines)" | tee -a "$REPORT"
            passed=$((passed + 1))
        else
            echo "FAIL $e seed $seed: $(head -c 300 "$W/$e.nvcc" 2>/dev/null)" | tee -a "$REPORT"
            failed=$((failed + 1))
        fi
    done
done
for spec in segbig:10:8 seglive:9:6 seglong:2:14 segcut:9:6; do
    IFS=: read -r e rows cols <<<"$spec"
    for live in 1 3 20; do
        [ "$live" -le $((1 << rows)) ] || continue
        python3 tests/tools/sparse_segments.py "$rows" "$cols" "$live" "$live" >"$W/in.txt"
        "$PARMC" --interpret -e "$e" "$W/prog.parm" <"$W/in.txt" >"$W/want.txt"
        if [ -x "$W/$e" ] && "$W/$e" <"$W/in.txt" >"$W/got.txt" && cmp -s "$W/want.txt" "$W/got.txt"; then
            echo "ok $e $live live rows of $((1 << rows)) ($(wc -l <"$W/want.txt") lines)" | tee -a "$REPORT"
            passed=$((passed + 1))
        else
            echo "FAIL $e $live live rows of $((1 << rows))" | tee -a "$REPORT"
            failed=$((failed + 1))
        fi
    done
done
printf '5 3 9 1 7 2 8 0 4 6\n0 1 2 6 9 9 9 9\n2 2 1 0 0 0 0 0\n' >"$W/bad.txt"
"$PARMC" --interpret -e segboth "$W/prog.parm" <"$W/bad.txt" 2>"$W/want.err" >/dev/null
if [ -x "$W/segboth" ] && ! "$W/segboth" <"$W/bad.txt" 2>"$W/got.err" >/dev/null && cmp -s "$W/want.err" "$W/got.err"; then
    echo "ok segboth bad segments: $(cat "$W/got.err")" | tee -a "$REPORT"
    passed=$((passed + 1))
else
    echo "FAIL segboth bad segments" | tee -a "$REPORT"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed" | tee -a "$REPORT"
[ "$failed" = 0 ]
