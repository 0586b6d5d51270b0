# docs/tutorial.md runs as written: every "$ command" line of its console
# blocks is run from the repository root (with $PARMC for build/parmc) and
# must print exactly the lines that follow it.
python3 - "$PARMC" docs/tutorial.md >"$TMP/tutorial.txt" <<'PY'
import subprocess, sys
parmc, path = sys.argv[1], sys.argv[2]
lines, blocks, cur, inside = open(path).read().split("\n"), [], None, False
for line in lines:
    if line.startswith("```console"):
        inside = True
        continue
    if inside and line.startswith("```"):
        inside = False
        cur = None
        continue
    if inside and line.startswith("$ "):
        cur = [line[2:], []]
        blocks.append(cur)
    elif inside and cur is not None:
        cur[1].append(line)
for command, want in blocks:
    run = subprocess.run(["bash", "-c", command.replace("build/parmc", parmc)], capture_output=True, text=True)
    got = run.stdout.rstrip("\n").split("\n") if run.stdout else []
    print("PASS" if got == want else "FAIL %s\n--- want\n%s\n--- got\n%s" % (command, "\n".join(want), "\n".join(got)))
PY
while read -r verdict rest; do
    case $verdict in
    PASS) pass ;;
    FAIL) fail "tutorial: $rest" ;;
    esac
done <"$TMP/tutorial.txt"
