/* check.h: the one checker of the unit tests (tests/unit/test_*.c, run by
 * section 10-unit). Each test counts its checks with check(), may group them
 * with check_mark() and check_group(), and ends with
 * `return check_summary("name");`, which prints "name: N passed, M failed"
 * and gives the exit status: 1 on any failure. Included by one .c file. */
#ifndef PARMC_CHECK_H
#define PARMC_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

enum { CHECK_SHOWN = 20 }; /* failures printed in full; a broken loop prints no more */

static int check_passed, check_failed;

/* Counts one check; a failure prints "  FAIL: " and the message. */
static inline void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void check(bool ok, const char *fmt, ...) {
    if (ok) {
        check_passed++;
        return;
    }
    if (++check_failed > CHECK_SHOWN) return;
    va_list ap;
    va_start(ap, fmt);
    printf("  FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

/* The counts so far, to report a group of checks with check_group. */
typedef struct {
    int passed, failed;
} CheckMark;

static inline CheckMark check_mark(void) { return (CheckMark){check_passed, check_failed}; }

/* "ok   NAME (N checks)", or FAIL when a check since the mark failed. */
static inline void check_group(CheckMark since, const char *name) {
    printf("%-4s %s (%d checks)\n", check_failed > since.failed ? "FAIL" : "ok", name,
           check_passed + check_failed - since.passed - since.failed);
}

/* "NAME: N passed, M failed"; the test's exit status. */
static inline int check_summary(const char *name) {
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
