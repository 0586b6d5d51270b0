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
    """The fenced blocks of a markdown file: (line of the first content line, info, lines)."""
    out, cur = [], None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f.read().split("\n"), 1):
            if cur is None and line.startswith("```"):
                cur = Block(path, n + 1, line[3:].strip(), [])
            elif cur is not None and line.startswith("```"):
                out.append(cur)
                cur = None
            elif cur is not None:
                cur.lines.append(line)
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


def check_program(b, cwd, env, parmc, source_file):
    name = os.path.join(cwd, f"block{b.line}.parm")
    with open(name, "w", encoding="utf-8") as f:
        f.write("\n".join(b.lines) + "\n")
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
            elif b.info == "parm" or source:
                check_program(b, cwd, env, parmc, source)
            elif b.info == "python":
                check_python(b, cwd, env, python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
