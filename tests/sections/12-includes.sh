# The include graph of compiler/ against the stage table compiler/stages: no
# file includes a header of a later stage (tests/tools/includes.py). The
# checker must also catch a scheduler that includes an emitter's header, a
# specialiser that includes the optimiser's, and a file no stage lists.
if out=$(python3 tests/tools/includes.py compiler/stages compiler runtime 2>&1); then
    pass
else
    fail "include graph of compiler/:"
    echo "$out" | head -20
fi

# includes_broken NAME FILE LINE EXPECTED: a copy of compiler/ with LINE
# appended to FILE must fail the check with EXPECTED in the report
includes_broken() {
    rm -rf "$TMP/inc" && mkdir -p "$TMP/inc" && cp compiler/* runtime/*.h "$TMP/inc/"
    echo "$3" >>"$TMP/inc/$2"
    if python3 tests/tools/includes.py compiler/stages "$TMP/inc" >"$TMP/inc.out" 2>&1; then
        fail "include check: $1 passed"
    elif ! grep -qF "$4" "$TMP/inc.out"; then
        fail "include check: $1: expected '$4' in: $(head -3 "$TMP/inc.out")"
    else
        pass
    fi
}
includes_broken "scheduler includes an emitter" schedule.c '#include "emit.h"' \
    'schedule.c: a file of stage plan includes emit.h of the later stage back'
includes_broken "plan header includes the BMMC emitter" plan.h '#include "emit_bmmc.h"' \
    'plan.h: a file of stage plan includes emit_bmmc.h of the later stage back'
includes_broken "specialiser includes the optimiser" value.h '#include "opt.h"' \
    'value.h: a file of stage specialise includes opt.h of the later stage optimiser'
includes_broken "file in no stage" stray.c '#include "ir.h"' 'stray.c: not in compiler/stages'
includes_broken "header that does not exist" ir.c '#include "nowhere.h"' 'includes "nowhere.h"'

# Every #if of compiler/, runtime/ and the unit and fuzz tests names a macro
# that a compiler predefines or a build defines (tests/tools/ifdef_names.sh);
# the checker must catch the verifier's old PARMC_VERIFY_IR.
if out=$(bash tests/tools/ifdef_names.sh compiler runtime tests/unit tests/fuzz 2>&1); then
    pass
else
    fail "conditional compilation on names no build defines: $out"
fi
rm -rf "$TMP/ifdef" && mkdir -p "$TMP/ifdef" && cp compiler/driver.c "$TMP/ifdef/"
sed -i 's/^#ifdef PARMC_VERIFY$/#ifdef PARMC_VERIFY_IR/' "$TMP/ifdef/driver.c"
if out=$(bash tests/tools/ifdef_names.sh "$TMP/ifdef" 2>&1); then
    fail "ifdef_names.sh passed a driver.c that tests PARMC_VERIFY_IR"
elif [[ "$out" != *"#if on PARMC_VERIFY_IR, which no build defines"* ]]; then
    fail "ifdef_names.sh: expected PARMC_VERIFY_IR in: $out"
else
    pass
fi

# Every hardware number of the GPU is named once, in compiler/machine.h
# (tests/tools/machine_literals.py); the checker must catch bmmc_plan.c's
# old limit of static shared memory and a lane taken as `& 31`, and leave
# the CUDA text that an emitter writes alone.
if out=$(python3 tests/tools/machine_literals.py compiler 2>&1); then
    pass
else
    fail "hardware numbers outside compiler/machine.h:"
    echo "$out" | head -20
fi
# machine_broken NAME LINE EXPECTED: a copy of compiler/ with LINE appended
# to bmmc_plan.c must fail the check with EXPECTED in the report
machine_broken() {
    rm -rf "$TMP/mach" && mkdir -p "$TMP/mach" && cp compiler/* "$TMP/mach/"
    echo "$2" >>"$TMP/mach/bmmc_plan.c"
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
rm -rf "$TMP/mach" && mkdir -p "$TMP/mach" && cp compiler/* "$TMP/mach/"
printf '%s\n' 'static const char lane_text[] = "threadIdx.x & 31"; /* 49152 */' >>"$TMP/mach/emit_reduce.c"
python3 tests/tools/machine_literals.py "$TMP/mach" >/dev/null 2>&1 && pass ||
    fail "machine literals: CUDA text in a string literal or a comment flagged"
