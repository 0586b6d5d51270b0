# The C sources are clang-format clean (.clang-format, 100 columns):
# tests/tools/format_check.sh (`make format-check`) over the files it checks
# by default must find no line that clang-format would change. Without
# clang-format the section fails: CI installs it (.ci/install-deps.sh).
# The check must also catch a copy of a C file with a misformatted line.
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
    fail "format check: $CLANG_FORMAT is not installed (bash .ci/install-deps.sh)"
    return 0
fi
sh tests/tools/format_check.sh >"$TMP/format.out" 2>&1
status=$?
if [ $status -eq 0 ]; then
    pass
else
    fail "format check (exit $status; clang-format -i --style=file FILE): $(tail -1 "$TMP/format.out")"
    head -20 "$TMP/format.out"
fi

# compiler/base/f2.c as clang-format writes it, with the repository's
# .clang-format beside it (which --style=file finds from the file's folder):
# clean as it is, one line to change once a misformatted line is appended
rm -rf "$TMP/fmt" && mkdir -p "$TMP/fmt" && cp .clang-format "$TMP/fmt/"
"$CLANG_FORMAT" --style=file compiler/base/f2.c >"$TMP/fmt/f2.c"
if out=$(sh tests/tools/format_check.sh "$TMP/fmt/f2.c" 2>&1); then
    pass
else
    fail "format check of compiler/base/f2.c as clang-format writes it: $out"
fi
echo 'static int format_probe( void ){ return 0 ; }' >>"$TMP/fmt/f2.c"
if out=$(sh tests/tools/format_check.sh "$TMP/fmt/f2.c" 2>&1); then
    fail "format check passed a misformatted line: $out"
elif [[ "$out" != *"$TMP/fmt/f2.c: 1 lines"*"format-check: 1 lines in 1 of 1 files would change"* ]]; then
    fail "format check of a misformatted line: expected '1 lines in 1 of 1 files' in: $out"
else
    pass
fi

# No line of the compiler's sources is over 100 columns (.clang-format's
# limit, which clang-format does not enforce on string literals: they are
# split into adjacent literals by hand, so the emitted text stays the same),
# and the check finds a line of 101.
long_lines() { awk 'length > 100 { print FILENAME ":" FNR ": " length " columns" }' "$@"; }
out=$(long_lines $(find compiler -name '*.[ch]' -o -name '*.y' -o -name '*.re' | sort))
if [ -z "$out" ]; then
    pass
else
    fail "lines of compiler/ over 100 columns: $(echo "$out" | head -5)"
fi
printf '%101s\n' x >"$TMP/fmt/long.c"
if [[ "$(long_lines "$TMP/fmt/long.c")" == *"long.c:1: 101 columns"* ]]; then
    pass
else
    fail "the column check missed a line of 101 columns"
fi
