#!/usr/bin/env python3
"""includes.py STAGES ROOT: where the C files (*.c, *.h, *.re, *.y) of the
tree ROOT are and what they include, checked against the stage table STAGES
(compiler/stages, as stage_table.py reads it: a line per stage and folder,
earliest first). The files checked are those under the top folders that the
table names (compiler/, runtime/), at any depth.

Fails (exit 1, one line per problem) when
- a file is in a folder that the table does not list, belongs to no listed
  module, or belongs to a module that the table puts in another folder;
- a file includes a header of a later stage than its own, or of its own
  stage from a folder that is neither its own nor above it (compiler/back/c
  may include compiler/back's headers, not compiler/back/cuda's, and
  compiler/back neither's);
- an emitter (a file of compiler/back whose name starts with emit)
  includes a header of the planner other than the plan's data, PLAN_DATA:
  the plan is the program and the emitters only print it;
- a file of the shared back end (compiler/back itself, not a target's
  folder) holds CUDA's text (CUDA_TEXT) outside its comments: what one
  target alone prints is in that target's folder;
- a file includes a header that no file has;
- the table lists a module twice, a stage in two places, or a module that
  its folder has no file of.
Prints "includes: N files, M edges, S stages, F folders" when all is well.
"""
import os
import re
import sys

import stage_table

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = ('.c', '.h', '.re', '.y')
GENERATED = {'parser.h'}    # made by the build from a listed file (parser.y)
# the planner's headers of the plan's data alone (the types the schedulers fill in and the
# machine's constants), the only ones of compiler/plan that an emitter may include
PLAN_DATA = {'plan.h', 'machine.h', 'bmmc_kernel.h'}
# what only CUDA's code says: its qualifiers, built-in indices, barriers, shuffles, launches
# and runtime calls
CUDA_TEXT = re.compile(r'__shared__|__global__|__device__|__launch_bounds__|__syncthreads'
                       r'|__syncwarp|threadIdx|blockIdx|blockDim|gridDim|_shfl|<<<'
                       r'|\bcuda[A-Z]\w*')
# a string or character literal (kept whole: a "//" or "/*" in it opens no comment) or a comment
LITERAL_OR_COMMENT = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*',
                                re.S)


def without_comments(text):
    return LITERAL_OR_COMMENT.sub(lambda m: m.group(0) if m.group(0)[0] in '"\'' else '', text)


SHARED_BACK = 'compiler/back'


def module(name):
    return os.path.splitext(name)[0]


def sources(root, tops):
    """(folder, file name) of every C file under root/top for each top, the
    folder a path from root"""
    found = []
    for top in sorted(tops):
        for d, subdirs, names in os.walk(os.path.join(root, top)):
            subdirs.sort()
            folder = os.path.relpath(d, root)
            found += [(folder, n) for n in sorted(names) if n.endswith(SOURCES)]
    return found


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    stages_path, root = sys.argv[1], sys.argv[2]
    table = stage_table.read(stages_path)
    problems = list(table.problems)
    folders = set(table.folder.values())
    files = sources(root, {f.split('/')[0] for f in folders})
    names = {n for _, n in files} | GENERATED
    placed = {(f, module(n)) for f, n in files}
    for m in table.modules:
        if (table.folder[m], m) not in placed:
            problems.append(f'{stages_path}: module {m} is listed in {table.folder[m]}, which has no file of it')
    edges = 0
    for folder, name in files:
        path, m = os.path.join(folder, name), module(name)
        if folder not in folders:
            problems.append(f'{path}: in no folder of {stages_path}')
            continue
        if m not in table.stage:
            problems.append(f'{path}: not in {stages_path} (add its module to a stage)')
            continue
        if table.folder[m] != folder:
            problems.append(f'{path}: module {m} belongs in {table.folder[m]} (stage {table.stages[table.stage[m]]})')
            continue
        mine = table.stage[m]
        with open(os.path.join(root, path), encoding='utf-8') as f:
            text = f.read()
        cuda = CUDA_TEXT.search(without_comments(text)) if folder == SHARED_BACK else None
        if cuda:
            problems.append(f'{path}: CUDA\'s text ({cuda.group(0)}) in the shared back end '
                            f'(what one target alone prints belongs in its folder: {SHARED_BACK}/cuda)')
        for header in INCLUDE.findall(text):
            edges += 1
            if header not in names:
                problems.append(f'{path}: includes "{header}", which no checked folder has')
                continue
            theirs = table.stage.get(module(header))
            if theirs is None:
                continue        # reported as an unlisted file above
            where = table.folder[module(header)]
            if (folder.split('/')[:2] == ['compiler', 'back'] and name.startswith('emit')
                    and where == 'compiler/plan' and header not in PLAN_DATA):
                problems.append(f'{path}: an emitter includes {header}, a header of the planner '
                                f'(the emitters read the plan alone: {", ".join(sorted(PLAN_DATA))})')
            if theirs > mine:
                problems.append(f'{path}: a file of stage {table.stages[mine]} includes {header} '
                                f'of the later stage {table.stages[theirs]}')
            elif theirs == mine and folder != where and not folder.startswith(where + '/'):
                problems.append(f'{path}: a file of {folder} includes {header} of {where}, '
                                f'a folder of its stage that is not above it')
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f'includes: {len(files)} files, {edges} edges, {len(table.stages)} stages, {len(folders)} folders')


main()
