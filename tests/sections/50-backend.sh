# Back ends. The emitted C (--target=c --emit-main) must print exactly what
# the interpreter prints: every example at small sizes, and random programs.
# When nvcc is present, every example's CUDA must compile for sm_90.
CC_TEST=${CC_TEST:-cc}

# c_vs_interp NAME PROGRAM ENTRY INPUT
c_vs_interp() {
    local name=$1 prog=$2 entry=$3 input=$4
    if ! "$PARMC" --target=c --emit-main -e "$entry" "$prog" -o "$TMP/c/prog.c" 2>"$TMP/c/err.txt"; then
        fail "emit C $name: $(head -3 "$TMP/c/err.txt")"
        return
    fi
    # shellcheck disable=SC2086
    if ! $CC_TEST -std=c11 -O1 -Wall -Wextra -Werror ${C_EXTRA_FLAGS:-} "$TMP/c/prog.c" -o "$TMP/c/prog" 2>"$TMP/c/err.txt"; then
        fail "compile C $name: $(head -5 "$TMP/c/err.txt")"
        return
    fi
    "$TMP/c/prog" <"$input" >"$TMP/c/c.out" 2>"$TMP/c/err.txt"
    "$PARMC" --interpret -e "$entry" "$prog" <"$input" >"$TMP/c/i.out" 2>/dev/null
    if cmp -s "$TMP/c/c.out" "$TMP/c/i.out"; then pass; else fail "C differs from the interpreter: $name"; fi
}

mkdir -p "$TMP/c"
for k in 1 3 6 10 13; do
    variant examples/sort.parm "entry main (xs : [2^$k]i32) = sort $k xs"
    cp "$TMP/variant.parm" "$TMP/c/sort.parm"
    python3 tests/tools/gen.py i32 $((1 << k)) $k >"$TMP/c/in.txt"
    c_vs_interp "sort 2^$k" "$TMP/c/sort.parm" main "$TMP/c/in.txt"
done
for k in 2 9 12; do
    variant examples/bitonic.parm "entry main (xs : [2^$k]f32) = bsort $k xs"
    cp "$TMP/variant.parm" "$TMP/c/bitonic.parm"
    python3 tests/tools/gen.py f32 $((1 << k)) $k >"$TMP/c/in.txt"
    c_vs_interp "bitonic 2^$k" "$TMP/c/bitonic.parm" main "$TMP/c/in.txt"
done
python3 tests/tools/gen.py u32,i32 4096 5 >"$TMP/c/in.txt"
c_vs_interp "kvsort" examples/kvsort.parm main "$TMP/c/in.txt"
variant examples/batched.parm "entry main (xs : [2^14]i32) = rows 4 (bsort 10) xs"
cp "$TMP/variant.parm" "$TMP/c/batched.parm"
python3 tests/tools/gen.py i32 16384 6 >"$TMP/c/in.txt"
c_vs_interp "batched 2^4 rows of 2^10" "$TMP/c/batched.parm" main "$TMP/c/in.txt"
python3 tests/tools/gen.py i32 1024 7 >"$TMP/c/in.txt"
c_vs_interp "bitrev" examples/permute.parm main "$TMP/c/in.txt"
c_vs_interp "reverse" examples/permute.parm rev "$TMP/c/in.txt"
python3 tests/tools/gen.py i32 4096 8 >"$TMP/c/in.txt"
c_vs_interp "transpose" examples/permute.parm trans "$TMP/c/in.txt"

