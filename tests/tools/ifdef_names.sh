#!/usr/bin/env bash
# ifdef_names.sh DIR...: every macro name that a conditional (#if, #ifdef,
# #ifndef, #elif, defined(...)) in the C files and headers of DIR tests must
# be predefined by a compiler or defined by a build (the Makefile's flags or
# a #define in the tree); prints the names that nothing defines and exits 1
# when there is one. A name no build defines makes its code dead or always
# on, silently (the IR verifier once waited for a PARMC_VERIFY_IR that no
# build set).
set -u
# predefined by cc, clang or nvcc, or standard names a user may set
PREDEFINED=" __CUDA_ARCH__ __CUDACC__ __GNUC__ __clang__ __SSE2__ __x86_64__ __i386__ __aarch64__ NDEBUG CUDART_VERSION __cplusplus "
status=0
names=$(grep -hoE '^\s*#\s*(ifdef|ifndef|if|elif)\b.*' "$@" --include='*.c' --include='*.h' --include='*.re' \
        --include='*.y' -r | sed -E 's/^\s*#\s*(ifdef|ifndef|if|elif)//; s/\/\*.*//' |
        grep -oE '\b[A-Za-z_][A-Za-z0-9_]*\b' | grep -vE '^(defined|[0-9].*)$' | sort -u)
for name in $names; do
    [[ "$PREDEFINED" == *" $name "* ]] && continue
    case $name in *_H) continue ;; esac     # include guards
    grep -qE -- "-D$name\b" Makefile && continue
    grep -rqE "#\s*define\s+$name\b" "$@" && continue
    echo "#if on $name, which no build defines"
    status=1
done
exit $status
