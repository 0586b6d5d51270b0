# Entries of any length (docs/language.md, section 7): the C back end against
# the interpreter on lengths that are not powers of two (0, 1, 3, 1000,
# 2^k - 1, 2^k) and rows of odd lengths, each program once through its
# standalone main and once through its API with every array ending where an
# inaccessible page begins (tests/tools/guard_main.c): a read past the end of
# an input or a write past the end of an output faults, and a write into the
# bytes before an output changes a pattern that is checked. Calls in place and
# with half-overlapping arrays (-a) must agree too. Runs after
# 50-backend.sh, whose C_EXTRA_FLAGS (sanitizers) it shares.
ANY=$TMP/anylen
mkdir -p "$ANY"
printf '%s\n' 'int parm_emitted_main(int argc, char **argv);' \
    'int main(int argc, char **argv) { return parm_emitted_main(argc, argv); }' >"$ANY/emitted_main.c"

# anylen_build ENTRY: $ANY/ENTRY/prog (standalone) and guard, or a failure;
# $ANY/ENTRY/prog.parm is the entry alone, with the imports. An entry graph
# (reductions, several arrays or results...) has no guard driver
# (guard_entry.py exits 3): its standalone main alone runs.
anylen_build() {
    local e=$1 d=$ANY/$1 guard
    mkdir -p "$d"
    rm -f "$d/guard"
    { grep '^import' tests/anylen/entries.parm; grep "^entry $e " tests/anylen/entries.parm; } >"$d/prog.parm"
    "$PARMC" --target=c --emit-main -e "$e" "$d/prog.parm" -o "$d/prog.c" 2>"$d/err.txt" &&
        python3 tests/tools/guard_entry.py "$d/prog.h" "$e" >"$d/entry.h" 2>"$d/err.txt"
    guard=$?
    # shellcheck disable=SC2086
    if { [ $guard = 0 ] || [ $guard = 3 ]; } &&
        ${CC_TEST:-cc} -std=c11 -O1 -Wall -Wextra -Werror ${C_EXTRA_FLAGS:-} -Dmain=parm_emitted_main -c "$d/prog.c" \
            -o "$d/prog.o" 2>"$d/err.txt" &&
        ${CC_TEST:-cc} ${C_EXTRA_FLAGS:-} "$ANY/emitted_main.c" "$d/prog.o" -o "$d/prog" -lm 2>"$d/err.txt" &&
        { [ $guard = 3 ] ||
            ${CC_TEST:-cc} -std=c11 -D_DEFAULT_SOURCE -O1 -Wall -Wextra -Werror ${C_EXTRA_FLAGS:-} -Iruntime -I"$d" \
                -include "$d/entry.h" tests/tools/guard_main.c "$d/prog.o" -o "$d/guard" -lm 2>"$d/err.txt"; }; then
        return 0
    fi
    fail "any length: compile $e: $(head -5 "$d/err.txt")"
    return 1
}

# anylen_run ENTRY WHAT: $ANY/in.txt through both, against the interpreter
anylen_run() {
    local e=$1 what=$2 d=$ANY/$1
    "$PARMC" --interpret -e "$e" "$d/prog.parm" <"$ANY/in.txt" >"$d/i.out" 2>"$d/i.err"
    "$d/prog" <"$ANY/in.txt" >"$d/c.out" 2>"$d/c.err"
    if [ -s "$d/i.err" ] || ! cmp -s "$d/c.out" "$d/i.out"; then
        fail "any length: $e $what: C differs from the interpreter $(head -2 "$d/i.err" "$d/c.err")"
        return
    fi
    if [ ! -x "$d/guard" ]; then pass; return; fi
    "$d/guard" -a <"$ANY/in.txt" >"$d/g.out" 2>"$d/g.err"
    local status=$?
    if [ $status -eq 0 ] && cmp -s "$d/g.out" "$d/i.out"; then pass; else
        fail "any length: $e $what: through the guarded API: exit $status, $(head -3 "$d/g.err")"
    fi
}

