#!/usr/bin/env python3
"""rule_docs.py LIST IR_MD: the rules of the rule table (LIST, the output of
`parmc --list-rules`: a name, its op and, after "also", the other names the
rule fires under) against the table of docs/ir.md's section "Rewrite rules"
(IR_MD), whose first column names the rules a row describes (`a`, `b`).

Fails (exit 1, one line per name) when a name of the table has no row in
the docs, or a row names no rule of the table. Prints "rule docs: N names"
when the two agree.
"""
import re
import sys


def table_names(path):
    names = set()
    with open(path) as f:
        for line in f:
            words = line.split()
            names.add(words[0])
            if 'also' in words:
                names.update(words[words.index('also') + 1:])
    return names


def doc_names(path):
    with open(path, encoding='utf-8') as f:
        text = f.read()
    section = text.split('\n## Rewrite rules\n', 1)[1].split('\n## ', 1)[0]
    names = set()
    for line in section.splitlines():
        if line.startswith('| `'):
            names.update(re.findall(r'`([^`]+)`', line.split('|')[1]))
    return names


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    table, docs = table_names(sys.argv[1]), doc_names(sys.argv[2])
    problems = [f'rule {n}: in the rule table, but no row of {sys.argv[2]} names it' for n in sorted(table - docs)]
    problems += [f'rule {n}: a row of {sys.argv[2]} names it, but the rule table has no such rule'
                 for n in sorted(docs - table)]
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f'rule docs: {len(table)} names')


main()
