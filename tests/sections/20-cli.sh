# The command line: help, version, usage errors (exit 2).
expect_status() {   # expect_status CODE DESCRIPTION COMMAND...
    local want=$1 what=$2
    shift 2
    "$@" >"$TMP/cli.out" 2>"$TMP/cli.err"
    local got=$?
    if [ "$got" -eq "$want" ]; then pass; else fail "cli: $what: exit $got, expected $want"; fi
}
expect_status 0 "--help" "$PARMC" --help
grep -q '^usage: parmc' "$TMP/cli.out" && pass || fail "cli: --help prints usage on stdout"
expect_status 0 "--version" "$PARMC" --version
expect_status 2 "no input file" "$PARMC"
expect_status 2 "unknown option" "$PARMC" --frobnicate examples/sort.parm
grep -q "did you mean" "$TMP/cli.err" && fail "cli: no suggestion for an option unlike any" || pass
expect_status 2 "mistyped option" "$PARMC" --tile-byte=32K examples/sort.parm
grep -qF "unknown option '--tile-byte=32K'; did you mean '--tile-bytes'?" "$TMP/cli.err" && pass ||
    fail "cli: a mistyped option suggests the option: $(head -1 "$TMP/cli.err")"
expect_status 2 "missing option value" "$PARMC" examples/sort.parm -e
expect_status 2 "unknown IR stage" "$PARMC" --dump-ir=nonsense examples/sort.parm
grep -qF "unknown IR stage 'nonsense' (specialised, normalised, rewritten or optimised)" "$TMP/cli.err" && pass ||
    fail "cli: an unknown IR stage lists the stages: $(head -1 "$TMP/cli.err")"
expect_status 2 "mistyped IR stage" "$PARMC" --dump-ir=rewriten examples/sort.parm
grep -qF "unknown IR stage 'rewriten'; did you mean 'rewritten'?" "$TMP/cli.err" && pass ||
    fail "cli: a mistyped IR stage suggests the stage: $(head -1 "$TMP/cli.err")"
# --dump-after PASS (tests/passes has its goldens): a pass of the table, or
# the pass that makes the stage named instead
expect_status 2 "mistyped pass" "$PARMC" --dump-after=rewrit examples/sort.parm
grep -qF "unknown pass 'rewrit'; did you mean 'rewrite'?" "$TMP/cli.err" && pass ||
    fail "cli: a mistyped pass suggests the pass: $(head -1 "$TMP/cli.err")"
expect_status 2 "unknown pass" "$PARMC" --dump-after nonsense examples/sort.parm
grep -qF "unknown pass 'nonsense' (specialise, normalise, rewrite, tabulate, schedule or place-tables)" "$TMP/cli.err" &&
    grep -qF "(run 'parmc --passes' for the passes and their stages)" "$TMP/cli.err" && pass ||
    fail "cli: an unknown pass lists the passes: $(head -2 "$TMP/cli.err")"
expect_status 2 "a stage for a pass" "$PARMC" --dump-after optimised examples/sort.parm
grep -qF "'optimised' is the stage that pass 'tabulate' hands on" "$TMP/cli.err" && pass ||
    fail "cli: a stage given to --dump-after names its pass: $(head -1 "$TMP/cli.err")"
expect_status 2 "--dump-after and --dump-plan" "$PARMC" --dump-after schedule --dump-plan examples/sort.parm
expect_status 2 "--dump-after an IR pass with --gpus" "$PARMC" --dump-after rewrite --gpus 2 examples/sort.parm
expect_status 0 "--dump-after a planning pass with --gpus" "$PARMC" --dump-after schedule --gpus 2 examples/sort.parm
grep -q '^phase [0-9]*: exchange' "$TMP/cli.out" && pass || fail "cli: --dump-after schedule --gpus 2 prints the plan's exchanges"
expect_status 0 "--passes" "$PARMC" --passes
expect_status 2 "two input files" "$PARMC" examples/sort.parm examples/bitonic.parm
expect_status 1 "missing file" "$PARMC" --check tests/no-such-file.parm
expect_status 1 "unknown entry" "$PARMC" --check -e nosuch examples/sort.parm
grep -q "no entry point named 'nosuch'" "$TMP/cli.err" && grep -q "note: entry 'main' is defined here" "$TMP/cli.err" && pass ||
    fail "cli: an unknown entry lists the entries"
