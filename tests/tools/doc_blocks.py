#!/usr/bin/env python3
"""Runs the code blocks of the docs, so that what they show cannot drift from what parmc does.

    doc_blocks.py --parmc PARMC [--python PY] FILE.md...

Prints one line a check, `PASS FILE:LINE what`, `SKIP FILE:LINE reason` or
`FAIL FILE:LINE what` followed by indented details, for tests/sections/58-docs.sh to count.

What is checked, by the block's fence:
- ```console: every `$ COMMAND` line runs (bash, in a scratch directory that links the
  repository's top-level directories, with build/parmc the compiler under test) and must
  exit 0 and print exactly the lines that follow it up to the next `$` line; a line `...`
  stands for any number of lines. Commands of one file share the directory, so a later one
  reads what an earlier one wrote.
- ```parm: the program must pass `parmc --check` on its own.
- a block whose first line is `-- PATH.parm` (PATH a file of the repository): the same, and
  its code (the lines that are not comments or blank) must be PATH's code.
- ```python: the block runs in the scratch directory with PY (an environment with numpy),
  the package of python/ and PARMC set to the compiler under test.
- ```parm refused: a program that the back ends refuse. Its first comment lines are
  `-- refused: MESSAGE` or `-- refused (OPTIONS): MESSAGE` (the message may go on over
  the comment lines after it; `...` in it stands for any text): `parmc --target=c OPTIONS`
  must exit 1 with MESSAGE as its first error. A program that compiles fails the check: it
  belongs with what the back ends compile.
- ```parm compiles: every entry of the program must compile with `--target=c --emit-main`,
  build with $CC (default cc) and print what `--interpret` prints on random input (seeds 1
  and 2).
A command or block that must not run here (it needs a GPU, nvcc, or minutes) says so with a
comment `# not run: REASON` (on the command's line, or the block's first line): it is
reported as SKIP with that reason."""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
NOT_RUN = re.compile(r"#\s*not run:\s*(.*)$")
TIMEOUT = 120


class Block:
    def __init__(self, path, line, info, lines):
        self.path, self.line, self.info, self.lines = path, line, info, lines

    def where(self, offset=0):
        return f"{os.path.relpath(self.path, ROOT)}:{self.line + offset}"


def blocks(path):
    """The fenced blocks of a markdown file: (line of the first content line, info, lines). A
    fence may be indented (a block in a list item): its lines lose that indentation."""
    out, cur, indent = [], None, ""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f.read().split("\n"), 1):
            fence = line.lstrip(" ").startswith("```")
            if cur is None and fence:
                indent = line[:len(line) - len(line.lstrip(" "))]
                cur = Block(path, n + 1, line.strip()[3:].strip(), [])
            elif cur is not None and fence:
                out.append(cur)
                cur = None
            elif cur is not None:
                cur.lines.append(line[len(indent):] if line.startswith(indent) else line)
    return out


def report(verdict, where, what, details=""):
    print(f"{verdict} {where} {what}")
    for line in details.rstrip("\n").split("\n") if details else []:
        print(f"    {line}")


