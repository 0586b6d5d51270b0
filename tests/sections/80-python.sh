# The Python package (python/, docs/python.md) through the C target and NumPy:
# tests/python/test_numpy.py, test_sort.py (parmc.sort, argsort, topk),
# test_segmented.py (segmented_sort, segmented_topk) and test_jax.py (entries
# and drop-ins on JAX arrays, JAX's CPU backend), one line a test; then
# `pip install ./python` with the parmc it builds and bundles. Both run in the tests' virtual environment, build/venv
# (tests/tools/venv.sh: numpy, setuptools, wheel, build, jax), never in the user's own
# Python; and the sdist and the wheel built from it with a C compiler alone.
# The GPU paths (PyTorch, CuPy) are tests/gpu/python.sh and
# tests/gpu/sort_ops.sh,
# run on a GPU machine.
# the kernels of the top-k by delegates (python/parmc/_select.cu), built on the host with the
# sanitizers, against a reference top-k of whole rows
if c++ -std=c++17 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
    tests/python/select_host.cpp -o "$TMP/select_host" 2>"$TMP/select_host.err"; then
    out=$("$TMP/select_host" 2>&1)
    case $(printf '%s\n' "$out" | tail -1) in
    *" passed, 0 failed") pass ;;
    *) fail "python: _select.cu's kernels on the host: $(printf '%s\n' "$out" | head -3)" ;;
    esac
else
    fail "python: tests/python/select_host.cpp does not build: $(head -5 "$TMP/select_host.err")"
fi
VENV=build/venv
if ! bash tests/tools/venv.sh "$VENV" >"$TMP/venv.out" 2>&1; then
    fail "python: cannot make the tests' virtual environment $VENV: $(tail -3 "$TMP/venv.out")"
    return 0
fi
PY=$VENV/bin/python

PARMC="$(cd "$(dirname "$PARMC")" && pwd)/$(basename "$PARMC")" $PY tests/python/run.py test_numpy test_sort test_segmented test_jax \
    >"$TMP/py.out" 2>"$TMP/py.err"
while read -r status name rest; do
    case $status in
    ok) pass ;;
    FAIL) fail "python $name $rest" ;;
    esac
done <"$TMP/py.out"
grep -q '^ok ' "$TMP/py.out" || fail "python: no test ran: $(tail -3 "$TMP/py.err")"
# build/venv holds jax, so its tests must run here
grep -q '^skip test_jax' "$TMP/py.out" && fail "python: test_jax skipped: $(grep -m1 '^skip test_jax' "$TMP/py.out")"
grep -q '^FAIL' "$TMP/py.out" && sed -n '1,60p' "$TMP/py.err"

# `pip install ./python` builds parmc (make build/parmc in this tree) and ships
# it with its stdlib and the CUDA sources of its helpers (_radix.cu, _select.cu, _ranks.cuh): `import parmc`
# then compiles with no PARMC and no parmc on PATH (the README's NumPy example). The unit tests above import python/ itself.
if env -u MAKEFLAGS -u MAKELEVEL $PY -m pip install -q --no-deps --no-build-isolation --disable-pip-version-check \
    ./python >"$TMP/pip.out" 2>&1; then
    out=$(root=$PWD && cd "$TMP" && env -u PARMC PATH=/usr/bin:/bin PARMC_CACHE="$TMP/pycache" "$root/$PY" -c '
import os, sys, parmc, numpy as np
from parmc import _radix, _select
print(os.path.relpath(parmc.find_parmc(), os.path.dirname(parmc.__file__)),
      all(os.path.isfile(f) for f in (_radix.SOURCE, _radix.RANKS, _select.SOURCE)))
print(parmc.compile(os.path.join(sys.argv[1], "examples/sort.parm"), target="c").main(
    np.arange(2**20, 0, -1, dtype=np.int32))[:4])' "$root" 2>"$TMP/installed.err")
    if [ "$out" = "$(printf '_bin/parmc True\n[1 2 3 4]')" ]; then pass
    else fail "python: the installed package: $out $(tail -3 "$TMP/installed.err")"; fi
else
    fail "python: pip install ./python: $(tail -3 "$TMP/pip.out")"
fi

# The release flow (docs/python.md, "Installing"): `python -m build --sdist`
# carries parmc's sources with the lexer, parser and runtime text already
# generated; the wheel built from that sdist with only a C compiler on PATH
# (no make, re2c or lemon) holds parmc and its stdlib and, installed with the
# same PATH, sorts and selects through the C target.
dist=$TMP/dist tools=$TMP/tools
mkdir -p "$tools"
for t in cc as ld sh; do ln -s "$(command -v $t)" "$tools/$t"; done
root=$PWD
if ! env -u MAKEFLAGS -u MAKELEVEL $PY -m build -q --no-isolation --sdist --outdir "$dist" python >"$TMP/sdist.out" 2>&1; then
    fail "python: python -m build --sdist: $(tail -3 "$TMP/sdist.out")"
elif PATH=$tools sh -c 'command -v make || command -v re2c || command -v lemon' >/dev/null; then
    fail "python: the wheel's PATH still has make, re2c or lemon"
elif ! (cd "$TMP" && env -u PARMC_SOURCE_DIR PATH="$tools" "$root/$PY" -m pip wheel -q --no-deps --no-build-isolation \
        --disable-pip-version-check -w "$dist" "$dist"/parmc-*.tar.gz) >"$TMP/wheel.out" 2>&1; then
    fail "python: a wheel from the sdist with a C compiler alone: $(grep -i error "$TMP/wheel.out" | tail -3)"
elif ! (cd "$TMP" && PATH="$tools" "$root/$PY" -m pip install -q --no-deps --disable-pip-version-check \
        --target "$TMP/site" "$dist"/parmc-*-py3-none-*.whl) >"$TMP/whl-install.out" 2>&1; then
    fail "python: installing the wheel: $(tail -3 "$TMP/whl-install.out")"
else
    out=$(cd "$TMP" && env -u PARMC PATH="$tools" PYTHONPATH="$TMP/site" PARMC_CACHE="$TMP/whlcache" "$root/$PY" -c '
import os, parmc, numpy as np
print(os.path.relpath(parmc.find_parmc(), os.environ["PYTHONPATH"]))
values, indices = parmc.topk(np.array([[0.1, 2.5, -1.0, 2.5]], np.float32), 2)
print(values.tolist(), indices.tolist(), parmc.sort(np.arange(5, 0, -1, dtype=np.int32)).values.tolist())' 2>"$TMP/whl.err")
    if [ "$out" = "$(printf 'parmc/_bin/parmc\n[[2.5, 2.5]] [[1, 3]] [1, 2, 3, 4, 5]')" ]; then pass
    else fail "python: the wheel built from the sdist: $out $(tail -3 "$TMP/whl.err")"; fi
fi
