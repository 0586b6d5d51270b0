#!/usr/bin/env bash
# tests/tools/venv.sh DIR: the tests' Python environment, a virtual environment
# in DIR (make test: build/venv) holding numpy, and setuptools and wheel to
# install python/ into it without fetching them again (pip --no-build-isolation).
# The user's own Python environment is left alone. Made once, then reused; a
# lock keeps sections that start together from making it twice.
set -eu
dir=$1
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
[ -e "$dir/.complete" ] && exit 0
rm -rf "$dir"
python3 -m venv "$dir"
"$dir/bin/python" -m pip install -q --disable-pip-version-check numpy 'setuptools>=61' wheel
touch "$dir/.complete"
