"""What the tests/python modules share: the repository root, the Python package of this tree
on sys.path, the parmc under test ($PARMC, else build/parmc), and a cache of each module's own
(setUpModule and tearDownModule, which a module takes by importing them), so that no module
reads the programs another one built."""
import os
import shutil
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
PARMC = os.path.abspath(os.environ.get("PARMC") or os.path.join(ROOT, "build", "parmc"))
_caches = []


def setUpModule():
    os.environ["PARMC"] = PARMC
    _caches.append(tempfile.mkdtemp(prefix="parmc-cache-"))
    os.environ["PARMC_CACHE"] = _caches[-1]


def tearDownModule():
    shutil.rmtree(_caches.pop(), ignore_errors=True)
