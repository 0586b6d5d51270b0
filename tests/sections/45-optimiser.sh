# The middle end keeps the meaning: random programs of the whole language
# (tests/tools/randprog.py) interpreted after every stage must agree bit for
# bit with the specialised program (--compare-stages), and programs at sizes
# up to 2^34 (--big), which no interpreter could run, must go through the
# whole middle end (--dump-ir=optimised). The seed changes every run unless
# RANDPROG_SEED is set; a failure prints it and how to regenerate the program.
seed=${RANDPROG_SEED:-$(date +%s)}
count=${RANDPROG_COUNT:-300}
big_count=${RANDPROG_BIG_COUNT:-20}

# rand_middle KIND DIR COUNT OPTIONS... runs COUNT programs of DIR (made by
# randprog.py OPTIONS DIR COUNT $seed) through the middle end
rand_middle() {
    local what=$1 dir=$2 n=$3 k bad=0
    shift 3
    mkdir -p "$dir"
    python3 tests/tools/randprog.py "$@" "$dir" "$n" "$seed"
    for ((k = 0; k < n; k++)); do
        if [ "$what" = interpret ]; then
            "$PARMC" --interpret --compare-stages "$dir/prog_$k.parm" <"$dir/in_$k.txt" >/dev/null 2>"$dir/err.txt"
        else
            "$PARMC" --dump-ir=optimised "$dir/prog_$k.parm" >/dev/null 2>"$dir/err.txt"
        fi || {
            bad=$((bad + 1))
            echo "random program $k (RANDPROG_SEED=$seed; randprog.py $* DIR $((k + 1)) $seed): $(head -3 "$dir/err.txt")"
        }
    done
    if [ "$bad" -eq 0 ]; then pass; else fail "$bad of $n random programs ($what $*, RANDPROG_SEED=$seed)"; fi
}
rand_middle interpret "$TMP/rand" "$count"
rand_middle optimise "$TMP/rand_big" "$big_count" --big
