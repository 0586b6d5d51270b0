/* subcmd.c: the command-line helpers of `parmc test` and `parmc bench`. */
#include "subcmd.h"

#include <stdio.h>
#include <string.h>

const char *subcmd_value(int argc, char **argv, int *i, char letter, const char *name,
                         bool *missing) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (a[0] == '-' && a[1] == letter && a[2]) return a + 2;
    if (!strncmp(a, "--", 2) && !strncmp(a + 2, name, n) && a[2 + n] == '=') return a + 3 + n;
    if ((a[0] == '-' && a[1] == letter && !a[2]) ||
        (!strncmp(a, "--", 2) && !strcmp(a + 2, name))) {
        if (*i + 1 < argc) return argv[++*i];
        *missing = true;
    }
    return NULL;
}

int subcmd_usage_error(const char *cmd, const char *fmt, const char *arg) {
    fprintf(stderr, "parmc %s: error: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(run 'parmc %s --help' for usage)\n", cmd);
    return 2;
}
