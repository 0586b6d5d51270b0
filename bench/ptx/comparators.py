#!/usr/bin/env python3
"""Comparators (pair steps) a thread runs in each LOCAL phase of a plan, counted from
`parmc --dump-plan` on standard input: each round's pair steps, 2^(registers - 1) pairs
each, times the share of the registers the step works on (Step.kept_log, "step N works on
2^-k of the registers") and of the warps that work (Round.live_log, "2^-k of the warps
work"). Static: no data decides it.

    build/parmc -I stdlib --dump-plan -e topk8_packed bench/keys/keys.parm | python3 bench/ptx/comparators.py
"""
import re
import sys


def comparators(phase):
    """The comparators a thread of this phase's kernel runs."""
    pairs = {int(m.group(1)) for m in re.finditer(r"^  step (\d+): .*, pair ", phase, re.M)}
    total = 0.0
    rounds = re.finditer(r"^  round \d+: steps (\d+)\.\.(\d+), 2\^(\d+) registers(.*?)(?=^  round|\Z)", phase, re.M | re.S)
    for r in rounds:
        first, last, regs, body = int(r.group(1)), int(r.group(2)), int(r.group(3)), r.group(4)
        live = re.search(r"2\^-(\d+) of the warps work", body)
        warps = 2.0 ** -int(live.group(1)) if live else 1.0
        for i in range(first, last + 1):
            if i not in pairs:
                continue
            kept = re.search(r"step %d works on 2\^-(\d+) of the registers" % i, body)
            total += 2 ** (regs - 1) * (2.0 ** -int(kept.group(1)) if kept else 1.0) * warps
    return total


def main():
    for phase in re.split(r"\n(?=phase \d+:)", sys.stdin.read()):
        if phase.startswith("phase") and ": local," in phase.split("\n")[0]:
            head = phase.split("\n")[0]
            tile = re.search(r"tile 2\^\d+", head).group(0)
            print(f"{head.split(':')[0]}, {tile}: {comparators(phase):g} comparators a thread")


if __name__ == "__main__":
    main()
