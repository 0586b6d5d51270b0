#!/usr/bin/env python3
"""shared_align.py FILE.cu...: every tile plane of the emitted CUDA kernels
starts at a multiple of its element size in shared memory (a misaligned plane
is a "misaligned address" error on the GPU, which no CPU test sees).
Prints the misaligned planes and exits 1 if there are any."""
import re
import sys

SIZES = {"int8_t": 1, "uint8_t": 1, "bool": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4,
         "float": 4, "int64_t": 8, "uint64_t": 8, "double": 8}
PLANE = re.compile(r"(\w+) \*(tile\d+) = \(\w+ \*\)\(parm_shared \+ (\d+)\);")

bad = 0
for path in sys.argv[1:]:
    with open(path) as f:
        for line_no, line in enumerate(f, 1):
            m = PLANE.search(line)
            if m and int(m.group(3)) % SIZES[m.group(1)] != 0:
                print(f"{path}:{line_no}: {m.group(2)} ({m.group(1)}) at byte {m.group(3)}")
                bad += 1
sys.exit(1 if bad else 0)
