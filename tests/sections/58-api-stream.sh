# The caller's stream (docs/api.md): tests/gpu/stream_cuda.cu, which
# tests/gpu/run.sh runs on a GPU, must compile and link against a program's
# CUDA (with nvcc); the C target has no stream functions.
d=$TMP/stream
mkdir -p "$d"
grep -v '^entry ' examples/sort.parm >"$d/sort.parm"
echo "entry main (xs : [2^12]i32) = sort 12 xs" >>"$d/sort.parm"
if "$PARMC" --target=c --prefix st "$d/sort.parm" -o "$d/st.c" 2>"$d/err.txt"; then
    grep -q 'set_stream\|cudaStream_t' "$d/st.h" && fail "stream: the C target's header names streams" || pass
else
    fail "stream: C target: $(head -3 "$d/err.txt")"
fi
if command -v nvcc >/dev/null; then
    if "$PARMC" --prefix st "$d/sort.parm" -o "$d/st.cu" 2>"$d/err.txt" &&
        grep -q '^int st_ctx_set_stream(st_ctx \*ctx, cudaStream_t stream);' "$d/st.h" &&
        nvcc -arch=sm_90 -O1 -include "$d/st.h" tests/gpu/stream_cuda.cu "$d/st.cu" -o "$d/stream" 2>"$d/err.txt"; then
        pass
    else
        fail "stream: tests/gpu/stream_cuda.cu: $(head -5 "$d/err.txt")"
    fi
fi
