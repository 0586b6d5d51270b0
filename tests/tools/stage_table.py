"""The stage table, compiler/stages, for includes.py and passes.py: a line
per stage and folder, the earliest stage first, each its stage's name, a
folder (a path from the repository's root) and the modules in that folder.
A stage whose modules are in several folders has consecutive lines."""


class Table:
    def __init__(self):
        self.stages = []        # the stages' names, earliest first
        self.modules = []       # every module, in the table's order
        self.stage = {}         # module -> index in stages
        self.folder = {}        # module -> its folder
        self.problems = []      # what is wrong with the table itself


def read(path):
    t = Table()
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split('#', 1)[0].split()
            if not words:
                continue
            if len(words) < 3:
                t.problems.append(f'{path}:{n}: a stage, a folder and its modules, not: {line.strip()}')
                continue
            stage, folder, modules = words[0], words[1].rstrip('/'), words[2:]
            if not t.stages or t.stages[-1] != stage:
                if stage in t.stages:
                    t.problems.append(f'{path}:{n}: stage {stage} again, after {t.stages[-1]}')
                t.stages.append(stage)
            for m in modules:
                if m in t.stage:
                    t.problems.append(f'{path}:{n}: module {m} is listed twice')
                    continue
                t.modules.append(m)
                t.stage[m] = len(t.stages) - 1
                t.folder[m] = folder
    return t
