# The front end scales linearly (issue 11): generated sources that a
# quadratic step or a byte-by-byte diagnostic would take minutes on must be
# handled within a time bound, with a short diagnostic where they fail.
scale_run() {   # scale_run SECONDS WANT_STATUS DESCRIPTION SRC
    local limit=$1 want=$2 what=$3 src=$4 start status
    start=$(date +%s)
    timeout 120 "$PARMC" --check "$src" >/dev/null 2>"$TMP/scale.err"
    status=$?
    local took=$(( $(date +%s) - start ))
    if [ "$status" -ne "$want" ]; then
        fail "scale $what: exit $status, expected $want"
        head -c 600 "$TMP/scale.err"
    elif [ "$took" -gt "$limit" ]; then
        fail "scale $what: took ${took}s, the bound is ${limit}s"
    elif [ "$(wc -c <"$TMP/scale.err")" -gt 2000 ]; then
        fail "scale $what: the diagnostic is $(wc -c <"$TMP/scale.err") bytes"
    else
        pass
    fi
}
# 400,000 one-line equations: the function table is a hash table.
awk 'BEGIN { for (i = 0; i < 400000; i++) printf "g%d x = x + %d\n", i, i
             print "entry main (xs : [2^4]u32) = map g399999 xs" }' >"$TMP/scale_eqs.parm"
scale_run 30 0 "400,000 equations" "$TMP/scale_eqs.parm"
# 100,000 entries: duplicate entries are found through a hash table too.
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "entry e%d (xs : [2^1]u32) = xs\n", i }' >"$TMP/scale_entries.parm"
scale_run 30 0 "100,000 entries" "$TMP/scale_entries.parm"
# A 16 MB one-line expression fails at its 1001st level, not after parsing it all.
awk 'BEGIN { printf "entry main (xs : [2^4]u32) = map (\\x -> x"
             for (i = 0; i < 4000000; i++) printf " + 1"
             print ") xs" }' >"$TMP/scale_deep.parm"
scale_run 10 1 "16 MB one-line expression" "$TMP/scale_deep.parm"
grep -q 'expression nesting too deep' "$TMP/scale.err" && pass ||
    fail "scale 16 MB one-line expression: no 'expression nesting too deep'"
# A 16 MB line with an error at its end: the diagnostic shows a window.
awk 'BEGIN { printf "entry main (xs : [2^4]u32) = xs"
             for (i = 0; i < 4000000; i++) printf "    "
             print "@" }' >"$TMP/scale_line.parm"
scale_run 10 1 "error at the end of a 16 MB line" "$TMP/scale_line.parm"
# A let of a list pattern of 2^16 names, read back in reverse: names bound
# twice are found through a hash table, and a level of the specialiser's
# environment that binds many names has one, so neither scans the names
# bound before (quadratic: minutes).
awk 'BEGIN { n = 65536; printf "entry main (xs : [2^16]i32) = let ["
             for (i = 0; i < n; i++) printf "%sa%d", i ? ", " : "", i
             printf "] = xs in ["
             for (i = n - 1; i >= 0; i--) printf "a%d%s", i, i ? ", " : ""
             print "]" }' >"$TMP/scale_pattern.parm"
scale_run 5 0 "a list pattern of 2^16 names" "$TMP/scale_pattern.parm"
# A map to a tuple of 2^15 fields, and a map over those elements: a body's
# parameters and results are added in one allocation each (one by one, the
# list copied each time, they took over 2 GiB from about 2^14 fields).
awk 'BEGIN { printf "entry main (xs : [2^2]i32) = map (\\t -> t) (map (\\x -> ("
             for (i = 0; i < 32768; i++) printf "%sx", i ? ", " : ""
             print ")) xs)" }' >"$TMP/scale_fields.parm"
scale_run 10 1 "elements of 2^15 fields" "$TMP/scale_fields.parm"
grep -q "the back end supports elements of at most 16 fields; 'main' has elements of 32768" \
    "$TMP/scale.err" && pass || fail "scale elements of 2^15 fields: $(head -c 300 "$TMP/scale.err")"
