/* diag.c: GNU-style diagnostics (diag.h).
 *
 *   FILE:LINE:COL: error: MESSAGE
 *   <the source line>
 *   <spaces, tabs kept from the line>^
 *
 * Everything goes to stderr, or to the stream given to diag_set_stream.
 * Control characters in the echoed line are shown as '?' so that garbage
 * input cannot upset the terminal; the caret line copies tabs and skips
 * UTF-8 continuation bytes so the caret stays under the column (columns
 * themselves are 1-based byte offsets). */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
    if (loc.src)
        fprintf(out(), "%s:%d:%d: %s: ", loc.src->name, loc.line, loc.col, kind);
    else
        fprintf(out(), "parmc: %s: ", kind);
    vfprintf(out(), fmt, ap);
    fputc('\n', out());
    if (loc.src)
        show_line(loc);
}

void diag_report(Loc loc, const char *fmt, ...)
{
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
    fflush(out());
    if (diag_handler)
        longjmp(*diag_handler, 1);
    exit(1);
}

noreturn void diag_error(Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("error", loc, fmt, ap);
    va_end(ap);
    diag_abort();
}

noreturn void diag_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("error", (Loc){0}, fmt, ap);
    va_end(ap);
    diag_abort();
}
