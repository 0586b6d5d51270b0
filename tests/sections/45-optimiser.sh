# The middle end keeps the meaning: random programs (tests/tools/randprog.py)
# interpreted after every stage must agree bit for bit with the specialised
# program (--compare-stages). The seed changes every run unless RANDPROG_SEED
# is set; a failure prints it so the program can be regenerated.
seed=${RANDPROG_SEED:-$(date +%s)}
count=${RANDPROG_COUNT:-300}
mkdir -p "$TMP/rand"
python3 tests/tools/randprog.py "$TMP/rand" "$count" "$seed"
rand_failed=0
for ((k = 0; k < count; k++)); do
    if ! "$PARMC" --interpret --compare-stages "$TMP/rand/prog_$k.parm" <"$TMP/rand/in_$k.txt" \
        >/dev/null 2>"$TMP/rand/err.txt"; then
        rand_failed=$((rand_failed + 1))
        echo "random program $k of seed $seed: $(head -3 "$TMP/rand/err.txt")"
    fi
done
if [ "$rand_failed" -eq 0 ]; then pass; else fail "$rand_failed of $count random programs (RANDPROG_SEED=$seed)"; fi
