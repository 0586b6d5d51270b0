#!/usr/bin/env bash
# The test runner: every test of parmc, one line per section as it finishes
# (its counts and seconds), ending with "N passed, N failed".
#   PARMC   the compiler under test (make test passes the sanitizer build)
#   ACCEPT=1  rewrite golden expectations instead of comparing (make accept)
set -u
cd "$(dirname "$0")/.."
PARMC=${PARMC:-build/parmc}
ACCEPT=${ACCEPT:-0}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

# (the sections share this shell: the loop's names are its own)
for run_section in tests/sections/*.sh; do
    run_p0=$passed run_f0=$failed run_s0=$SECONDS
    # shellcheck source=/dev/null
    . "$run_section"
    printf '%-24s %5d passed, %d failed (%ds)\n' "$(basename "$run_section" .sh)" $((passed - run_p0)) \
        $((failed - run_f0)) $((SECONDS - run_s0))
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
