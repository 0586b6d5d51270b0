# Many programs in one binary (docs/api.md): every exported name carries the
# API prefix (--prefix NAME, else the output's name), so four programs, two
# with chosen prefixes and two with default ones, link into one C program that
# calls each; every external symbol an emitted object defines starts with its
# prefix; with nvcc, the same for CUDA objects linked into one executable.
CC_TEST=${CC_TEST:-cc}
d=$TMP/prefix
mkdir -p "$d/default" "$d/cu"
small() {   # small PROGRAM ENTRY-LINE OUT.parm: the program with its entries replaced
    grep -v '^entry ' "$1" >"$3"
    echo "$2" >>"$3"
}
small examples/sort.parm "entry main (xs : [2^8]i32) = sort 8 xs" "$d/sort.parm"
small examples/kvsort.parm "entry main (xs : [2^8](u32, i32)) = bsort_by kv 8 xs" "$d/kvsort.parm"
small examples/bitonic.parm "entry main (xs : [2^8]f32) = bsort 8 xs" "$d/bitonic.parm"

# a prefix of no lower-case letter is the upper-case one too (NM_OK, the
# status; NM_PARMC_H, the header's guard): entries of those names are
# refused at the entry, and with a prefix of lower-case letters they compile
printf 'entry OK (xs : [2^2]i32) = xs\nentry PARMC_H (xs : [2^2]i32) = xs\n' >"$d/upper.parm"
"$PARMC" --target=c "$d/upper.parm" -o "$d/NM.c" 2>"$d/err.txt"
compile_status=$?
"$PARMC" --check --prefix NM "$d/upper.parm" 2>/dev/null
check_status=$?
[ $compile_status = 1 ] && [ $check_status = 1 ] &&
    grep -q "upper.parm:1:1: error: entry 'OK' would be exported as NM_OK, a name of the API's own" "$d/err.txt" &&
    pass || fail "prefix NM: an entry OK is not refused: $(head -2 "$d/err.txt")"
printf 'entry PARMC_H (xs : [2^2]i32) = xs\n' >"$d/guard.parm"
"$PARMC" --target=c --prefix NM "$d/guard.parm" -o "$d/guard.c" 2>"$d/err.txt"
[ $? = 1 ] && grep -q "as NM_PARMC_H, a name of the API's own" "$d/err.txt" && pass ||
    fail "prefix NM: an entry PARMC_H is not refused: $(head -2 "$d/err.txt")"
if "$PARMC" --target=c "$d/upper.parm" -o "$d/nm.c" 2>"$d/err.txt" &&
    $CC_TEST -std=c11 -Wall -Werror -c "$d/nm.c" -o "$d/nm.o" 2>"$d/err.txt"; then
    pass
else
    fail "prefix nm: entries OK and PARMC_H do not compile: $(head -3 "$d/err.txt")"
fi

# defined_outside_prefix OBJECT PREFIX: the external symbols OBJECT defines
# without the prefix (weak and vague-linkage ones, such as the inline
# functions of CUDA's headers, are not the program's)
defined_outside_prefix() {
    nm -g --defined-only "$1" | awk -v p="$2_" '$2 !~ /^[WVwuv]$/ && index($3, p) != 1 { print $3 }'
}

