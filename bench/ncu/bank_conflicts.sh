#!/usr/bin/env bash
# bench/ncu/bank_conflicts.sh: what Nsight Compute says about the shared-memory
# accesses that `parmc --report` models (access_model.h, docs/performance.md
# "The access model"): a bitonic sort of f64 (8-byte elements: half-warps) and
# a batched sort of i16 (2-byte elements: two lanes a word), one kernel each.
#
#   bash bench/ncu/bank_conflicts.sh              # with build/parmc
#   BASE=<commit> bash bench/ncu/bank_conflicts.sh  # also with that commit's parmc
#
# For each program and parmc it prints parmc's predicted congestion and the
# measured shared wavefronts per shared instruction (loads and stores) with
# the bank-conflict counters. Conflict-free means 2 wavefronts per 8-byte
# instruction and 1 per 2-byte one; a predicted congestion c in the register
# rounds shows as up to c times that. Needs nvcc and ncu (a GPU, sm_90).
set -eu -o pipefail
cd "$(dirname "$0")/../.."
W=${BENCH_WORK:-$(mktemp -d)}
[ -x build/parmc ] || make build/parmc >/dev/null
METRICS=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum

cat >"$W/f64.parm" <<'PARM'
import "sort"
entry main (xs : [2^20]f64) = bitonic_sort asc 20 xs
PARM
cat >"$W/i16.parm" <<'PARM'
import "sort"
entry main (xs : [2^20]i16) = rows 10 (bitonic_sort asc 10) xs
PARM

parmcs="build/parmc"
if [ -n "${BASE:-}" ]; then
    mkdir -p "$W/base"
    git archive "$BASE" | tar -x -C "$W/base"
    make -C "$W/base" build/parmc >/dev/null
    parmcs="$W/base/build/parmc build/parmc"
fi

for parmc in $parmcs; do
    for prog in f64 i16; do
        echo "== $prog with $parmc"
        "$parmc" --report "$W/$prog.parm" | grep -m1 -A2 '^kernel main_0' | sed 's/^/   report: /'
        "$parmc" --emit-main "$W/$prog.parm" -o "$W/$prog.cu"
        nvcc -O3 -arch=sm_90 "$W/$prog.cu" -o "$W/$prog"
        build/parmc --random-input=1 "$W/$prog.parm" >"$W/$prog.in"
        # the first launch of main_0 (the untimed run of --emit-main's program)
        ncu --metrics "$METRICS" -k regex:main_0 -c 1 --csv "$W/$prog" <"$W/$prog.in" >"$W/$prog.ncu.csv" 2>/dev/null
        python3 - "$W/$prog.ncu.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 3]
head, body = rows[0], rows[1:]
m = {r[head.index("Metric Name")]: float(r[head.index("Metric Value")].replace(",", "")) for r in body}
for op in ("ld", "st"):
    inst = m[f"smsp__sass_inst_executed_op_shared_{op}.sum"]
    wave = m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"]
    conf = m[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum"]
    print(f"   ncu {op}: {inst:.0f} instructions, {wave:.0f} wavefronts ({wave / inst:.3f} per instruction), "
          f"{conf:.0f} bank conflicts")
PY
    done
done
