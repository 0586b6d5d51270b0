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

# The rule table (`parmc --list-rules`) against docs/ir.md's list of rules:
# every name a rule fires under has a row, and every row a rule
# (tests/tools/rule_docs.py). The checker must catch a rule without a row
# and a row of a rule the table does not have.
"$PARMC" --list-rules >"$TMP/rules.txt" 2>&1
if out=$(python3 tests/tools/rule_docs.py "$TMP/rules.txt" docs/ir.md 2>&1); then
    pass
else
    fail "the rule table against docs/ir.md: $out"
fi
grep -q '^two-bmmc-out two also two-two-out two-map-out$' "$TMP/rules.txt" && pass ||
    fail "--list-rules: no line 'two-bmmc-out two also two-two-out two-map-out' in: $(head -3 "$TMP/rules.txt")"
# rules_broken WHAT LIST IR_MD EXPECTED: rule_docs.py must fail with EXPECTED
rules_broken() {
    if python3 tests/tools/rule_docs.py "$2" "$3" >"$TMP/rules.out" 2>&1; then
        fail "rule_docs.py accepts $1"
    elif ! grep -qF "$4" "$TMP/rules.out"; then
        fail "rule_docs.py, $1: expected '$4' in: $(head -3 "$TMP/rules.out")"
    else
        pass
    fi
}
grep -v '^| `map-map`' docs/ir.md >"$TMP/rules_ir.md"
rules_broken "a rule without a row" "$TMP/rules.txt" "$TMP/rules_ir.md" \
    'rule map-map: in the rule table, but no row of'
sed -i 's/^| `two-two-out`, `two-map-out` |/| `two-two-out` |/' "$TMP/rules_ir.md"
rules_broken "a name of 'also' without a row" "$TMP/rules.txt" "$TMP/rules_ir.md" 'rule two-map-out: in the rule table'
grep -v '^map-map ' "$TMP/rules.txt" >"$TMP/rules_less.txt"
rules_broken "a row of no rule" "$TMP/rules_less.txt" docs/ir.md \
    'rule map-map: a row of docs/ir.md names it, but the rule table has no such rule'
