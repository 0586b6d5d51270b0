"""Builds parmc itself while the package is built, as the cmake and ninja packages ship
their executables, and puts it in the package as parmc/_bin/parmc with the stdlib as
parmc/share/parmc/stdlib, where parmc finds it beside its executable
(compiler/front/imports.c: DIR/../share/parmc/stdlib). parmc comes from one of:

- the parmc repository around this directory (or $PARMC_SOURCE_DIR): `make build/parmc`,
  which needs make, a C compiler, re2c and lemon (the lexer and parser are generated,
  never kept in git);
- the sources an sdist carries (parmc-source/, put there by `python -m build` or
  `setup.py sdist` in the repository): the C files with the generated lexer, parser and
  runtime text already made, compiled by the C compiler alone ($CC, or cc).

With neither (PARMC_BUNDLE=0, or a copy of python/ alone) the package is pure Python and
finds parmc through $PARMC or PATH."""
import concurrent.futures
import glob
import json
import os
import shlex
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
SDIST_SOURCES = os.path.join(HERE, "parmc-source")   # in an unpacked sdist only
BUILD_RECIPE = "build.json"                          # in parmc-source: the files and flags
CARRIED_DIRS = ("compiler", "runtime", "stdlib")     # copied whole into an sdist


def source_tree():
    """The parmc repository to build from, or None when there is none (or PARMC_BUNDLE=0)."""
    if os.environ.get("PARMC_BUNDLE", "1") == "0":
        return None
    root = os.environ.get("PARMC_SOURCE_DIR") or os.path.dirname(HERE)
    if os.path.isfile(os.path.join(root, "compiler", "stages")) and os.path.isfile(os.path.join(root, "Makefile")):
        return root
    if os.environ.get("PARMC_SOURCE_DIR"):
        raise SystemExit(f"PARMC_SOURCE_DIR={root} is not the parmc source tree (no compiler/stages)")
    return None


def sdist_sources():
    """An sdist's parmc-source/, or None (or PARMC_BUNDLE=0)."""
    if os.environ.get("PARMC_BUNDLE", "1") == "0":
        return None
    return SDIST_SOURCES if os.path.isfile(os.path.join(SDIST_SOURCES, BUILD_RECIPE)) else None


def bundled():
    return source_tree() is not None or sdist_sources() is not None


def need_tools(tools):
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        raise SystemExit(f"building parmc needs {', '.join(missing)} (Debian/Ubuntu: sudo apt-get install make gcc "
                         "re2c lemon; or `bash .ci/install-deps.sh` in the parmc tree)")


def c_compiler():
    return shlex.split(os.environ.get("CC", "cc"))


def make(root, *args):
    """make in the repository, with output captured (an sdist's build must not print its lines)."""
    return subprocess.run(["make", "-s", "--no-print-directory", "-C", root, *args], check=True,
                          capture_output=True, text=True).stdout


def make_parmc(root):
    """build/parmc of the repository; returns the executable and the stdlib folder."""
    need_tools(["make", c_compiler()[0], "re2c", "lemon"])
    make(root, "build/parmc")
    return os.path.join(root, "build", "parmc"), os.path.join(root, "stdlib")


def build_recipe(root):
    """The translation units and flags of build/parmc, from the Makefile (make print-build)."""
    fields = {}
    for line in make(root, "print-build").splitlines():
        key, sep, value = line.partition(": ")
        if sep and key in ("sources", "flags"):
            fields[key] = value.split()
    if set(fields) != {"sources", "flags"}:
        raise SystemExit("make print-build did not name the sources and flags")
    return fields


