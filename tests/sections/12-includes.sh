# Where the files of compiler/ and runtime/ are and what they include,
# against the stage table compiler/stages (tests/tools/includes.py): each
# module in its folder, no file including a header of a later stage, nor of
# a folder of its own stage that is not above its own. The checker must also
# catch a scheduler that includes an emitter's header, an emitter that
# includes a planner's header other than the plan's data, a specialiser that
# includes the optimiser's, one target's emitter or the shared back end
# including a target's header, a module in another stage's folder, and a
# file that no stage or no folder lists.
if out=$(python3 tests/tools/includes.py compiler/stages . 2>&1); then
    pass
else
    fail "include graph of compiler/:"
    echo "$out" | head -20
fi

# includes_copy: a copy of compiler/ and runtime/ in $TMP/inc, to break;
# includes_fail NAME EXPECTED: the check of the copy must fail with EXPECTED
# in its report; includes_broken NAME FILE LINE EXPECTED: the same for a copy
# with LINE appended to FILE (a path from the root, made if missing)
includes_copy() {
    rm -rf "$TMP/inc" && mkdir -p "$TMP/inc" && cp -r compiler runtime "$TMP/inc/"
}
includes_fail() {
    if python3 tests/tools/includes.py compiler/stages "$TMP/inc" >"$TMP/inc.out" 2>&1; then
        fail "include check: $1 passed"
    elif ! grep -qF "$2" "$TMP/inc.out"; then
        fail "include check: $1: expected '$2' in: $(head -3 "$TMP/inc.out")"
    else
        pass
    fi
}
includes_broken() {
    includes_copy
    echo "$3" >>"$TMP/inc/$2"
    includes_fail "$1" "$4"
}
includes_broken "scheduler includes an emitter" compiler/plan/schedule.c '#include "emit.h"' \
    'compiler/plan/schedule.c: a file of stage plan includes emit.h of the later stage back'
includes_broken "plan header includes the BMMC emitter" compiler/plan/plan.h '#include "emit_bmmc.h"' \
    'compiler/plan/plan.h: a file of stage plan includes emit_bmmc.h of the later stage back'
includes_broken "specialiser includes the optimiser" compiler/specialise/value.h '#include "opt.h"' \
    'compiler/specialise/value.h: a file of stage specialise includes opt.h of the later stage optimiser'
# the emitters print the plan: of the planner's headers they include its data alone
includes_broken "an emitter includes the register-round planner" compiler/back/cuda/emit_cuda_local.c \
    '#include "plan_rounds.h"' 'compiler/back/cuda/emit_cuda_local.c: an emitter includes plan_rounds.h, a header of the planner'
includes_broken "the BMMC emitter includes the BMMC planner" compiler/back/emit_bmmc.h '#include "bmmc_plan.h"' \
    'compiler/back/emit_bmmc.h: an emitter includes bmmc_plan.h, a header of the planner'
includes_broken "file in no stage" compiler/back/stray.c '#include "ir.h"' 'compiler/back/stray.c: not in compiler/stages'
includes_broken "file in no folder" compiler/stray.c '#include "ir.h"' 'compiler/stray.c: in no folder of compiler/stages'
includes_broken "header that does not exist" compiler/ir/ir.c '#include "nowhere.h"' 'includes "nowhere.h"'
# a module in another stage's folder
includes_copy && mv "$TMP/inc/compiler/plan/schedule.c" "$TMP/inc/compiler/plan/schedule.h" "$TMP/inc/compiler/back/"
includes_fail "the scheduler in the back end's folder" \
    'compiler/back/schedule.c: module schedule belongs in compiler/plan (stage plan)'
# a header of the CUDA target's, which neither the C target's emitter nor
# the shared back end may include
for file in compiler/back/c/emit_c.c compiler/back/emit_common.c; do
    includes_copy && touch "$TMP/inc/compiler/back/cuda/emit_cuda.h"
    echo '#include "emit_cuda.h"' >>"$TMP/inc/$file"
    includes_fail "$file includes the CUDA target's header" \
        "$file: a file of ${file%/*} includes emit_cuda.h of compiler/back/cuda, a folder of its stage that is not above it"
done

