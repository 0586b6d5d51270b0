#!/usr/bin/env python3
"""includes.py STAGES DIR [DIR...]: the include graph of the C files in the
DIRs (*.c, *.h, *.re, *.y), checked against the stage table STAGES
(compiler/stages: one line per stage, earliest first, its name and then its
modules; a module is a file name without its extension).

Fails (exit 1, one line per problem) when a file includes a header of a later
stage than its own, when a file or an included header belongs to no listed
module, or when the table lists a module twice or one that no DIR has.
Prints "includes: N files, M edges, S stages" when all is well.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = ('.c', '.h', '.re', '.y')
GENERATED = {'parser.h': 'parser.y'}   # made by the build from a listed file


def read_table(path, problems):
    stages, module_stage = [], {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split('#', 1)[0].split()
            if not words:
                continue
            stages.append(words[0])
            for m in words[1:]:
                if m in module_stage:
                    problems.append(f'{path}:{n}: module {m} is listed twice')
                module_stage[m] = len(stages) - 1
    return stages, module_stage


def module(name):
    return os.path.splitext(name)[0]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    problems = []
    stages, module_stage = read_table(sys.argv[1], problems)
    files = {}
    for d in sys.argv[2:]:
        for name in sorted(os.listdir(d)):
            if name.endswith(SOURCES):
                files[name] = os.path.join(d, name)
    present = {module(n) for n in files} | {module(n) for n in GENERATED}
    for m in module_stage:
        if m not in present:
            problems.append(f'{sys.argv[1]}: module {m} is listed but no file has that name')
    edges = 0
    for name, path in files.items():
        if module(name) not in module_stage:
            problems.append(f'{path}: not in {sys.argv[1]} (add its module to a stage)')
            continue
        mine = module_stage[module(name)]
        with open(path, encoding='utf-8') as f:
            text = f.read()
        for header in INCLUDE.findall(text):
            edges += 1
            if header not in files and header not in GENERATED:
                problems.append(f'{path}: includes "{header}", which no checked directory has')
                continue
            theirs = module_stage.get(module(header))
            if theirs is None:
                continue        # reported as an unlisted file above
            if theirs > mine:
                problems.append(f'{path}: a file of stage {stages[mine]} includes {header} '
                                f'of the later stage {stages[theirs]}')
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f'includes: {len(files)} files, {edges} edges, {len(stages)} stages')


main()