for action in --interpret --dump-ir --report --random-input "--emit-main --target=c -o $TMP/cli.c"; do
    # shellcheck disable=SC2086
    expect_status 1 "unknown entry with $action" "$PARMC" $action -e nosuch examples/permute.parm
    [ "$(grep -c "note: entry '\(main\|rev\|trans\)' is defined here" "$TMP/cli.err")" = 3 ] && pass ||
        fail "cli: $action -e nosuch lists the entries"
done

# Every option with a value: --opt=V, --opt V, -xV and -x V.
for form in "--entry=rev" "--entry rev" "-erev" "-e rev"; do
    # shellcheck disable=SC2086
    expect_status 0 "$form" "$PARMC" --check $form examples/permute.parm
done
printf "entry t (xs : [2^3]i32) = xs\n" >"$TMP/cli8.parm"
for form in "--stage=normalised" "--stage normalised"; do
    # shellcheck disable=SC2086
    echo 1 2 3 4 5 6 7 8 | expect_status 0 "$form" "$PARMC" --interpret $form -e t "$TMP/cli8.parm"
done
for form in "--dump-ir=normalised" "--dump-ir normalised"; do
    # shellcheck disable=SC2086
    expect_status 0 "$form" "$PARMC" $form examples/permute.parm
    grep -q '^entry main' "$TMP/cli.out" && pass || fail "cli: $form prints the IR"
done
for form in "--target=c" "--target c"; do
    # shellcheck disable=SC2086
    expect_status 0 "$form" "$PARMC" $form examples/permute.parm -o "$TMP/cli_t.c"
done
for form in "-o$TMP/o1.c" "-o $TMP/o2.c" "--output=$TMP/o3.c" "--output $TMP/o4.c"; do
    # shellcheck disable=SC2086
    expect_status 0 "$form" "$PARMC" --target=c examples/permute.parm $form
done
[ -f "$TMP/o1.c" ] && [ -f "$TMP/o2.c" ] && [ -f "$TMP/o3.c" ] && [ -f "$TMP/o4.c" ] && pass ||
    fail "cli: every spelling of -o writes its file"
for form in "-Iexamples" "-I examples" "--include=examples" "--include examples"; do
    printf 'import "permute"\nentry main (xs : [2^3]i32) = bitrev 3 xs\n' >"$TMP/imp.parm"
    # shellcheck disable=SC2086
    expect_status 0 "$form" "$PARMC" --check $form "$TMP/imp.parm"
done
expect_status 2 "a value for a flag" "$PARMC" --check=yes examples/sort.parm
expect_status 2 "unknown target" "$PARMC" --target=ptx examples/sort.parm
expect_status 2 "--register-bytes other than 128 or 256" "$PARMC" --check --register-bytes 64 examples/sort.parm
grep -q "register-bytes takes 128 or 256, not '64'" "$TMP/cli.err" && pass || fail "cli: --register-bytes 64 says what it takes"
expect_status 2 "--register-bytes with --interpret" "$PARMC" --interpret --register-bytes 256 examples/sort.parm
expect_status 2 "--cluster-blocks other than 1, 2, 4 or 8" "$PARMC" --check --cluster-blocks 3 examples/sort.parm
grep -q "cluster-blocks takes 1, 2, 4 or 8, not '3'" "$TMP/cli.err" && pass || fail "cli: --cluster-blocks 3 says what it takes"
expect_status 2 "--cluster-blocks with --interpret" "$PARMC" --interpret --cluster-blocks 4 examples/sort.parm
# a program of one pass keeps its blocks' tiles, and says why
expect_status 0 "--cluster-blocks 4" "$PARMC" --report --cluster-blocks 4 examples/batched.parm
grep -q "clusters refused, no fewer passes" "$TMP/cli.out" && pass || fail "cli: --cluster-blocks on one pass says it refused"
expect_status 0 "--register-bytes 256" "$PARMC" --report --register-bytes 256 examples/batched.parm
grep -q "2^6 threads" "$TMP/cli.out" && pass || fail "cli: --register-bytes 256 halves the threads of a rows kernel"

