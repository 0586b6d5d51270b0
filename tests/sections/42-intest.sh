# In-source tests (docs/testing.md): `parmc test` passes every block of the
# examples and the stdlib through the interpreter and the C back end (and
# CUDA on a GPU machine), and reports each kind of failure as
# tests/intest/failing.out says. `parmc bench` times an entry.
mkdir -p "$TMP/intest"
"$PARMC" test --no-cuda examples/*.parm stdlib/*.parm >"$TMP/intest/all.out" 2>&1
grep '^FAIL' "$TMP/intest/all.out" | while read -r line; do echo "FAIL: parmc test: $line"; done
ok=$(grep -c '^ok ' "$TMP/intest/all.out")
bad=$(grep -c '^FAIL' "$TMP/intest/all.out")
passed=$((passed + ok))
failed=$((failed + bad))
tail -1 "$TMP/intest/all.out" | grep -q "^$ok passed, 0 failed$" && [ "$ok" -ge 40 ] && pass ||
    fail "parmc test examples stdlib: $(tail -1 "$TMP/intest/all.out") ($ok cases)"

"$PARMC" test --no-c --no-cuda tests/intest/failing.parm >"$TMP/intest/failing.out" 2>&1
status=$?
[ "$status" -eq 1 ] && pass || fail "parmc test: exit $status on failing cases, expected 1"
golden tests/intest/failing.out "$TMP/intest/failing.out" 0 "parmc test tests/intest/failing.parm"

# CUDA left out without --no-cuda: the summary line says why
PARMC_CUDA=0 "$PARMC" test --no-c examples/permute.parm >"$TMP/intest/nocuda.out" 2>&1
tail -1 "$TMP/intest/nocuda.out" | grep -q "^3 passed, 0 failed (CUDA not run: PARMC_CUDA=0)$" && pass ||
    fail "parmc test with PARMC_CUDA=0: $(tail -1 "$TMP/intest/nocuda.out")"
mkdir -p "$TMP/intest/nopath"
PATH="$TMP/intest/nopath" "$PARMC" test --no-c examples/permute.parm >"$TMP/intest/nonvcc.out" 2>&1
tail -1 "$TMP/intest/nonvcc.out" | grep -q "(CUDA not run: no nvcc on the PATH)$" && pass ||
    fail "parmc test without nvcc: $(tail -1 "$TMP/intest/nonvcc.out")"

# a C compiler that cannot be run is a clear failure, not a crash
CC=/no/such/cc "$PARMC" test --no-cuda examples/permute.parm >"$TMP/intest/nocc.out" 2>&1
grep -q "cannot run the C compiler '/no/such/cc': No such file or directory" "$TMP/intest/nocc.out" && pass ||
    fail "parmc test with a missing compiler: $(head -2 "$TMP/intest/nocc.out")"

# parmc bench on the CPU: one line per entry, and JSON that parses
PARMC_CUDA=0 "$PARMC" bench -r 2 -e rev examples/permute.parm >"$TMP/intest/bench.out" 2>&1 &&
    grep -qE '^examples/permute.parm rev \(C, wall clock\): median [0-9.e+-]+ ms, range' "$TMP/intest/bench.out" &&
    pass || fail "parmc bench: $(head -3 "$TMP/intest/bench.out")"
# an entry the file lacks: the file's entries are listed, and nothing runs
PARMC_CUDA=0 "$PARMC" bench -e nosuch examples/permute.parm >"$TMP/intest/bench.out" 2>&1
[ $? = 1 ] && grep -qx "parmc bench: error: no entry point named 'nosuch'; the file's entries: main, rev, trans" \
    "$TMP/intest/bench.out" && pass || fail "parmc bench -e nosuch: $(head -3 "$TMP/intest/bench.out")"
# a file without entries: an error, not a success that timed nothing
printf 'f x = x\n' >"$TMP/intest/noentry.parm"
PARMC_CUDA=0 "$PARMC" bench --json "$TMP/intest/noentry.parm" >"$TMP/intest/bench.out" 2>&1
[ $? = 1 ] && grep -qx "$TMP/intest/noentry.parm: error: the program has no entry point to time" \
    "$TMP/intest/bench.out" && pass || fail "parmc bench without entries: $(head -3 "$TMP/intest/bench.out")"
PARMC_CUDA=0 "$PARMC" bench --runs=2 --json examples/permute.parm >"$TMP/intest/bench.json" 2>"$TMP/intest/bench.err" &&
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert [e["entry"] for e in r] == ["main", "rev", "trans"]; assert all(e["median_ms"] >= 0 for e in r)' "$TMP/intest/bench.json" &&
    pass || fail "parmc bench --json: $(head -3 "$TMP/intest/bench.json") $(head -3 "$TMP/intest/bench.err")"
# its steps, one line each on stderr (stdout above is the JSON alone)
for step in "main: compiling examples/permute.parm to .*/bench.c" "main: building the program with cc" \
    "rev: writing the input, [0-9]+ elements \(at most [0-9]+ bytes\), to .*/input.txt" \
    "trans: timing process 5 of 5 \(2 runs after 1 warm-up\)"; do
    grep -qE "^parmc bench: $step\$" "$TMP/intest/bench.err" && pass || fail "parmc bench: no step '$step'"
