#!/usr/bin/env bash
# Entry graphs through CUDA, on a machine with an NVIDIA GPU (sm_90): every
# entry of tests/backend/graph.parm (issue 12's programs: a whole reduce, a
# zipped key-value sort, scalar parameters, replicate, rot4, several arrays,
# scalar and tuple results, shared values, ranged entries, reduces fused into
# a sort's last pass), tests/emu/fused.parm and
# tests/plan/graph_fused_reduce.parm, and issue 24's shapes (invariant work
# read inside stage functions, one-element arrays, reductions read by other
# reductions' operators, two bodies of array code lifted to whole arrays, a
# Sklansky scan, retyping stage functions, entry graphs of any length), the
# scalar functions (tests/backend/functions.parm: exp, pow, fma, ...), and
# issue 26's reductions of rows of every size and per-block reductions as
# whole-array stages, and planes fused into chains (tests/backend/
# fused_planes.parm, tests/emu/expands.parm, tests/backend/
# expand_pair_reduce.parm: expands read in place, planes
# that nothing reads left unstored), and chains' closing maps run in their
# last LOCAL phase's store (tests/emu/store_map.parm, tests/backend/
# store_map.parm, store_map_perm.parm), the one-pass scans
# (tests/gpu/onepass.parm, tests/emu/onepass.parm), and shifts and
# elements at static positions in the functions of two and parm on large
# blocks (tests/backend/lifted.parm), and reductions there that meet other
# reductions of the block (tests/backend/block_totals.parm), and shifts
# there whose fill the block computes (tests/backend/shift_fill.parm),
# reductions whose start it computes and scalar code on several of its
# totals (tests/backend/block_starts.parm)
# compiled with --emit-main -e ENTRY, run on random input (two seeds) and
# compared with the reference interpreter byte for byte. Ends with
# "N passed, N failed". GRAPH_PROGS: other programs to check instead.
set -u
cd "$(dirname "$0")/../.."
PARMC=${PARMC:-build/parmc}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# binary_name PROG ENTRY: a name for PROG's ENTRY unique across directories
# (tests/emu/store_map.parm and tests/backend/store_map.parm both have a main)
binary_name() { local p=${1%.parm}; echo "${p//\//_}_$2"; }
# the programs: each entry of each, built in parallel
PROGS=${GRAPH_PROGS:-"tests/backend/graph.parm tests/emu/fused.parm tests/plan/graph_fused_reduce.parm
       tests/backend/invariant.parm tests/backend/one_element.parm tests/backend/reduce_reads.parm
       tests/backend/retype.parm tests/backend/sklansky.parm tests/backend/wide_nest.parm
       tests/backend/wide_unzip.parm tests/backend/wide_zip.parm tests/anylen/entries.parm
       tests/backend/functions.parm tests/backend/row_reductions.parm tests/emu/blocks.parm
       tests/emu/blocks_small.parm tests/emu/blocks_fields.parm tests/backend/fused_planes.parm
       tests/emu/expands.parm tests/backend/expand_pair_reduce.parm tests/emu/store_map.parm
       tests/backend/store_map.parm tests/backend/store_map_perm.parm tests/backend/register_body.parm
       tests/gpu/onepass.parm tests/emu/onepass.parm tests/backend/lifted.parm
       tests/backend/block_totals.parm tests/backend/shift_fill.parm tests/backend/block_starts.parm
       tests/emu/wide.parm"}
for prog in $PROGS; do
    for e in $(sed -n 's/^entry \([a-z0-9_]*\) .*/\1/p' "$prog"); do
        b=$W/$(binary_name "$prog" "$e")
        ("$PARMC" --emit-main -e "$e" "$prog" -o "$b.cu" && nvcc -O3 -arch=sm_90 "$b.cu" -o "$b" 2>"$b.nvcc") &
    done
done
wait
passed=0 failed=0
for prog in $PROGS; do
    for e in $(sed -n 's/^entry \([a-z0-9_]*\) .*/\1/p' "$prog"); do
        b=$W/$(binary_name "$prog" "$e")
        for seed in 1 2; do
            "$PARMC" --random-input=$seed -e "$e" "$prog" >"$b.in"
            "$PARMC" --interpret -e "$e" "$prog" <"$b.in" >"$b.want"
            if [ -x "$b" ] && "$b" <"$b.in" >"$b.got" 2>"$b.err" && cmp -s "$b.want" "$b.got"; then
                passed=$((passed + 1))
            else
                failed=$((failed + 1))
                echo "FAIL graph entry $prog $e seed $seed: $(head -3 "$b.err" "$b.nvcc" 2>/dev/null)"
            fi
        done
    done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