# Conflicting actions are a usage error naming both; unused options too.
expect_status 2 "two actions" "$PARMC" --check --interpret examples/sort.parm
grep -q "'--check' and '--interpret' cannot be combined" "$TMP/cli.err" && pass || fail "cli: two actions named"
expect_status 2 "--report and --dump-ir" "$PARMC" --report --dump-ir examples/sort.parm
for bad in "-o x.cu --interpret" "-o x.cu --check" "--stage normalised --check" "--compare-stages" \
           "--emit-main --report" "--target=c --dump-ir" "--strict --check" "--trace-rules --emit-main --check"; do
    # shellcheck disable=SC2086
    expect_status 2 "unused option: $bad" "$PARMC" $bad examples/sort.parm
    grep -q "has no effect" "$TMP/cli.err" && pass || fail "cli: '$bad' says the option has no effect"
done

# A compile with -e compiles that entry alone: its header and manifest hold it only.
expect_status 0 "compile -e" "$PARMC" --target=c -e rev examples/permute.parm -o "$TMP/cli_one.c"
grep -q ' cli_one_rev(' "$TMP/cli_one.h" && ! grep -q 'cli_one_\(main\|trans\)(' "$TMP/cli_one.h" && pass ||
    fail "cli: a compile with -e rev declares rev only"
expect_status 0 "compile -e with --emit-main" "$PARMC" --target=c --emit-main -e trans examples/permute.parm -o "$TMP/cli_one_main.c"
grep -q ' cli_one_main_trans(' "$TMP/cli_one_main.h" && ! grep -q 'cli_one_main_rev(' "$TMP/cli_one_main.h" && pass ||
    fail "cli: a compile with --emit-main -e trans compiles trans only"

# --report succeeds when it reports; --strict fails on a non-minimal access.
printf 'entry main (xs : [2^12]i32) = col 3 (\\[a, b] -> [b, a]) xs\n' >"$TMP/cli_col.parm"
expect_status 0 "--report" "$PARMC" --report examples/sort.parm
expect_status 0 "--report --strict, all minimal" "$PARMC" --report --strict examples/sort.parm
expect_status 0 "--report -e" "$PARMC" --report -e rev examples/permute.parm
grep -q '^entry rev' "$TMP/cli.out" && ! grep -q '^entry main' "$TMP/cli.out" && pass ||
    fail "cli: --report -e reports only that entry"

# --random-input: the same values for the same seed, as many as the entry takes.
expect_status 0 "--random-input" "$PARMC" --random-input=7 -e trans examples/permute.parm
[ "$(wc -l <"$TMP/cli.out")" -eq 4096 ] && pass || fail "cli: --random-input gives 4096 values for trans"
"$PARMC" --random-input 7 -e trans examples/permute.parm >"$TMP/cli2.out" 2>&1
cmp -s "$TMP/cli.out" "$TMP/cli2.out" && pass || fail "cli: --random-input is the same for the same seed"
"$PARMC" --interpret -e trans examples/permute.parm <"$TMP/cli.out" >/dev/null 2>&1 && pass ||
    fail "cli: the interpreter reads --random-input's values"
# a seed is digits within 64 bits: a sign or a number past 2^64 - 1 is a usage error, not a wrapped seed
for seed in -1 +3 18446744073709551616 0x5 ''; do
    expect_status 2 "--random-input='$seed'" "$PARMC" --random-input="$seed" -e trans examples/permute.parm
    grep -qF "is not a seed (an integer from 0 to 2^64 - 1)" "$TMP/cli.err" && pass ||
        fail "cli: --random-input='$seed': $(head -1 "$TMP/cli.err")"
done
expect_status 0 "--random-input at 2^64 - 1" "$PARMC" --random-input=18446744073709551615 -e trans examples/permute.parm
# --exchange-pieces cuts the exchanges between GPUs: on one it is a usage error
expect_status 2 "--exchange-pieces without --gpus" "$PARMC" --exchange-pieces 4 --check examples/sort.parm
grep -qF "option '--exchange-pieces' has no effect on one GPU" "$TMP/cli.err" && pass ||
    fail "cli: --exchange-pieces without --gpus: $(head -1 "$TMP/cli.err")"
expect_status 0 "--exchange-pieces with --gpus 2" "$PARMC" --exchange-pieces 4 --gpus 2 --check examples/sort.parm

