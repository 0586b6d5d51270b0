#!/usr/bin/env bash
# Install the build tools parmc needs (re2c, lemon, a C compiler, python3)
# with apt-get when they are missing. Safe to run repeatedly.
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
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
