#!/usr/bin/env bash
# Install what parmc's build and tests need, with apt-get, when missing:
#   .ci/install-deps.sh        make, a C compiler, re2c and lemon (the lexer and
#                              parser are generated), python3 (test tools, make
#                              demo's input) and its venv module (the tests'
#                              build/venv, tests/tools/venv.sh), and a C++
#                              compiler (the JAX handlers of python/parmc/_jax.py),
#                              and clang-format (make test's format check,
#                              tests/sections/13-format.sh)
#   .ci/install-deps.sh fuzz   clang and its libFuzzer and sanitizer runtimes
#                              (libclang-rt-dev), for make fuzz only
# Nothing goes into the user's Python: the tests' numpy is installed into
# build/venv. Safe to run repeatedly.
set -eu
missing=()
if [ "${1:-}" = fuzz ]; then
    command -v clang >/dev/null || missing+=(clang)
    ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || missing+=(libclang-rt-dev)
else
    command -v re2c >/dev/null || missing+=(re2c)
    command -v lemon >/dev/null || missing+=(lemon)
    command -v cc >/dev/null || missing+=(gcc)
    command -v c++ >/dev/null || missing+=(g++)
    command -v make >/dev/null || missing+=(make)
    command -v python3 >/dev/null || missing+=(python3)
    python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
    command -v clang-format >/dev/null || missing+=(clang-format)
fi
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
