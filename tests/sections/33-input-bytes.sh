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
    # An input that starts with a byte-order mark is read without it, as a
    # source is (tests/diag/input/main.bom.in: positions do not count it).
    printf '\357\273\2771 2 3 4\n' >"$TMP/bytes/bom.in"
    out=$("$TMP/bytes/double" <"$TMP/bytes/bom.in" 2>&1 | tr '\n' ' ')
    [ "$out" = "2 4 6 8 " ] && pass || fail "emitted main, input with a byte-order mark: $out"
    out=$("$PARMC" --interpret "$TMP/bytes/double.parm" <"$TMP/bytes/bom.in" 2>&1 | tr '\n' ' ')
    [ "$out" = "2 4 6 8 " ] && pass || fail "interpreter, input with a byte-order mark: $out"
else
    fail "NUL input: the emitted main does not build"
fi
# A source that starts with a byte-order mark compiles and runs.
printf '\357\273\277' | cat - "$TMP/bytes/double.parm" >"$TMP/bytes/bom.parm"
out=$(printf '1 2 3 4' | "$PARMC" --interpret "$TMP/bytes/bom.parm" 2>&1 | tr '\n' ' ')
[ "$out" = "2 4 6 8 " ] && pass || fail "source with a byte-order mark: $out"
# An emitted main that stops at a value that is not one of its type (a word
# among the numbers, a start too large for its i32) says so and frees what it
# holds: under AddressSanitizer no leak is reported, for a plain entry and an
# entry with segments.
cat >"$TMP/bytes/seg.parm" <<'PARM'
entry seg (xs : [2^2][2^2]i32 pad 0, segments st ln) (st : [2^2]i32) (ln : [2^2]i32) = xs
PARM
leak_free() {   # NAME PARM ENTRY INPUT WANT: the main of ENTRY on INPUT exits 1 with WANT alone
    local b=$TMP/bytes/$1
    if ! "$PARMC" --target=c --emit-main -e "$3" "$2" -o "$b.c" ||
        ! $CC_TEST -std=c11 -O0 -fsanitize=address,undefined "$b.c" -o "$b.san" -lm; then
        fail "invalid input, $1: the main does not build with AddressSanitizer"
        return
    fi
    printf '%s' "$4" | ASAN_OPTIONS=detect_leaks=1 "$b.san" >/dev/null 2>"$b.err"
    local status=$?
    if [ "$status" -eq 1 ] && [ "$(cat "$b.err")" = "$5" ]; then pass; else
        fail "invalid input, $1: exit $status, $(head -3 "$b.err")"; fi
}
leak_free word "$TMP/bytes/double.parm" main '1 2 x 4' "<stdin>:1:5: error: 'x' is not a valid u32 value"
leak_free start "$TMP/bytes/seg.parm" seg '16 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 0 2147483648 0 0 1 1 1 1' \
    "<stdin>:1:45: error: '2147483648' is not a valid i32 value"