# an entry that needs more GPU memory than any GPU has (above 2^38 bytes)
# compiles with a warning that gives the bytes; 2^38 bytes exactly, or the
# C target (host memory), get none
printf 'entry main (xs : [2^40]i32) = map (\\x -> x + 1) xs\n' >"$TMP/cli_big.parm"
expect_status 0 "--check of 2^40 i32" "$PARMC" --check "$TMP/cli_big.parm"
grep -qF "warning: entry 'main' needs 8796093022208 bytes (8192 GiB) of GPU memory for its arrays and scratch, more than any GPU has" \
    "$TMP/cli.err" && pass || fail "cli: no memory warning for 2^40 i32: $(head -1 "$TMP/cli.err")"
expect_status 0 "--check of 2^40 i32 on 8 GPUs" "$PARMC" --check --gpus 8 "$TMP/cli_big.parm"
grep -qF "needs 1099511627776 bytes (1024 GiB) of GPU memory per GPU" "$TMP/cli.err" && pass ||
    fail "cli: the memory warning on 8 GPUs counts one GPU's part: $(head -1 "$TMP/cli.err")"
expect_status 0 "compile of 2^40 i32 to C" "$PARMC" --target=c "$TMP/cli_big.parm" -o "$TMP/cli_big.c"
[ -s "$TMP/cli.err" ] && fail "cli: the C target warns of GPU memory" || pass
printf 'entry main (xs : [2^35]i32) = map (\\x -> x + 1) xs\n' >"$TMP/cli_fits.parm"
expect_status 0 "--check of 2^35 i32" "$PARMC" --check "$TMP/cli_fits.parm"
[ -s "$TMP/cli.err" ] && fail "cli: a memory warning for 2^38 bytes: $(head -1 "$TMP/cli.err")" || pass

# --special-floats: over a few seeds, NaN, the infinities, -0 and subnormals
# of both float types, which the interpreter reads back as themselves
printf 'entry main (xs : [2^5]f32) (ys : [2^5]f64) = (map (\\x -> x) xs, ys)\n' >"$TMP/cli_special.parm"
for seed in 1 2 3; do "$PARMC" --random-input=$seed --special-floats "$TMP/cli_special.parm"; done >"$TMP/cli_special.txt"
for want in nan -nan inf -inf -0 1.40129846e-45 -4.9406564584124654e-324; do
    grep -qxF -- "$want" "$TMP/cli_special.txt" && pass || fail "cli: --special-floats gives no $want"
done
"$PARMC" --random-input=2 --special-floats "$TMP/cli_special.parm" >"$TMP/cli_special.in"
"$PARMC" --interpret "$TMP/cli_special.parm" <"$TMP/cli_special.in" | cmp -s - "$TMP/cli_special.in" && pass ||
    fail "cli: the interpreter reads --special-floats values back as themselves"
"$PARMC" --random-input=2 "$TMP/cli_special.parm" | grep -qE '^-?(nan|inf)$' && fail "cli: special floats without --special-floats" || pass
expect_status 2 "--special-floats without --random-input" "$PARMC" --check --special-floats "$TMP/cli_special.parm"

# --help and the man page list the same options, and README uses only those
# (parmc test and bench have their own).
# (the option lines of --help; the .TP items of the man page)
help_opts=$("$PARMC" --help | grep -E '^  -' | sed -E 's/   .*//' | grep -oE -- '-(-[a-z][a-z-]*|[a-zA-Z])\b' | sort -u)
man_opts=$(awk 'item { print; item = 0 } /^\.TP/ { item = 1 }' docs/parmc.1 | sed 's/\\-/-/g' |
    grep -oE -- '-(-[a-z][a-z-]*|[a-zA-Z])\b' | sort -u)
if [ "$help_opts" = "$man_opts" ]; then pass; else
    fail "cli: --help and docs/parmc.1 differ: $(diff <(echo "$help_opts") <(echo "$man_opts") | grep '^[<>]' | tr '\n' ' ')"
fi
# the tuning options have their own section of the man page and of --help,
# apart from the actions
tuning='tile.-bytes|segment.-bytes|vector.-copies|narrow.-permutes|narrow.-copies|register.-bytes|tile.-buffers|cluster.-blocks|exchange.-pieces'
[ "$(sed -n '/^\.SH ACTIONS/,/^\.SH OPTIONS/p' docs/parmc.1 | grep -cE -- "$tuning")" = 0 ] &&
    [ "$(sed -n '/^\.SH TUNING OPTIONS/,/^\.SH IMPORTS/p' docs/parmc.1 | awk 'item { print; item = 0 } /^\.TP/ { item = 1 }' |
        grep -cE -- "$tuning")" = 9 ] && pass ||
    fail "cli: docs/parmc.1 lists the tuning options in TUNING OPTIONS, not in ACTIONS"
