#!/usr/bin/env bash
# Install the build tools parmc needs (re2c, lemon, a C compiler, python3)
# with apt-get when they are missing, and numpy for the Python package's tests
# (tests/sections/80-python.sh) with pip. Safe to run repeatedly.
set -eu
missing=()
command -v re2c >/dev/null || missing+=(re2c)
command -v lemon >/dev/null || missing+=(lemon)
command -v cc >/dev/null || missing+=(gcc)
command -v make >/dev/null || missing+=(make)
command -v python3 >/dev/null || missing+=(python3)
# the fuzzer (make fuzz): clang with its libFuzzer and sanitizer runtimes
command -v clang >/dev/null || missing+=(clang)
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || missing+=(libclang-rt-dev)
# numpy for the python3 on PATH: pip where that python3 has it, else Debian's package
if command -v python3 >/dev/null && ! python3 -c 'import numpy' 2>/dev/null; then
    if python3 -m pip --version >/dev/null 2>&1; then
        python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore numpy
    else
        missing+=(python3-numpy)
    fi
fi
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
