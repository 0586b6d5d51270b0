# The Python package (python/, docs/python.md) through the C target and NumPy:
# tests/python/test_numpy.py, one line a test; then `pip install` of the package.
# The GPU paths (PyTorch, CuPy) are tests/gpu/python.sh, run on a GPU machine.
if ! python3 -c 'import numpy' 2>/dev/null; then
    fail "python: numpy is missing (.ci/install-deps.sh installs it: python3 -m pip install numpy)"
else
    PARMC="$(cd "$(dirname "$PARMC")" && pwd)/$(basename "$PARMC")" python3 tests/python/run.py test_numpy \
        >"$TMP/py.out" 2>"$TMP/py.err"
    while read -r status name rest; do
        case $status in
        ok) pass ;;
        FAIL) fail "python $name $rest" ;;
        esac
    done <"$TMP/py.out"
    grep -q '^ok ' "$TMP/py.out" || fail "python: no test ran: $(tail -3 "$TMP/py.err")"
    grep -q '^FAIL' "$TMP/py.out" && sed -n '1,60p' "$TMP/py.err"
fi

# `pip install ./python` works (from a copy: a build leaves files beside its source;
# pip fetches the build backend, setuptools, as it would for a user)
if python3 -m pip --version >/dev/null 2>&1; then
    cp -r python "$TMP/pysrc"
    if python3 -m pip install -q --no-deps --disable-pip-version-check --root-user-action=ignore \
        --target "$TMP/pysite" "$TMP/pysrc" >"$TMP/pip.out" 2>&1 &&
        [ "$(cd "$TMP" && PYTHONPATH="$TMP/pysite" python3 -c 'import parmc; print(parmc.__file__)')" = "$TMP/pysite/parmc/__init__.py" ]; then
        pass
    else
        fail "python: pip install of python/: $(tail -3 "$TMP/pip.out")"
    fi
fi
