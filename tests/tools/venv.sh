#!/usr/bin/env bash
# tests/tools/venv.sh DIR: the tests' Python environment, a virtual environment
# in DIR (make test: build/venv) holding numpy, setuptools and wheel to install
# python/ into it without fetching them again (pip --no-build-isolation),
# build to make the package's sdist and wheel, and jax (its CPU backend) for
# the entries and drop-ins on JAX arrays (section 80-python). The user's
# own Python environment is left alone. Made once, then reused while it holds
# the same packages; a lock keeps sections that start together from making it
# twice.
set -eu
dir=$1
packages="numpy setuptools>=61 wheel build jax"
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
[ "$(cat "$dir/.complete" 2>/dev/null)" = "$packages" ] && exit 0
rm -rf "$dir"
python3 -m venv "$dir"
# shellcheck disable=SC2086  # the packages are words
"$dir/bin/python" -m pip install -q --disable-pip-version-check $packages
echo "$packages" >"$dir/.complete"
