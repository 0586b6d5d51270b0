# Bad input, word for word: tests/diag/input/ENTRY.CASE.in goes to entry ENTRY
# of tests/diag/input/badinput.parm through the interpreter and through the
# standalone main of --emit-main (C target). Both must exit 1 with nothing on
# stdout and exactly ENTRY.CASE.err on stderr: the messages of
# runtime/parm_io.h, which both use. ACCEPT=1 rewrites the .err files from
# the interpreter.
dir=tests/diag/input
mkdir -p "$TMP/input"
for entry in $(for f in "$dir"/*.in; do f=${f##*/}; echo "${f%%.*}"; done | sort -u); do
    rm -f "$TMP/input/$entry"
    if "$PARMC" --target=c --emit-main -e "$entry" "$dir/badinput.parm" -o "$TMP/input/$entry.c" &&
        cc -std=c11 -O1 "$TMP/input/$entry.c" -o "$TMP/input/$entry" -lm; then
        pass
    else
        fail "input: cannot build the standalone main of entry $entry"
    fi
done

input_case() {   # input_case WHO INPUT ERR-FILE COMMAND...
    local who=$1 input=$2 want=$3
    shift 3
    "$@" <"$input" >"$TMP/input/out" 2>"$TMP/input/err"
    local status=$? accept=$ACCEPT
    [ "$who" = interpreter ] || accept=0
    if [ -s "$TMP/input/out" ]; then
        fail "input $input, $who: unexpected stdout"
    else
        ACCEPT=$accept golden "$want" "$TMP/input/err" $status "input $input, $who"
    fi
}

for input in "$dir"/*.in; do
    base=${input%.in}
    file=${base##*/}
    entry=${file%%.*}
    input_case interpreter "$input" "$base.err" "$PARMC" --interpret -e "$entry" "$dir/badinput.parm"
    [ -x "$TMP/input/$entry" ] && input_case "emitted main" "$input" "$base.err" "$TMP/input/$entry"
done

# Messages of any length (they were cut at 256 or 320 bytes): an entry name
# of 400 characters, in the message of a count that no size takes, of a
# padded entry and of an entry over rows, whole from the interpreter and
# from the emitted main alike.
name=entry_$(printf 'n%.0s' $(seq 400))
{
    echo "entry ${name}_count (xs : [2^3]i32) = xs"
    echo "entry ${name}_pad (xs : [2^3]i32 pad 0) = xs"
    echo "entry ${name}_rows (xs : [2^2][2^2]i32 pad 0) = xs"
} >"$TMP/input/long.parm"
for kind in count pad rows; do
    entry=${name}_$kind
    seq 40 >"$TMP/input/long.in"
    [ $kind = rows ] && { echo 2; seq 11; } >"$TMP/input/long.in"
    "$PARMC" --interpret -e "$entry" "$TMP/input/long.parm" <"$TMP/input/long.in" >/dev/null 2>"$TMP/input/long.err"
    if grep -q "^<stdin>: error: entry '$entry' .* but the input has \(40\|40 values\|11 values after the row length\)$" "$TMP/input/long.err" &&
        "$PARMC" --target=c --emit-main -e "$entry" "$TMP/input/long.parm" -o "$TMP/input/long.c" &&
        cc -std=c11 -O1 "$TMP/input/long.c" -o "$TMP/input/long" -lm; then
        "$TMP/input/long" <"$TMP/input/long.in" >/dev/null 2>"$TMP/input/long_c.err"
        cmp -s "$TMP/input/long.err" "$TMP/input/long_c.err" && pass ||
            fail "input: the emitted main's message for a long entry name ($kind): $(cut -c1-80 "$TMP/input/long_c.err")"
    else
        fail "input: the interpreter's message for a long entry name ($kind): $(cut -c1-80 "$TMP/input/long.err")..$(tail -c 60 "$TMP/input/long.err")"
    fi
done

# a leading '+' is taken for every integer type, unsigned ones too (docs/
# language.md 8), by the interpreter and the standalone main alike
printf 'entry main (xs : [2^2]u8) = xs\n' >"$TMP/input/plus.parm"
if "$PARMC" --target=c --emit-main "$TMP/input/plus.parm" -o "$TMP/input/plus.c" &&
    cc -std=c11 -O1 "$TMP/input/plus.c" -o "$TMP/input/plus" -lm; then
    for who in interpreter main; do
        if [ $who = main ]; then got=$(echo "+5 +255 7 +0" | "$TMP/input/plus" 2>&1)
        else got=$(echo "+5 +255 7 +0" | "$PARMC" --interpret "$TMP/input/plus.parm" 2>&1); fi
        [ "$(echo $got)" = "5 255 7 0" ] && pass || fail "input: '+5 +255' as u8 ($who): $got"
    done
else
    fail "input: cannot build the main of a u8 entry"
fi

# standard input that cannot be read (a directory): one message saying why, exit
# 1, from the interpreter and the standalone main alike (the main's built with
# the sanitizers: what it read so far is freed)
printf 'entry main (xs : [2^2]i32) = xs\n' >"$TMP/input/unread.parm"
if "$PARMC" --target=c --emit-main "$TMP/input/unread.parm" -o "$TMP/input/unread.c" &&
    cc -std=c11 -O1 -fsanitize=address,undefined "$TMP/input/unread.c" -o "$TMP/input/unread" -lm; then
    "$PARMC" --interpret "$TMP/input/unread.parm" <"$TMP" >/dev/null 2>"$TMP/input/unread_i.err"
    si=$?
    "$TMP/input/unread" <"$TMP" >/dev/null 2>"$TMP/input/unread_c.err"
    sc=$?
    [ $si = 1 ] && [ "$(cat "$TMP/input/unread_i.err")" = "parmc: error: cannot read standard input: Is a directory" ] &&
        pass || fail "input: a directory as stdin, interpreter (exit $si): $(head -2 "$TMP/input/unread_i.err")"
    [ $sc = 1 ] && [ "$(cat "$TMP/input/unread_c.err")" = "<stdin>: error: cannot read standard input: Is a directory" ] &&
        pass || fail "input: a directory as stdin, standalone main (exit $sc): $(head -2 "$TMP/input/unread_c.err")"
else
    fail "input: cannot build the main of an i32 entry"
fi