done

# An input that the scratch directory's file system has no room for is
# refused before anything is written, by parmc bench and by parmc test: 2^40
# f32 need up to 16 bytes each, 17.6 TB (without the check, parmc bench wrote
# 14 GB in ten minutes). The scratch directory is gone afterwards.
big=$TMP/intest/big-tmp
mkdir -p "$big"
printf '%s\n' 'entry main (xs : [2^40]f32) = map (\x -> x * 2.0) xs' >"$TMP/intest/big.parm"
TMPDIR=$big PARMC_CUDA=0 timeout 20 "$PARMC" bench "$TMP/intest/big.parm" >"$TMP/intest/big.out" 2>&1
status=$?
[ "$status" -eq 1 ] && [ -z "$(ls -A "$big")" ] &&
    grep -qE "^parmc bench: error: the input of entry 'main' \(1099511627776 elements\) needs up to 17592.2 GB in $big/parmc-[A-Za-z0-9]{6}, which has [0-9.]+ [KMG]?B(ytes)? free\$" "$TMP/intest/big.out" &&
    pass || fail "parmc bench of 2^40 elements: exit $status, left '$(ls -A "$big")': $(head -3 "$TMP/intest/big.out")"
printf '%s\n' '-- == larger than the disk' '-- entry big (xs : [2^40]f32) = map (\x -> x * 2.0) xs' '-- random 1' \
    >"$TMP/intest/bigtest.parm"
TMPDIR=$big timeout 20 "$PARMC" test --no-cuda "$TMP/intest/bigtest.parm" >"$TMP/intest/bigtest.out" 2>&1
status=$?
[ "$status" -eq 1 ] && [ -z "$(ls -A "$big")" ] &&
    grep -qE "^FAIL .*bigtest.parm:3: larger than the disk: random input 1 \(seed 1\): the input \(1099511627776 elements\) needs up to 17592.2 GB in $big/parmc-[A-Za-z0-9]{6}, which has" "$TMP/intest/bigtest.out" &&
    pass || fail "parmc test of 2^40 elements: exit $status, left '$(ls -A "$big")': $(head -3 "$TMP/intest/bigtest.out")"

# SIGINT while parmc bench writes the input and SIGTERM while the compiled
# program runs: parmc stops the program, removes its scratch directory and
# ends by the signal. The wrapper gives parmc SIGINT at its default, which a
# background job of a script ignores (parmc keeps an ignored signal ignored).
printf '%s\n' 'entry main (xs : [2^20]f32) = map (\x -> x * 2.0) xs' >"$TMP/intest/mid.parm"
bench_signal() {
    local sig=$1 code=$2 ready=$3 dir=$TMP/intest/sig-$1 i
    mkdir -p "$dir"
    TMPDIR=$dir PARMC_CUDA=0 python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
        "$PARMC" bench -r 2000 "$TMP/intest/mid.parm" >/dev/null 2>"$TMP/intest/sig-$sig.err" &
    local pid=$!
    for ((i = 0; i < 6000; i++)); do
        eval "$ready" && break
        sleep 0.01
    done
    kill -"$sig" "$pid"
    wait "$pid"
    local status=$? left running
    left=$(ls -A "$dir")
    running=$(pgrep -fc -- "$dir/")
    [ "$status" -eq "$code" ] && [ -z "$left" ] && [ "$running" -eq 0 ] && pass ||
        fail "parmc bench after SIG$sig: exit $status (expected $code), left '$left', $running processes still running: $(tail -2 "$TMP/intest/sig-$sig.err")"
}
bench_signal INT 130 'ls "$dir"/parmc-*/input.txt >/dev/null 2>&1'
bench_signal TERM 143 'grep -qs "timing process 1 of 5" "$TMP/intest/sig-TERM.err"'

