# The pass table (compiler/driver/driver.c, `parmc --passes`).
# tests/passes/NAME.PASS.ir and NAME.PASS.plan are `parmc --dump-after PASS
# NAME.parm`: what the pass hands on, IR or plans (ACCEPT=1 rewrites them);
# every pass has one. --dump-ir=STAGE and --dump-plan are --dump-after of the
# passes that make their stages. compiler/stages and docs/internals.md list
# the passes' modules in the table's order, and the Makefile their folders
# (tests/tools/passes.py).
"$PARMC" --passes >"$TMP/passes.txt" 2>&1
golden tests/passes/passes.out "$TMP/passes.txt" $? "parmc --passes"
for want in tests/passes/*.*.ir tests/passes/*.*.plan; do
    file=${want##*/}
    src=tests/passes/${file%%.*}.parm pass=${file#*.}
    pass=${pass%.*}
    "$PARMC" --dump-after "$pass" "$src" >"$TMP/after.out" 2>"$TMP/after.err"
    golden "$want" "$TMP/after.out" $? "--dump-after $pass $src" "$TMP/after.err"
done
for p in $(tail -n +2 tests/passes/passes.out | cut -d' ' -f1); do
    ls tests/passes/*."$p".* >/dev/null 2>&1 && pass || fail "pass $p has no --dump-after golden in tests/passes"
done

# the stages' own dumps are the same as the dumps after their passes
for stage in $(tail -n +2 tests/passes/passes.out | awk '$2 != "scheduled" && $2 != "placed" { print $1 ":" $2 }'); do
    "$PARMC" --dump-ir="${stage#*:}" tests/passes/fuse.parm >"$TMP/stage.out" 2>&1
    "$PARMC" --dump-after "${stage%%:*}" tests/passes/fuse.parm | cmp -s - "$TMP/stage.out" && pass ||
        fail "--dump-ir=${stage#*:} differs from --dump-after ${stage%%:*}"
done
"$PARMC" --dump-plan tests/passes/budget.parm | cmp -s - tests/passes/budget.place-tables.plan && pass ||
    fail "--dump-plan differs from --dump-after place-tables"

if out=$(python3 tests/tools/passes.py tests/passes/passes.out compiler/stages Makefile docs/internals.md 2>&1); then
    pass
else
    fail "the pass table against compiler/stages, the Makefile and docs/internals.md: $out"
fi
# the checker must catch a pass listed out of order or left out, in each of
# the three: passes_broken WHAT SED-SCRIPT FILE EXPECTED
passes_broken() {
    rm -rf "$TMP/pt" && mkdir -p "$TMP/pt" && cp compiler/stages Makefile docs/internals.md "$TMP/pt/"
    sed -i "$2" "$TMP/pt/$3"
    if python3 tests/tools/passes.py tests/passes/passes.out "$TMP/pt/stages" "$TMP/pt/Makefile" \
        "$TMP/pt/internals.md" >"$TMP/pt/out" 2>&1; then
        fail "passes.py accepts $1"
    elif ! grep -qF "$4" "$TMP/pt/out"; then
        fail "passes.py, $1: expected '$4' in: $(head -3 "$TMP/pt/out")"
    else
        pass
    fi
}
passes_broken "compiler/stages with opt_tables before opt_rules" 's/opt_rules\(.*\) opt_tables/opt_tables\1 opt_rules/' stages \
    'lists opt_tables (pass tabulate) before opt_rules (pass rewrite)'
passes_broken "a Makefile with the planner's folder before the optimiser's" \
    's#compiler/optimiser\(.*\) compiler/plan #compiler/plan\1 compiler/optimiser #' Makefile \
    'Makefile COMPILER_DIRS (the folders of the modules): lists entry_plan (pass schedule) before opt_tables (pass tabulate)'
passes_broken "a diagram without the pass tabulate" '/^  pass tabulate/d' internals.md \
    'internals.md (the diagram, the pass on its module'"'"'s line): does not list opt_tables'

# the golden check itself (tests/lib.sh) fails on a difference, on a wrong
# status, and expects exit 1 of an .err golden that holds an error
golden_failures() {   # the failures of golden WANT-TEXT GOT-TEXT STATUS EXT, in a subshell
    (
        passed=0 failed=0 ACCEPT=0
        printf '%s\n' "$1" >"$TMP/g.$4"
        printf '%s\n' "$2" >"$TMP/g.got"
        golden "$TMP/g.$4" "$TMP/g.got" "$3" "self-test" >/dev/null
        echo "$failed"
    )
}
[ "$(golden_failures same same 0 ir)" = 0 ] && [ "$(golden_failures want got 0 ir)" = 1 ] &&
    [ "$(golden_failures same same 1 plan)" = 1 ] && [ "$(golden_failures "f: error: x" "f: error: x" 1 err)" = 0 ] &&
    [ "$(golden_failures "f: error: x" "f: error: x" 0 err)" = 1 ] &&
    [ "$(golden_failures "f: warning: x" "f: warning: x" 0 err)" = 0 ] && pass ||
    fail "tests/lib.sh: golden does not catch a difference or a wrong status"
