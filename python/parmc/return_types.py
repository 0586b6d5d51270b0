"""The results of parmc.sort and parmc.topk on NumPy and CuPy arrays: named tuples (values,
indices), as torch.return_types.sort and torch.return_types.topk are for tensors (which the
calls on tensors return), so that `parmc.topk(x, k).indices` and `values, indices = ...` both
work on every library."""
from collections import namedtuple

sort = namedtuple("sort", ["values", "indices"], module=__name__)
topk = namedtuple("topk", ["values", "indices"], module=__name__)
