# Golden diagnostics: tests/diag/NAME.parm must fail `parmc --check` with
# exactly tests/diag/NAME.err on stderr and exit code 1.
for src in tests/diag/*.parm; do
    want=${src%.parm}.err
    "$PARMC" --check "$src" >/dev/null 2>"$TMP/diag.err"
    status=$?
    if [ "$ACCEPT" = 1 ]; then cp "$TMP/diag.err" "$want"; fi
    if [ "$status" -ne 1 ]; then
        fail "diag $src: exit $status, expected 1"
    elif ! diff -u "$want" "$TMP/diag.err" >"$TMP/diag.diff"; then
        fail "diag $src: stderr differs"
        head -20 "$TMP/diag.diff"
    else
        pass
    fi
done
