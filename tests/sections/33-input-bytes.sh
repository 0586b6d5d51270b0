# Bytes that used to be mishandled (issue 11): a NUL byte in the input of
# the interpreter or of an emitted main is an error with its position (the
# same first line from both), and a UTF-8 byte-order mark at the start of a
# source is skipped.
CC_TEST=${CC_TEST:-cc}
mkdir -p "$TMP/bytes"
cat >"$TMP/bytes/double.parm" <<'PARM'
entry main (xs : [2^2]u32) = map (\x -> x * 2) xs
PARM
printf '1 2\n3\0004\n' >"$TMP/bytes/nul.in"
want='<stdin>:2:2: error: the input contains a NUL byte'
"$PARMC" --interpret "$TMP/bytes/double.parm" <"$TMP/bytes/nul.in" >/dev/null 2>"$TMP/bytes/interp.err"
status=$?
if [ "$status" -eq 1 ] && [ "$(head -1 "$TMP/bytes/interp.err")" = "$want" ]; then pass; else
    fail "NUL in interpreter input: exit $status, $(head -1 "$TMP/bytes/interp.err")"; fi
if "$PARMC" --target=c --emit-main "$TMP/bytes/double.parm" -o "$TMP/bytes/double.c" &&
   $CC_TEST -std=c11 -O1 "$TMP/bytes/double.c" -o "$TMP/bytes/double"; then
    "$TMP/bytes/double" <"$TMP/bytes/nul.in" >/dev/null 2>"$TMP/bytes/main.err"
    status=$?
    if [ "$status" -eq 1 ] && [ "$(cat "$TMP/bytes/main.err")" = "$want" ]; then pass; else
        fail "NUL in emitted main input: exit $status, $(head -2 "$TMP/bytes/main.err")"; fi
    printf '1 2 3 4\n' | "$TMP/bytes/double" >"$TMP/bytes/main.out" 2>&1
    [ "$(tr '\n' ' ' <"$TMP/bytes/main.out")" = "2 4 6 8 " ] && pass || fail "emitted main without NUL"
else
    fail "NUL input: the emitted main does not build"
fi
# A source that starts with a byte-order mark compiles and runs.
printf '\357\273\277' | cat - "$TMP/bytes/double.parm" >"$TMP/bytes/bom.parm"
out=$(printf '1 2 3 4' | "$PARMC" --interpret "$TMP/bytes/bom.parm" 2>&1 | tr '\n' ' ')
[ "$out" = "2 4 6 8 " ] && pass || fail "source with a byte-order mark: $out"
