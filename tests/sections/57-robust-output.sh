# Generated code and its standalone main: deterministic output files, bad
# input rejected with a message and a non-zero exit, and the API's argument
# checks (C target, run under ASan so an out-of-bounds write would report).
mkdir -p "$TMP/rob"

# determinism: the same input gives byte-identical output files
mkdir -p "$TMP/rob/a" "$TMP/rob/b"
for ex in examples/*.parm; do
    same=1
    for target in "" "--target=c"; do
        for run in a b; do "$PARMC" $target "$ex" -o "$TMP/rob/$run/out.c" 2>/dev/null; done
        cmp -s "$TMP/rob/a/out.c" "$TMP/rob/b/out.c" && cmp -s "$TMP/rob/a/out.h" "$TMP/rob/b/out.h" &&
            cmp -s "$TMP/rob/a/out.json" "$TMP/rob/b/out.json" || same=0
    done
    "$PARMC" --dump-ir "$ex" >"$TMP/rob/a.ir" 2>&1
    "$PARMC" --dump-ir "$ex" >"$TMP/rob/b.ir" 2>&1
    cmp -s "$TMP/rob/a.ir" "$TMP/rob/b.ir" || same=0
    if [ $same = 1 ]; then pass; else fail "output of $ex differs between two identical runs"; fi
done

# the standalone main of the C target on bad input
variant examples/sort.parm "entry main (xs : [2^4]i32) = sort 4 xs"
"$PARMC" --target=c --emit-main "$TMP/variant.parm" -o "$TMP/rob/m.c"
cc -std=c11 -O1 -fsanitize=address,undefined "$TMP/rob/m.c" -o "$TMP/rob/m"
expect_bad_input() {    # expect_bad_input WHAT INPUT MESSAGE-PATTERN
    printf '%s' "$2" | "$TMP/rob/m" >/dev/null 2>"$TMP/rob/err.txt"
    local status=$?
    if [ $status -eq 1 ] && grep -q "$3" "$TMP/rob/err.txt"; then pass; else fail "emitted main, $1: exit $status, $(head -2 "$TMP/rob/err.txt")"; fi
}
# (the messages themselves are tests/sections/31-input.sh's: the interpreter's, word for word)
expect_bad_input "short input" "1 2 3" "needs 16 values, but the input has 3"
expect_bad_input "long input" "$(seq 1 17 | tr '\n' ' ')" "needs 16 values, but the input has 17"
expect_bad_input "wrong length" "$(seq 1 8 | tr '\n' ' ')" "needs 16 values, but the input has 8"
expect_bad_input "unparsable value" "$(seq 1 15 | tr '\n' ' ') x7" "'x7' is not a valid i32 value"
expect_bad_input "out of range" "$(seq 1 15 | tr '\n' ' ') 4294967296" "is not a valid i32"
expect_bad_input "empty input" "" "the input has 0"

# the API: null pointers, a wrong length, and exact writes (ASan)
"$PARMC" --target=c "$TMP/variant.parm" -o "$TMP/rob/api.c"
cat >"$TMP/rob/api_test.c" <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
#include "api.h"
int main(void) {
    int32_t in[16], *out = malloc(16 * sizeof *out);   /* exactly n elements: ASan sees any overrun */
    for (int i = 0; i < 16; i++) in[i] = 16 - i;
    api_ctx *ctx;
    int fails = 0;
    if (api_ctx_create(&ctx) != API_OK) return 1;
    fails += api_main(NULL, in, out, 16) != API_ERROR_NULL;
    fails += api_main(ctx, NULL, out, 16) != API_ERROR_NULL;
    fails += api_main(ctx, in, NULL, 16) != API_ERROR_NULL;
    fails += api_main(ctx, in, out, 8) != API_ERROR_LENGTH;
    fails += api_main(ctx, in, out, 17) != API_ERROR_LENGTH;
    fails += api_main(ctx, in, out, 16) != API_OK;
    for (int i = 0; i < 16; i++) fails += out[i] != i + 1;
    fails += api_ctx_create(NULL) != API_ERROR_NULL;
    printf("%s\n", api_error_string(API_ERROR_LENGTH));
    api_ctx_destroy(ctx);
    api_ctx_destroy(NULL);
    free(out);
    return fails != 0;
}
CEOF
if cc -std=c11 -O1 -fsanitize=address,undefined -I"$TMP/rob" "$TMP/rob/api_test.c" "$TMP/rob/api.c" -o "$TMP/rob/api_test" 2>"$TMP/rob/err.txt" &&
    "$TMP/rob/api_test" >"$TMP/rob/api.out" 2>&1 && grep -q "not compiled for" "$TMP/rob/api.out"; then
    pass
