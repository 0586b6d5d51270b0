"""The exceptions of the package: every one is a parmc.Error."""


class Error(Exception):
    """Base class of every exception that parmc raises."""


class ToolError(Error):
    """A tool (parmc, nvcc, the C compiler) is missing or cannot be run."""


class CompileError(Error):
    """parmc or the native compiler rejected the program; the message holds its output."""


class ManifestError(Error):
    """A manifest (NAME.json) that this package cannot read."""


class ArgumentTypeError(Error, TypeError):
    """A call with an argument of the wrong kind, dtype or array library, or too few or many arguments."""


class ArgumentValueError(Error, ValueError):
    """A call with an argument of the right type but a bad value: a length the entry does not
    accept, a non-contiguous array, an array or stream on another device, a scalar out of range."""


class CallError(Error):
    """The compiled entry returned an error code (code: the number; the message is the
    library's error string)."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


for _cls in (Error, ToolError, CompileError, ManifestError, ArgumentTypeError, ArgumentValueError, CallError):
    _cls.__module__ = "parmc"      # tracebacks say parmc.CompileError, the name users catch
