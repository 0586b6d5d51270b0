#!/usr/bin/env python3
"""passes.py PASSES STAGES MAKEFILE INTERNALS: the driver's pass table (the
output of `parmc --passes`) against the three other places that give the
pipeline's order: the stage table compiler/stages, the Makefile's
COMPILER_DIRS and the diagram of docs/internals.md (its first ``` block).
The table and the diagram must name every pass's module, and the Makefile
its folder (as the table places it), in the pass table's order; the diagram
names the pass on the module's line. Prints each disagreement and exits 1
if there is one."""
import re
import sys

import stage_table


def read_passes(path):
    """[(pass, module)] in order, from the table that --passes prints."""
    rows = [line.split() for line in open(path).read().splitlines()[1:] if line.strip()]
    return [(row[0], row[2]) for row in rows]


def makefile_positions(path, table):
    """module -> the position of its folder in COMPILER_DIRS (the variable's
    lines joined), for the modules whose folder it lists"""
    text = open(path).read()
    m = re.search(r'^COMPILER_DIRS\s*=((?:.*\\\n)*.*)$', text, re.M)
    dirs = m.group(1).replace('\\\n', ' ').split() if m else []
    return {module: dirs.index(folder) for module, folder in table.folder.items() if folder in dirs}


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
    table = stage_table.read(sys.argv[2])
    problems = list(table.problems)
    problems += check_order(passes, {module: k for k, module in enumerate(table.modules)}, sys.argv[2])
    problems += check_order(passes, makefile_positions(sys.argv[3], table),
                            sys.argv[3] + ' COMPILER_DIRS (the folders of the modules)')
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
