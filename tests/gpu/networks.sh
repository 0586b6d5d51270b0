#!/usr/bin/env bash
# The textbook sorting networks of tests/networks on the GPU, from the
# repository root with a built parmc (build/parmc): every entry (2^12, 2^16
# and 2^20) compiled to CUDA with --emit-main, built in parallel, run on
# random input and checked against the input sorted (rows of 2^5 for the
# odd-even transposition), with the kernels --report counts beside each.
# Results go to stdout and, when $OUT is set, to $OUT/networks-report.md.
set -u
cd "$(dirname "$0")/../.."
PARMC=${PARMC:-build/parmc}
W=$(mktemp -d)
REPORT=${OUT:-$W}/networks-report.md
: >"$REPORT"
for src in tests/networks/*.parm; do
    for e in s12 s16 s20; do
        b=$W/$(basename "$src" .parm)_$e
        ("$PARMC" --emit-main -e $e "$src" -o "$b.cu" && nvcc -O3 -arch=sm_90 "$b.cu" -o "$b" 2>"$b.nvcc") &
        while [ "$(jobs -rp | wc -l)" -ge 12 ]; do wait -n; done
    done
done
wait
passed=0 failed=0
for src in tests/networks/*.parm; do
    rows=0
    [ "$src" = tests/networks/transposition.parm ] && rows=32
    for e in s12 s16 s20; do
        b=$W/$(basename "$src" .parm)_$e
        "$PARMC" --random-input=3 -e $e "$src" >"$b.in"
        kernels=$("$PARMC" --report -e $e "$src" | head -1 | sed 's/ not simulated (.*/ not simulated/')
        if [ -x "$b" ] && "$b" <"$b.in" >"$b.out" && python3 -c 'import sys
xs = [int(l) for l in open(sys.argv[1])]
r = int(sys.argv[3]) or len(xs)
want = [x for i in range(0, len(xs), r) for x in sorted(xs[i:i + r])]
sys.exit(0 if [int(l) for l in open(sys.argv[2])] == want else 1)' "$b.in" "$b.out" $rows; then
            echo "ok ${src##*/} $e: $kernels" | tee -a "$REPORT"
            passed=$((passed + 1))
        else
            echo "FAIL ${src##*/} $e: $(head -c 300 "$b.nvcc" 2>/dev/null)" | tee -a "$REPORT"
            failed=$((failed + 1))
        fi
    done
done
echo "$passed passed, $failed failed" | tee -a "$REPORT"
[ "$failed" -eq 0 ]
