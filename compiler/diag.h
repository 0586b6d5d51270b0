/* diag.h: GNU-style diagnostics with the source line and a caret.
 *
 * Errors are fatal: diag_error prints and then longjmps to the handler that
 * the driver installed with DIAG_TRY, so every stage can stop at the first
 * error without threading error codes through deep recursion. */
#ifndef PARMC_DIAG_H
#define PARMC_DIAG_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdnoreturn.h>

typedef struct {
    const char *name;   /* path as given on the command line */
    const char *text;   /* NUL-terminated contents */
    int len;
} Source;

typedef struct {
    const Source *src;  /* NULL for locations that are not in a file */
    int line, col;      /* 1-based; line 0: the whole file ("FILE: error: ...") */
} Loc;

/* Whether src starts with a UTF-8 byte-order mark (EF BB BF), which the
 * lexer skips and columns do not count. */
bool source_has_bom(const Source *src);

extern jmp_buf *diag_handler;

noreturn void diag_error(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* For errors followed by notes (a call chain): print the error, the notes,
 * then diag_abort(). */
void diag_report(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_note(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A warning: printed like an error, but compilation goes on. */
void diag_warning(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
noreturn void diag_abort(void);
/* An error with no source position: "parmc: error: ...". */
noreturn void diag_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Send diagnostics to f instead of stderr (NULL: back to stderr); the
 * fuzzer silences them this way. */
void diag_set_stream(FILE *f);

#endif
