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
PARMC_CUDA=0 "$PARMC" bench --runs=2 --json examples/permute.parm >"$TMP/intest/bench.json" 2>&1 &&
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert [e["entry"] for e in r] == ["main", "rev", "trans"]; assert all(e["median_ms"] >= 0 for e in r)' "$TMP/intest/bench.json" &&
    pass || fail "parmc bench --json: $(head -3 "$TMP/intest/bench.json")"
