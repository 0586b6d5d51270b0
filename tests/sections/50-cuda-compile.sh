# The emitted CUDA compiles for sm_90 when nvcc is present (no GPU needed),
# with every warning an error (NVCC_STRICT): every example, element code on
# groups, the guarded API driver of tests/gpu/run.sh and back-end
# regressions. A section of its own so that tests/run.sh runs these long
# compiles beside the C back end's tests.
mkdir -p "$TMP/cuda"
NVCC_STRICT=(-Werror all-warnings)

# cuda_compiles WHAT NAME PARMC-ARGS...: parmc PARMC-ARGS writes
# $TMP/cuda/NAME.cu, which nvcc must compile
cuda_compiles() {
    local what=$1 cu=$TMP/cuda/$2.cu
    shift 2
    if "$PARMC" "$@" -o "$cu" 2>"$TMP/cuda/err.txt" &&
        nvcc -arch=sm_90 "${NVCC_STRICT[@]}" -O1 -c "$cu" -o "${cu%.cu}.o" 2>"$TMP/cuda/err.txt"; then
        pass
    else
        fail "CUDA of $what: $(head -5 "$TMP/cuda/err.txt")"
    fi
}

if command -v nvcc >/dev/null; then
    # the Python package's radix sort of one long row (python/parmc/_radix.py builds it)
    if nvcc -arch=sm_90 "${NVCC_STRICT[@]}" -O1 -c python/parmc/_radix.cu -o "$TMP/cuda/radix.o" \
        2>"$TMP/cuda/err.txt"; then pass; else fail "CUDA of python/parmc/_radix.cu: $(head -5 "$TMP/cuda/err.txt")"; fi
    # and its top-k of long rows by delegates (python/parmc/_select.py)
    if nvcc -arch=sm_90 "${NVCC_STRICT[@]}" -O1 -c python/parmc/_select.cu -o "$TMP/cuda/select.o" \
        2>"$TMP/cuda/err.txt"; then pass; else fail "CUDA of python/parmc/_select.cu: $(head -5 "$TMP/cuda/err.txt")"; fi
    for ex in examples/*.parm; do cuda_compiles "$ex" "$(basename "$ex" .parm)" --emit-main "$ex"; done
    # parities of a zero mask are folded where they are printed: no dead
    # `parm_parity(b & 0x0ull)` terms or `^ 0` constants
    ! grep -lE 'parm_parity\([a-z]+ & 0x0+(u|ull)\)|\^ 0[;)]' "$TMP"/cuda/*.cu && pass ||
        fail "CUDA of the examples: parities of zero masks are not folded"
    # groups: the issue's rot4 (two 8 rot4 on 2^10) and reductions in element code
    for entry in "entry main (xs : [2^10]i32) = twos 8 rot4 xs" "entry main (xs : [2^16]i32) = reduced xs"; do
        variant tests/emu/groups.parm "$entry"
        cuda_compiles "$entry" groups --emit-main "$TMP/variant.parm"
    done
    # the guarded API driver of tests/gpu/run.sh, on an entry of tuples (the
    # in-place, overlap and PARM_ERROR_ALIAS paths), and two back-end regressions
    if "$PARMC" examples/kvsort.parm -o "$TMP/cuda/api_kv.cu" 2>"$TMP/cuda/err.txt" &&
        python3 tests/tools/guard_entry.py "$TMP/cuda/api_kv.h" main >"$TMP/cuda/entry_kv.h" 2>"$TMP/cuda/err.txt" &&
        nvcc -arch=sm_90 "${NVCC_STRICT[@]}" -O1 -Iruntime -Itests/tools -I"$TMP/cuda" -include "$TMP/cuda/entry_kv.h" \
            -c tests/gpu/guard_cuda.cu -o "$TMP/cuda/guard_cuda.o" 2>"$TMP/cuda/err.txt"; then
        pass
    else
        fail "CUDA guard driver: $(head -5 "$TMP/cuda/err.txt")"
    fi
    # and on an entry with run-time scalar parameters before and after the array
    if "$PARMC" tests/backend/scalar_params.parm -o "$TMP/cuda/api_args.cu" 2>"$TMP/cuda/err.txt" &&
        python3 tests/tools/guard_entry.py "$TMP/cuda/api_args.h" shifted >"$TMP/cuda/entry_args.h" 2>"$TMP/cuda/err.txt" &&
        nvcc -arch=sm_90 "${NVCC_STRICT[@]}" -O1 -Iruntime -Itests/tools -I"$TMP/cuda" -include "$TMP/cuda/entry_args.h" \
            -c tests/gpu/guard_cuda.cu -o "$TMP/cuda/guard_args.o" 2>"$TMP/cuda/err.txt"; then
        pass
    else
        fail "CUDA guard driver with scalar parameters: $(head -5 "$TMP/cuda/err.txt")"
    fi
    for prog in tests/backend/narrowing.parm tests/backend/tuple_between.parm tests/backend/scalar_params.parm \
        tests/backend/graph.parm tests/backend/sklansky.parm tests/backend/wide_unzip.parm \
        tests/backend/retype.parm tests/backend/invariant.parm tests/backend/one_element.parm \
        tests/backend/functions.parm tests/backend/row_reductions.parm tests/backend/store_map.parm \
        tests/backend/entry_shapes.parm; do
        cuda_compiles "$prog" regress "$prog"
    done
    # the standalone main of an entry of a scalar result among arrays of two lengths
    cuda_compiles "the main of entry_shapes' lengths" shapes_main --emit-main -e lengths tests/backend/entry_shapes.parm
    # the math functions test for NaNs at their special cases and once at
    # their result, not after each of their steps (runtime/parm_ops.h,
    # parm_dadd and the others): in the PTX of a map of f32 exp, at most 2
    # NaN tests of doubles per exp (one conversion of its argument to f64
    # each; there were 40)
    printf 'entry main (xs : [2^10]f32) = map (\\x -> exp x) xs\n' >"$TMP/cuda/exp.parm"
    if "$PARMC" "$TMP/cuda/exp.parm" -o "$TMP/cuda/exp.cu" 2>"$TMP/cuda/err.txt" &&
        nvcc -arch=sm_90 "${NVCC_STRICT[@]}" -O3 -ptx "$TMP/cuda/exp.cu" -o "$TMP/cuda/exp.ptx" 2>"$TMP/cuda/err.txt"; then
        tests=$(grep -c 'setp\.nan\.f64' "$TMP/cuda/exp.ptx")
        calls=$(grep -c 'cvt\.f64\.f32' "$TMP/cuda/exp.ptx")
        if [ "$calls" -gt 0 ] && [ "$tests" -le $((2 * calls)) ]; then
            pass
        else
            fail "the PTX of f32 exp: $tests NaN tests of doubles for $calls calls (at most 2 each)"
        fi
    else
        fail "PTX of f32 exp: $(head -5 "$TMP/cuda/err.txt")"
    fi
    # a failed CUDA call names itself (issue 24): the context keeps the call's
    # text and line, NAME_ctx_message gives them with cudaGetErrorString, and
    # the standalone main prints it. Without a GPU (here) the context's first
    # call fails, which the linked program must say.
    "$PARMC" --emit-main tests/compile-diag/ranged_graph_refused.parm -o "$TMP/cuda/fails.cu" 2>/dev/null
    if grep -q 'PARM_FAILED(ctx, #call)' "$TMP/cuda/fails.cu" &&
        grep -q 'return ctx ? parm_message(ctx, cudaGetErrorString(ctx->last))' "$TMP/cuda/fails.cu" &&
        grep -q 'fprintf(stderr, "error: %s: %s\\n", fails_error_string(status), fails_ctx_message(ctx));' "$TMP/cuda/fails.cu" &&
        nvcc -arch=sm_90 "${NVCC_STRICT[@]}" -O1 "$TMP/cuda/fails.cu" -o "$TMP/cuda/fails" 2>"$TMP/cuda/err.txt"; then
        if echo 1 2 | "$TMP/cuda/fails" >/dev/null 2>"$TMP/cuda/err.txt"; then
            pass   # a GPU ran it
        elif grep -Eq '^error: a CUDA call failed: .+ \(cudaGetDevice\(&ctx->device\) at line [0-9]+ of .*fails\.cu\)$' \
            "$TMP/cuda/err.txt"; then
            pass
        else
            fail "a failed CUDA call's message: $(head -3 "$TMP/cuda/err.txt")"
        fi
    else
        fail "a failed CUDA call's message in the emitted code: $(head -5 "$TMP/cuda/err.txt")"
    fi
    # an allocation that fails names its bytes and what they were for (issue
    # 41): the standalone main's host result of 2^40 i32 under a limit of 8 GB
    # of address space (before any CUDA call: no GPU needed), and its device
    # planes and the scratch through the context's record of the failure
    printf 'entry main (xs : [2^4]i32) = replicate 40 (xs ! 0)\n' >"$TMP/cuda/big.parm"
    if "$PARMC" --emit-main "$TMP/cuda/big.parm" -o "$TMP/cuda/big.cu" 2>/dev/null &&
        grep -q 'return parm_out_of_memory(ctx, bytes\[k\], ctx->message);' "$TMP/cuda/big.cu" &&
        grep -q 'return parm_out_of_memory(ctx, bytes, what);' "$TMP/cuda/big.cu" &&
        nvcc -arch=sm_90 "${NVCC_STRICT[@]}" -O1 "$TMP/cuda/big.cu" -o "$TMP/cuda/big" 2>"$TMP/cuda/err.txt"; then
        (ulimit -v 8000000; seq 16 | "$TMP/cuda/big" >/dev/null 2>"$TMP/cuda/err.txt")
        status=$?
        if [ $status -eq 1 ] &&
            [ "$(cat "$TMP/cuda/err.txt")" = "error: could not allocate 4398046511104 bytes for the result of entry 'main' (out0)" ]; then
            pass
        else
            fail "CUDA main of a result it cannot allocate: exit $status, $(head -2 "$TMP/cuda/err.txt")"
        fi
    else
        fail "CUDA main of a result it cannot allocate, in the emitted code: $(head -5 "$TMP/cuda/err.txt")"
    fi
    # ranged entries with a refused size (issue 24): the dispatch that returns
    # PARM_ERROR_LENGTH for it, and the standalone mains that reach it
    for prog in tests/compile-diag/ranged_pad_refused.parm tests/compile-diag/ranged_graph_refused.parm; do
        cuda_compiles "$prog" refused --emit-main "$prog"
    done
    # entries of any length (graphs among them), and the standalone mains of
    # graphs of any length: ranged over chains and a graph, and over rows
    cuda_compiles tests/anylen/entries.parm anylen tests/anylen/entries.parm
    for e in mixed graphrows; do cuda_compiles "the main of $e" "anylen_$e" --emit-main -e "$e" tests/anylen/entries.parm; done
fi
