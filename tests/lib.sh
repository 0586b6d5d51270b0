# tests/lib.sh: what every test section may use. tests/run.sh runs each
# section in a shell of its own that has sourced this file, with its own
# $TMP and its own counts (passed, failed).

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

# variant FILE ENTRY-LINE: $TMP/variant.parm, FILE with its entries replaced
variant() {
    grep -v '^entry ' "$1" >"$TMP/variant.parm"
    echo "$2" >>"$TMP/variant.parm"
}

# c_main DIR: DIR/emitted_main.c, the main that calls an emitted program's
# main renamed to parm_emitted_main (so that the guard's main can call the API)
c_main() {
    mkdir -p "$1"
    [ -e "$1/emitted_main.c" ] || printf '%s\n' 'int parm_emitted_main(int argc, char **argv);' \
        'int main(int argc, char **argv) { return parm_emitted_main(argc, argv); }' >"$1/emitted_main.c"
}

CC_TEST=${CC_TEST:-cc}

# c_vs_interp NAME PROGRAM ENTRY INPUT; C_EXTRA_FLAGS: more cc flags (sanitizers)
c_vs_interp() {
    local name=$1 prog=$2 entry=$3 input=$4 c=${C_DIR:-$TMP/c} guarded=yes
    c_main "$c"
    if ! "$PARMC" --target=c --emit-main -e "$entry" "$prog" -o "$c/prog.c" 2>"$c/err.txt"; then
        fail "emit C $name: $(head -3 "$c/err.txt")"
        return
    fi
    python3 tests/tools/guard_entry.py "$c/prog.h" "$entry" >"$c/entry.h" 2>"$c/err.txt"
    case $? in
    0) ;;
    3) guarded=no ;;    # an entry graph: no guard driver (tests/tools/graph_alias.c checks aliasing)
    *) fail "guard entry $name: $(head -3 "$c/err.txt")"; return ;;
    esac
    # the program once, its main renamed so that the guard's main can call the API
    # shellcheck disable=SC2086
    if ! $CC_TEST -std=c11 -O1 -Wall -Wextra -Werror ${C_EXTRA_FLAGS:-} -Dmain=parm_emitted_main -c "$c/prog.c" -o "$c/prog.o" 2>"$c/err.txt" ||
        ! $CC_TEST ${C_EXTRA_FLAGS:-} "$c/emitted_main.c" "$c/prog.o" -o "$c/prog" -lm 2>"$c/err.txt" ||
        { [ $guarded = yes ] &&
            ! $CC_TEST -std=c11 -D_DEFAULT_SOURCE -O1 -Wall -Wextra -Werror ${C_EXTRA_FLAGS:-} -Iruntime -I"$c" -include "$c/entry.h" \
                tests/tools/guard_main.c "$c/prog.o" -o "$c/guard" -lm 2>"$c/err.txt"; }; then
        fail "compile C $name: $(head -5 "$c/err.txt")"
        return
    fi
    "$PARMC" --interpret -e "$entry" "$prog" <"$input" >"$c/i.out" 2>/dev/null
    "$c/prog" <"$input" >"$c/c.out" 2>"$c/err.txt"
    if cmp -s "$c/c.out" "$c/i.out"; then pass; else fail "C differs from the interpreter: $name"; fi
    [ $guarded = yes ] || return
    "$c/guard" -a <"$input" >"$c/g.out" 2>"$c/err.txt"
    local status=$?
    if [ $status -eq 0 ] && cmp -s "$c/g.out" "$c/i.out"; then
        pass
    else
        fail "C through the guarded API: $name: exit $status, $(head -3 "$c/err.txt")"
    fi
}
