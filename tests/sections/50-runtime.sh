# The runtime headers (runtime/*.h, embedded in every emitted program)
# compile on their own: the C target's with cc (C11, every warning an
# error), the CUDA target's with nvcc where it is present, each after
# tests/tools/runtime_prelude.h (what the emitted file defines before them;
# an unused static function is no error, as in the emitted files).
mkdir -p "$TMP/rt"
prelude=tests/tools/runtime_prelude.h

# c_header NAME FLAGS...: cc -fsyntax-only of runtime/NAME as C11
c_header() {
    local h=$1
    shift
    if cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Wno-unused-function -fsyntax-only \
        -include "$prelude" "$@" -x c "runtime/$h" 2>"$TMP/rt/err.txt"; then
        pass
    else
        fail "runtime/$h does not compile on its own (cc $*): $(head -5 "$TMP/rt/err.txt")"
    fi
}

# cuda_header NAME FLAGS...: nvcc -c of runtime/NAME as CUDA
cuda_header() {
    local h=$1
    shift
    if nvcc -arch=sm_90 -Werror all-warnings -diag-suppress 177 -include "$prelude" "$@" -x cu -c "runtime/$h" \
        -o "$TMP/rt/${h%.h}.o" 2>"$TMP/rt/err.txt"; then
        pass
    else
        fail "runtime/$h does not compile on its own (nvcc $*): $(head -5 "$TMP/rt/err.txt")"
    fi
}

c_header parm_ops.h
c_header parm_io.h
c_header parm_host_c.h
# the standalone main's run, after the target's part of it
c_header parm_main_c.h
c_header parm_main.h -include runtime/parm_main_c.h
if command -v nvcc >/dev/null; then
    cuda_header parm_ops.h
    cuda_header parm_host_cuda.h
    # several GPUs: the context's NCCL parts, and the NCCL contexts after it
    cuda_header parm_host_cuda.h -DPARM_RANKS=2 -DPARM_PIECES=4
    cuda_header parm_nccl.h -DPARM_RANKS=2 -DPARM_PIECES=4 -include runtime/parm_host_cuda.h
    cuda_header parm_main_cuda.h -include runtime/parm_host_cuda.h
    cuda_header parm_main.h -include runtime/parm_host_cuda.h -include runtime/parm_main_cuda.h
    cuda_header parm_main_nccl.h -DPARM_RANKS=2 -DPARM_PIECES=4 -include runtime/parm_host_cuda.h \
        -include runtime/parm_nccl.h -include runtime/parm_main_cuda.h -include runtime/parm_main.h
fi
