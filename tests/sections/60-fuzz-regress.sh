# Fuzzer reproducers (tests/fuzz/regress, docs/robustness.md): each NAME.parm
# must be handled within 30 seconds by `parmc --check`, `parmc --dump-ir`
# (which runs the whole middle end) and `parmc --target=c --emit-main -o OUT`
# with exit status 0 or 1 and no sanitizer report; code generation that
# fails must leave no OUT (nor its header) behind. When NAME.in exists,
# `parmc --interpret --compare-stages` must also run on it with status 0 or 1
# and no sanitizer report. When NAME.out exists too, the program computes
# something: the interpretation must succeed and print NAME.out, and so must
# the emitted C, built with AddressSanitizer and UBSan (a write past a buffer
# fails even when the output is right).
fuzz_regress_run() {    # fuzz_regress_run SRC DESCRIPTION INPUT ARGS...
    local src=$1 what=$2 input=$3
    shift 3
    timeout 30 "$PARMC" "$@" "$src" <"$input" >/dev/null 2>"$TMP/fuzz.err"
    local status=$?
    fuzz_status=$status
    if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
        fail "fuzz regress $src ($what): exit $status, expected 0 or 1"
        head -20 "$TMP/fuzz.err"
    elif grep -Eq 'runtime error|Sanitizer|SUMMARY:|internal error' "$TMP/fuzz.err"; then
        fail "fuzz regress $src ($what): sanitizer report or internal error"
        head -20 "$TMP/fuzz.err"
    else
        pass
    fi
}
# fuzz_regress_result SRC CODEGEN-STATUS: the interpreter and the emitted C
# (when code generation succeeded) print SRC's .out for its .in
fuzz_regress_result() {
    local src=$1 input=${1%.parm}.in want=${1%.parm}.out
    if "$PARMC" --interpret --compare-stages "$src" <"$input" 2>"$TMP/fuzz.err" | cmp -s - "$want"; then
        pass
    else
        fail "fuzz regress $src (result): the interpreter does not print ${want##*/}: $(head -3 "$TMP/fuzz.err")"
    fi
    [ "$2" -eq 0 ] || return
    if ! ${CC_TEST:-cc} -std=c11 -O0 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
        "$TMP/fuzz_out.c" -o "$TMP/fuzz_prog" 2>"$TMP/fuzz.err"; then
        fail "fuzz regress $src (C result): does not compile: $(head -3 "$TMP/fuzz.err")"
    elif "$TMP/fuzz_prog" <"$input" 2>"$TMP/fuzz.err" | cmp -s - "$want" &&
        ! grep -Eq 'runtime error|Sanitizer' "$TMP/fuzz.err"; then
        pass
    else
        fail "fuzz regress $src (C result): $(grep -m1 -E 'ERROR|runtime error' "$TMP/fuzz.err" || echo "does not print ${want##*/}")"
    fi
}
for src in tests/fuzz/regress/*.parm; do
    [ -e "$src" ] || continue
    fuzz_regress_run "$src" check /dev/null --check
    fuzz_regress_run "$src" dump-ir /dev/null --dump-ir
    rm -f "$TMP/fuzz_out.c" "$TMP/fuzz_out.h" "$TMP/fuzz_out.json"
    fuzz_regress_run "$src" codegen /dev/null --target=c --emit-main -o "$TMP/fuzz_out.c"
    if [ "$fuzz_status" -ne 0 ] && { [ -e "$TMP/fuzz_out.c" ] || [ -e "$TMP/fuzz_out.h" ] || [ -e "$TMP/fuzz_out.json" ]; }; then
        fail "fuzz regress $src (codegen): failed, but left $TMP/fuzz_out.c, .h or .json behind"
    fi
    codegen_status=$fuzz_status
    if [ -e "${src%.parm}.in" ]; then
        fuzz_regress_run "$src" interpret "${src%.parm}.in" --interpret --compare-stages
        if [ -e "${src%.parm}.out" ]; then
            fuzz_regress_result "$src" "$codegen_status"
        fi
    fi
done
