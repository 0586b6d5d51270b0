# The access simulator (--report): every kernel of every example and of
# random programs reads and writes whole segments (minimum sectors per warp
# access) with conflict-free shared memory (bank congestion 1). parmc exits 1
# when any access is worse, and the last line of each entry says so.
report_ok() {   # report_ok NAME PROGRAM
    if "$PARMC" --report "$2" >"$TMP/report.txt" 2>&1 && ! grep -q ": no$" "$TMP/report.txt" &&
        grep -q "congestion 1: yes$" "$TMP/report.txt"; then
        pass
    else
        fail "report $1: $(grep -v '^  \|^kernel' "$TMP/report.txt" | head -3)"
    fi
}
for ex in examples/*.parm; do report_ok "$ex" "$ex"; done
for k in 10 16 24 30; do
    variant examples/sort.parm "entry main (xs : [2^$k]i32) = sort $k xs"
    report_ok "sort 2^$k" "$TMP/variant.parm"
done
variant examples/kvsort.parm "entry main (xs : [2^20](u32, i32)) = bsort_by kv 20 xs"
report_ok "kvsort 2^20" "$TMP/variant.parm"
mkdir -p "$TMP/report"
python3 tests/tools/randprog.py --backend "$TMP/report" 100 "${RANDPROG_SEED:-$(date +%s)}"
for ((k = 0; k < 100; k++)); do report_ok "random program $k" "$TMP/report/prog_$k.parm"; done
