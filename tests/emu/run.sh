#!/bin/sh
# run.sh PROGRAM.parm WORKDIR < input: the program's CUDA kernels, emulated on
# the CPU (see emu.cpp); prints the result like --emit-main does.
# PARMC_FLAGS: more options for the compile (--tile-bytes B); EMU_MISALIGN=1:
# planes that are not 16-byte aligned (emu.cpp).
set -e
parmc=${PARMC:-build/parmc}
src=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2086
"$parmc" ${PARMC_FLAGS:-} "$1" -o "$2/p.cu"
awk '/^\/\/ start of parm_ops.h/,/^typedef struct [a-z0-9_]* parm_ctx;/' "$2/p.cu" |
    grep -v '^typedef struct [a-z0-9_]* parm_ctx;' | sed 's/__host__ __device__//; s/__device__//' >"$2/ops.h"
awk '/^static __global__/,/^}/' "$2/p.cu" | grep -v '^__cluster_dims__(' |
    sed 's/extern __shared__ \(__align__(16) \)\{0,1\}unsigned char parm_shared\[\];/unsigned char *parm_shared = emu_shared();/' >"$2/kernels.h"
# each kernel of a cluster's tile: CLUSTER(kernel, blocks)
awk '/^__cluster_dims__\(/ { n = $0; sub(/^__cluster_dims__\(/, "", n); sub(/,.*/, "", n)
    getline; name = $0; sub(/\(.*/, "", name); print "CLUSTER(" name ", " n ")" }' "$2/p.cu" >"$2/clusters.h"
# each LOCAL kernel launch: kernel, blocks, threads and its arguments as
# written (src[k], dst[k] and the scalar parameters parm_argN); a persistent
# kernel (--tile-buffers) on EMU_GRID blocks (emu.cpp); a permutation
# kernel's (emit_bmmc.c) from its NAME_launch call, with the blocks and
# threads of NAME<<<...>>> in the launch function before it: one LAUNCH_FIELD
# per field (NAME_slotK), the fields of one phase closed by FIELDS_END
awk '
function close_fields() { if (open != "") print "FIELDS_END()"; open = "" }
/_kernel<<</ { close_fields() }
/^ +[A-Za-z0-9_]+<<<[0-9]+u, [0-9]+, 0, s>>>\(in, out/ {
    line = $0; sub(/^ +/, "", line); name = line; sub(/<<<.*/, "", name)
    dims = line; sub(/^[A-Za-z0-9_]+<<</, "", dims); sub(/, 0, s>>>.*/, "", dims); sub(/u,/, ",", dims)
    grid[name] = dims
}
/^ +PARM_CHECK\(ctx, [A-Za-z0-9_]+_launch\(.*, ctx->stream\)\);$/ {
    line = $0; sub(/^ +PARM_CHECK\(ctx, /, "", line); name = line; sub(/_launch\(.*/, "", name)
    args = line; sub(/^[A-Za-z0-9_]+_launch\(/, "", args); sub(/, ctx->stream\)\);$/, "", args)
    if (name in grid) {
        phase = name; sub(/_slot[0-9]+$/, "", phase)
        if (phase != open) close_fields()
        open = phase
        print "LAUNCH_FIELD(" name ", " grid[name] ", (" args "))"; next
    }
}
{ print }
END { close_fields() }' "$2/p.cu" |
sed -n -e '/^LAUNCH_FIELD(/p' -e '/^FIELDS_END()/p' -e 's/^ *\([A-Za-z0-9_]*_kernel\)<<<\([0-9]*\)u, \([0-9]*\),.*>>>\((.*)\);$/LAUNCH(\1, \2, \3, \4)/p' \
    -e 's/^ *\([A-Za-z0-9_]*_kernel\)<<<parm_persistent_grid(ctx, \([0-9]*\)u, per_sm), \([0-9]*\),.*>>>\((.*)\);$/LAUNCH(\1, EMU_GRID(\2), \3, \4)/p' \
    >"$2/launches.h"
# the entry's run-time scalar parameters: type and name from its _run
# function, in the API's order, and whether the input has them before the
# array (the API's argK before in0) or after it
run=$(grep -m1 '^static int [A-Za-z0-9_]*_run(parm_ctx \*ctx' "$2/p.cu")
before=$(grep -m1 '^int [A-Za-z0-9_]*([A-Za-z0-9_]* \*ctx, .*size_t n)' "$2/p.cu" | sed 's/\*in0.*//' |
    grep -o ' arg[0-9]*' | wc -l)
echo "$run" | sed 's/.*void \*const \*out//; s/)$//' | tr ',' '\n' |
    sed -n 's/^ *const \(.*\) \(parm_arg[0-9]*\)$/\1 \2/p' |
    awk -v before="$before" '{ printf "static %s %s;\n", $1, $2; x = x sprintf(" X(%s, %d)", $2, NR <= before) }
        END { printf "#define SCALAR_ARGS(X)%s\n", x }' >"$2/args.h"
# the element's fields: the kernels' input planes in0, in1, ..., or a
# permutation's kernels, one per field (NAME_slot0, NAME_slot1, ...)
params=$(grep -m1 -E '^[A-Za-z0-9_]+_(kernel|slot0)\(const' "$2/p.cu")
slot_type=$(echo "$params" | sed 's/^[A-Za-z0-9_]*_\(kernel\|slot0\)(const \([a-z0-9_]*\) .*/\2/')
nslots=$(echo "$params" | grep -o '[ *]in[0-9]*[,)]' | wc -l)
case $params in
*_kernel\(*) ;;
*) nslots=$(grep -cE "^${params%%_slot0(*}_slot[0-9]+\(const" "$2/p.cu") ;;
esac
# an entry of any length (its kernels take the shape): the largest size, and
# whether it takes rows (the input then starts with the row length)
padded=
if echo "$params" | grep -q 'parm_rows'; then
    size=$(sed -n 's/.*; any length: [^;(]*(up to 2^\([0-9]*\)).*/\1/p; s/.*; any shape: [^;(]*(up to 2^\([0-9]*\) rows of 2^\([0-9]*\)).*/\1 \2/p' "$2/p.h")
    rows_log=${size% *} cols_log=${size#* }
    [ "$rows_log" = "$size" ] && rows_log=-1
    padded="-DPAD_ROWS_LOG=$rows_log -DPAD_COLS_LOG=$cols_log"
fi
misalign=
[ "${EMU_MISALIGN:-0}" = 1 ] && misalign=-DMISALIGN
${CXX:-c++} -std=c++17 -O1 -w -pthread -DSLOT_T="$slot_type" -DNSLOTS="$nslots" $padded $misalign -I"$2" "$src/emu.cpp" -o "$2/emu"
"$2/emu"
