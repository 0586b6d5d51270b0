# Golden back-end diagnostics: tests/compile-diag/NAME.parm compiled with
# `parmc --target=c -o OUT` (and --emit-main when NAME starts with
# emit_main) must print exactly NAME.err on stderr, and exit 1 when it holds
# an error, 0 when it holds only warnings. Refusals of a whole entry are
# located at the entry (issue 11).
mkdir -p "$TMP/cdiag"
for src in tests/compile-diag/*.parm; do
    want=${src%.parm}.err
    name=${src##*/}
    extra=()
    case $name in emit_main*) extra=(--emit-main) ;; esac
    "$PARMC" --target=c "${extra[@]}" "$src" -o "$TMP/cdiag/out.c" >/dev/null 2>"$TMP/cdiag/got.err"
    status=$?
    if [ "$ACCEPT" = 1 ]; then cp "$TMP/cdiag/got.err" "$want"; fi
    expect=0
    grep -q ': error: ' "$want" && expect=1
    if [ "$status" -ne "$expect" ]; then
        fail "compile-diag $src: exit $status, expected $expect"
    elif ! diff -u "$want" "$TMP/cdiag/got.err" >"$TMP/cdiag/diff"; then
        fail "compile-diag $src: stderr differs"
        head -20 "$TMP/cdiag/diff"
    else
        pass
    fi
done
# --check finds what a compile refuses: the same exit status and the same
# diagnostics at the same places (the messages may name another prefix).
for src in tests/compile-diag/*.parm; do
    case ${src##*/} in emit_main*) continue ;; esac
    "$PARMC" --check "$src" >/dev/null 2>"$TMP/cdiag/check.err"
    status=$?
    expect=0
    grep -q ': error: ' "${src%.parm}.err" && expect=1
    if [ "$status" -eq "$expect" ] &&
        diff <(grep -o '^[^ ]*:[0-9]*:[0-9]*: [a-z]*:' "${src%.parm}.err") \
             <(grep -o '^[^ ]*:[0-9]*:[0-9]*: [a-z]*:' "$TMP/cdiag/check.err") >/dev/null; then
        pass
    else
        fail "check finds the compile diagnostics of $src (exit $status)"
        head -5 "$TMP/cdiag/check.err"
    fi
done
# Every size of a ranged entry from n = 0 (arrays of one element) runs as
# the interpreter does, and so do entries of one element.
CC_TEST=${CC_TEST:-cc}
prog=tests/compile-diag/ranged_size_one.parm
if "$PARMC" --target=c --emit-main -e net_up "$prog" -o "$TMP/cdiag/ranged.c" 2>/dev/null &&
   $CC_TEST -std=c11 -O1 "$TMP/cdiag/ranged.c" -o "$TMP/cdiag/ranged"; then
    for input in "5" "4 3 2 1" "8 7 6 5 4 3 2 1" "2 1"; do
        got=$(echo "$input" | "$TMP/cdiag/ranged" | tr '\n' ' ')
        want=$(echo "$input" | "$PARMC" --interpret -e net_up "$prog" | tr '\n' ' ')
        [ -n "$got" ] && [ "$got" = "$want" ] && pass || fail "ranged entry at '$input': '$got', expected '$want'"
    done
else
    fail "ranged entry from n = 0: does not build"
fi
for entry in plus pairs; do
    "$PARMC" --random-input=3 -e "$entry" tests/compile-diag/single_element.parm >"$TMP/cdiag/in.txt"
    C_EXTRA_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" C_DIR=$TMP/cdiag/c \
        c_vs_interp "one element: $entry" tests/compile-diag/single_element.parm "$entry" "$TMP/cdiag/in.txt"
done
# The sizes of a ranged entry that compile run as the interpreter does; the
# one refused is not accepted (the standalone main names the sizes compiled).
prog=tests/compile-diag/ranged_size_refused.parm
if "$PARMC" --target=c --emit-main -e wider "$prog" -o "$TMP/cdiag/wider.c" 2>/dev/null &&
   $CC_TEST -std=c11 -O1 "$TMP/cdiag/wider.c" -o "$TMP/cdiag/wider"; then
    # (n = 1 alone: the emitted main of a ranged entry whose element type
    # changes with n reports its outputs as overlapping at the other sizes)
    for input in "2 1"; do
        got=$(echo "$input" | "$TMP/cdiag/wider" | tr '\n' ' ')
        want=$(echo "$input" | "$PARMC" --interpret -e wider "$prog" | tr '\n' ' ')
        [ -n "$got" ] && [ "$got" = "$want" ] && pass || fail "ranged entry at '$input': '$got', expected '$want'"
    done
    err=$(seq 32 | "$TMP/cdiag/wider" 2>&1)
    [ "$err" = "<stdin>: error: entry 'wider' accepts 2 to 16 values (a power-of-two size in its range), but the input has 32" ] && pass ||
        fail "ranged entry at its refused size: '$err'"
else
    fail "ranged entry with a refused size: does not build"
fi
# A missing entry is an error about the file, with notes where the entries are.
"$PARMC" --check -e nosuch examples/sort.parm >/dev/null 2>"$TMP/cdiag/noentry.err"
if [ "$(head -1 "$TMP/cdiag/noentry.err")" = "examples/sort.parm: error: no entry point named 'nosuch'" ] &&
   grep -q "^examples/sort.parm:[0-9]*:1: note: entry 'main' is defined here" "$TMP/cdiag/noentry.err"; then
    pass
else
    fail "-e nosuch: $(head -2 "$TMP/cdiag/noentry.err")"
fi