# anylen_lengths ENTRY TYPE K [BEFORE AFTER]: lengths 0, 1, 3, 1000, 2^K - 1, 2^K
anylen_lengths() {
    local e=$1 type=$2 k=$3 m
    anylen_build "$e" || return
    for m in 0 1 3 1000 $(((1 << k) - 1)) $((1 << k)); do
        [ "$m" -le $((1 << k)) ] || continue
        { [ $# -gt 3 ] && echo "$4"; python3 tests/tools/gen.py "$type" "$m" "$m"; [ $# -gt 3 ] && echo "$5"; } >"$ANY/in.txt"
        anylen_run "$e" "n=$m"
    done
}

# anylen_rows ENTRY TYPE R C: rows x row lengths, odd ones among them
anylen_rows() {
    local e=$1 type=$2 r=$3 c=$4 shape rows len
    anylen_build "$e" || return
    for shape in "1 1" "3 5" "$r $c" "$((r - 1)) $((c - 1))" "7 $((c / 2 + 1))" "$r 1" "1 $c"; do
        read -r rows len <<<"$shape"
        { echo "$len"; python3 tests/tools/gen.py "$type" $((rows * len)) "$len"; } >"$ANY/in.txt"
        anylen_run "$e" "rows=$rows len=$len"
    done
}

C_EXTRA_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all"
anylen_lengths sort10 i32 10
anylen_lengths sort16 i32 16
anylen_lengths bpm12 u8 12
anylen_lengths desc12 f32 12
anylen_lengths kv12 i32,u16 12
anylen_lengths rev12 i32 12
anylen_lengths bitrev14 i64 14
anylen_lengths tof64 i32 11
anylen_lengths toi64 i16 11
anylen_lengths pos i32 9
anylen_lengths scaled i32 10 3 -4
anylen_lengths same u32 4
anylen_lengths ranged u16 12
anylen_rows rows i32 16 64
anylen_rows kvrows f32,i32 32 32
anylen_rows rowsr i16 32 32
anylen_rows rowsrev i32 8 128
# entry graphs of any length: the shape padded into whole arrays and the
# results of its length cut (reductions of the padded array, values used
# twice, zips, scalar parameters, results of other lengths, ranged sizes
# of which some are one chain and some graphs, other arrays that tell the
# sizes apart)
anylen_lengths total i64 6
anylen_lengths twice i32 10 3 -4
anylen_lengths mixed i32 4
anylen_lengths others i32 4 "$(seq -s ' ' 1 16)" "$(seq -s ' ' 21 28)"
anylen_rows graphrows i16 8 16
anylen_rows graphkv f32,i32 8 8
# entry graphs whose one chain reads the caller's shape itself (no COPY_PAD)
anylen_rows topkrows i32 8 1024
anylen_lengths topk1d f32 11
anylen_rows argrows i16 8 256
anylen_lengths sortmax i32 12
# the graph size of mixed (5 to 8 elements)
for m in 5 7 8; do python3 tests/tools/gen.py i32 "$m" "$m" >"$ANY/in.txt"; anylen_run mixed "n=$m"; done
# a ranged entry with another array of each size: the count of values picks
# the size (the interpreter's rule), here one the shape alone would not
anylen_build ranged2 && for m in 0 3 4 5 8 11 16; do
    for size in 2 3 4; do
        [ "$m" -le $((1 << size)) ] || continue
        { python3 tests/tools/gen.py i32 "$m" "$m"; python3 tests/tools/gen.py i32 $((1 << size)) 7; } >"$ANY/in.txt"
        anylen_run ranged2 "n=2^$size m=$m"
    done
done
# slices read in place (Schedule.in_slice): pieces of rows read from the
# caller's shape, and a slice of a plain parameter; joins of two chains'
# results written in place (Schedule.out_slice)
anylen_rows pieces f32 8 128
anylen_lengths slices i32 4 "$(seq -s ' ' 1 64)"
# (and the pieces' winners' joins written in place by the chains before them)
for e in pieces:3:4 slices:1:0; do
    IFS=: read -r e reads writes <<<"$e"
    "$PARMC" --dump-plan -e "$e" tests/anylen/entries.parm >"$ANY/plan.txt"
    got="$(grep -c 'input: a slice of' "$ANY/plan.txt") $(grep -c 'output: a slice of' "$ANY/plan.txt")"
    if [ "$got" = "$reads $writes" ]; then pass; else
        fail "any length: $e: chains that read and write slices in place: $got, not $reads $writes"
    fi
done
# results cut to the entry's result row length (docs/language.md 7.2)
anylen_rows topk5 i32 8 1024
anylen_lengths topk3d f32 11
anylen_rows cutmixed i16 8 16
anylen_rows cutranged i32 8 16
# entries with segments (docs/language.md 7.3): random disjoint segments
# with gaps (parmc --random-input), and segments the input must not give,
# where the standalone main says what the interpreter says
for e in segkv segsums segboth; do
    anylen_build "$e" || continue
    for seed in 1 2 3 4 5 6 7 8; do
        "$PARMC" --random-input="$seed" -e "$e" "$ANY/$e/prog.parm" >"$ANY/in.txt"
        anylen_run "$e" "random segments $seed"
    done
done
# blocks whose rows are all empty return at once (Phase.live_check): in a
# tile of 2^6 rows (seglive), in rows of three phases (seglong), not where a
# cut result holds every row (segcut); mostly empty rows, then random ones
for e in seglive:9:6 seglong:2:14 segcut:9:6; do
    IFS=: read -r e rows cols <<<"$e"
    checks=$("$PARMC" --dump-plan -e "$e" tests/anylen/entries.parm | grep -c 'a block of empty rows returns')
    if [ "$checks" = "$([ $e = segcut ] && echo 0 || echo $((rows == 2 ? 3 : 1)))" ]; then
        pass
    else
        fail "any length: $e: $checks phases whose blocks of empty rows return"
    fi
    anylen_build "$e" || continue
    for live in 0 1 3 $((1 << rows >> 2)); do
        [ "$live" -le $((1 << rows)) ] || continue
        python3 tests/tools/sparse_segments.py "$rows" "$cols" "$live" "$live" >"$ANY/in.txt"
        anylen_run "$e" "$live live rows of $((1 << rows))"
    done
    "$PARMC" --random-input=3 -e "$e" "$ANY/$e/prog.parm" >"$ANY/in.txt"
    anylen_run "$e" "random segments 3"
done
if anylen_build segboth; then
    for starts in "0 1 2 6 9 9 9 9" "0 9 2 6 9 9 9 9" "0 3 -1 6 9 9 9 9"; do
        printf '5 3 9 1 7 2 8 0 4 6\n%s\n2 2 1 0 0 0 0 0\n' "$starts" >"$ANY/in.txt"
        "$PARMC" --interpret -e segboth "$ANY/segboth/prog.parm" <"$ANY/in.txt" >/dev/null 2>"$ANY/i.err"
        i_status=$?
        "$ANY/segboth/prog" <"$ANY/in.txt" >/dev/null 2>"$ANY/c.err"
        c_status=$?
        if [ $i_status = 1 ] && [ $c_status = 1 ] && grep -q "segment" "$ANY/i.err" && cmp -s "$ANY/i.err" "$ANY/c.err"; then
            pass
        else
            fail "any length: segboth starts $starts: exits $i_status and $c_status, $(cat "$ANY/i.err" "$ANY/c.err")"
        fi
    done
fi

# an empty shape writes nothing and returns NAME_OK whatever its other
# dimension (docs/api.md: 0 rows of more columns than any size holds too);
# a non-empty one no size holds is NAME_ERROR_LENGTH
mkdir -p "$TMP/empty"
printf 'import "sort"\nentry m (xs : [2^2][2^3]i32 pad max) = bitonic_sort_rows asc 2 3 xs\n' >"$TMP/empty/e.parm"
cat >"$TMP/empty/main.c" <<'EOF2'
#include <stdio.h>
#include "e.h"
int main(void) {
    e_ctx *ctx;
    int32_t x[1] = {7}, y[1] = {9};
    if (e_ctx_create(&ctx)) return 1;
    static const size_t shapes[][3] = {{0, 9, E_OK}, {5, 0, E_OK}, {0, 0, E_OK}, {0, 8, E_OK},
                                       {1, 9, E_ERROR_LENGTH}, {5, 1, E_ERROR_LENGTH}};
    int bad = 0;
    for (int i = 0; i < 6; i++) {
        int got = e_m(ctx, x, y, shapes[i][0], shapes[i][1]);
        if (got != (int)shapes[i][2]) printf("%zu x %zu: %s\n", shapes[i][0], shapes[i][1], e_error_string(got)), bad++;
    }
    e_ctx_destroy(ctx);
    return bad || y[0] != 9;
}
EOF2
if "$PARMC" --target=c "$TMP/empty/e.parm" -o "$TMP/empty/e.c" 2>"$TMP/empty/err.txt" &&
    ${CC_TEST:-cc} -std=c11 -O1 -fsanitize=address,undefined -I"$TMP/empty" "$TMP/empty/main.c" "$TMP/empty/e.c" \
        -o "$TMP/empty/t" -lm 2>"$TMP/empty/err.txt" && "$TMP/empty/t" >"$TMP/empty/err.txt" 2>&1; then
    pass
else
    fail "any length: empty shapes: $(head -3 "$TMP/empty/err.txt")"
fi
