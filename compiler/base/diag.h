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
    const char *name; /* path as given on the command line */
    const char *text; /* NUL-terminated contents */
    int len;
} Source;

typedef struct {
    const Source *src; /* NULL for locations that are not in a file */
    int line, col;     /* 1-based; line 0: the file as a whole ("FILE: error: ...") */
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
/* A stage that knows how an error was reached (the specialiser: the calls
 * that led to it) sets functions that add to the next error. `lead` runs
 * before the error's line (it may print diag_lead lines: where the user's
 * code led to an error in an imported file); `notes` runs once, in
 * diag_abort, after the error's own notes. Both are given the error's
 * location; diag_abort clears them, and a stage clears them (NULL) when it
 * ends. */
typedef void DiagContext(void *data, Loc error);
void diag_set_context(DiagContext *lead, DiagContext *notes, void *data);
/* A line before an error, "FILE:LINE:COL: MESSAGE:", without a source line. */
void diag_lead(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether `typed` is close enough to `name` to suggest it ("did you mean"):
 * a small edit distance (insertions, deletions, substitutions and swaps of
 * neighbours), relative to the length. */
bool diag_similar(const char *typed, const char *name);
/* The edit distance of a and b when it is at most limit, else limit + 1. */
int diag_edit_distance(const char *a, const char *b, int limit);
/* Send diagnostics to f instead of stderr (NULL: back to stderr); the
 * fuzzer silences them this way. */
void diag_set_stream(FILE *f);

#endif
