#!/usr/bin/env bash
# The test runner: every test of parmc, one line per section (its counts
# and seconds), in file order, ending with "N passed, N failed".
#   PARMC      the compiler under test (make test passes the sanitizer build)
#   ACCEPT=1   rewrite golden expectations instead of comparing (make accept)
#   TEST_JOBS  sections run at once (default: one per core)
# Arguments name sections to run alone (`bash tests/run.sh 35-ir 50-backend`);
# without arguments every section runs.
# Each section runs in a shell of its own that has sourced tests/lib.sh,
# with its own $TMP and counts, so sections run side by side; the longest
# start first, so that the last one to start is a short one.
set -u
cd "$(dirname "$0")/.."
export PARMC=${PARMC:-build/parmc} ACCEPT=${ACCEPT:-0}
RUN=$(mktemp -d)
trap 'rm -rf "$RUN"' EXIT
LONGEST="50-backend 55-tiles 54-cuda-emu 51-anylen 59-multigpu 50-cuda-compile 42-intest 10-unit 56-fft"

# run_section FILE: its output in $RUN/NAME.log, "passed failed seconds" in $RUN/NAME.counts
run_section() {
    local name
    name=$(basename "$1" .sh)
    TMP=$RUN/$name.tmp bash -c 'mkdir -p "$TMP"; passed=0 failed=0; . tests/lib.sh; . "$0"
        echo "$passed $failed $SECONDS" >"$TMP.counts"' "$1" >"$RUN/$name.log" 2>&1
    mv "$RUN/$name.tmp.counts" "$RUN/$name.counts" 2>/dev/null
    rm -rf "$RUN/$name.tmp"
}

sections=()
if [ $# -gt 0 ]; then
    for name in "$@"; do
        name=$(basename "$name" .sh)
        [ -f "tests/sections/$name.sh" ] || { echo "tests/run.sh: no section $name" >&2; exit 2; }
        sections+=("tests/sections/$name.sh")
    done
else
    sections=(tests/sections/*.sh)
fi
order=()
for name in $LONGEST; do [[ " ${sections[*]} " == *" tests/sections/$name.sh "* ]] && order+=("tests/sections/$name.sh"); done
for f in "${sections[@]}"; do [[ " $LONGEST " == *" $(basename "$f" .sh) "* ]] || order+=("$f"); done
jobs_max=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
for f in "${order[@]}"; do
    while [ "$(jobs -r | wc -l)" -ge "$jobs_max" ]; do wait -n; done
    run_section "$f" &
done

# the sections' lines in file order, each printed once it has finished
passed=0 failed=0
for f in "${sections[@]}"; do
    name=$(basename "$f" .sh)
    while [ ! -e "$RUN/$name.counts" ] && jobs -r | grep -q .; do wait -n; done
    cat "$RUN/$name.log"
    if read -r p q s <"$RUN/$name.counts" 2>/dev/null; then
        printf '%-24s %5d passed, %d failed (%ds)\n' "$name" "$p" "$q" "$s"
        passed=$((passed + p)) failed=$((failed + q))
    else
        echo "FAIL: section $name ended without its counts"
        failed=$((failed + 1))
    fi
done
wait
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
