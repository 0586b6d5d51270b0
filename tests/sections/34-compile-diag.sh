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
    golden "$want" "$TMP/cdiag/got.err" $? "compile-diag $src"
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
# The form that the note of map_reduce_array names (the pairs in one array
# of rows, reduced by rows) compiles, and computes what the refused map does.
form=$(sed -n 's/.*note: to reduce a whole array.*`\(reduceblocks[^`]*\)`.*/\1/p' tests/compile-diag/map_reduce_array.err)
form=${form/op z/(+) 0.0}
form=${form/.../y * x}
printf 'import "perm"\nentry main (xs : [2^4]f32) (ys : [2^2]f32) = %s\n' "$form" >"$TMP/cdiag/rows_form.parm"
"$PARMC" --random-input=1 tests/compile-diag/map_reduce_array.parm >"$TMP/cdiag/rows_in.txt"
if "$PARMC" --target=c --emit-main "$TMP/cdiag/rows_form.parm" -o "$TMP/cdiag/rows_form.c" 2>"$TMP/cdiag/rows.err" &&
    ${CC_TEST:-cc} -std=c11 -O1 "$TMP/cdiag/rows_form.c" -o "$TMP/cdiag/rows_form" -lm 2>>"$TMP/cdiag/rows.err" &&
    "$TMP/cdiag/rows_form" <"$TMP/cdiag/rows_in.txt" >"$TMP/cdiag/rows_got.txt" &&
    "$PARMC" --interpret tests/compile-diag/map_reduce_array.parm <"$TMP/cdiag/rows_in.txt" >"$TMP/cdiag/rows_want.txt" &&
    [ -s "$TMP/cdiag/rows_want.txt" ] && cmp -s "$TMP/cdiag/rows_got.txt" "$TMP/cdiag/rows_want.txt"; then
    pass
else
    fail "the form of map_reduce_array's note ('$form'): $(head -3 "$TMP/cdiag/rows.err")"
fi
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
# The sizes of a ranged entry that compile run as the interpreter does; an
# input that falls on a refused size gives the ERROR_LENGTH status (the
# standalone main prints it and exits 1), never another size's result
# (issue 24): sizes whose element types differ from the first's, a refused
# middle size of an entry of any length (5 to 8 elements fall on it), and an
# entry graph's refused n = 1.
# ranged_main NAME ENTRY GOOD-INPUTS REFUSED-INPUTS
ranged_main() {
    local prog=tests/compile-diag/$1.parm entry=$2 good=$3 refused=$4 input got want err
    if ! "$PARMC" --target=c --emit-main -e "$entry" "$prog" -o "$TMP/cdiag/$1.c" 2>/dev/null ||
        ! $CC_TEST -std=c11 -O1 "$TMP/cdiag/$1.c" -o "$TMP/cdiag/$1" -lm; then
        fail "ranged entry $1: does not build"
        return
    fi
    IFS=, read -ra good <<<"$good"
    for input in "${good[@]}"; do
        got=$(echo "$input" | "$TMP/cdiag/$1" | tr '\n' ' ')
        want=$(echo "$input" | "$PARMC" --interpret -e "$entry" "$prog" | tr '\n' ' ')
        [ -n "$got" ] && [ "$got" = "$want" ] && pass || fail "ranged entry $1 at '$input': '$got', expected '$want'"
    done
    IFS=, read -ra refused <<<"$refused"
    for input in "${refused[@]}"; do
        got=$(echo "$input" | "$TMP/cdiag/$1" 2>"$TMP/cdiag/err.txt")
        status=$?
        err=$(cat "$TMP/cdiag/err.txt")
        [ $status -eq 1 ] && [ -z "$got" ] && [ "$err" = "error: a length the entry was not compiled for" ] && pass ||
            fail "ranged entry $1 at its refused size ('$input'): exit $status, '$got', '$err'"
    done
}
ranged_main ranged_size_refused wider "2 1" "1 2 3 4,$(seq -s ' ' 32)"
ranged_main ranged_pad_refused main "1 2 3,1 2 3 4,9 8 7 6 5 4 3 2 1,$(seq -s ' ' 16)" "1 2 3 4 5,$(seq -s ' ' 8)"
ranged_main ranged_graph_refused main "7,4 3 2 1" "1 2"
# a count that no size takes has the interpreter's message, with the range
# of every size, the refused ones too
err=$(seq 3 | "$TMP/cdiag/ranged_size_refused" 2>&1)
[ "$err" = "<stdin>: error: entry 'wider' accepts 2 to 64 values (a power-of-two size in its range), but the input has 3" ] &&
    pass || fail "ranged entry with a refused size, bad count: '$err'"