else
    fail "API argument checks: $(head -3 "$TMP/rob/err.txt" "$TMP/rob/api.out")"
fi

# scratch memory that cannot be allocated: API_ERROR_MEMORY, and the context
# still works afterwards (malloc fails on request through the linker's --wrap)
cat >"$TMP/rob/nomem_test.c" <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
#include "api.h"
void *__real_malloc(size_t size);
static int fail_malloc;
void *__wrap_malloc(size_t size) { return fail_malloc ? NULL : __real_malloc(size); }
int main(void) {
    int32_t in[16], out[16];
    for (int i = 0; i < 16; i++) in[i] = 16 - i;
    api_ctx *ctx;
    if (api_ctx_create(&ctx) != API_OK) return 1;
    fail_malloc = 1;
    int fails = api_main(ctx, in, out, 16) != API_ERROR_MEMORY;
    fail_malloc = 0;
    fails += api_main(ctx, in, out, 16) != API_OK;
    for (int i = 0; i < 16; i++) fails += out[i] != i + 1;
    api_ctx_destroy(ctx);
    return fails != 0;
}
CEOF
if cc -std=c11 -O1 -I"$TMP/rob" "$TMP/rob/nomem_test.c" "$TMP/rob/api.c" -Wl,--wrap=malloc -o "$TMP/rob/nomem_test" 2>"$TMP/rob/err.txt" &&
    "$TMP/rob/nomem_test" >"$TMP/rob/nomem.out" 2>&1; then
    pass
else
    fail "API without scratch memory: $(head -3 "$TMP/rob/err.txt" "$TMP/rob/nomem.out")"
fi

# an allocation that fails names its bytes and what they were for (issue 41):
# a result of 2^40 i32 (4 TiB) under a limit of 8 GB of address space, in the
# C target's standalone main and in the interpreter (which holds a scalar in
# 8 bytes, yet names the array's own bytes, as the compiled programs do)
printf 'entry main (xs : [2^4]i32) = replicate 40 (xs ! 0)\n' >"$TMP/rob/big.parm"
"$PARMC" --target=c --emit-main "$TMP/rob/big.parm" -o "$TMP/rob/big.c" 2>/dev/null
cc -std=c11 -O1 "$TMP/rob/big.c" -o "$TMP/rob/big" -lm
(ulimit -v 8000000; seq 16 | "$TMP/rob/big" >/dev/null 2>"$TMP/rob/err.txt")
status=$?
if [ $status -eq 1 ] &&
    [ "$(cat "$TMP/rob/err.txt")" = "error: could not allocate 4398046511104 bytes for the result of entry 'main' (out0)" ]; then
    pass
else
    fail "emitted main of a result it cannot allocate: exit $status, $(head -2 "$TMP/rob/err.txt")"
fi
# a sanitizer build cannot start under the limit: there its allocator
# returns NULL for what the system refuses (after a warning of its own), and
# the evaluation's arrays are left to the fatal error's exit
limit="ulimit -v 8000000"
# (the probe's abort is the shell's to report: its message goes nowhere)
{ (ulimit -v 8000000; "$PARMC" --version) >/dev/null 2>&1; } 2>/dev/null || limit=:
(eval "$limit"; seq 16 | ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1:detect_leaks=0 \
    "$PARMC" --interpret "$TMP/rob/big.parm" >/dev/null 2>"$TMP/rob/err.txt")