# back-end regressions (tests/backend/NAME.parm on NAME.in), under ASan and UBSan
for prog in tests/backend/*.parm; do
    C_EXTRA_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
        c_vs_interp "regression $prog" "$prog" main "${prog%.parm}.in"
done

# random programs of what the back ends compile today (randprog.py
# --backend; the seed of 45-optimiser.sh plus one). Every fifth one, up to
# RANDPROG_ASAN of them, is built with AddressSanitizer and UBSan, which see
# a write past a buffer even when the output is right (at -O0: with -O1, gcc
# takes a minute on the C of a long chain); the others go through
# c_vs_interp. Programs at sizes up to 2^34 (--backend --big) must compile
# to C that cc accepts and to CUDA (nvcc for the first two, when present).
rand_seed=$((${RANDPROG_SEED:-$(date +%s)} + 1))
count=${BACKEND_RANDOM_COUNT:-100}
asan_count=${RANDPROG_ASAN:-20}
big_count=${RANDPROG_BIG_COUNT:-20}

rand_name() {   # rand_name K OPTIONS: how to regenerate program K
    echo "random program $1 (RANDPROG_SEED=$((rand_seed - 1)); randprog.py $2 DIR $(($1 + 1)) $rand_seed)"
}

first_error() {  # the first line of FILE that names an error, else its first 3
    grep -m1 -E 'error|ERROR' "$1" || head -3 "$1"
}

# asan_vs_interp NAME PROGRAM INPUT
asan_vs_interp() {
    local name=$1 prog=$2 input=$3 d=$TMP/c/asan
    mkdir -p "$d"
    if ! "$PARMC" --target=c --emit-main "$prog" -o "$d/prog.c" 2>"$d/err.txt"; then
        fail "emit C $name: $(first_error "$d/err.txt")"
    elif ! $CC_TEST -std=c11 -O0 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
        -fno-sanitize-recover=all "$d/prog.c" -o "$d/prog" 2>"$d/err.txt"; then
        fail "compile C with sanitizers $name: $(head -5 "$d/err.txt")"
    elif ! "$d/prog" <"$input" >"$d/c.out" 2>"$d/err.txt" ||
        grep -Eq 'runtime error|Sanitizer' "$d/err.txt"; then
        fail "C with sanitizers $name: $(first_error "$d/err.txt")"
    elif ! "$PARMC" --interpret "$prog" <"$input" | cmp -s - "$d/c.out"; then
        fail "C with sanitizers differs from the interpreter: $name"
    else
        pass
    fi
}

# big_compiles NAME PROGRAM NVCC: C (through cc -c) and CUDA (through nvcc
# when NVCC is yes)
big_compiles() {
    local name=$1 prog=$2 d=$TMP/c/big
    mkdir -p "$d"
    if ! "$PARMC" --target=c --emit-main "$prog" -o "$d/prog.c" 2>"$d/err.txt"; then
        fail "emit C $name: $(first_error "$d/err.txt")"
    elif ! $CC_TEST -std=c11 -O0 -Wall -Wextra -Werror -c "$d/prog.c" -o "$d/prog.o" 2>"$d/err.txt"; then
        fail "compile C $name: $(head -5 "$d/err.txt")"
    elif ! "$PARMC" "$prog" -o "$d/prog.cu" 2>"$d/err.txt"; then
        fail "emit CUDA $name: $(first_error "$d/err.txt")"
    elif [ "$3" = yes ] && ! nvcc -arch=sm_90 -O1 -c "$d/prog.cu" -o "$d/prog.o" 2>"$d/err.txt"; then
        fail "compile CUDA $name: $(head -5 "$d/err.txt")"
    else
        pass
    fi
}

mkdir -p "$TMP/c/rand" "$TMP/c/rand_big"
python3 tests/tools/randprog.py --backend "$TMP/c/rand" "$count" "$rand_seed"
for ((k = 0; k < count; k++)); do
    if ((k % 5 == 0 && k / 5 < asan_count)); then
        asan_vs_interp "$(rand_name "$k" --backend)" "$TMP/c/rand/prog_$k.parm" "$TMP/c/rand/in_$k.txt"
    else
        c_vs_interp "$(rand_name "$k" --backend)" "$TMP/c/rand/prog_$k.parm" main "$TMP/c/rand/in_$k.txt"
    fi
done
python3 tests/tools/randprog.py --backend --big "$TMP/c/rand_big" "$big_count" "$rand_seed"
nvcc_left=0
command -v nvcc >/dev/null && nvcc_left=2
for ((k = 0; k < big_count; k++)); do
    big_compiles "$(rand_name "$k" "--backend --big")" "$TMP/c/rand_big/prog_$k.parm" \
        "$( ((k < nvcc_left)) && echo yes)"
done

# every example's CUDA compiles (no GPU needed)
if command -v nvcc >/dev/null; then
    for ex in examples/*.parm; do
        name=$(basename "$ex" .parm)
        if "$PARMC" --emit-main "$ex" -o "$TMP/c/$name.cu" 2>"$TMP/c/err.txt" &&
            nvcc -arch=sm_90 -O1 -c "$TMP/c/$name.cu" -o "$TMP/c/$name.o" 2>"$TMP/c/err.txt"; then
            pass
        else
            fail "CUDA of $ex: $(head -5 "$TMP/c/err.txt")"
        fi
    done
fi
