"""Input of an entry with segments (docs/language.md 7.3) whose rows are
mostly empty: sparse_segments.py ROWS_LOG COLS_LOG LIVE SEED prints the
padded parameter's elements (small integers), then the starts and the
lengths of 2^ROWS_LOG rows of which LIVE random ones have 1 to 2^COLS_LOG
elements, in a random order with gaps (the blocks of empty rows return at
once: Phase.live_check)."""
import random
import sys

rows_log, cols_log, live, seed = (int(a) for a in sys.argv[1:])
rng = random.Random(seed)
rows = 1 << rows_log
lens = [0] * rows
for r in rng.sample(range(rows), live):
    lens[r] = rng.randint(1, 1 << cols_log)
starts, at = [0] * rows, 0
for r in rng.sample(range(rows), rows):
    at += rng.randint(0, 2)
    starts[r] = at
    at += lens[r]
n = at + rng.randint(0, 2)
print(" ".join(str(rng.randint(-50, 50)) for _ in range(n)))
print(" ".join(map(str, starts)))
print(" ".join(map(str, lens)))
