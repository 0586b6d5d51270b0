#!/bin/sh
# format_check.sh [FILE...]: how many lines of each C file clang-format (with
# the repository's .clang-format) would change; the compiler, the runtime and
# the C test tools by default. Prints "FILE: N lines" for each file it would
# change and a total; exits 1 when it would change any. `make format-check`
# and tests/sections/13-format.sh (`make test`) run it; without clang-format
# it says so and exits 0 (the section fails then).
cd "$(dirname "$0")/../.." || exit 2
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
    echo "format-check: $CLANG_FORMAT is not installed (apt-get install clang-format); nothing checked"
    exit 0
fi
[ $# -gt 0 ] || set -- $(find compiler -name '*.[ch]' | sort) runtime/*.h tests/unit/*.c tests/unit/*.h \
    tests/tools/*.c tests/tools/*.h tests/fuzz/*.c
total=0 files=0
for f in "$@"; do
    # lines of the file that the formatted text does not keep as they are
    n=$("$CLANG_FORMAT" --style=file "$f" | diff "$f" - | grep -c '^<')
    [ "$n" -eq 0 ] && continue
    echo "$f: $n lines"
    total=$((total + n)) files=$((files + 1))
done
echo "format-check: $total lines in $files of $# files would change ($("$CLANG_FORMAT" --version | head -1))"
[ "$total" -eq 0 ]
