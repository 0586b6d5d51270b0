/* diag.c: GNU-style diagnostics (diag.h).
 *
 *   FILE:LINE:COL: error: MESSAGE
 *   <the source line>
 *   <spaces, tabs kept from the line>^
 *
 * Notes follow in the same form; "FILE: error: ..." is an error about a file
 * as a whole (line 0), "parmc: error: ..." one with no file. Everything goes
 * to stderr, or to the stream given to diag_set_stream.
 * Control characters in the echoed line are shown as '?' so that garbage
 * input cannot upset the terminal; the caret line copies tabs and skips
 * UTF-8 continuation bytes so the caret stays under the column (columns
 * themselves are 1-based byte offsets). A long line is clipped to a window
 * around the caret. A location with line 0 is a whole file: "FILE: error:",
 * without a source line. */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

jmp_buf *diag_handler;

bool source_has_bom(const Source *src) {
    return src->text && src->len >= 3 && memcmp(src->text, "\xef\xbb\xbf", 3) == 0;
}

static FILE *diag_stream; /* NULL: stderr */

void diag_set_stream(FILE *f) { diag_stream = f; }

static FILE *out(void) { return diag_stream ? diag_stream : stderr; }

/* A source line longer than this is shown as a window of about this many
 * bytes around the caret, so that a huge one-line input gives a readable
 * diagnostic in constant time. */
enum { SHOW_MAX = 160, SHOW_BEFORE = 80, ELLIPSIS = 3 };

typedef struct {
    char text[SHOW_MAX + 4 + 2 * ELLIPSIS + 2]; /* the window may end after a whole character */
    int len;
} LineBuf;

static void put(LineBuf *b, char c) {
    if (b->len < (int)sizeof b->text - 1) b->text[b->len++] = c;
}

/* The bytes [from, to) of the line p[0..width) that show_line echoes: all of
 * it when it is short, else a window that starts and ends on whole UTF-8
 * characters and holds the caret. */
static void window(const char *p, long width, long caret, long *from, long *to) {
    *from = 0;
    *to = width;
    if (width <= SHOW_MAX) return;
    *from = caret > SHOW_BEFORE ? caret - SHOW_BEFORE : 0;
    if (*from + SHOW_MAX > width) *from = width - SHOW_MAX;
    *to = *from + SHOW_MAX;
    while (*from > 0 && *from < caret && ((unsigned char)p[*from] & 0xc0) == 0x80) (*from)++;
    for (int extra = 0; *to < width && extra < 3 && ((unsigned char)p[*to] & 0xc0) == 0x80; extra++)
        (*to)++;
}

/* Prints the source line of loc and a caret under its column, each with one
 * write (stderr is unbuffered). */
static void show_line(Loc loc) {
    const Source *src = loc.src;
    if (!src->text || loc.line < 1 || loc.col < 1) return;
    const char *p = src->text + (source_has_bom(src) ? 3 : 0), *end = src->text + src->len;
    for (int line = 1; line < loc.line; line++) {
        p = memchr(p, '\n', (size_t)(end - p));
        if (!p) return;
        p++;
    }
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    if (eol > p && eol[-1] == '\r') eol--;
    long width = (long)(eol - p), caret = loc.col - 1L, from, to;
    if (caret > width) caret = width;
    window(p, width, caret, &from, &to);
    LineBuf text = {.len = 0}, marks = {.len = 0};
    for (int i = 0; from > 0 && i < ELLIPSIS; i++) {
        put(&text, '.');
        put(&marks, ' ');
    }
    for (long i = from; i < to; i++) {
        unsigned char c = (unsigned char)p[i];
        put(&text, (char)(c == '\t' || (c >= 0x20 && c != 0x7f) ? c : '?'));
    }
    for (int i = 0; to < width && i < ELLIPSIS; i++) put(&text, '.');
    for (long i = from; i < caret; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\t') put(&marks, '\t');
        else if ((c & 0xc0) != 0x80) put(&marks, ' ');
    }
    put(&text, '\n');
    put(&marks, '^');
    put(&marks, '\n');
    fwrite(text.text, 1, (size_t)text.len, out());
    fwrite(marks.text, 1, (size_t)marks.len, out());
}