# the same through the API: NAME_ERROR_LENGTH for the lengths of a refused
# size, the result of the size that holds any other
"$PARMC" --target=c tests/compile-diag/ranged_pad_refused.parm -o "$TMP/cdiag/refpad.c" 2>/dev/null
"$PARMC" --target=c tests/compile-diag/ranged_graph_refused.parm -o "$TMP/cdiag/refgraph.c" 2>/dev/null
cat >"$TMP/cdiag/refapi.c" <<'C'
#include <stdio.h>
#include "refpad.h"
#include "refgraph.h"
int main(void) {
    int32_t in[16], out[16], out2[16];
    for (int i = 0; i < 16; i++) in[i] = i + 1;
    refpad_ctx *pad; refgraph_ctx *graph;
    if (refpad_ctx_create(&pad) || refgraph_ctx_create(&graph)) return 2;
    int bad = 0;
    for (size_t n = 0; n <= 16; n++) {
        int status = refpad_main(pad, in, out, n);
        int want = n > 4 && n <= 8 ? REFPAD_ERROR_LENGTH : REFPAD_OK;
        if (status != want) printf("refpad_main n=%zu: status %d, expected %d\n", n, status, want), bad = 1;
        if (status == REFPAD_OK && n && out[0] != 2) printf("refpad_main n=%zu: out[0] = %d\n", n, out[0]), bad = 1;
    }
    if (refpad_main(pad, in, out, 17) != REFPAD_ERROR_LENGTH) printf("refpad_main n=17\n"), bad = 1;
    if (refgraph_main(graph, in, out, out2, 2) != REFGRAPH_ERROR_LENGTH) printf("refgraph n=2\n"), bad = 1;
    if (refgraph_main(graph, in, out, out2, 4) != REFGRAPH_OK || out2[1] != 9) printf("refgraph n=4\n"), bad = 1;
    refpad_ctx_destroy(pad); refgraph_ctx_destroy(graph);
    return bad;
}
C
if $CC_TEST -std=c11 -O1 -I"$TMP/cdiag" "$TMP/cdiag/refapi.c" "$TMP/cdiag/refpad.c" "$TMP/cdiag/refgraph.c" -o "$TMP/cdiag/refapi" -lm 2>"$TMP/cdiag/err.txt" &&
    "$TMP/cdiag/refapi" >"$TMP/cdiag/refapi.out"; then
    pass
else
    fail "ranged entries' refused sizes through the API: $(head -5 "$TMP/cdiag/err.txt" "$TMP/cdiag/refapi.out")"
fi
# A missing entry is an error about the file, with notes where the entries are.
"$PARMC" --check -e nosuch examples/sort.parm >/dev/null 2>"$TMP/cdiag/noentry.err"
if [ "$(head -1 "$TMP/cdiag/noentry.err")" = "examples/sort.parm: error: no entry point named 'nosuch'" ] &&
   grep -q "^examples/sort.parm:[0-9]*:1: note: entry 'main' is defined here" "$TMP/cdiag/noentry.err"; then
    pass
else
    fail "-e nosuch: $(head -2 "$TMP/cdiag/noentry.err")"
fi
