# The docs run as written (tests/tools/doc_blocks.py): every `$ command` of a
# console block prints exactly the lines shown after it, every program block
# compiles on its own (and is the file its first line names), every Python
# block runs in build/venv. What cannot run here (a GPU, nvcc, minutes) is
# marked `# not run: REASON` in the docs and counted here as skipped.
DOCS="README.md docs/*.md examples/README.md python/README.md"
py=()
if bash tests/tools/venv.sh build/venv >"$TMP/venv.out" 2>&1; then
    py=(--python build/venv/bin/python)
else
    fail "docs: no build/venv for the Python blocks: $(tail -3 "$TMP/venv.out")"
fi
# shellcheck disable=SC2086
python3 tests/tools/doc_blocks.py --parmc "$PARMC" "${py[@]}" --scratch "$TMP/docs" $DOCS >"$TMP/docs.txt" 2>&1 ||
    fail "docs: doc_blocks.py: $(tail -3 "$TMP/docs.txt")"
skipped=0
while read -r verdict rest; do
    case $verdict in
    PASS) pass ;;
    FAIL) fail "docs: $rest" ;;
    SKIP) skipped=$((skipped + 1)) ;;
    esac
done <"$TMP/docs.txt"
grep -q '^PASS' "$TMP/docs.txt" || fail "docs: nothing was checked"
grep -q '^FAIL' "$TMP/docs.txt" && grep -A20 '^FAIL' "$TMP/docs.txt" | grep '^    ' | head -60
echo "docs: $skipped commands and blocks not run here (marked '# not run:'):"
grep '^SKIP' "$TMP/docs.txt" | sed 's/^SKIP /  /'

# the checker itself catches drift: a wrong output, a failing command, a
# program block that leaves a definition out, a `...` that matches nothing,
# a program listed as refused that compiles, a refusal's message cut short
# (a `...` stands for the rest), an entry listed as compiling that is
# refused (in a block of a list item)
cat >"$TMP/drift.md" <<'MD'
```console
$ echo "5 3" | build/parmc --interpret examples/tutorial/cas.parm
5
3
$ build/parmc --check no/such.parm
$ printf 'a\nb\nc\n'
a
...
c
$ printf 'a\nb\n'
a
...
c
```

```
-- examples/tutorial/bitonic.parm
hmerge 0 xs = xs
hmerge m xs = two (hmerge (m-1)) (col (2^(m-1)) cas xs)
bsort 0 xs = xs
bsort n xs = two (hmerge (n-1)) (vcolumn cas (two (bsort (n-1)) xs))
entry main (xs : [2^3]i32) = bsort 3 xs
```

```parm refused
-- refused: the back end supports elements of at most 16 fields; 'main' has elements of 17
entry main (xs : [2^4]i32) = map (\x -> x + 1) xs
```

```parm refused
-- refused: the back end does not support ... yet; use --interpret
entry main (xs : [2^4]i32) (ys : [2^4]i32) = map (\x -> x + reduce (+) 0 (map (\y -> y * x) ys)) xs
```

```parm refused
-- refused: the back end does not support a function that reads a whole array of the entry
entry main (xs : [2^4]i32) (ys : [2^4]i32) = map (\x -> x + reduce (+) 0 (map (\y -> y * x) ys)) xs
```

- in a list item:

  ```parm compiles
  entry twice (xs : [2^3]i32) = map (\x -> x * 2) xs
  entry graph (xs : [2^4]i32) (ys : [2^4]i32) = map (\x -> x + reduce (+) 0 (map (\y -> y * x) ys)) xs
  ```
MD
python3 tests/tools/doc_blocks.py --parmc "$PARMC" --scratch "$TMP/drift" "$TMP/drift.md" >"$TMP/drift.txt" 2>&1
if [ "$(grep -o '^[A-Z]* [^ ]*:[0-9]*' "$TMP/drift.txt" | sed 's/ .*:/ /' | tr '\n' ' ')" = "FAIL 2 FAIL 5 PASS 6 FAIL 10 FAIL 17 FAIL 26 PASS 31 FAIL 36 PASS 43 FAIL 43 " ]; then
    pass
else
    fail "docs: doc_blocks.py does not catch drift: $(head -20 "$TMP/drift.txt")"
fi

# what docs/internals.md and docs/performance.md name exists (tests/tools/doc_paths.py):
# every link resolves, every compiler/... or bench/results/... path and every bare
# file name (opt_rewrite.c, ir.h) is a file of the repository
if out=$(python3 tests/tools/doc_paths.py docs/internals.md docs/performance.md 2>&1); then
    pass
else
    fail "docs: a file that docs/internals.md or docs/performance.md names is missing: $out"
fi
# and it fails when one is gone: a renamed module, a broken image link (each
# copy checked as if it stood at its doc's place: FILE=AS)
sed -e 's/`opt_rewrite\.c`/`opt_rewritten.c`/' docs/internals.md >"$TMP/paths-internals.md"
sed -e 's#s19-batched\.png#s19-gone.png#' docs/performance.md >"$TMP/paths-performance.md"
out=$(python3 tests/tools/doc_paths.py "$TMP/paths-internals.md=docs/internals.md" \
    "$TMP/paths-performance.md=docs/performance.md" 2>&1)
if [ $? -eq 1 ] && echo "$out" | grep -q 'opt_rewritten\.c' && echo "$out" | grep -q 's19-gone\.png'; then
    pass
else
    fail "docs: doc_paths.py does not catch a missing file: $out"
fi

# Two pages a reader takes in at once (issue 45): docs/performance.md today's
# figures in about 300 lines (the history is bench/results/performance-history.md),
# docs/internals.md the architecture in about 250
for page in docs/performance.md:310 docs/internals.md:250; do
    lines=$(wc -l <"${page%:*}")
    [ "$lines" -le "${page#*:}" ] && pass || fail "docs: ${page%:*} has $lines lines, more than ${page#*:}"
done
