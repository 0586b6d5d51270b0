"""Builds parmc itself while the package is built, as the cmake and ninja packages ship
their executables: `make build/parmc` in the parmc source tree (the parent of this
directory, or $PARMC_SOURCE_DIR), then build/parmc goes to parmc/_bin/parmc and the
stdlib to parmc/share/parmc/stdlib, where parmc finds it beside its executable
(compiler/imports.c: DIR/../share/parmc/stdlib). Building needs make, a C compiler,
re2c and lemon (the lexer and parser are generated, never kept in git).

Without a source tree (PARMC_BUNDLE=0, or a copy of python/ alone) the package is
pure Python and finds parmc through $PARMC or PATH."""
import glob
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


def source_tree():
    """The parmc sources to build from, or None when there are none (or PARMC_BUNDLE=0)."""
    if os.environ.get("PARMC_BUNDLE", "1") == "0":
        return None
    root = os.environ.get("PARMC_SOURCE_DIR") or os.path.dirname(HERE)
    if os.path.isfile(os.path.join(root, "compiler", "driver.c")) and os.path.isfile(os.path.join(root, "Makefile")):
        return root
    if os.environ.get("PARMC_SOURCE_DIR"):
        raise SystemExit(f"PARMC_SOURCE_DIR={root} is not the parmc source tree (no compiler/driver.c)")
    return None


def bundled():
    return source_tree() is not None


class BuildWithParmc(build_py):
    """build_py, then parmc and its stdlib into the package."""

    def run(self):
        super().run()
        root = source_tree()
        pkg = os.path.join(self.build_lib, "parmc")
        for old in ("_bin", "share"):   # left by an earlier build in this directory
            shutil.rmtree(os.path.join(pkg, old), ignore_errors=True)
        if root is None:
            self.announce("parmc: no source tree beside python/: the package uses $PARMC or parmc on PATH", level=3)
            return
        missing = [t for t in ("make", os.environ.get("CC", "cc").split()[0], "re2c", "lemon") if not shutil.which(t)]
        if missing:
            raise SystemExit(f"building parmc needs {', '.join(missing)} (Debian/Ubuntu: sudo apt-get install make gcc "
                             "re2c lemon; or `bash .ci/install-deps.sh` in the parmc tree)")
        subprocess.run(["make", "-s", "-C", root, "build/parmc"], check=True)
        bindir, stdlib = os.path.join(pkg, "_bin"), os.path.join(pkg, "share", "parmc", "stdlib")
        os.makedirs(bindir, exist_ok=True)
        os.makedirs(stdlib, exist_ok=True)
        shutil.copy2(os.path.join(root, "build", "parmc"), os.path.join(bindir, "parmc"))
        for f in sorted(glob.glob(os.path.join(root, "stdlib", "*.parm"))):
            shutil.copy2(f, stdlib)


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


setup(cmdclass={"build_py": BuildWithParmc, "bdist_wheel": PlatformWheel}, distclass=PlatformDistribution)
