# Rewrite rules: tests/ir/NAME.parm shows one rule firing. Its optimised IR
# (--dump-ir) must equal NAME.ir and its rule trace NAME.trace, and the
# program must keep its meaning on random input (--compare-stages).
for src in tests/ir/*.parm; do
    base=${src%.parm}
    "$PARMC" --dump-ir --trace-rules "$src" >"$TMP/ir.out" 2>"$TMP/ir.trace"
    status=$?
    golden "$base.ir" "$TMP/ir.out" $status "ir golden $src"
    golden "$base.trace" "$TMP/ir.trace" $status "rule trace golden $src"
    "$PARMC" --random-input=7 "$src" >"$TMP/ir.in"   # its parameters, of any type
    if "$PARMC" --interpret --compare-stages "$src" <"$TMP/ir.in" >/dev/null 2>"$TMP/ir.err"; then
        pass
    else
        fail "ir meaning $src: $(head -3 "$TMP/ir.err")"
    fi
done

# The interpreter on programs only it runs: tests/interp/NAME.parm must print
# NAME.out (checked by hand or against a model) on NAME.in, after every stage.
for src in tests/interp/*.parm; do
    base=${src%.parm}
    if "$PARMC" --interpret --compare-stages "$src" <"$base.in" >"$TMP/interp.out" 2>"$TMP/interp.err" &&
        cmp -s "$base.out" "$TMP/interp.out"; then
        pass
    else
        fail "interpreter on $src: $(head -3 "$TMP/interp.err")"
    fi
done

# Types print whole, at any width: tests/ir/print/NAME.parm's --dump-ir must
# equal NAME.ir, and its widest type (32 fields) must be there in full.
for src in tests/ir/print/*.parm; do
    base=${src%.parm}
    "$PARMC" --dump-ir "$src" >"$TMP/print.out" 2>&1
    golden "$base.ir" "$TMP/print.out" $? "ir golden $src"
done
widest=$(grep -o '\[2^2\]([^=]*)' tests/ir/print/wide_type.ir | awk '{ print length($0) }' | sort -n | tail -1)
fields=$("$PARMC" --dump-ir tests/ir/print/wide_type.parm | grep ' = zip %4 %4$' | grep -o 'i32' | wc -l)
[ "$widest" = 225 ] && [ "$fields" = 32 ] && pass || fail "--dump-ir cuts a type of 32 fields: $widest characters, $fields fields"
