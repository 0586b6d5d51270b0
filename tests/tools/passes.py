#!/usr/bin/env python3
"""passes.py PASSES STAGES MAKEFILE INTERNALS: the driver's pass table (the
output of `parmc --passes`) against the three other places that give the
pipeline's order: the stage table compiler/stages, the Makefile's SRCS and
the diagram of docs/internals.md (its first ``` block). Each must name every
pass's module, in the table's order; the diagram names the pass on the
module's line. Prints each disagreement and exits 1 if there is one."""
import re
import sys


def read_passes(path):
    """[(pass, module)] in order, from the table that --passes prints."""
    rows = [line.split() for line in open(path).read().splitlines()[1:] if line.strip()]
    return [(row[0], row[2]) for row in rows]


def stage_positions(path):
    """module -> (stage index, index within its stage's line)"""
    where, stage = {}, 0
    for line in open(path):
        words = line.split('#')[0].split()
        if not words:
            continue
        for k, module in enumerate(words[1:]):
            where[module] = (stage, k)
        stage += 1
    return where


def makefile_positions(path):
    """module -> position in SRCS (the variable's lines joined)"""
    text = open(path).read()
    m = re.search(r'^SRCS\s*=((?:.*\\\n)*.*)$', text, re.M)
    if not m:
        return {}
    files = re.findall(r'compiler/(\w+)\.c', m.group(1))
    return {module: k for k, module in enumerate(files)}


def diagram_lines(path):
    """the lines of the first ``` block"""
    m = re.search(r'^```\n(.*?)^```', open(path).read(), re.M | re.S)
    return m.group(1).splitlines() if m else []


def check_order(passes, positions, where):
    """the modules in table order, each listed"""
    problems, last = [], None
    for name, module in passes:
        if module not in positions:
            problems.append(f'{where}: does not list {module}, the module of pass {name}')
            continue
        if last is not None and positions[module] < positions[last[1]]:
            problems.append(f'{where}: lists {module} (pass {name}) before {last[1]} (pass {last[0]})')
        last = (name, module)
    return problems


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    passes = read_passes(sys.argv[1])
    problems = check_order(passes, stage_positions(sys.argv[2]), sys.argv[2])
    problems += check_order(passes, makefile_positions(sys.argv[3]), sys.argv[3] + ' SRCS')
    lines = diagram_lines(sys.argv[4])
    diagram = {}
    for name, module in passes:
        for k, line in enumerate(lines):
            if re.search(r'\b%s\.c\b' % module, line) and re.search(r'\b%s\b' % re.escape(name), line):
                diagram[module] = k
                break
    problems += check_order(passes, diagram, sys.argv[4] + ' (the diagram, the pass on its module\'s line)')
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


main()
