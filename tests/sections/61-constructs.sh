# Campaigns keep pace with the language (issue 41): the random programs of
# tests/tools/randprog.py, over its modes for fixed seeds, and the fuzz
# corpus (tests/fuzz/corpus) must each use every construct of
# docs/language.md. tests/tools/constructs.py lists the constructs from the
# reference (and checks its built-ins against
# compiler/specialise/builtins.c) and names each one that the files leave
# out.
constructs() {     # constructs WHAT FILE...: every construct used
    if python3 tests/tools/constructs.py --what "$1" docs/language.md compiler/specialise/builtins.c "${@:2}" >"$TMP/constructs.out"; then
        pass
    else
        fail "$1 leave out constructs of docs/language.md:"
        grep -v ' files parsed, ' "$TMP/constructs.out"
    fi
}
# the modes of randprog.py, with a fixed seed each (--chain --mid writes
# inputs of 2^16 elements, so few of those)
mode=0
while read -r count options; do
    mode=$((mode + 1))
    mkdir -p "$TMP/rand/$mode"
    # shellcheck disable=SC2086
    python3 tests/tools/randprog.py $options "$TMP/rand/$mode" "$count" $((4100 + mode))
done <<'EOF'
30
30 --backend
30 --backend --big
30 --chain
4 --chain --mid
30 --backend --narrow
30 --columns
30 --backend --sizes=1:3
EOF
constructs "the random programs (randprog.py)" "$TMP"/rand/*/prog_*.parm
constructs "the fuzz corpus (tests/fuzz/corpus)" tests/fuzz/corpus

# The check itself fails on a construct left out, and on a built-in that the
# reference and the compiler do not both have.
python3 tests/tools/constructs.py docs/language.md compiler/specialise/builtins.c examples/sort.parm >"$TMP/one.out"
if [ $? -eq 1 ] && grep -qx 'constructs.py: the programs does not use: name: unzip' "$TMP/one.out"; then
    pass
else
    fail "constructs.py over examples/sort.parm alone does not name unzip as missing"
fi
grep -v '^| `unzip xs` |' docs/language.md >"$TMP/language.md"
python3 tests/tools/constructs.py "$TMP/language.md" compiler/specialise/builtins.c tests/fuzz/corpus >"$TMP/doc.out"
if [ $? -eq 1 ] && grep -qx "constructs.py: the built-in 'unzip' of compiler/specialise/builtins.c is not in the tables of docs/language.md" "$TMP/doc.out"; then
    pass
else
    fail "constructs.py does not see that docs/language.md leaves out the built-in unzip"
fi
sed 's/^           | "(" pat ")"$/           | "(" pat ":" type ")"/' docs/language.md >"$TMP/language.md"
python3 tests/tools/constructs.py "$TMP/language.md" compiler/specialise/builtins.c tests/fuzz/corpus >"$TMP/doc.out"
if [ $? -eq 1 ] && grep -qF "the grammar's alternative \`cpat ::= \"(\" pat \":\" type \")\"\` is not one that constructs.py recognises" "$TMP/doc.out"; then
    pass
else
    fail "constructs.py does not see a grammar alternative that it does not recognise"
fi
