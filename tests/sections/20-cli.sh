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
expect_status 2 "missing option value" "$PARMC" examples/sort.parm -e
expect_status 2 "unknown IR stage" "$PARMC" --dump-ir=nonsense examples/sort.parm
expect_status 2 "two input files" "$PARMC" examples/sort.parm examples/bitonic.parm
expect_status 1 "missing file" "$PARMC" --check tests/no-such-file.parm
expect_status 1 "unknown entry" "$PARMC" --check -e nosuch examples/sort.parm
