#!/usr/bin/env bash
# Random programs through CUDA, on a machine with an NVIDIA GPU (sm_90):
# RANDOM_COUNT programs (default 200) of tests/tools/randprog.py --backend,
# each compiled with --emit-main and nvcc, run on its input and compared with
# the reference interpreter element by element; compute-sanitizer memcheck
# and racecheck on every tenth. Ends with "N passed, N failed (seed S)".
#   RANDPROG_SEED=S bash tests/gpu/random.sh    # the same programs again
#   RANDPROG_FLAGS=--narrow bash tests/gpu/random.sh   # 1- and 2-byte fields
set -u
cd "$(dirname "$0")/../.."
PARMC=${PARMC:-build/parmc}
count=${RANDOM_COUNT:-200}
seed=${RANDPROG_SEED:-$(date +%s)}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# shellcheck disable=SC2086
python3 tests/tools/randprog.py --backend ${RANDPROG_FLAGS:-} "$W" "$count" "$seed"

build_one() {   # build_one K: $W/prog_K.parm as the executable $W/pK
    "$PARMC" --emit-main "$W/prog_$1.parm" -o "$W/p$1.cu" 2>"$W/p$1.err" &&
        nvcc -O3 -arch=sm_90 "$W/p$1.cu" -o "$W/p$1" 2>>"$W/p$1.err"
}
export -f build_one
export PARMC W
seq 0 $((count - 1)) | xargs -P "$(nproc)" -I{} bash -c 'build_one {}'

passed=0
failed=0
for ((k = 0; k < count; k++)); do
    "$PARMC" --interpret "$W/prog_$k.parm" <"$W/in_$k.txt" >"$W/want_$k" 2>/dev/null
    if [ -x "$W/p$k" ] && "$W/p$k" <"$W/in_$k.txt" >"$W/got_$k" 2>>"$W/p$k.err" && cmp -s "$W/want_$k" "$W/got_$k"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL random program $k (RANDPROG_SEED=$seed): $(head -3 "$W/p$k.err")"
        cat "$W/prog_$k.parm"
    fi
    if [ $((k % 10)) -eq 0 ] && [ -x "$W/p$k" ]; then
        for tool in memcheck racecheck; do
            compute-sanitizer --tool $tool --error-exitcode 9 "$W/p$k" <"$W/in_$k.txt" >/dev/null 2>"$W/san.txt"
            if [ $? -eq 9 ]; then
                failed=$((failed + 1))
                echo "FAIL $tool on random program $k: $(grep -m3 -E 'ERROR|Error|Race' "$W/san.txt")"
            else
                passed=$((passed + 1))
            fi
        done
    fi
done
echo "$passed passed, $failed failed (seed $seed, $count programs)"
[ "$failed" -eq 0 ]
