/* runtime_prelude.h: what an emitted program defines before its host
 * runtime headers (compiler/back/emit_common.c, emit_preamble), for
 * tests/sections/50-runtime.sh, which compiles each header on its own:
 * the context's short name and the status codes. The API's names are
 * spelled with the headers' placeholder prefix (compiler/back/embed.sh). */
#include <stddef.h>
#include <stdint.h>

typedef struct parm_api_ctx parm_ctx;

enum {
    PARM_OK,
    PARM_ERROR_NULL,
    PARM_ERROR_LENGTH,
    PARM_ERROR_MEMORY,
    PARM_ERROR_CUDA,
    PARM_ERROR_DEVICE,
    PARM_ERROR_ALIAS
};
