# The emitted CUDA compiles for sm_90 when nvcc is present (no GPU needed):
# every example, element code on groups, the guarded API driver of
# tests/gpu/run.sh and back-end regressions. A section of its own so that
# tests/run.sh runs these long compiles beside the C back end's tests.
mkdir -p "$TMP/cuda"

# cuda_compiles WHAT NAME PARMC-ARGS...: parmc PARMC-ARGS writes
# $TMP/cuda/NAME.cu, which nvcc must compile
cuda_compiles() {
    local what=$1 cu=$TMP/cuda/$2.cu
    shift 2
    if "$PARMC" "$@" -o "$cu" 2>"$TMP/cuda/err.txt" &&
        nvcc -arch=sm_90 -O1 -c "$cu" -o "${cu%.cu}.o" 2>"$TMP/cuda/err.txt"; then
        pass
    else
        fail "CUDA of $what: $(head -5 "$TMP/cuda/err.txt")"
    fi
}

if command -v nvcc >/dev/null; then
    for ex in examples/*.parm; do cuda_compiles "$ex" "$(basename "$ex" .parm)" --emit-main "$ex"; done
    # groups: the issue's rot4 (two 8 rot4 on 2^10) and reductions in element code
    for entry in "entry main (xs : [2^10]i32) = twos 8 rot4 xs" "entry main (xs : [2^16]i32) = reduced xs"; do
        variant tests/emu/groups.parm "$entry"
        cuda_compiles "$entry" groups --emit-main "$TMP/variant.parm"
    done
    # the guarded API driver of tests/gpu/run.sh, on an entry of tuples (the
    # in-place, overlap and PARM_ERROR_ALIAS paths), and two back-end regressions
    if "$PARMC" examples/kvsort.parm -o "$TMP/cuda/api_kv.cu" 2>"$TMP/cuda/err.txt" &&
        python3 tests/tools/guard_entry.py "$TMP/cuda/api_kv.h" main >"$TMP/cuda/entry_kv.h" 2>"$TMP/cuda/err.txt" &&
        nvcc -arch=sm_90 -O1 -Iruntime -Itests/tools -I"$TMP/cuda" -include "$TMP/cuda/entry_kv.h" \
            -c tests/gpu/guard_cuda.cu -o "$TMP/cuda/guard_cuda.o" 2>"$TMP/cuda/err.txt"; then
        pass
    else
        fail "CUDA guard driver: $(head -5 "$TMP/cuda/err.txt")"
    fi
    # and on an entry with run-time scalar parameters before and after the array
    if "$PARMC" tests/backend/scalar_params.parm -o "$TMP/cuda/api_args.cu" 2>"$TMP/cuda/err.txt" &&
        python3 tests/tools/guard_entry.py "$TMP/cuda/api_args.h" shifted >"$TMP/cuda/entry_args.h" 2>"$TMP/cuda/err.txt" &&
        nvcc -arch=sm_90 -O1 -Iruntime -Itests/tools -I"$TMP/cuda" -include "$TMP/cuda/entry_args.h" \
            -c tests/gpu/guard_cuda.cu -o "$TMP/cuda/guard_args.o" 2>"$TMP/cuda/err.txt"; then
        pass
    else
        fail "CUDA guard driver with scalar parameters: $(head -5 "$TMP/cuda/err.txt")"
    fi
    for prog in tests/backend/narrowing.parm tests/backend/tuple_between.parm tests/backend/scalar_params.parm \
        tests/backend/graph.parm tests/backend/invariant.parm \
        tests/backend/one_element.parm; do
        cuda_compiles "$prog" regress "$prog"
    done
fi
