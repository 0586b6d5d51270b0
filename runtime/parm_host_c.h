/* parm_host_c.h: the host runtime of the C target (--target c), which runs
 * the CUDA API's calls over host pointers: the context, which keeps the
 * scratch memory of a call for later calls.
 *
 * The emitted file includes it after its status codes (PARM_OK...) and
 * `typedef struct NAME_ctx parm_ctx;`. The API's own names (NAME_ctx_create)
 * are spelled here with a placeholder prefix, which compiler/back/embed.sh turns
 * into the program's, so that programs of different prefixes link together.
 * tests/sections/50-runtime.sh compiles this header on its own. */
#ifndef PARM_HOST_C_H
#define PARM_HOST_C_H

#include <stddef.h>
#include <stdlib.h>

struct parm_api_ctx {
    void *scratch;
    size_t scratch_bytes;
    size_t failed_bytes; /* the allocation that gave PARM_ERROR_MEMORY, */
    const char *failed;  /* what it was for (the standalone main says) */
};

int parm_api_ctx_create(parm_ctx **ctx) {
    if (!ctx) return PARM_ERROR_NULL;
    *ctx = (parm_ctx *)calloc(1, sizeof **ctx);
    return *ctx ? PARM_OK : PARM_ERROR_MEMORY;
}

void parm_api_ctx_destroy(parm_ctx *ctx) {
    if (!ctx) return;
    free(ctx->scratch);
    free(ctx);
}

/* An allocation of `bytes` for `what` (a static text) that failed. */
static int parm_out_of_memory(parm_ctx *ctx, size_t bytes, const char *what) {
    ctx->failed_bytes = bytes;
    ctx->failed = what;
    return PARM_ERROR_MEMORY;
}

/* The scratch memory of a call (`what`: whose), kept for later calls. */
static int parm_scratch(parm_ctx *ctx, size_t bytes, const char *what, char **base) {
    if (ctx->scratch_bytes < bytes) {
        free(ctx->scratch);
        ctx->scratch = malloc(bytes);
        ctx->scratch_bytes = ctx->scratch ? bytes : 0;
        if (!ctx->scratch) return parm_out_of_memory(ctx, bytes, what);
    }
    *base = (char *)ctx->scratch;
    return 0;
}

/* The end of a call (NAME_run's last step): nothing is left to order here,
   as every call has finished when it returns. */
static int parm_call_done(parm_ctx *ctx) {
    (void)ctx;
    return PARM_OK;
}

#endif