def matches(want, got):
    """got against want, where a line `...` in want stands for any number of lines."""
    if not want:
        return not got
    if want[0] == "...":
        return any(matches(want[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and got[0] == want[0] and matches(want[1:], got[1:])


def scratch_dir(base, parmc):
    """A directory that looks like the repository root for the docs' commands: its top-level
    directories linked, build/parmc the compiler under test."""
    os.makedirs(os.path.join(base, "build"), exist_ok=True)
    for name in os.listdir(ROOT):
        if name not in ("build", ".git") and not os.path.exists(os.path.join(base, name)):
            os.symlink(os.path.join(ROOT, name), os.path.join(base, name))
    link = os.path.join(base, "build", "parmc")
    if not os.path.lexists(link):
        os.symlink(parmc, link)
    return base


def run(cmd, cwd, env, stdin=None):
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, 124, "", f"timed out after {TIMEOUT} s")


def check_console(b, cwd, env):
    commands = []
    for k, line in enumerate(b.lines):
        if line.startswith("$ "):
            commands.append([k, line[2:], []])
        elif commands:
            commands[-1][2].append(line)
    for k, command, want in commands:
        skip = NOT_RUN.search(command)
        if skip:
            report("SKIP", b.where(k), f"{command[:skip.start()].strip()}: not run: {skip.group(1)}")
            continue
        p = run(["bash", "-c", command], cwd, env)
        got = p.stdout.rstrip("\n").split("\n") if p.stdout else []
        if p.returncode == 0 and matches(want, got):
            report("PASS", b.where(k), command)
        else:
            report("FAIL", b.where(k), command, f"exit {p.returncode}\n--- want\n" + "\n".join(want) +
                   "\n--- got\n" + "\n".join(got) + ("\n--- stderr\n" + p.stderr[-2000:] if p.stderr else ""))


def code_lines(lines):
    return [x.rstrip() for x in lines if x.strip() and not x.lstrip().startswith("--")]


def write_program(b, cwd):
    name = os.path.join(cwd, f"block{b.line}.parm")
    with open(name, "w", encoding="utf-8") as f:
        f.write("\n".join(b.lines) + "\n")
    return name


def check_program(b, cwd, env, parmc, source_file):
    name = write_program(b, cwd)
    p = run([parmc, "--check", name], cwd, env)
    if p.returncode != 0:
        report("FAIL", b.where(), "the program does not compile on its own", p.stderr)
        return
    if source_file:
        with open(os.path.join(ROOT, source_file), encoding="utf-8") as f:
            if code_lines(f.read().split("\n")) != code_lines(b.lines[1:]):
                report("FAIL", b.where(), f"the program differs from {source_file}")
                return
    report("PASS", b.where(), f"the program compiles{' and is ' + source_file if source_file else ''}")


REFUSED = re.compile(r"--\s*refused(?:\s+\(([^)]*)\))?:\s*(.*)$")


def refusal(lines):
    """(options, message) of a refused block's leading comment, or None."""
    m = REFUSED.match(lines[0]) if lines else None
    if not m:
        return None
    message = [m.group(2).strip()]
    for line in lines[1:]:
        if not line.startswith("--"):
            break
        message.append(line[2:].strip())
    return (m.group(1) or "").split(), " ".join(message)


def check_refused(b, cwd, env, parmc):
    said = refusal(b.lines)
    if not said:
        report("FAIL", b.where(), "a refused block must start with `-- refused: MESSAGE`")
        return
    options, message = said
    name = write_program(b, cwd)
    p = run([parmc, "--target=c", *options, name, "-o", name + ".c"], cwd, env)
    errors = [line.split(": error: ", 1)[1] for line in p.stderr.split("\n") if ": error: " in line]
    pattern = ".*".join(re.escape(part) for part in message.split("..."))
    if p.returncode == 0:
        report("FAIL", b.where(), "a program listed as refused compiles: list it with what the back ends compile")
    elif p.returncode != 1 or not errors or not re.fullmatch(pattern, errors[0]):
        report("FAIL", b.where(), "the program is not refused with the listed message",
               f"exit {p.returncode}\n--- want\n{message}\n--- got\n{p.stderr[-2000:]}")
    else:
        report("PASS", b.where(), f"refused: {message[:60]}")


def check_compiles(b, cwd, env, parmc):
    name = write_program(b, cwd)
    entries = [m.group(1) for m in (re.match(r"entry\s+(\w+)", line) for line in b.lines) if m]
    if not entries:
        report("FAIL", b.where(), "a compiles block without an entry")
    cc = os.environ.get("CC", "cc")
    for entry in entries:
        out = f"{name}.{entry}"
        steps = [[parmc, "--target=c", "--emit-main", "-e", entry, name, "-o", out + ".c"],
                 [cc, "-std=c11", "-O1", out + ".c", "-o", out, "-lm"]]
        failed = next((p for p in (run(step, cwd, env) for step in steps) if p.returncode), None)
        if failed:
            report("FAIL", b.where(), f"entry {entry} does not compile", failed.stderr[-2000:])
            continue
        for seed in (1, 2):
            given = run([parmc, f"--random-input={seed}", "-e", entry, name], cwd, env).stdout
            want = run([parmc, "--interpret", "-e", entry, name], cwd, env, given)
            got = run([out], cwd, env, given)
            if got.returncode or want.returncode or got.stdout != want.stdout:
                report("FAIL", b.where(), f"entry {entry} differs from the interpreter on --random-input={seed}",
                       f"exit {got.returncode}, interpreter exit {want.returncode}\n{got.stderr[-1000:]}")
                break
        else:
            report("PASS", b.where(), f"entry {entry} compiles and agrees with the interpreter")


def check_python(b, cwd, env, python):
    skip = NOT_RUN.search(b.lines[0]) if b.lines else None
    if skip:
        report("SKIP", b.where(), f"a Python block: not run: {skip.group(1)}")
    elif not python:
        report("FAIL", b.where(), "a Python block, and no Python with numpy was given (--python)")
    else:
        p = run([python, "-"], cwd, dict(env, PYTHONPATH=os.path.join(ROOT, "python")), "\n".join(b.lines) + "\n")
        if p.returncode == 0:
            report("PASS", b.where(), "the Python block runs")
        else:
            report("FAIL", b.where(), "the Python block fails", p.stderr[-2000:])


def source_of(b):
    """PATH when the block starts with `-- PATH.parm` and PATH is a file of the repository."""
    m = re.match(r"--\s+(\S+\.parm)\s*$", b.lines[0]) if b.lines else None
    return m.group(1) if m and os.path.isfile(os.path.join(ROOT, m.group(1))) else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--parmc", required=True)
    ap.add_argument("--python")
    ap.add_argument("--scratch", required=True, help="a directory for the commands to run in")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    parmc = os.path.abspath(args.parmc)
    python = os.path.abspath(args.python) if args.python else None
    env = dict(os.environ, PARMC=parmc, PARMC_CUDA="0", PARMC_CACHE=os.path.join(os.path.abspath(args.scratch),
                                                                                   "cache"))
    for path in args.files:
        path = os.path.join(ROOT, path)
        cwd = scratch_dir(os.path.join(os.path.abspath(args.scratch), os.path.basename(path)), parmc)
        for b in blocks(path):
            source = source_of(b)
            if b.info == "console":
                check_console(b, cwd, env)
            elif b.info == "parm refused":
                check_refused(b, cwd, env, parmc)
            elif b.info == "parm compiles":
                check_compiles(b, cwd, env, parmc)
            elif b.info == "parm" or source:
                check_program(b, cwd, env, parmc, source)
            elif b.info == "python":
                check_python(b, cwd, env, python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
