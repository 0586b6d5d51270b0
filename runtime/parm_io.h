/* parm_io.h: the standalone text format, for programs built with --emit-main.
 *
 * Inputs are whitespace-separated values in index order (tuples flattened
 * field by field); results are one element per line, fields separated by a
 * space. The parsing and printing rules are the interpreter's (compiler/io.c,
 * compiler/types.c): integers in decimal and exactly in range, bool as
 * true/false (or 1/0), f32 printed with %.9g and f64 with %.17g. */
#ifndef PARM_IO_H
#define PARM_IO_H

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *text;     /* all of the input, NUL-terminated */
    size_t pos;     /* next unread byte */
    long count;     /* values read so far */
} parm_input;

/* Where a NUL byte at text[at] is, as "<stdin>:LINE:COL" with COL in bytes. */
static inline void parm_report_nul(const char *text, size_t at) {
    long line = 1, col = 1;
    for (size_t i = 0; i < at; i++) {
        if (text[i] == '\n') { line++; col = 1; }
        else col++;
    }
    fprintf(stderr, "<stdin>:%ld:%ld: error: the input contains a NUL byte\n", line, col);
}

/* Reads all of f; on an error reports it on stderr and returns -1. A NUL
 * byte is an error (the interpreter's message, compiler/io.c): it would
 * otherwise end the input silently. */
static inline int parm_input_read(parm_input *in, FILE *f) {
    size_t cap = 1 << 16, n = 0, got;
    in->text = (char *)malloc(cap);
    in->pos = 0;
    in->count = 0;
    if (!in->text) { fputs("error: cannot read the input\n", stderr); return -1; }
    while ((got = fread(in->text + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *grown = (char *)realloc(in->text, cap *= 2);
            if (!grown) { fputs("error: cannot read the input\n", stderr); return -1; }
            in->text = grown;
        }
    }
    in->text[n] = 0;
    if (ferror(f)) { fputs("error: cannot read the input\n", stderr); return -1; }
    const char *nul = (const char *)memchr(in->text, 0, n);
    if (nul) { parm_report_nul(in->text, (size_t)(nul - in->text)); return -1; }
    return 0;
}

static inline int parm_is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

/* The next token into buf; 0 at the end of the input. */
static inline int parm_next_token(parm_input *in, char *buf, size_t size) {
    while (in->text[in->pos] && parm_is_space(in->text[in->pos])) in->pos++;
    if (!in->text[in->pos]) return 0;
    size_t n = 0;
    while (in->text[in->pos] && !parm_is_space(in->text[in->pos])) {
        if (n + 1 < size) buf[n++] = in->text[in->pos];
        else buf[0] = '#';   /* too long for any number: unparsable */
        in->pos++;
    }
    buf[n] = 0;
    in->count++;
    return 1;
}

static inline int parm_parse_signed(const char *tok, int bits, int64_t *out) {
    char *end;
    errno = 0;
    long long x = strtoll(tok, &end, 10);
    if (errno || *end || end == tok) return 0;
    if (bits < 64 && (x < -(1LL << (bits - 1)) || x >= (1LL << (bits - 1)))) return 0;
    *out = x;
    return 1;
}

static inline int parm_parse_unsigned(const char *tok, int bits, uint64_t *out) {
    char *end;
    if (tok[0] == '-') return 0;
    errno = 0;
    unsigned long long x = strtoull(tok, &end, 10);
    if (errno || *end || end == tok) return 0;
    if (bits < 64 && x >> bits) return 0;
    *out = x;
    return 1;
}

static inline int parm_parse_bool(const char *tok, uint8_t *out) {
    if (!strcmp(tok, "true") || !strcmp(tok, "1")) { *out = 1; return 1; }
    if (!strcmp(tok, "false") || !strcmp(tok, "0")) { *out = 0; return 1; }
    return 0;
}

static inline int parm_parse_double(const char *tok, double *out) {
    char *end;
    *out = strtod(tok, &end);
    return !*end && end != tok;
}

static inline void parm_print_signed(FILE *f, int64_t v) { fprintf(f, "%" PRId64, v); }
static inline void parm_print_unsigned(FILE *f, uint64_t v) { fprintf(f, "%" PRIu64, v); }
static inline void parm_print_bool(FILE *f, uint8_t v) { fputs(v ? "true" : "false", f); }
static inline void parm_print_f32(FILE *f, float v) { fprintf(f, "%.9g", (double)v); }
static inline void parm_print_f64(FILE *f, double v) { fprintf(f, "%.17g", v); }

#endif
