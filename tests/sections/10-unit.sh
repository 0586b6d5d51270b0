# Unit tests: each binary in build/unit prints its own "name: N passed, M failed"
# (tests/unit/check.h, the checker they share).
for bin in build/unit/*; do
    [ -x "$bin" ] || continue
    if out=$("$bin" 2>&1); then
        pass
    else
        fail "unit test $bin"
        echo "$out" | tail -20
    fi
done
