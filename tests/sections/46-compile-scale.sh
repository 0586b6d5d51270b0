# Compile time and memory stay linear in the program (issue 11), and so do
# the interpreter's for invariant work (issue 24): the
# optimiser reaches its fixed point in a few walks whatever the nesting, and
# the specialisations of a ranged entry cost about the sum of their sizes.
# Each case must finish within SECONDS and, where /usr/bin/time exists, stay
# under MAX_MB of peak memory. The bounds are about twenty times what the
# sanitizer build takes on a loaded 2-core machine (under a second and
# 150 MB); before the fix, 2^34 was refused after 10,000 rounds and the
# ranged entry took 30 s and 1.4 GB.
scale_check() {     # scale_check WHAT SECONDS MAX_MB PARMC-ARGS...
    local what=$1 seconds=$2 max_mb=$3
    shift 3
    local status
    if [ -x /usr/bin/time ]; then
        timeout "$seconds" /usr/bin/time -f '%M' -o "$TMP/scale.mem" "$PARMC" "$@" >/dev/null 2>"$TMP/scale.err"
        status=$?
    else
        timeout "$seconds" "$PARMC" "$@" >/dev/null 2>"$TMP/scale.err"
        status=$?
        echo 0 >"$TMP/scale.mem"
    fi
    local kb
    kb=$(tail -1 "$TMP/scale.mem")
    if [ "$status" -eq 124 ]; then
        fail "compile scale $what: more than $seconds s"
    elif [ "$status" -ne 0 ]; then
        fail "compile scale $what: exit $status"
        head -5 "$TMP/scale.err"
    elif [ "${kb:-0}" -gt $((max_mb * 1024)) ]; then
        fail "compile scale $what: $((kb / 1024)) MB, more than $max_mb MB"
    else
        pass
    fi
}

sed 's/^entry main .*/entry main (xs : [2^34]i32) = sort 34 xs/' examples/sort.parm >"$TMP/sort34.parm"
scale_check "sort of 2^34 (C)" 20 1000 --target=c "$TMP/sort34.parm" -o "$TMP/sort34.c"
sed 's/^entry main .*/entry main (xs : [2^40]i32) = sort 40 xs/' examples/sort.parm >"$TMP/sort40.parm"
scale_check "sort of 2^40 (middle end)" 20 1000 --dump-ir "$TMP/sort40.parm"
# the range of docs/api.md's example
sed 's/^entry main .*/entry sort (n : 10..24) (xs : [2^n]i32) = sort n xs/' examples/sort.parm >"$TMP/ranged.parm"
scale_check "ranged entry 10..24 (C)" 20 1000 --target=c "$TMP/ranged.parm" -o "$TMP/ranged.c"
# The interpreter runs work that reads only values of enclosing bodies once
# per instance of theirs (ir_eval.c, stmt_batch): a reduce of the entry's
# array inside a map of 2^16 elements is one reduce, not 2^16 of them (which
# took time and memory in the square of the length: 10 GB at 2^14).
echo 'entry main (xs : [2^16]i32) = map (\x -> reduce (+) 0 xs * x) (two (map (\y -> y + reduce max 0 xs)) xs)' \
    >"$TMP/invariant.parm"
"$PARMC" --random-input=1 "$TMP/invariant.parm" >"$TMP/invariant.in"
scale_check "interpreter, reduce in a map of 2^16" 20 1000 --interpret "$TMP/invariant.parm" <"$TMP/invariant.in"
# Code size follows the work, not the array (issue 25): register steps are
# loops that nvcc unrolls (Round.loops), so the 2^30 sort is under 1.5 MB of
# CUDA (3.6 MB with every pair written out) and Batcher's odd-even merge sort
# of 2^20 with masked coli under 5 MB (20 MB).
size_check() {      # size_check WHAT MAX_BYTES PARM
    if "$PARMC" "$3" -o "$TMP/size.cu" 2>"$TMP/size.err"; then
        local bytes
        bytes=$(wc -c <"$TMP/size.cu")
        [ "$bytes" -le "$2" ] && pass || fail "code size $1: $bytes bytes of CUDA, more than $2"
    else
        fail "code size $1: $(head -3 "$TMP/size.err")"
    fi
}
sed 's/^entry main .*/entry main (xs : [2^30]i32) = sort 30 xs/' examples/sort.parm >"$TMP/sort30.parm"
size_check "sort of 2^30" 1500000 "$TMP/sort30.parm"
size_check "Batcher's odd-even merge sort of 2^20" 5000000 bench/sort/batcher.parm