"$PARMC" --help | sed -n '/^tuning options/,/^$/p' | grep -cE '^  --' | grep -qx 9 && pass ||
    fail "cli: --help lists the nine tuning options under 'tuning options'"
readme_opts=$(grep -oE 'parmc [^|#]*' README.md | grep -vE '^parmc (test|bench)' | grep -oE ' -(-[a-z][a-z-]*|[a-zA-Z])\b' | tr -d ' ' | sort -u)
missing=$(comm -23 <(echo "$readme_opts") <(echo "$help_opts") | tr '\n' ' ')
[ -z "$missing" ] && pass || fail "cli: README.md uses options that --help lacks: $missing"
# --check optimises and plans as a compile does: --trace-rules shows the rules
expect_status 0 "--check --trace-rules" "$PARMC" --check --trace-rules tests/ir/bmmc_bmmc.parm
grep -q "^rule bmmc-bmmc" "$TMP/cli.err" && pass || fail "cli: --check --trace-rules prints the rules"

# --trace-rules where no rule runs: a warning, and the action still runs
expect_status 0 "--trace-rules before the optimiser" "$PARMC" --dump-ir=normalised --trace-rules examples/permute.parm
grep -q "warning: --trace-rules prints nothing here" "$TMP/cli.err" && pass || fail "cli: --trace-rules warns where it prints nothing"

# A compile never writes over its input, and its output, header and
# manifest are three files: -o naming the input (by another path too), its
# header or its manifest is an error that leaves every file as it was, also
# where the header cannot be written (a directory of its name)
mkdir -p "$TMP/clio/c.h"
printf 'entry main (xs : [2^2]i32) = xs\n' >"$TMP/clio/a.parm"
cp "$TMP/clio/a.parm" "$TMP/clio/c.parm"
for out in a.parm ./a.parm ../clio/a.parm; do
    expect_status 1 "-o $out over the input" "$PARMC" --target=c "$TMP/clio/a.parm" -o "$TMP/clio/$out"
    cmp -s "$TMP/clio/a.parm" "$TMP/clio/c.parm" && grep -q "would be written over the input" "$TMP/cli.err" &&
        pass || fail "cli: -o $out changed the input or said nothing of it: $(head -1 "$TMP/cli.err")"
done
expect_status 1 "-o c.parm with c.h a directory" "$PARMC" --target=c "$TMP/clio/c.parm" -o "$TMP/clio/c.parm"
[ -f "$TMP/clio/c.parm" ] && pass || fail "cli: a failed compile removed its input"
for out in x.h x.json; do
    expect_status 1 "-o $out, the header's or manifest's name" "$PARMC" --target=c "$TMP/clio/a.parm" -o "$TMP/clio/$out"
    grep -q "would both be" "$TMP/cli.err" && [ ! -e "$TMP/clio/$out" ] && pass ||
        fail "cli: -o $out wrote over its own header or manifest: $(head -1 "$TMP/cli.err")"
done

# --target with --check and --dump-plan: that target's plans and limits (the
# GPU's memory is no limit of the C target's host arrays)
printf 'entry main (xs : [2^4]i32) = expand 34 xs\n' >"$TMP/clio/big.parm"
expect_status 0 "--check of 2^38 elements" "$PARMC" --check "$TMP/clio/big.parm"
grep -q "warning: entry 'main' needs .* of GPU memory" "$TMP/cli.err" && pass ||
    fail "cli: --check does not warn of an entry larger than any GPU"
expect_status 0 "--check --target c of 2^38 elements" "$PARMC" --check --target c "$TMP/clio/big.parm"
[ ! -s "$TMP/cli.err" ] && pass || fail "cli: --check --target c warns of GPU memory: $(head -1 "$TMP/cli.err")"
expect_status 0 "--dump-plan --target=c" "$PARMC" --dump-plan --target=c tests/plan/sort.parm
expect_status 2 "--report --target c" "$PARMC" --report --target c tests/plan/sort.parm
