# Static evaluation and the interpreter on small programs (tests/static).
#
#   NAME.parm                the program; every entry must pass the front end
#                            and the specialiser (`--dump-ir=specialised -e E`):
#                            some are for the interpreter alone, which --check
#                            (as far as a compile) refuses
#   NAME.in                  an input for entry main
#   NAME.ENTRY.in            an input for entry ENTRY
#   NAME.ENTRY.CASE.in       more inputs for ENTRY (e.g. one per size of a range)
#   X.out                    with X.in: parmc --interpret must exit 0 with exactly
#                            this on stdout and nothing on stderr. Hand-verified:
#                            ACCEPT=1 never rewrites these.
#   X.err                    with X.in: it must exit 1 with exactly this on stderr
#                            (bad input); ACCEPT=1 rewrites these
#   NAME.ir                  `parmc --dump-ir=specialised NAME.parm` (entry main);
#                            ACCEPT=1 rewrites these
for src in tests/static/*.parm; do
    ok=yes
    for e in $(sed -n 's/^entry \([A-Za-z0-9_]*\).*/\1/p' "$src"); do
        "$PARMC" --dump-ir=specialised -e "$e" "$src" >/dev/null 2>"$TMP/static.err" || ok=no
    done
    if [ $ok = yes ] && [ ! -s "$TMP/static.err" ]; then
        pass
    else
        fail "static $src: the front end or the specialiser failed"
        head -5 "$TMP/static.err"
    fi
done

for input in tests/static/*.in; do
    base=${input%.in}
    file=${base##*/}
    name=${file%%.*}
    rest=${file#"$name"}
    rest=${rest#.}
    entry=${rest%%.*}
    entry=${entry:-main}
    prog=tests/static/$name.parm
    "$PARMC" --interpret -e "$entry" "$prog" <"$input" >"$TMP/static.out" 2>"$TMP/static.err"
    status=$?
    if [ -e "$base.out" ]; then
        if [ -s "$TMP/static.err" ]; then
            fail "static $file: unexpected stderr"
            head -5 "$TMP/static.err"
        else
            golden "$base.out" "$TMP/static.out" $status "static $file" "$TMP/static.err"
        fi
    elif [ -e "$base.err" ]; then
        if [ -s "$TMP/static.out" ]; then
            fail "static $file: unexpected stdout"
        else
            golden "$base.err" "$TMP/static.err" $status "static $file"
        fi
    else
        fail "static $file: no $base.out or $base.err"
    fi
done

for want in tests/static/*.ir; do
    prog=${want%.ir}.parm
    "$PARMC" --dump-ir=specialised "$prog" >"$TMP/static.ir" 2>"$TMP/static.err"
    golden "$want" "$TMP/static.ir" $? "static $prog: --dump-ir=specialised" "$TMP/static.err"
done