# the default prefix: the output's name without its extension, as a C identifier
for case in "sort.c:sort" "kv-sort.c:kv_sort" "2.bit.c:p_2_bit" ".c:p" "parm-x.c:p_parm_x" "Parm.c:p_Parm" \
    "_.c:p" "_x.c:p_x" "kv--sort.c:kv_sort" "ä.c:p"; do
    out=${case%%:*} want=${case#*:}
    if "$PARMC" --target=c "$d/sort.parm" -o "$d/default/$out" 2>"$d/err.txt"; then
        header=$d/default/${out%.c}.h
        grep -q "^int ${want}_main(${want}_ctx \*ctx," "$header" && grep -q "^#ifndef $(echo "$want" | tr a-z A-Z)_PARMC_H" "$header" &&
            pass || fail "prefix: -o $out does not give the prefix $want: $(grep '^int' "$header")"
    else
        fail "prefix: -o $out: $(head -3 "$d/err.txt")"
    fi
done

# four programs in one C binary
cat >"$d/four.c" <<'CEOF'
#include <stdio.h>
#include <string.h>
#include "sort.h"
#include "kv-sort.h"
#include "permute.h"
#include "bit.h"
int main(void) {
    int32_t keys[256], sorted[256], values[256], vout[256], bits[1024], rev[1024];
    uint32_t kin[256], kout[256];
    float f[256], fout[256];
    for (int i = 0; i < 256; i++) { keys[i] = (i * 37) % 256; kin[i] = 255u - i; values[i] = i; f[i] = (float)((i * 11) % 256); }
    for (int i = 0; i < 1024; i++) bits[i] = i;
    sort_ctx *s; kv_sort_ctx *k; perm_ctx *p; bit_ctx *b;
    int fails = 0;
    fails += sort_ctx_create(&s) != SORT_OK;
    fails += kv_sort_ctx_create(&k) != KV_SORT_OK;
    fails += perm_ctx_create(&p) != PERM_OK;
    fails += bit_ctx_create(&b) != BIT_OK;
    if (fails) return 1;
    fails += sort_main(s, keys, sorted, 256) != SORT_OK;
    fails += kv_sort_main(k, kin, values, kout, vout, 256) != KV_SORT_OK;
    fails += perm_rev(p, bits, rev, 1024) != PERM_OK;
    fails += bit_main(b, f, fout, 256) != BIT_OK;
    fails += perm_main(p, bits, rev, 512) != PERM_ERROR_LENGTH;
    for (int i = 0; i < 256; i++)
        fails += sorted[i] != i || kout[i] != (uint32_t)i || vout[i] != 255 - i || fout[i] != (float)i;
    for (int i = 0; i < 1024; i++) fails += rev[i] != 1023 - i;
    fails += strcmp(perm_error_string(PERM_ERROR_LENGTH), sort_error_string(SORT_ERROR_LENGTH)) != 0;
    sort_ctx_destroy(s); kv_sort_ctx_destroy(k); perm_ctx_destroy(p); bit_ctx_destroy(b);
    printf("%d failures\n", fails);
    return fails != 0;
}
CEOF
ok=1
for build in "sort.parm sort.c" "kvsort.parm kv-sort.c" "bitonic.parm bit.c --prefix=bit"; do
    # shellcheck disable=SC2086
    set -- $build
    "$PARMC" --target=c "$d/$1" -o "$d/$2" ${3:-} 2>"$d/err.txt" || { ok=0; fail "prefix: compiling $1: $(head -3 "$d/err.txt")"; }
done
"$PARMC" --target=c --prefix perm examples/permute.parm -o "$d/permute.c" 2>"$d/err.txt" || { ok=0; fail "prefix: permute: $(head -3 "$d/err.txt")"; }
if [ $ok = 1 ]; then
    for obj in sort:sort kv-sort:kv_sort bit:bit permute:perm; do
        name=${obj%%:*} prefix=${obj#*:}
        if $CC_TEST -std=c11 -O1 -Wall -Wextra -Werror -c "$d/$name.c" -o "$d/$name.o" 2>"$d/err.txt"; then
            outside=$(defined_outside_prefix "$d/$name.o" "$prefix")
            [ -z "$outside" ] && pass || fail "prefix: $name.o defines symbols without '${prefix}_': $outside"
        else
            fail "prefix: cc -c $name.c: $(head -3 "$d/err.txt")"
        fi
    done
    if $CC_TEST -std=c11 -O1 -Wall -Wextra -Werror -I"$d" "$d/four.c" "$d/sort.o" "$d/kv-sort.o" "$d/bit.o" \
        "$d/permute.o" -o "$d/four" 2>"$d/err.txt" && "$d/four" >"$d/four.out" 2>&1; then
        pass
    else
        fail "prefix: four programs in one binary: $(head -3 "$d/err.txt" "$d/four.out" 2>/dev/null)"
    fi
fi

# --prefix must be a C identifier, not one of the emitted code's own names
# nor one that C or C++ reserves (a leading '_', a '__'), and only a compile
# takes it
for bad in 9lives my-sort "" "a b" parm Parm PARM_x parm_ _x _X __x a__b _; do
    "$PARMC" --target=c --prefix "$bad" "$d/sort.parm" -o "$d/bad.c" >/dev/null 2>"$d/err.txt"
    [ $? -eq 2 ] && grep -q "is not a C identifier\|is reserved" "$d/err.txt" && pass || fail "prefix: '$bad' accepted"
done
for good in parmx x_ x9 parmesan_; do
    "$PARMC" --target=c --prefix "$good" "$d/sort.parm" -o "$d/good.c" >/dev/null 2>"$d/err.txt" && pass ||
        fail "prefix: '$good' refused: $(head -2 "$d/err.txt")"
done
# --check checks entry names against the API of the prefix a compile would take
printf 'entry main (xs : [2^4]i32) = xs\nentry ctx_stream (xs : [2^4]i32) = xs\n' >"$d/taken.parm"
"$PARMC" --check --prefix x "$d/taken.parm" >/dev/null 2>"$d/err.txt"
[ $? -eq 1 ] && grep -q "exported as x_ctx_stream" "$d/err.txt" && pass || fail "prefix: --check --prefix x: $(head -1 "$d/err.txt")"

# CUDA: two programs' objects in one executable, which calls both (linked,
# not run: a GPU is not needed), and the objects' symbols
if command -v nvcc >/dev/null; then
    cat >"$d/two.c" <<'CEOF'
#include "sort.h"
#include "bit.h"
int main(void) {
    sort_ctx *s;
    bit_ctx *b;
    if (sort_ctx_create(&s) != SORT_OK || bit_ctx_create(&b) != BIT_OK) return 1;
    int status = sort_main(s, 0, 0, 256) != SORT_ERROR_NULL || bit_main(b, 0, 0, 256) != BIT_ERROR_NULL;
    sort_ctx_destroy(s);
    bit_ctx_destroy(b);
    return status;
}
CEOF
    if "$PARMC" "$d/sort.parm" -o "$d/cu/sort.cu" 2>"$d/err.txt" &&
        "$PARMC" --prefix bit "$d/bitonic.parm" -o "$d/cu/bitonic.cu" 2>"$d/err.txt" &&
        nvcc -arch=sm_90 -O1 -c "$d/cu/sort.cu" -o "$d/cu/sort.o" 2>"$d/err.txt" &&
        nvcc -arch=sm_90 -O1 -c "$d/cu/bitonic.cu" -o "$d/cu/bitonic.o" 2>"$d/err.txt" &&
        nvcc -arch=sm_90 -I"$d/cu" "$d/two.c" "$d/cu/sort.o" "$d/cu/bitonic.o" -o "$d/cu/two" 2>"$d/err.txt"; then
        pass
        for obj in sort:sort bitonic:bit; do
            outside=$(defined_outside_prefix "$d/cu/${obj%%:*}.o" "${obj#*:}")
            [ -z "$outside" ] && pass || fail "prefix: CUDA ${obj%%:*}.o defines symbols without '${obj#*:}_': $outside"
        done
    else
        fail "prefix: two CUDA programs in one executable: $(head -5 "$d/err.txt")"
    fi
fi

# the emitted code's own names never meet exported ones (prefix main with an
# entry run: main_run is the API's, the code of entry main is parm_main_run),
# and stay whole however long an entry's name is
long=$(printf 'e%.0s' $(seq 1 200))
printf 'entry main (xs : [2^6]i32) = map (\\x -> x + 1) xs\nentry run (xs : [2^6]i32) = map (\\x -> x * 2) xs\n' >"$d/names.parm"
printf 'entry %s (xs : [2^12]i32) = map (\\x -> x + 1) xs\n' "$long" >>"$d/names.parm"
if "$PARMC" --target=c --prefix main "$d/names.parm" -o "$d/names.c" 2>"$d/err.txt" &&
    $CC_TEST -std=c11 -O1 -Wall -Wextra -Werror -c "$d/names.c" -o "$d/names.o" 2>"$d/err.txt" &&
    nm -g --defined-only "$d/names.o" | grep -q " T main_$long\$"; then
    pass
else
    fail "prefix: entry names that meet the emitted code's: $(head -3 "$d/err.txt")"
fi