def compile_sources(src, out_dir):
    """parmc from an sdist's sources with the C compiler alone, one process a file."""
    with open(os.path.join(src, BUILD_RECIPE)) as f:
        recipe = json.load(f)
    cc = c_compiler()
    need_tools([cc[0]])
    out_dir = os.path.abspath(out_dir)   # the compiles run in src
    os.makedirs(out_dir, exist_ok=True)

    def compile_one(unit):
        obj = os.path.join(out_dir, os.path.basename(unit)[:-2] + ".o")
        subprocess.run([*cc, *recipe["flags"], "-O2", "-c", unit, "-o", obj], cwd=src, check=True)
        return obj

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        objs = list(pool.map(compile_one, recipe["sources"]))
    exe = os.path.join(out_dir, "parmc")
    subprocess.run([*cc, *objs, "-o", exe, "-lm"], check=True)
    return exe, os.path.join(src, "stdlib")


class BuildWithParmc(build_py):
    """build_py, then parmc and its stdlib into the package."""

    def run(self):
        super().run()
        pkg = os.path.join(self.build_lib, "parmc")
        for old in ("_bin", "share"):   # left by an earlier build in this directory
            shutil.rmtree(os.path.join(pkg, old), ignore_errors=True)
        root, carried = source_tree(), sdist_sources()
        if root is not None:
            exe, stdlib = make_parmc(root)
        elif carried is not None:
            build_temp = self.get_finalized_command("build").build_temp
            exe, stdlib = compile_sources(carried, os.path.join(build_temp, "parmc-objs"))
        else:
            self.announce("parmc: no parmc sources: the package uses $PARMC or parmc on PATH", level=3)
            return
        bindir, stdlib_out = os.path.join(pkg, "_bin"), os.path.join(pkg, "share", "parmc", "stdlib")
        os.makedirs(bindir, exist_ok=True)
        os.makedirs(stdlib_out, exist_ok=True)
        shutil.copy2(exe, os.path.join(bindir, "parmc"))
        for f in sorted(glob.glob(os.path.join(stdlib, "*.parm"))):
            shutil.copy2(f, stdlib_out)


class SdistWithSources(sdist):
    """The sdist carries parmc's sources as parmc-source/: compiler/, runtime/ and
    stdlib/ as they are, the generated files of build/gen, and build.json naming the
    translation units and flags, so that a wheel builds from it with a C compiler alone."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        root = source_tree()
        if root is None:
            if sdist_sources() is None:
                raise SystemExit("an sdist of parmc needs the parmc repository around python/ (or PARMC_SOURCE_DIR)")
            shutil.copytree(SDIST_SOURCES, os.path.join(base_dir, "parmc-source"))   # an sdist of an sdist
            return
        need_tools(["make", "re2c", "lemon"])
        recipe = build_recipe(root)
        dest = os.path.join(base_dir, "parmc-source")
        for d in CARRIED_DIRS:
            shutil.copytree(os.path.join(root, d), os.path.join(dest, d), ignore=shutil.ignore_patterns("__pycache__"))
        generated = [u for u in recipe["sources"] if u.startswith("build/")] + ["build/gen/parser.h"]
        for path in generated:
            os.makedirs(os.path.dirname(os.path.join(dest, path)), exist_ok=True)
            shutil.copy2(os.path.join(root, path), os.path.join(dest, path))
        with open(os.path.join(dest, BUILD_RECIPE), "w") as f:
            json.dump(recipe, f, indent=1)


class PlatformDistribution(Distribution):
    """A wheel holding an executable is for one platform, not py3-none-any."""

    def has_ext_modules(self):
        return bundled()


try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:     # setuptools before 70.1: the wheel package's
    from wheel.bdist_wheel import bdist_wheel


class PlatformWheel(bdist_wheel):
    """py3-none-PLATFORM: the executable does not depend on the Python version."""

    def get_tag(self):
        python, abi, plat = super().get_tag()
        return ("py3", "none", plat) if bundled() else (python, abi, plat)


setup(cmdclass={"build_py": BuildWithParmc, "sdist": SdistWithSources, "bdist_wheel": PlatformWheel},
      distclass=PlatformDistribution)
