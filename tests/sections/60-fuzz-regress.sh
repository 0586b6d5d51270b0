# Fuzzer reproducers (tests/fuzz/regress, docs/robustness.md): each NAME.parm
# must be handled within 30 seconds by `parmc --check`, `parmc --dump-ir`
# (which runs the whole middle end) and `parmc --target=c --emit-main -o OUT`
# with exit status 0 or 1 and no sanitizer report; code generation that
# fails must leave no OUT (nor its header) behind. When NAME.in exists,
# `parmc --interpret --compare-stages` must also run on it with status 0 or 1
# and no sanitizer report.
fuzz_regress_run() {    # fuzz_regress_run SRC DESCRIPTION INPUT ARGS...
    local src=$1 what=$2 input=$3
    shift 3
    timeout 30 "$PARMC" "$@" "$src" <"$input" >/dev/null 2>"$TMP/fuzz.err"
    local status=$?
    fuzz_status=$status
    if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
        fail "fuzz regress $src ($what): exit $status, expected 0 or 1"
        head -20 "$TMP/fuzz.err"
    elif grep -Eq 'runtime error|Sanitizer|SUMMARY:' "$TMP/fuzz.err"; then
        fail "fuzz regress $src ($what): sanitizer report"
        head -20 "$TMP/fuzz.err"
    else
        pass
    fi
}
for src in tests/fuzz/regress/*.parm; do
    [ -e "$src" ] || continue
    fuzz_regress_run "$src" check /dev/null --check
    fuzz_regress_run "$src" dump-ir /dev/null --dump-ir
    rm -f "$TMP/fuzz_out.c" "$TMP/fuzz_out.h"
    fuzz_regress_run "$src" codegen /dev/null --target=c --emit-main -o "$TMP/fuzz_out.c"
    if [ "$fuzz_status" -ne 0 ] && { [ -e "$TMP/fuzz_out.c" ] || [ -e "$TMP/fuzz_out.h" ]; }; then
        fail "fuzz regress $src (codegen): failed, but left $TMP/fuzz_out.c or .h behind"
    fi
    if [ -e "${src%.parm}.in" ]; then
        fuzz_regress_run "$src" interpret "${src%.parm}.in" --interpret --compare-stages
    fi
done
