# The manifest (docs/manifest.md): tests/manifest/NAME.parm compiled to C
# gives NAME.json equal to tests/manifest/NAME.json (ACCEPT=1 rewrites it),
# with "parmc_version" what `parmc --version` prints; it parses as JSON and
# describes the header's prototypes (tests/tools/manifest_check.py); the CUDA
# manifest differs only in "target". The examples' manifests check too, and
# a file name that needs escaping gives valid JSON that keeps it.
d=$TMP/manifest
mkdir -p "$d/c" "$d/cuda"
version=$("$PARMC" --version)
# manifest_ok NAME.json NAME.h WHAT: valid JSON, the version, the header
manifest_ok() {
    if python3 -m json.tool "$1" >/dev/null 2>"$d/err.txt" &&
        python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["parmc_version"] != sys.argv[2])' \
            "$1" "$version" 2>>"$d/err.txt"; then
        pass
    else
        fail "manifest $3: not JSON, or parmc_version is not '$version': $(head -3 "$d/err.txt")"
    fi
    python3 tests/tools/manifest_check.py "$1" "$2" >"$d/check.txt" && pass ||
        fail "manifest $3 against its header: $(head -5 "$d/check.txt")"
}
for src in tests/manifest/*.parm examples/*.parm; do
    name=$(basename "$src" .parm)
    if ! "$PARMC" --target=c "$src" -o "$d/c/$name.c" 2>"$d/err.txt" ||
        ! "$PARMC" "$src" -o "$d/cuda/$name.cu" 2>"$d/err.txt"; then
        fail "manifest $src: $(head -3 "$d/err.txt")"
        continue
    fi
    manifest_ok "$d/c/$name.json" "$d/c/$name.h" "$src (C)"
    manifest_ok "$d/cuda/$name.json" "$d/cuda/$name.h" "$src (CUDA)"
    sed 's/"target": "c"/"target": "cuda"/' "$d/c/$name.json" | cmp -s - "$d/cuda/$name.json" && pass ||
        fail "manifest $src: the CUDA manifest differs from the C one in more than the target"
    case $src in tests/manifest/*) ;; *) continue ;; esac
    golden "tests/manifest/$name.json" "$d/c/$name.json" 0 "manifest golden $src"
done

# the header's comment of an entry with segments: the padded parameter and
# the results of its length hold the call's n, the starts and lengths their
# own length (no n scales them)
grep -qF '/* entry after: parameters [4] i32, [4] i32, [n] f32; results [n] f32; segments: parameter 3 and the results of its length hold n elements (any n up to 2^40), row i of up to 2^3' "$d/c/segments.h" &&
    pass || fail "manifest: the header's comment of an entry with segments: $(grep -F 'entry after:' "$d/c/segments.h" | cut -c1-160)"

# a source and an output named with a quote, a backslash, a tab, UTF-8 and
# a byte that is not UTF-8: JSON escapes, U+FFFD for the stray byte
odd=$(printf 'a"b\\c\td\303\251e\377')
mkdir -p "$d/$odd"
cp tests/manifest/tuples.parm "$d/$odd/$odd.parm"
if "$PARMC" --target=c "$d/$odd/$odd.parm" -o "$d/$odd/out.c" 2>"$d/err.txt" &&
    python3 - "$d/$odd/out.json" "$d/$odd/$odd.parm" <<'PY' 2>"$d/err.txt"; then
import json, os, sys
m = json.load(open(sys.argv[1], encoding="utf-8"))
want = os.fsdecode(os.fsencode(sys.argv[2]).replace(b"\xff", "\ufffd".encode()))
sys.exit(m["source"] != want or m["prefix"] != "out")
PY
    pass
else
    fail "manifest of an oddly named file: $(head -3 "$d/err.txt")"
fi

# docs/manifest.md's example is what parmc writes (the version aside)
if "$PARMC" examples/kvsort.parm -o "$d/cuda/kv.cu" 2>"$d/err.txt"; then
    awk '/^```json$/ { on = 1; next } /^```$/ { on = 0 } on' docs/manifest.md |
        sed 's/"parmc_version": "[^"]*"/"parmc_version": ""/' >"$d/doc.json"
    sed 's/"parmc_version": "[^"]*"/"parmc_version": ""/' "$d/cuda/kv.json" | diff -u "$d/doc.json" - >"$d/diff.txt" &&
        pass || fail "docs/manifest.md's example differs from parmc's: $(head -10 "$d/diff.txt")"
else
    fail "manifest of examples/kvsort.parm: $(head -3 "$d/err.txt")"
fi

# a compile of one entry (-e) describes that entry only, and still agrees
# with its header
if "$PARMC" --target=c -e trans examples/permute.parm -o "$d/c/one.c" 2>"$d/err.txt"; then
    manifest_ok "$d/c/one.json" "$d/c/one.h" "examples/permute.parm -e trans"
    python3 -c 'import json, sys; sys.exit([e["name"] for e in json.load(open(sys.argv[1]))["entries"]] != ["trans"])' \
        "$d/c/one.json" && pass || fail "manifest of -e trans: entries other than trans"
else
    fail "manifest of -e trans: $(head -3 "$d/err.txt")"
fi

# a manifest that cannot be written: an error, and no output left behind
mkdir -p "$d/fail/prog.json"
"$PARMC" --target=c tests/manifest/tuples.parm -o "$d/fail/prog.c" >/dev/null 2>"$d/err.txt"
status=$?
[ $status -eq 1 ] && grep -q "cannot write '$d/fail/prog.json'" "$d/err.txt" && [ ! -e "$d/fail/prog.c" ] &&
    [ ! -e "$d/fail/prog.h" ] && pass || fail "manifest not writable: exit $status, $(head -2 "$d/err.txt"; ls "$d/fail")"
