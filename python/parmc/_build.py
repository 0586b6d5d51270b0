"""compile(): parmc, then nvcc or the C compiler, into a cache directory keyed by everything
that decides the library; load(): a library and its manifest into a Program."""
import ctypes
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from . import _manifest
from ._errors import ArgumentTypeError, ArgumentValueError, CompileError, ToolError
from ._program import Program

CACHE_FORMAT = 1        # bump when the layout of a cache entry changes
_versions = {}          # (parmc path, mtime, size) -> `parmc --version`
_programs = {}          # cache directory -> its loaded Program


BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "parmc")


def find_parmc():
    """$PARMC when set; else the parmc built with the package (parmc/_bin, its stdlib in
    parmc/share/parmc/stdlib); else parmc on PATH."""
    env = os.environ.get("PARMC")
    if env:
        path = shutil.which(env)
        if not path:
            raise ToolError(f"PARMC={env} is not an executable file")
        return os.path.abspath(path)
    if os.access(BUNDLED, os.X_OK):
        return BUNDLED
    path = shutil.which("parmc")
    if not path:
        raise ToolError("cannot find the parmc compiler: this package was installed without one (pip builds it "
                        "from the parmc source tree around python/); put parmc on PATH (make install PREFIX=DIR, "
                        "then DIR/bin) or set PARMC=/path/to/parmc")
    return os.path.abspath(path)


def parmc_version(parmc):
    """parmc's version and a digest of the binary: a rebuilt compiler of the same version
    (a developer's) builds the programs again rather than reusing what the old one made."""
    st = os.stat(parmc)
    key = (parmc, st.st_mtime_ns, st.st_size)
    if key not in _versions:
        with open(parmc, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:16]
        _versions[key] = f'{_run([parmc, "--version"], "parmc --version").strip()} {digest}'
    return _versions[key]


_tunings = {}           # parmc path -> the names of its tuning options


def _tuning_options(parmc):
    """$PARMC_OPTIONS split, each option one of the tuning options of `parmc --help` (those
    change how kernels are scheduled, not what they compute, nor where parmc writes)."""
    options = shlex.split(os.environ.get("PARMC_OPTIONS", ""))
    if options and parmc not in _tunings:
        help_text = _run([parmc, "--help"], "parmc --help")
        tuning = help_text[help_text.find("tuning options"):]
        _tunings[parmc] = set(re.findall(r"^  (--[a-z-]+)", tuning, re.M))
    for option in options:
        if option.startswith("-") and option.split("=")[0] not in _tunings[parmc]:
            raise CompileError(f"$PARMC_OPTIONS: {option} is not one of parmc's tuning options "
                               f"({', '.join(sorted(_tunings[parmc]))})")
    return options


