"""parmc for Python: compile parm programs and call their entries on PyTorch tensors, CuPy
arrays and NumPy arrays (docs/python.md in the parmc repository)."""
from ._build import auto_arch, auto_target, cache_root, compile, find_parmc, load
from ._errors import (ArgumentTypeError, ArgumentValueError, CallError, CompileError, Error, ManifestError,
                      ToolError)
from ._program import EntryFunction, Program
from ._sortops import argsort, sort, topk
from ._segmented import segmented_sort, segmented_topk
from . import return_types

__version__ = "0.1.0"
__all__ = ["compile", "load", "Program", "EntryFunction", "Error", "ToolError", "CompileError", "ManifestError",
           "ArgumentTypeError", "ArgumentValueError", "CallError", "auto_target", "auto_arch", "cache_root",
           "find_parmc", "sort", "argsort", "topk", "segmented_sort", "segmented_topk", "return_types"]
