# Unit tests: each binary in build/unit prints its own "name: N passed, M failed"
# (tests/unit/check.h, the checker they share); the section shows that line,
# so the verifier tests (ir_verify, plan_verify, driver_verifies) are seen to run.
for bin in build/unit/*; do
    [ -x "$bin" ] || continue
    if out=$("$bin" 2>&1); then
        pass
        echo "  $(echo "$out" | tail -1)"
    else
        fail "unit test $bin"
        echo "$out" | tail -20
    fi
done
