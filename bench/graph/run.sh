#!/usr/bin/env bash
# bench/graph/run.sh: issue 12's entry graphs timed on the GPU (main.cu says
# against what). Called by bench/run.sh; alone: bash bench/graph/run.sh [build]
set -eu
cd "$(dirname "$0")/../.."
PARMC=${PARMC:-build/parmc}
W=${GRAPH_WORK:-$(mktemp -d)}
"$PARMC" bench/graph/graph.parm -o "$W/graph.cu"
nvcc -O3 -arch=sm_90 -I"$W" "$W/graph.cu" bench/graph/main.cu -o "$W/graph_bench"
[ "${1:-}" = build ] && exit 0
"$W/graph_bench"
