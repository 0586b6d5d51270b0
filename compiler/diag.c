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
 * themselves are 1-based byte offsets). */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

jmp_buf *diag_handler;

static FILE *diag_stream;       /* NULL: stderr */

void diag_set_stream(FILE *f) { diag_stream = f; }

static FILE *out(void) { return diag_stream ? diag_stream : stderr; }

/* Prints the source line of loc and a caret under its column. */
static void show_line(Loc loc)
{
    const Source *src = loc.src;
    if (!src->text || loc.line < 1 || loc.col < 1)
        return;
    const char *p = src->text, *end = src->text + src->len;
    for (int line = 1; line < loc.line; line++) {
        while (p < end && *p != '\n')
            p++;
        if (p == end)
            return;
        p++;
    }
    const char *eol = p;
    while (eol < end && *eol != '\n')
        eol++;
    if (eol > p && eol[-1] == '\r')
        eol--;
    for (const char *q = p; q < eol; q++) {
        unsigned char c = (unsigned char)*q;
        fputc(c == '\t' || (c >= 0x20 && c != 0x7f) ? c : '?', out());
    }
    fputc('\n', out());
    long width = (long)(eol - p);
    for (long i = 0; i < (long)loc.col - 1; i++) {
        unsigned char c = i < width ? (unsigned char)p[i] : ' ';
        if (c == '\t')
            fputc('\t', out());
        else if ((c & 0xc0) != 0x80)
            fputc(' ', out());
    }
    fputs("^\n", out());
}

static void vreport(const char *kind, Loc loc, const char *fmt, va_list ap)
{
    fflush(stdout);
    if (loc.src && loc.line > 0)
        fprintf(out(), "%s:%d:%d: %s: ", loc.src->name, loc.line, loc.col, kind);
    else if (loc.src)
        fprintf(out(), "%s: %s: ", loc.src->name, kind);
    else
        fprintf(out(), "parmc: %s: ", kind);
    vfprintf(out(), fmt, ap);
    fputc('\n', out());
    if (loc.src)
        show_line(loc);
}

static DiagContext *context;
static void *context_data;
static Loc last_error;      /* for the context's notes */

void diag_set_context(DiagContext *fn, void *data)
{
    context = fn;
    context_data = data;
}

void diag_report(Loc loc, const char *fmt, ...)
{
    last_error = loc;
    va_list ap;
    va_start(ap, fmt);
    vreport("error", loc, fmt, ap);
    va_end(ap);
}

void diag_note(Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("note", loc, fmt, ap);
    va_end(ap);
}

noreturn void diag_abort(void)
{
    DiagContext *fn = context;
    context = NULL;
    if (fn)
        fn(context_data, last_error);
    fflush(out());
    if (diag_handler)
        longjmp(*diag_handler, 1);
    exit(1);
}

noreturn void diag_error(Loc loc, const char *fmt, ...)
{
    last_error = loc;
    va_list ap;
    va_start(ap, fmt);
    vreport("error", loc, fmt, ap);
    va_end(ap);
    diag_abort();
}

noreturn void diag_fatal(const char *fmt, ...)
{
    last_error = (Loc){0};
    va_list ap;
    va_start(ap, fmt);
    vreport("error", (Loc){0}, fmt, ap);
    va_end(ap);
    diag_abort();
}

/* ---- suggestions ---- */

enum { MAX_SUGGEST_LEN = 64 };  /* longer names are not compared */

int diag_edit_distance(const char *a, const char *b, int limit)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na > MAX_SUGGEST_LEN || nb > MAX_SUGGEST_LEN)
        return limit + 1;
    if ((na > nb ? na - nb : nb - na) > (size_t)limit)
        return limit + 1;
    /* optimal string alignment: three rows of the Damerau-Levenshtein table */
    int rows[3][MAX_SUGGEST_LEN + 1];
    int *before = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= nb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int d = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < d)
                d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && before[j - 2] + 1 < d)
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
bool diag_similar(const char *typed, const char *name)
{
    size_t nt = strlen(typed), nn = strlen(name);
    int limit = (int)((nt > 3 ? nt : 3) / 3);
    size_t shorter = nt < nn ? nt : nn;
    int d = diag_edit_distance(typed, name, limit);
    return d > 0 && d <= limit && (size_t)d < shorter;
}
