#!/bin/sh
# graph.sh WORKDIR: tests/emu/graph.parm's CUDA reductions run on the CPU
# (graph_emu.py, graph_mock.h) on random input; prints what --interpret
# would. Used by tests/sections/54-cuda-emu.sh.
set -e
parmc=${PARMC:-build/parmc}
src=$(cd "$(dirname "$0")" && pwd)
"$parmc" "$src/graph.parm" -o "$1/g.cu"
python3 "$src/graph_emu.py" "$1/g.cu" main "$1/g.cpp"
cat "$src/graph_driver.cpp" >>"$1/g.cpp"
${CXX:-c++} -std=c++20 -O1 -w -pthread -I"$src" -I"$src/../../runtime" "$1/g.cpp" -o "$1/g"
"$1/g"
