/* driver.h: one compilation, from source text to the requested output.
 * main.c turns the command line into Options; the driver runs the pipeline. */
#ifndef PARMC_DRIVER_H
#define PARMC_DRIVER_H

#include <stdbool.h>

typedef enum { ACTION_COMPILE, ACTION_CHECK, ACTION_INTERPRET, ACTION_DUMP_IR } Action;

typedef struct {
    Action action;
    const char *input;          /* the .parm file */
    const char *output;         /* -o */
    const char *entry;          /* -e; NULL = every entry (compile) or main */
    const char *dump_stage;     /* --dump-ir=STAGE */
} Options;

/* Returns the process exit code: 0, or 1 after a diagnostic. */
int driver_run(const Options *opt);

#endif