# CUDA's text in the shared back end: a CUDA kernel's line printed from
# compiler/back fails the check, the same words in a comment do not
includes_broken "CUDA text in the shared back end" compiler/back/emit_graph.c \
    'static void stray(FILE *out) { fputs("    __syncthreads();\\n", out); }' \
    "compiler/back/emit_graph.c: CUDA's text (__syncthreads) in the shared back end"
# a "//" inside a string opens no comment: the kernel text after it is seen
includes_broken "CUDA text after a // in a string" compiler/back/emit_graph.c \
    'static void stray(FILE *out) { fputs("    // a barrier\\n    __syncthreads();\\n", out); }' \
    "compiler/back/emit_graph.c: CUDA's text (__syncthreads) in the shared back end"
includes_copy && echo '/* CUDA kernels say __syncthreads and threadIdx */' >>"$TMP/inc/compiler/back/emit_graph.c"
if python3 tests/tools/includes.py compiler/stages "$TMP/inc" >"$TMP/inc.out" 2>&1; then
    pass
else
    fail "include check: CUDA's words in a comment of the shared back end failed: $(head -3 "$TMP/inc.out")"
fi

# Every #if of compiler/, runtime/ and the unit and fuzz tests names a macro
# that a compiler predefines or a build defines (tests/tools/ifdef_names.sh);
# the checker must catch the verifier's old PARMC_VERIFY_IR.
if out=$(bash tests/tools/ifdef_names.sh compiler runtime tests/unit tests/fuzz 2>&1); then
    pass
else
    fail "conditional compilation on names no build defines: $out"
fi
rm -rf "$TMP/ifdef" && mkdir -p "$TMP/ifdef" && cp compiler/driver/driver.c "$TMP/ifdef/"
sed -i 's/^#ifdef PARMC_VERIFY$/#ifdef PARMC_VERIFY_IR/' "$TMP/ifdef/driver.c"
if out=$(bash tests/tools/ifdef_names.sh "$TMP/ifdef" 2>&1); then
    fail "ifdef_names.sh passed a driver.c that tests PARMC_VERIFY_IR"
elif [[ "$out" != *"#if on PARMC_VERIFY_IR, which no build defines"* ]]; then
    fail "ifdef_names.sh: expected PARMC_VERIFY_IR in: $out"
else
    pass
fi

# Every hardware number of the GPU is named once, in compiler/plan/machine.h
# (tests/tools/machine_literals.py); the checker must catch bmmc_plan.c's
# old limit of static shared memory and a lane taken as `& 31`, and leave
# the CUDA text that an emitter writes alone.
if out=$(python3 tests/tools/machine_literals.py compiler 2>&1); then
    pass
else
    fail "hardware numbers outside compiler/plan/machine.h:"
    echo "$out" | head -20
fi
# machine_broken NAME LINE EXPECTED: a copy of compiler/ with LINE appended
# to plan/bmmc_plan.c must fail the check with EXPECTED in the report
machine_broken() {
    rm -rf "$TMP/mach" && cp -r compiler "$TMP/mach"
    echo "$2" >>"$TMP/mach/plan/bmmc_plan.c"
    if python3 tests/tools/machine_literals.py "$TMP/mach" >"$TMP/mach.out" 2>&1; then
        fail "machine literals: $1 passed"
    elif ! grep -qF "$3" "$TMP/mach.out"; then
        fail "machine literals: $1: expected '$3' in: $(head -3 "$TMP/mach.out")"
    else
        pass
    fi
}
machine_broken "a shared-memory limit of its own" '#define SMEM_LIMIT 49152' \
    'a macro of its own for a machine fact belongs in machine.h: #define SMEM_LIMIT 49152'
machine_broken "a lane as & 31" 'static unsigned lane_of(unsigned t) { return t & 31; }' \
    'the lanes of a warp belongs in machine.h: static unsigned lane_of'
# ...but not the CUDA text that an emitter writes, nor a comment
rm -rf "$TMP/mach" && cp -r compiler "$TMP/mach"
printf '%s\n' 'static const char lane_text[] = "threadIdx.x & 31"; /* 49152 */' >>"$TMP/mach/back/emit_reduce.c"
python3 tests/tools/machine_literals.py "$TMP/mach" >/dev/null 2>&1 && pass ||
    fail "machine literals: CUDA text in a string literal or a comment flagged"