static void vreport(const char *kind, Loc loc, const char *fmt, va_list ap) {
    fflush(stdout);
    if (loc.src && loc.line > 0)
        fprintf(out(), "%s:%d:%d: %s: ", loc.src->name, loc.line, loc.col, kind);
    else if (loc.src) fprintf(out(), "%s: %s: ", loc.src->name, kind);
    else fprintf(out(), "parmc: %s: ", kind);
    vfprintf(out(), fmt, ap);
    fputc('\n', out());
    if (loc.src) show_line(loc);
}

static DiagContext *context, *context_lead;
static void *context_data;
static Loc last_error; /* for the context's notes */

void diag_set_context(DiagContext *lead, DiagContext *notes, void *data) {
    context_lead = lead;
    context = notes;
    context_data = data;
}

void diag_lead(Loc loc, const char *fmt, ...) {
    fflush(stdout);
    if (loc.src && loc.line > 0) fprintf(out(), "%s:%d:%d: ", loc.src->name, loc.line, loc.col);
    else if (loc.src) fprintf(out(), "%s: ", loc.src->name);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out(), fmt, ap);
    va_end(ap);
    fputs(":\n", out());
}

/* An error's location, and the context's lines before it. */
static void begin_error(Loc loc) {
    last_error = loc;
    DiagContext *lead = context_lead;
    context_lead = NULL; /* once per error, even if it reports one */
    if (lead) lead(context_data, loc);
}

void diag_report(Loc loc, const char *fmt, ...) {
    begin_error(loc);
    va_list ap;
    va_start(ap, fmt);
    vreport("error", loc, fmt, ap);
    va_end(ap);
}

void diag_warning(Loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport("warning", loc, fmt, ap);
    va_end(ap);
}

void diag_note(Loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport("note", loc, fmt, ap);
    va_end(ap);
}

noreturn void diag_abort(void) {
    DiagContext *fn = context;
    context = context_lead = NULL;
    if (fn) fn(context_data, last_error);
    fflush(out());
    if (diag_handler) longjmp(*diag_handler, 1);
    exit(1);
}

noreturn void diag_error(Loc loc, const char *fmt, ...) {
    begin_error(loc);
    va_list ap;
    va_start(ap, fmt);
    vreport("error", loc, fmt, ap);
    va_end(ap);
    diag_abort();
}

noreturn void diag_fatal(const char *fmt, ...) {
    last_error = (Loc){0};
    va_list ap;
    va_start(ap, fmt);
    vreport("error", (Loc){0}, fmt, ap);
    va_end(ap);
    diag_abort();
}

/* ---- suggestions ---- */

enum { MAX_SUGGEST_LEN = 64 }; /* longer names are not compared */

int diag_edit_distance(const char *a, const char *b, int limit) {
    size_t na = strlen(a), nb = strlen(b);
    if (na > MAX_SUGGEST_LEN || nb > MAX_SUGGEST_LEN) return limit + 1;
    if ((na > nb ? na - nb : nb - na) > (size_t)limit) return limit + 1;
    /* optimal string alignment: three rows of the Damerau-Levenshtein table */
    int rows[3][MAX_SUGGEST_LEN + 1];
    int *before = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= nb; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int d = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < d) d = prev[j] + 1;
            if (cur[j - 1] + 1 < d) d = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                before[j - 2] + 1 < d)
                d = before[j - 2] + 1;
            cur[j] = d;
        }
        int *t = before;
        before = prev;
        prev = cur;
        cur = t;
    }
    return prev[nb] <= limit ? prev[nb] : limit + 1;
}

/* One edit in three characters, at least one: "sotr" -> "sort",
 * "ascendng" -> "ascending"; never a change of every character ("x" -> "y"). */
bool diag_similar(const char *typed, const char *name) {
    size_t nt = strlen(typed), nn = strlen(name);
    int limit = (int)((nt > 3 ? nt : 3) / 3);
    size_t shorter = nt < nn ? nt : nn;
    int d = diag_edit_distance(typed, name, limit);
    return d > 0 && d <= limit && (size_t)d < shorter;
}
