/* manifest.h: NAME.json beside NAME.h, the compiled entries described for
 * tools that call them without parsing C (docs/manifest.md). */
#ifndef PARMC_MANIFEST_H
#define PARMC_MANIFEST_H

#include <stdio.h>

#include "ast.h"
#include "ir.h"

typedef struct {
    const char *source;         /* the .parm file as named on the command line */
    const char *target;         /* "cuda" or "c" */
    int gpus;                   /* --gpus: 1, or the GPUs (ranks) compiled for */
    const char *prefix;         /* the API's prefix */
    const char *header;         /* the header's file name, as the output includes it */
    const Program *program;     /* the entries' parameter names */
    const IrFunc *const *funcs; /* the compiled specialisations, each entry's in size order */
    int nfuncs;
} ManifestInput;

void manifest_write(FILE *out, const ManifestInput *in);

#endif
