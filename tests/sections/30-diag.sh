# Golden diagnostics: tests/diag/NAME.parm must fail `parmc --check` with
# exactly tests/diag/NAME.err on stderr and exit code 1. When NAME.args
# exists, its words are the command line instead (errors about files).
for src in tests/diag/*.parm; do
    want=${src%.parm}.err
    args=(--check "$src")
    if [ -e "${src%.parm}.args" ]; then read -ra args <"${src%.parm}.args"; fi
    "$PARMC" "${args[@]}" >/dev/null 2>"$TMP/diag.err"
    golden "$want" "$TMP/diag.err" $? "diag $src"
done

# An import that cannot be read says why, at its import line. Reading
# /proc/self/mem at offset 0 fails (EIO) even for root, whom file
# permissions would not stop.
mkdir -p "$TMP/diaglib"
ln -sf /proc/self/mem "$TMP/diaglib/unreadable.parm"
printf 'import "unreadable"\nentry main (xs : [2^1]i32) = xs\n' >"$TMP/diaglib/prog.parm"
"$PARMC" --check -I "$TMP/diaglib" "$TMP/diaglib/prog.parm" 2>"$TMP/diag.err"
status=$?
want="$TMP/diaglib/prog.parm:1:1: error: cannot read '$TMP/diaglib/unreadable.parm': Input/output error"
if [ "$status" -eq 1 ] && grep -qxF "$want" "$TMP/diag.err"; then
    pass
else
    fail "diag: unreadable import: exit $status, $(head -1 "$TMP/diag.err")"
fi