status=$?
if [ $status -eq 1 ] && [ "$(grep -v AddressSanitizer "$TMP/rob/err.txt")" = \
    "parmc: error: out of memory while interpreting: could not allocate 4398046511104 bytes for an array of 1099511627776 i32" ]; then
    pass
else
    fail "interpreter on an array it cannot allocate: exit $status, $(head -2 "$TMP/rob/err.txt")"
fi

# scratch memory that the standalone main cannot allocate (malloc of the
# plan's 0x100 bytes fails through the linker's --wrap): its bytes and entry
cat >"$TMP/rob/nomem_main.c" <<'CEOF'
#include <stddef.h>
void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size) { return size == 0x100 ? NULL : __real_malloc(size); }
CEOF
if "$PARMC" --target=c --emit-main "$TMP/variant.parm" -o "$TMP/rob/scratch.c" &&
    grep -q 'parm_scratch(ctx, copies ? 0x200u : 0x100u, ' "$TMP/rob/scratch.c" &&
    cc -std=c11 -O1 "$TMP/rob/scratch.c" "$TMP/rob/nomem_main.c" -Wl,--wrap=malloc -o "$TMP/rob/scratch" -lm 2>"$TMP/rob/err.txt"; then
    seq 16 | "$TMP/rob/scratch" >/dev/null 2>"$TMP/rob/err.txt"
    status=$?
    if [ $status -eq 1 ] &&
        [ "$(cat "$TMP/rob/err.txt")" = "error: could not allocate 256 bytes for the scratch memory of entry 'main'" ]; then
        pass
    else
        fail "emitted main without scratch memory: exit $status, $(head -2 "$TMP/rob/err.txt")"
    fi
else
    fail "emitted main with a failing malloc: $(head -3 "$TMP/rob/err.txt")"
fi

# a result that stdout cannot take (here a closed stdout) is an error, with
# a message and exit status 1, for parmc and for a standalone main alike, so
# that a script does not take a cut result for a whole one; -r takes 1 to
# 100000 runs
printf 'entry main (xs : [2^2]i32) = xs\n' >"$TMP/rob/out.parm"
echo 1 2 3 4 | "$PARMC" --interpret "$TMP/rob/out.parm" >&- 2>"$TMP/rob/err.txt"
[ $? = 1 ] && grep -q "^parmc: error: cannot write standard output" "$TMP/rob/err.txt" && pass ||
    fail "parmc --interpret into a closed stdout: $(head -1 "$TMP/rob/err.txt")"
"$PARMC" --random-input=1 "$TMP/rob/out.parm" >&- 2>/dev/null
[ $? = 1 ] && pass || fail "parmc --random-input into a closed stdout exits 0"
if "$PARMC" --target=c --emit-main "$TMP/rob/out.parm" -o "$TMP/rob/out.c" &&
    ${CC_TEST:-cc} -std=c11 -O1 "$TMP/rob/out.c" -o "$TMP/rob/out" -lm; then
    echo 1 2 3 4 | "$TMP/rob/out" >&- 2>"$TMP/rob/err.txt"
    [ $? = 1 ] && grep -q "^error: cannot write the output" "$TMP/rob/err.txt" && pass ||
        fail "a standalone main into a closed stdout: $(head -1 "$TMP/rob/err.txt")"
    for runs in x -1 0 3x 100001 99999999999999999999; do
        echo 1 2 3 4 | "$TMP/rob/out" -r "$runs" >/dev/null 2>"$TMP/rob/err.txt"
        [ $? = 2 ] && grep -q "usage: .*1 to 100000" "$TMP/rob/err.txt" && pass || fail "a standalone main takes -r $runs"
    done
    echo 1 2 3 4 | "$TMP/rob/out" -r 3 >/dev/null 2>"$TMP/rob/err.txt" && grep -q "over 3 runs" "$TMP/rob/err.txt" &&
        pass || fail "a standalone main with -r 3: $(head -1 "$TMP/rob/err.txt")"
else
    fail "the standalone main of $TMP/rob/out.parm does not build"
fi