def _run(cmd, what, cwd=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    except OSError as e:
        raise ToolError(f"cannot run {cmd[0]} ({what}): {e.strerror}") from None
    if p.returncode != 0:
        raise CompileError(f"{what} failed (exit {p.returncode}):\n{p.stderr.strip() or p.stdout.strip()}")
    return p.stdout


def find_nvcc():
    env = os.environ.get("NVCC")
    if env:
        return shlex.split(env)
    for cand in (shutil.which("nvcc"), os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")):
        if cand and os.access(cand, os.X_OK):
            return [cand]
    return None


def _gpu_present():
    torch = sys.modules.get("torch")
    if torch is not None:
        return torch.cuda.is_available()
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        try:
            return cupy.cuda.runtime.getDeviceCount() > 0
        except Exception:
            return False
    try:
        p = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return False
    return p.returncode == 0 and "GPU" in p.stdout


def auto_target():
    """$PARMC_TARGET if set; else cuda when nvcc and a GPU are there, else c."""
    env = os.environ.get("PARMC_TARGET")
    if env:
        return env
    return "cuda" if find_nvcc() and _gpu_present() else "c"


def auto_arch():
    """sm_XY of the current GPU as PyTorch or CuPy (when imported) or nvidia-smi tell it; sm_90 if none does."""
    torch, cupy = sys.modules.get("torch"), sys.modules.get("cupy")
    try:
        if torch is not None and torch.cuda.is_available():
            major, minor = torch.cuda.get_device_capability()
            return f"sm_{major}{minor}"
        if cupy is not None:
            return f"sm_{cupy.cuda.Device().compute_capability}"
    except Exception:
        pass
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        m = re.match(r"\s*(\d+)\.(\d+)", p.stdout) if p.returncode == 0 else None
        if m:
            return f"sm_{m.group(1)}{m.group(2)}"
    except OSError:
        pass
    return "sm_90"


def cache_root():
    env = os.environ.get("PARMC_CACHE")
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "parmc")


_IMPORT = re.compile(r'^import[ \t]+"([^"\n]*)"', re.M)


def _imported_files(text, include, parmc):
    """The files that text imports, transitively, found as parmc finds them (the -I
    directories, then the stdlib beside the parmc executable): {name: contents}. A name not
    found is left out (parmc reports it)."""
    bindir = os.path.dirname(parmc)
    stdlib = next((d for d in (os.path.join(bindir, "..", "share", "parmc", "stdlib"), os.path.join(bindir, "..", "stdlib"))
                   if os.path.isdir(d)), None)
    dirs = list(include) + ([stdlib] if stdlib else [])
    found, todo = {}, _IMPORT.findall(text)
    while todo:
        name = todo.pop()
        if name in found:
            continue
        for d in dirs:
            path = os.path.join(d, name + ".parm")
            if os.path.isfile(path):
                with open(path, encoding="utf-8", errors="replace") as f:
                    found[name] = f.read()
                todo += _IMPORT.findall(found[name])
                break
    return found


def _stem(name):
    s = re.sub(r"\W", "_", name)
    return s if s and not s[0].isdigit() else "p_" + s


def _is_path(src):
    if isinstance(src, os.PathLike):
        return True
    return isinstance(src, str) and "\n" not in src and (src.endswith(".parm") or os.path.isfile(src))


def compile(source, target=None, prefix=None, include=(), arch=None, flags=(), cache_dir=None, rebuild=False):
    """Compile a parm program (a path, or the source text itself) and load it.

    target: "cuda", "c", or None for auto_target(). prefix: the API prefix (parmc --prefix;
    default: parmc's, from the file name). include: -I directories. arch: nvcc's -arch
    (default auto_arch()). flags: more flags for nvcc or the C compiler. The library is built
    once into the cache (cache_dir, default $PARMC_CACHE or ~/.cache/parmc) and reused while
    the source, its imports, the options and `parmc --version` stay the same; rebuild=True
    builds it again. $PARMC_OPTIONS: more options for parmc, its tuning options
    (`--tile-bytes 64K`, ...; parmc --help), for every program built, the drop-ins' too."""
    parmc = find_parmc()
    options = _tuning_options(parmc)
    if _is_path(source):
        path = os.fspath(source)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            # the error's own class (IsADirectoryError, PermissionError, ...), its message naming the program
            raise type(e)(e.errno, f"cannot read the parm program {path}: {e.strerror}", path) from None
        stem = _stem(os.path.splitext(os.path.basename(path))[0])
    elif isinstance(source, str):
        path, text, stem = None, source, "prog"
    else:
        raise ArgumentTypeError(f"parmc.compile: argument 'source': expected a path or source text, got "
                                f"{type(source).__name__}")
    chosen = target or auto_target()
    if chosen not in ("cuda", "c"):
        # with no target given, the bad one is $PARMC_TARGET's (auto_target), not an argument
        what = "argument 'target'" if target else "$PARMC_TARGET (target=None takes it)"
        raise ArgumentValueError(f"parmc.compile: {what} must be 'cuda' or 'c', got {chosen!r}")
    target = chosen
    if prefix is not None and not (isinstance(prefix, str) and prefix.isidentifier()):
        raise ArgumentValueError(f"parmc.compile: argument 'prefix' must be a C identifier, got {prefix!r}")
    include = [os.path.abspath(d) for d in _strings("include", include, os.PathLike)]
    flags = shlex.split(flags) if isinstance(flags, str) else _strings("flags", flags)   # "-O3 -g" as the shell splits it
    if target == "cuda":
        nvcc = find_nvcc()
        if not nvcc:
            raise ToolError("cannot find nvcc for target 'cuda': put it on PATH or set NVCC (or CUDA_HOME)")
        arch = arch or auto_arch()
        native = nvcc + ["-O3", "-shared", "-Xcompiler", "-fPIC", f"-arch={arch}", *flags]
    else:
        native = shlex.split(os.environ.get("CC", "cc")) + ["-std=c11", "-O2", "-shared", "-fPIC", *flags]
    stem = prefix or stem
    # the stem names the entry's files (libSTEM.so, STEM.json) and, with no prefix, is the
    # API prefix: two files of one text under other names (or a file and its text, "prog")
    # are other libraries
    key = hashlib.sha256(json.dumps({
        "cache": CACHE_FORMAT, "parmc": parmc_version(parmc), "target": target, "prefix": prefix, "stem": stem,
        "include": include, "native": native, "source": text, "options": options,
        "imports": _imported_files(text, include, parmc)}, sort_keys=True).encode()).hexdigest()[:32]
    root = cache_dir or cache_root()
    final = os.path.join(root, key)
    if rebuild or not os.path.isdir(final):
        tools = "parmc, then nvcc" if target == "cuda" else "parmc, then the C compiler"
        with _progress(stem, f"({tools}) into {final}"):
            _build(parmc, path, text, stem, target, prefix, include, native, root, final, rebuild, options)
    prog = _programs.get(final)
    if prog is None:
        prog = _programs[final] = load(os.path.join(final, f"lib{stem}.so"))
        prog.cache_dir = final
    return prog


def _strings(name, value, *kinds):
    """Argument `name` of compile, a str (or one of kinds) or a sequence of them, as a list;
    else an ArgumentTypeError naming it, before anything runs (an int was Python's "'int'
    object is not iterable", a None in flags subprocess's TypeError after parmc ran)."""
    kinds = (str,) + kinds
    items = [value] if isinstance(value, kinds) else value
    if isinstance(items, (list, tuple)) and all(isinstance(v, kinds) for v in items):
        return list(items)
    what = "a path or a sequence of paths" if kinds[1:] else "a string or a sequence of strings"
    got = type(value).__name__ if not isinstance(items, (list, tuple)) else \
        f"a {type(value).__name__} holding {type(next(v for v in items if not isinstance(v, kinds))).__name__}"
    raise ArgumentTypeError(f"parmc.compile: argument '{name}': expected {what}, got {got}")


class _progress:
    """A build's progress on stderr, since a first call can wait a minute for nvcc: "parmc:
    building NAME HOW ..." once it has taken $PARMC_PROGRESS seconds (default 1; 0 at once;
    "off" never), then "parmc: built NAME in N s" (or "failed") when it ends. A build that
    ends sooner says nothing."""

    def __init__(self, name, how):
        self.name, self.how = name, how
        setting = os.environ.get("PARMC_PROGRESS", "1")
        try:
            self.delay = float(setting)
        except ValueError:
            self.delay = None if setting == "off" else 1.0
        self.said = False

    def __enter__(self):
        self.start = time.monotonic()
        if self.delay is not None:
            self.timer = threading.Timer(self.delay, self._say, (f"parmc: building {self.name} {self.how} ...",))
            self.timer.daemon = True
            self.timer.start()
        return self

    def __exit__(self, kind, value, tb):
        if self.delay is None:
            return
        self.timer.cancel()
        self.timer.join()
        if self.said:
            outcome = "failed" if kind else "built"
            _say_line(f"parmc: {outcome} {self.name} in {time.monotonic() - self.start:.1f} s")

    def _say(self, line):
        self.said = True
        _say_line(line)


def _say_line(line):
    """One line on stderr in one write, so that builds on several threads print whole lines."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def cuda_library(source, name, headers=()):
    """The ctypes library that nvcc builds from the CUDA source file `source` (a runtime
    helper of the package, not a parm program: python/parmc/_radix.cu), which includes the
    headers (files beside it, part of the cache's key as the source is)."""
    nvcc = find_nvcc()
    if not nvcc:
        raise ToolError("cannot find nvcc: put it on PATH or set NVCC (or CUDA_HOME)")
    texts = [read_text(path) for path in (source,) + tuple(headers)]
    native = nvcc + ["-O3", "-shared", "-Xcompiler", "-fPIC", f"-arch={auto_arch()}",
                     f"-I{os.path.dirname(os.path.abspath(source))}"]
    return _helper_library(native, texts[0], name, "nvcc", ".cu", texts[1:])


def read_text(path):
    """A helper's source file (a package file beside this one), as text."""
    with open(path, encoding="utf-8") as f:
        return f.read()


def cxx_library(text, name, include, headers=()):
    """The ctypes library that the C++ compiler ($CXX, else c++) builds from the source text (a
    runtime helper of the package: _jax.py's shims) with the include directories, where it
    includes the headers (texts, part of the cache's key as the source is)."""
    cxx = shlex.split(os.environ.get("CXX", "c++"))
    if not shutil.which(cxx[0]):
        raise ToolError(f"cannot find the C++ compiler {cxx[0]}: install one (Debian/Ubuntu: g++) or set CXX")
    native = cxx + ["-std=c++17", "-O2", "-shared", "-fPIC"] + [f"-I{d}" for d in include]
    return _helper_library(native, text, name, "the C++ compiler", ".cc", headers)


def _helper_library(native, text, name, what, suffix, headers=()):
    """A helper's library, built by the command `native` from the source text once into the
    cache, keyed by the text, the headers' texts and the command; the caller keeps what it
    loads."""
    key = hashlib.sha256(json.dumps({"cache": CACHE_FORMAT, "native": native, "source": text,
                                     "headers": list(headers)}, sort_keys=True).encode()).hexdigest()[:32]
    root = cache_root()
    final = os.path.join(root, key)
    library = os.path.join(final, f"lib{name}.so")

    def fill(tmp):
        src = os.path.join(tmp, name + suffix)
        with open(src, "w", encoding="utf-8") as f:
            f.write(text)
        _run(native + [src, "-o", os.path.join(tmp, f"lib{name}.so")], what)
    if not os.path.isfile(library):
        with _progress(name, f"({what}) into {final}"):
            _into_cache(root, final, False, fill)
    return ctypes.CDLL(library)


def _build(parmc, path, text, stem, target, prefix, include, native, root, final, rebuild, options):
    """Builds the library of a parm program into the cache (_into_cache)."""
    _into_cache(root, final, rebuild, lambda tmp: _build_in(tmp, parmc, path, text, stem, target, prefix, include,
                                                             native, options))


def _into_cache(root, final, rebuild, fill):
    """fill(tmp) builds into a temporary directory of root, which is then renamed to final, so
    that a process sees either no entry or a whole one; when two build at once, the first
    rename wins."""
    os.makedirs(root, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".build-", dir=root)
    try:
        fill(tmp)
        if rebuild and os.path.isdir(final):
            _programs.pop(final, None)
            shutil.rmtree(final, ignore_errors=True)
        try:
            os.rename(tmp, final)
        except OSError:
            if not os.path.isdir(final):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _build_in(tmp, parmc, path, text, stem, target, prefix, include, native, options):
    """parmc (with options), then the native compiler, into the directory tmp."""
    src = path
    if src is None:     # source text: parmc runs in tmp, so that messages name just the file
        src = f"{stem}.parm"
        with open(os.path.join(tmp, src), "w", encoding="utf-8") as f:
            f.write(text)
    out = os.path.join(tmp, f"{stem}.{'cu' if target == 'cuda' else 'c'}")
    cmd = [parmc, f"--target={target}", *[f"-I{d}" for d in include]]
    cmd += [f"--prefix={prefix}"] if prefix else []
    _run(cmd + options + [src, "-o", out], "parmc", cwd=tmp if path is None else None)
    manifest = os.path.join(tmp, f"{stem}.json")
    if not os.path.isfile(manifest):
        raise CompileError(f"{parmc} wrote no manifest {stem}.json beside {stem}.h: this parmc is older than the "
                           "Python package (it needs one that writes NAME.json, docs/api.md)")
    _run(native + [out, "-o", os.path.join(tmp, f"lib{stem}.so")] + (["-lm"] if target == "c" else []),
         "nvcc" if target == "cuda" else "the C compiler")


def load(library, manifest=None):
    """A Program from a shared library built from parmc's output and its manifest (default:
    NAME.json beside libNAME.so or NAME.so)."""
    library = os.fspath(library)
    if manifest is None:
        d, base = os.path.split(library)
        name = os.path.splitext(base)[0]
        name = name[3:] if name.startswith("lib") and not os.path.isfile(os.path.join(d, name + ".json")) else name
        manifest = os.path.join(d, name + ".json")
    return Program(library, _manifest.load(manifest))
