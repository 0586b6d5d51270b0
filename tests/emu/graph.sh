#!/bin/sh
# graph.sh WORKDIR [NAME]: the CUDA of the entry graph tests/emu/NAME.parm
# (default graph; a NAME ending in .parm is a program's path, with
# i32_driver.cpp), its main entry, run on the CPU
# (graph_emu.py, graph_mock.h) on random input; prints what --interpret
# would. Used by tests/sections/54-cuda-emu.sh. PARMC_FLAGS: more options for
# the compile (--tile-buffers N). The driver is NAME_driver.cpp, or
# i32_driver.cpp for one i32 array in and out.
set -e
parmc=${PARMC:-build/parmc}
src=$(cd "$(dirname "$0")" && pwd)
name=${2:-graph}
case $name in
*.parm) prog=$name ;;
*) prog=$src/$name.parm ;;
esac
# shellcheck disable=SC2086
"$parmc" ${PARMC_FLAGS:-} "$prog" -o "$1/g.cu"
python3 "$src/graph_emu.py" "$1/g.cu" main "$1/g.cpp"
driver=$src/$(basename "$name" .parm)_driver.cpp
[ -f "$driver" ] && [ "$prog" = "$src/$name.parm" ] || driver=$src/i32_driver.cpp
cat "$driver" >>"$1/g.cpp"
${CXX:-c++} -std=c++20 -O1 -w -pthread -I"$src" -I"$src/../../runtime" "$1/g.cpp" -o "$1/g"
"$1/g"
