#!/usr/bin/env python3
"""machine_literals.py DIR: the hardware numbers of the GPU that appear in the
C files under DIR (*.c, *.h, *.re, *.y, at any depth) outside machine.h, the
one table of them (compiler/plan/machine.h). Comments and string literals are not read: help
text and emitted CUDA may spell a number out.

Fails (exit 1, one line per hit: file:line: what the number is, and the line)
when a file defines its own macro for a machine fact (a warp, a sector, banks,
a thread's widest access, an SM's or a block's shared memory or registers) or
writes one of the numbers that only the machine has: 227 or 228 KB, 48 KB
(49152), a lane as `& 31`, a warp as `>> 5` or `w * 32 +`, sectors as `/ 32`,
or a warp's lanes log2 as a comparison with 5 of a thread count log2. Prints
"machine literals: N files" when all is well.
"""
import os
import re
import sys

SOURCES = ('.c', '.h', '.re', '.y')
TABLE = 'machine.h'
CHECKS = [
    (re.compile(r'#\s*define\s+(\w*(WARP|SECTOR|BANK|SMEM|SHARED_BYTES|RESERVED_BYTES|VECTOR_BYTES)\w*|(\w+_)?SM_\w+)\b'),
     'a macro of its own for a machine fact'),
    (re.compile(r'\b22[78]\s*\*\s*1024\b|\b23(2448|3472)\b'), 'the shared memory of an SM or a block'),
    (re.compile(r'\b48\s*\*\s*1024\b|\b49152\b'), 'the static shared memory of a block'),
    (re.compile(r'&\s*31\b|>>\s*5\b|\*\s*32\s*\+'), 'the lanes of a warp'),
    (re.compile(r'/\s*32\b'), 'a sector'),
    (re.compile(r'\b\w*(thread|lane|warp)\w*log\s*[<>]=?\s*5\b|\bt\s*[<>]=?\s*5\b'), 'the lanes of a warp, log2'),
]
# comments, and string and character literals, kept as blanks (newlines
# stay, so line numbers do)
HIDDEN = re.compile(r'/\*.*?\*/|//[^\n]*|"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'', re.S)


def blank(match):
    return re.sub(r'[^\n]', ' ', match.group(0))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    hits = []
    paths = sorted(os.path.join(d, name) for d, _, names in os.walk(sys.argv[1]) for name in names
                   if name.endswith(SOURCES) and name != TABLE)
    for path in paths:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        code, lines = HIDDEN.sub(blank, text).split('\n'), text.split('\n')
        for n, line in enumerate(code, 1):
            for pattern, what in CHECKS:
                if pattern.search(line):
                    hits.append(f'{path}:{n}: {what} belongs in {TABLE}: {lines[n - 1].strip()}')
    if hits:
        print('\n'.join(hits))
        sys.exit(1)
    print(f'machine literals: {len(paths)} files')


if __name__ == '__main__':
    main()
