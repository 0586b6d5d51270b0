#!/usr/bin/env python3
"""Checks that what a doc names exists, so that a renamed or removed file fails a test.

    doc_paths.py FILE.md[=AS]...

(FILE=AS checks FILE as if it stood at AS, a path relative to the repository: its links
resolve from AS's directory and its misses are reported at AS.)

For each file:
- every markdown link `[text](target)` outside code (not http:, https:, mailto: or a
  `#fragment` alone) resolves, relative to the file's directory;
- every repository path it names (a word that starts with a top-level directory of the
  repository: `compiler/optimiser/opt_rules.c`, bench/results/X.md,
  tests/sections/38-passes.sh) exists;
- every bare file name it names (`opt_rewrite.c`, `ir.h`, `lexer.re`,
  `2026-11-27-h100-s19.md`) is the name of a tracked file somewhere in the repository.
A word with a placeholder in it (upper-case NAME, DATE, GPU, FILE, ..., or `*`, `{`, `<`)
is left alone. Prints `FAIL FILE:LINE what` for each miss and exits 1 if there was one."""
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
EXT = r"(?:c|h|re|y|py|sh|parm|md|txt|csv|png|cu|cuh|json|plan|out)"
PATH = re.compile(r"(?<![\w./-])([A-Za-z_][\w.-]*/[\w./+-]*\w)")
BARE = re.compile(r"(?<![\w./-])([\w][\w+-]*(?:\.[\w+-]+)*\." + EXT + r")(?![\w/])")
PLACEHOLDER = re.compile(r"[A-Z]{2,}|[*{<]|\.\.\.|^X\.|/X\.")


def tracked():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    files = out.split("\n")
    return set(files), {os.path.basename(f) for f in files if f}, {f.split("/")[0] for f in files if "/" in f}


def prose(path):
    """(line number, text) of the lines outside fenced blocks, code spans kept."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f.read().split("\n"), 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if not fenced:
                yield n, line


def main():
    files, names, tops = tracked()
    dirs = {os.path.dirname(f) for f in files}
    while True:
        more = {os.path.dirname(d) for d in dirs} - dirs
        if not more:
            break
        dirs |= more

    def exists(rel):
        rel = rel.rstrip("/")
        return rel in files or rel in dirs or os.path.exists(os.path.join(ROOT, rel))

    bad = 0
    for arg in sys.argv[1:]:
        doc, _, place = arg.partition("=")
        where = place or os.path.relpath(os.path.abspath(doc), ROOT)
        base = os.path.dirname(where)
        for n, line in prose(doc):
            outside = re.sub(r"`[^`]*`", "", line)
            for target in LINK.findall(outside):
                if re.match(r"(https?|mailto):", target) or target.startswith("#"):
                    continue
                rel = os.path.normpath(os.path.join(base, target.split("#")[0]))
                if not exists(rel):
                    print(f"FAIL {where}:{n} the link {target} resolves to nothing ({rel})")
                    bad += 1
            text = LINK.sub(lambda m: m.group(0).split("](")[0], line)
            for word in PATH.findall(text):
                word = word.rstrip(".")
                if word.split("/")[0] not in tops or PLACEHOLDER.search(word):
                    continue
                if not exists(word):
                    print(f"FAIL {where}:{n} names {word}, which does not exist")
                    bad += 1
            for word in BARE.findall(PATH.sub(" ", text)):
                if PLACEHOLDER.search(word) or word in names:
                    continue
                print(f"FAIL {where}:{n} names the file {word}, which no tracked file is")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
