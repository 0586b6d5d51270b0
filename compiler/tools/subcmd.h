/* subcmd.h: the command-line helpers that `parmc test` and `parmc bench`
 * share (the main command line has its option table in main.c). */
#ifndef PARMC_SUBCMD_H
#define PARMC_SUBCMD_H

#include <stdbool.h>

/* A value option given as `-xV`, `-x V`, `--long=V` or `--long V`: its
 * value, advancing *i past a separate one; NULL when argv[*i] is not this
 * option, with *missing set when it is but no value follows. */
const char *subcmd_value(int argc, char **argv, int *i, char letter, const char *name,
                         bool *missing);

/* "parmc CMD: error: MSG" and a pointer to --help on stderr; returns 2,
 * the exit status of a usage error. */
int subcmd_usage_error(const char *cmd, const char *fmt, const char *arg)
    __attribute__((format(printf, 2, 0)));

#endif
